"""Contacts: the list, search, a contact's details, and the create/edit form."""

from __future__ import annotations

from collections.abc import Callable

from simulator.apps.dialogs import ConfirmDialog
from simulator.apps.messages import open_conversation
from simulator.display import WIDTH
from simulator.runtime import Page, Phone
from simulator.state import CONTACTS, Contact
from simulator.view import FRAME, IMAGE, LINEAR, Rect, ScrollState, View, rid
from simulator.widgets import (
    Field,
    button,
    edit_text,
    fab,
    icon_button,
    recycler,
    scroll_view,
    text,
    toolbar,
)


class ContactListPage(Page):
    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, CONTACTS)
        self.searching = False
        self.query = Field(hint="Search contacts", on_change=self._rescroll)
        self.scroll = ScrollState()

    def _rescroll(self) -> None:
        self.scroll.offset = 0

    def _start_search(self) -> None:
        self.searching = True
        self.query.set("")
        self.phone.focus_field(self.query, self)

    def on_back(self) -> bool:
        if self.searching:
            self.searching = False
            self.query.set("")
            self.phone.blur()
            return True
        return False

    def _row(self, contact: Contact) -> Callable[[Rect], View]:
        def build(box: Rect) -> View:
            return View(
                LINEAR,
                box,
                rid=rid(CONTACTS, "contact_row"),
                clickable=True,
                focusable=True,
                long_clickable=True,
                on_tap=lambda: self.phone.push(ContactDetailPage(self.phone, contact)),
                children=[
                    View(
                        IMAGE,
                        Rect(63, box.y1 + 24, 189, box.y1 + 150),
                        rid=rid(CONTACTS, "avatar"),
                    ),
                    text(
                        contact.name,
                        231,
                        box.y1 + 52,
                        48,
                        1000,
                        rid=rid(CONTACTS, "cliv_name_textview"),
                    ),
                ],
            )

        return build

    def content(self, frame: Rect) -> View:
        people = sorted(
            (c for c in self.state.contacts if c.matches(self.query.text)),
            key=lambda c: c.name.casefold(),
        )
        bar = Rect(0, frame.y1, WIDTH, frame.y1 + 190)
        if self.searching:
            header = View(
                LINEAR,
                bar,
                rid=rid(CONTACTS, "open_search_bar"),
                children=[
                    icon_button(
                        "Navigate up",
                        Rect(0, bar.y1 + 20, 147, bar.y2 - 20),
                        lambda: self.phone.back(),
                    ),
                    edit_text(
                        self.query,
                        Rect(160, bar.y1 + 30, 1038, bar.y2 - 30),
                        self.phone.focus is self.query,
                        self.phone.focuser(self.query, self),
                        rid(CONTACTS, "open_search_view_edit_text"),
                    ),
                ],
            )
        else:
            header = View(
                FRAME,
                bar,
                rid=rid(CONTACTS, "search_bar"),
                children=[
                    View(
                        LINEAR,
                        bar.inset(42, 30),
                        rid=rid(CONTACTS, "open_search_bar_text_view"),
                        clickable=True,
                        focusable=True,
                        on_tap=self._start_search,
                        children=[text("Search contacts", 120, bar.y1 + 70, 44, 800)],
                    ),
                ],
            )
        body = Rect(0, bar.y2, WIDTH, frame.y2)
        children = [header]
        if people:
            children.append(
                recycler(
                    body,
                    [(174, self._row(c)) for c in people],
                    self.scroll,
                    rid(CONTACTS, "contacts_list"),
                )
            )
        else:
            children.append(
                text(
                    "No contacts found" if self.searching else "No contacts yet",
                    300,
                    body.y1 + 300,
                    48,
                    1000,
                    rid=rid(CONTACTS, "empty_view"),
                )
            )
        if not self.searching:
            children.append(
                fab(
                    CONTACTS,
                    "Create contact",
                    lambda: self.phone.push(ContactEditorPage(self.phone, None)),
                    frame.y2,
                    "floating_action_button",
                )
            )
        return View(FRAME, frame, rid=rid(CONTACTS, "contacts_main"), children=children)


class ContactDetailPage(Page):
    def __init__(self, phone: Phone, contact: Contact) -> None:
        super().__init__(phone, CONTACTS)
        self.contact = contact

    def _text(self) -> None:
        open_conversation(self.phone, self.contact.name)

    def content(self, frame: Rect) -> View:
        c = self.contact
        actions = [
            icon_button(
                "Edit contact",
                Rect(786, frame.y1 + 10, 933, frame.y1 + 158),
                lambda: self.phone.push(ContactEditorPage(self.phone, c)),
                rid(CONTACTS, "menu_edit"),
            ),
            icon_button("More options", Rect(933, frame.y1 + 10, 1080, frame.y1 + 158), None),
        ]
        y = frame.y1 + 168
        children = [
            toolbar(CONTACTS, "", frame, lambda: self.phone.pop(self), actions),
            View(IMAGE, Rect(390, y + 40, 690, y + 340), rid=rid(CONTACTS, "photo")),
            text(c.name, 100, y + 380, 72, 1000, rid=rid(CONTACTS, "large_title")),
        ]
        buttons_y = y + 540
        for i, (label, handler) in enumerate(
            (("Call", None), ("Text", self._text), ("Video", None))
        ):
            x = 120 + i * 300
            children.append(
                button(
                    label,
                    Rect(x, buttons_y, x + 240, buttons_y + 200),
                    handler,
                    rid(CONTACTS, f"{label.lower()}_action_button"),
                )
            )
        info_y = buttons_y + 280
        children.append(text("Contact info", 63, info_y, 44, 1000, rid=rid(CONTACTS, "header")))
        if c.phone:
            children.append(
                View(
                    LINEAR,
                    Rect(0, info_y + 90, WIDTH, info_y + 290),
                    rid=rid(CONTACTS, "contact_entry"),
                    clickable=True,
                    focusable=True,
                    on_tap=lambda: None,
                    children=[
                        text(c.phone, 189, info_y + 110, 48, 900, rid=rid(CONTACTS, "primary")),
                        text("Mobile", 189, info_y + 180, 37, 900, rid=rid(CONTACTS, "secondary")),
                    ],
                )
            )
        return View(FRAME, frame, rid=rid(CONTACTS, "contact_detail"), children=children)

    def on_resume(self) -> None:
        if self.contact not in self.state.contacts:  # deleted or replaced while away
            self.phone.pop(self)


class ContactEditorPage(Page):
    FIELDS = ("First name", "Last name", "Company", "Phone", "Email")

    def __init__(self, phone: Phone, contact: Contact | None) -> None:
        super().__init__(phone, CONTACTS)
        self.contact = contact
        first, _, last = contact.name.partition(" ") if contact else ("", "", "")
        initial = {
            "First name": first,
            "Last name": last,
            "Phone": contact.phone if contact else "",
        }
        self.fields = {name: Field(text=initial.get(name, ""), hint=name) for name in self.FIELDS}
        self.original = {name: f.text for name, f in self.fields.items()}
        self.scroll = ScrollState()

    def _changed(self) -> bool:
        return any(f.text != self.original[name] for name, f in self.fields.items())

    def _ask_to_discard(self) -> None:
        self.phone.open_dialog(
            ConfirmDialog(
                self.phone,
                CONTACTS,
                "Discard changes?",
                "",
                "Discard",
                lambda: self.phone.pop(self),
                dismiss="Keep editing",
            )
        )

    def _close(self) -> None:
        if self._changed():
            self._ask_to_discard()
        else:
            self.phone.pop(self)

    def on_back(self) -> bool:
        if self._changed():
            self._ask_to_discard()
            return True
        return False

    def _save(self) -> None:
        name = " ".join(
            part
            for part in (
                self.fields["First name"].text.strip(),
                self.fields["Last name"].text.strip(),
            )
            if part
        )
        phone_number = self.fields["Phone"].text.strip()
        if not name and not phone_number:
            self.phone.pop(self)
            return
        name = name or phone_number
        if self.contact is None:
            contact = Contact(name=name, phone=phone_number)
            self.state.contacts = [*self.state.contacts, contact]
            self.phone.pop(self)
            self.phone.push(ContactDetailPage(self.phone, self.state.contacts[-1]))
        else:
            self.contact.name = name
            self.contact.phone = phone_number
            self.phone.pop(self)

    def content(self, frame: Rect) -> View:
        title = "Create contact" if self.contact is None else "Edit contact"
        save = button(
            "Save",
            Rect(800, frame.y1 + 30, 1038, frame.y1 + 138),
            self._save,
            rid(CONTACTS, "toolbar_button"),
        )
        bar = toolbar(CONTACTS, title, frame, self._close, [save], up_desc="Cancel")
        body = Rect(0, frame.y1 + 168, WIDTH, frame.y2)
        rows: list[tuple[int, Callable[[Rect], View]]] = [(300, self._photo)]
        rows += [(200, self._field_row(name)) for name in self.FIELDS]
        return View(
            FRAME,
            frame,
            rid=rid(CONTACTS, "editor_root"),
            children=[
                bar,
                scroll_view(body, rows, self.scroll, rid(CONTACTS, "editors_scroll")),
            ],
        )

    def _photo(self, box: Rect) -> View:
        return View(
            FRAME,
            box,
            children=[
                View(
                    IMAGE,
                    Rect(420, box.y1 + 40, 660, box.y2 - 20),
                    rid=rid(CONTACTS, "photo_icon"),
                    desc="Add contact photo",
                    clickable=True,
                    focusable=True,
                    on_tap=lambda: None,
                )
            ],
        )

    def _field_row(self, name: str) -> Callable[[Rect], View]:
        field = self.fields[name]

        def build(box: Rect) -> View:
            area = Rect(63, box.y1 + 20, 1017, box.y2 - 20)
            return View(
                FRAME,
                box,
                children=[
                    edit_text(
                        field,
                        area,
                        self.phone.focus is field,
                        self.phone.focuser(field, self),
                        rid(CONTACTS, "editor_field"),
                    ),
                ],
            )

        return build


def contacts_root(phone: Phone) -> Page:
    return ContactListPage(phone)
