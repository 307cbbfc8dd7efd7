"""Messages: conversations, starting a chat with a contact or number, sending texts."""

from __future__ import annotations

from collections.abc import Callable

from simulator.display import WIDTH
from simulator.runtime import Page, Phone
from simulator.state import MESSAGES, Contact, SentMessage
from simulator.view import BUTTON, FRAME, IMAGE, LINEAR, TEXT, VIEW, Rect, ScrollState, View, rid
from simulator.widgets import Field, edit_text, icon_button, recycler, text, toolbar


def conversation_names(phone: Phone) -> list[str]:
    """Everyone with a thread, the most recently active first."""
    names: list[str] = []
    for message in reversed(phone.state.messages):
        if message.to not in names:
            names.append(message.to)
    for received in reversed(phone.state.inbox):
        if received.sender not in names:
            names.append(received.sender)
    return names


def open_conversation(phone: Phone, name: str) -> None:
    """Show the thread with `name` in Messages (from another app, a contact's Text button)."""
    phone.launch(MESSAGES)
    phone.push(ConversationPage(phone, name))


class ConversationListPage(Page):
    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, MESSAGES)
        self.scroll = ScrollState()

    def _row(self, name: str) -> Callable[[Rect], View]:
        thread = thread_of(self.phone, name)
        snippet = thread[-1][1] if thread else ""

        def build(box: Rect) -> View:
            return View(
                LINEAR,
                box,
                rid=rid(MESSAGES, "swipeableContainer"),
                clickable=True,
                focusable=True,
                long_clickable=True,
                on_tap=lambda: self.phone.push(ConversationPage(self.phone, name)),
                children=[
                    View(
                        IMAGE,
                        Rect(42, box.y1 + 40, 168, box.y1 + 166),
                        rid=rid(MESSAGES, "conversation_icon"),
                    ),
                    text(name, 210, box.y1 + 40, 46, 850, rid=rid(MESSAGES, "conversation_name")),
                    text(
                        snippet,
                        210,
                        box.y1 + 110,
                        40,
                        1000,
                        rid=rid(MESSAGES, "conversation_snippet"),
                    ),
                    text(
                        "Now",
                        900,
                        box.y1 + 40,
                        36,
                        1040,
                        rid=rid(MESSAGES, "conversation_timestamp"),
                    ),
                ],
            )

        return build

    def content(self, frame: Rect) -> View:
        bar = Rect(0, frame.y1, WIDTH, frame.y1 + 190)
        body = Rect(0, bar.y2, WIDTH, frame.y2)
        names = conversation_names(self.phone)
        start = Rect(WIDTH - 42 - 380, frame.y2 - 42 - 168, WIDTH - 42, frame.y2 - 42)
        return View(
            FRAME,
            frame,
            rid=rid(MESSAGES, "conversation_list_root_container"),
            children=[
                View(
                    LINEAR,
                    bar,
                    rid=rid(MESSAGES, "toolbar"),
                    children=[
                        text(
                            "Messages", 63, bar.y1 + 60, 60, 700, rid=rid(MESSAGES, "toolbar_title")
                        ),
                        icon_button(
                            "Search conversations", Rect(786, bar.y1 + 20, 933, bar.y2 - 20), None
                        ),
                        icon_button(
                            "More options", Rect(933, bar.y1 + 20, 1080, bar.y2 - 20), None
                        ),
                    ],
                ),
                recycler(
                    body,
                    [(206, self._row(n)) for n in names],
                    self.scroll,
                    rid(MESSAGES, "conversation_list"),
                ),
                View(
                    BUTTON,
                    start,
                    rid=rid(MESSAGES, "start_chat_fab"),
                    text="Start chat",
                    desc="Start chat",
                    clickable=True,
                    focusable=True,
                    on_tap=lambda: self.phone.push(NewConversationPage(self.phone)),
                ),
            ],
        )


def thread_of(phone: Phone, name: str) -> list[tuple[bool, str]]:
    """(sent by me, text) pairs of a conversation, oldest first: received texts, then sent."""
    received = [(False, m.text) for m in phone.state.inbox if m.sender == name]
    sent = [(True, m.text) for m in phone.state.messages if m.to == name]
    return received + sent


class NewConversationPage(Page):
    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, MESSAGES)
        self.to = Field(
            hint="Type a name, phone number, or email",
            on_change=self._rescroll,
            on_enter=self._send_to_typed,
        )
        self.scroll = ScrollState()
        phone.focus_field(self.to, self)

    def on_resume(self) -> None:
        self.phone.focus_field(self.to, self)

    def _rescroll(self) -> None:
        self.scroll.offset = 0

    def _start(self, name: str) -> None:
        self.phone.pop(self)
        self.phone.push(ConversationPage(self.phone, name))

    def _send_to_typed(self) -> None:
        typed = self.to.text.strip()
        people = [c for c in self.state.contacts if c.matches(typed)]
        if len(people) == 1:
            self._start(people[0].name)
        elif typed and _is_number(typed):
            self._start(typed)

    def _recipient_row(self, box: Rect, recipient: str, children: list[View]) -> View:
        """A row of the recipient list; a tap starts the conversation with `recipient`."""
        return View(
            LINEAR,
            box,
            rid=rid(MESSAGES, "contact_picker_item"),
            clickable=True,
            focusable=True,
            on_tap=lambda: self._start(recipient),
            children=children,
        )

    def _row(self, contact: Contact) -> Callable[[Rect], View]:
        def build(box: Rect) -> View:
            return self._recipient_row(
                box,
                contact.name,
                [
                    View(
                        IMAGE,
                        Rect(42, box.y1 + 30, 168, box.y1 + 156),
                        rid=rid(MESSAGES, "contact_icon"),
                    ),
                    text(
                        contact.name, 210, box.y1 + 30, 46, 1000, rid=rid(MESSAGES, "contact_name")
                    ),
                    text(
                        contact.phone,
                        210,
                        box.y1 + 100,
                        38,
                        1000,
                        rid=rid(MESSAGES, "contact_details"),
                    ),
                ],
            )

        return build

    def content(self, frame: Rect) -> View:
        typed = self.to.text.strip()
        people = sorted(
            (c for c in self.state.contacts if c.matches(typed)), key=lambda c: c.name.casefold()
        )
        rows: list[tuple[int, Callable[[Rect], View]]] = []
        if typed and _is_number(typed):

            def send_to(box: Rect) -> View:
                label = f"Send to {typed}"
                return self._recipient_row(
                    box,
                    typed,
                    [text(label, 210, box.y1 + 60, 46, 1000, rid=rid(MESSAGES, "contact_name"))],
                )

            rows.append((190, send_to))
        rows += [(190, self._row(c)) for c in people]
        to_box = Rect(0, frame.y1 + 168, WIDTH, frame.y1 + 330)
        body = Rect(0, to_box.y2, WIDTH, frame.y2)
        return View(
            FRAME,
            frame,
            rid=rid(MESSAGES, "new_conversation_root"),
            children=[
                toolbar(MESSAGES, "New conversation", frame, lambda: self.phone.pop(self)),
                View(
                    LINEAR,
                    to_box,
                    rid=rid(MESSAGES, "recipient_row"),
                    children=[
                        text("To", 63, to_box.y1 + 50, 44, 160),
                        edit_text(
                            self.to,
                            Rect(170, to_box.y1 + 20, 1038, to_box.y2 - 20),
                            self.phone.focus is self.to,
                            self.phone.focuser(self.to, self),
                            rid(MESSAGES, "recipient_text_view"),
                        ),
                    ],
                ),
                recycler(body, rows, self.scroll, rid(MESSAGES, "contact_list")),
            ],
        )


def _is_number(value: str) -> bool:
    digits = [char for char in value if char.isdigit()]
    return len(digits) >= 3 and all(char.isdigit() or char in "+-() " for char in value)


class ConversationPage(Page):
    def __init__(self, phone: Phone, name: str) -> None:
        super().__init__(phone, MESSAGES)
        self.name = name
        self.draft = Field(hint="Text message", on_enter=None)
        self.scroll = ScrollState()

    def _send(self) -> None:
        body = self.draft.text.strip()
        if not body:
            return
        self.state.messages = [*self.state.messages, SentMessage(to=self.name, text=body)]
        self.draft.set("")
        self.scroll.offset = 1 << 30  # jump to the newest message
        self.phone.show_toast("Message sent")

    def _bubble(self, mine: bool, body: str) -> Callable[[Rect], View]:
        def build(box: Rect) -> View:
            said = "You said" if mine else f"{self.name} said"
            width = min(60 + int(len(body) * 22), 760)
            x1, x2 = (WIDTH - 42 - width, WIDTH - 42) if mine else (42, 42 + width)
            return View(
                VIEW,
                box,
                clickable=True,
                focusable=True,
                children=[
                    View(
                        TEXT,
                        Rect(x1, box.y1 + 20, x2, box.y2 - 20),
                        rid="message_text",
                        text=body,
                        desc=f"{said}  {body}",
                    ),
                ],
            )

        return build

    def content(self, frame: Rect) -> View:
        compose = Rect(0, frame.y2 - 190, WIDTH, frame.y2)
        body = Rect(0, frame.y1 + 168, WIDTH, compose.y1)
        thread = thread_of(self.phone, self.name)
        rows = [(60 + 80 * (len(t) // 30 + 1), self._bubble(mine, t)) for mine, t in thread]
        has_text = bool(self.draft.text.strip())
        send = View(
            IMAGE,
            Rect(900, compose.y1 + 30, 1038, compose.y2 - 30),
            rid=rid(MESSAGES, "send_message_button_icon"),
            desc="Send SMS",
            clickable=has_text,
            enabled=has_text,
            focusable=True,
            on_tap=self._send if has_text else None,
        )
        return View(
            FRAME,
            frame,
            rid=rid(MESSAGES, "conversation_root_container"),
            children=[
                toolbar(
                    MESSAGES,
                    "",
                    frame,
                    lambda: self.phone.pop(self),
                    [
                        View(  # the name opens the contact's details on a phone; not here
                            VIEW,
                            Rect(189, frame.y1 + 10, 700, frame.y1 + 158),
                            rid="top_app_bar_title_row",
                            clickable=True,
                            focusable=True,
                            on_tap=lambda: None,
                            children=[text(self.name, 189, frame.y1 + 48, 56, 700)],
                        ),
                        icon_button("Call", Rect(786, frame.y1 + 10, 933, frame.y1 + 158), None),
                        icon_button("More", Rect(933, frame.y1 + 10, 1080, frame.y1 + 158), None),
                    ],
                    up_desc="Back",
                ),
                recycler(body, rows, self.scroll, rid(MESSAGES, "message_list")),
                View(
                    LINEAR,
                    compose,
                    rid=rid(MESSAGES, "compose_message_view"),
                    children=[
                        icon_button(
                            "Show attach content screen",
                            Rect(21, compose.y1 + 30, 147, compose.y2 - 30),
                            None,
                            "ComposeRowIcon:Shortcuts",
                        ),
                        edit_text(
                            self.draft,
                            Rect(147, compose.y1 + 30, 760, compose.y2 - 30),
                            self.phone.focus is self.draft,
                            self.phone.focuser(self.draft, self),
                            rid(MESSAGES, "compose_message_text"),
                        ),
                        icon_button(
                            "Show attach emoji and stickers screen",
                            Rect(760, compose.y1 + 30, 886, compose.y2 - 30),
                            None,
                            "ComposeRowIcon:Emotive",
                        ),
                        send,
                    ],
                ),
            ],
        )


def messages_root(phone: Phone) -> Page:
    return ConversationListPage(phone)
