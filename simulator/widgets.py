"""Builders for the subtrees real apps produce: windows, toolbars, settings rows, dialogs, lists.

The windows System UI draws over apps (status bar, keyboard, toasts, the notification shade) are
in `simulator.system_ui`; sizes here are those of real apps on the display of `simulator.display`
(206 px two-line settings rows).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from simulator.display import HEIGHT, NAV_BAR_TOP, SCREEN, STATUS_BAR, WIDTH
from simulator.view import (
    BUTTON,
    EDIT,
    FRAME,
    IMAGE,
    IMAGE_BUTTON,
    LINEAR,
    RECYCLER,
    RELATIVE,
    SCROLL,
    SWITCH,
    TEXT,
    VIEW,
    VIEW_GROUP,
    Handler,
    Rect,
    ScrollState,
    View,
    rid,
    shifted,
    text_box,
)

# A list's rows: each one's height and the builder that lays it out in the box it is given.
Rows = Sequence[tuple[int, Callable[[Rect], View]]]

TITLE_SIZE = 52
BODY_SIZE = 40
SMALL_SIZE = 37


def no_effect() -> None:
    """The handler of a control whose effect the simulated phone does not have: the tap lands
    on it and nothing moves, as on a page the phone cannot open."""


def on_off(value: bool) -> str:
    """A switch's state as Settings and quick-settings tiles write it."""
    return "On" if value else "Off"


def text(
    value: str, x: int, y: int, size: int = BODY_SIZE, max_x: int = WIDTH, **kw: object
) -> View:
    """A wrap_content TextView whose top-left corner is (x, y)."""
    return View(TEXT, text_box(value, x, y, size, max_x), text=value, **kw)  # type: ignore[arg-type]


def centered_text(value: str, box: Rect, size: int = BODY_SIZE, **kw: object) -> View:
    width = min(text_box(value, 0, 0, size, box.width).width, box.width)
    height = int(size * 1.36)
    x = box.x1 + (box.width - width) // 2
    y = box.y1 + (box.height - height) // 2
    return View(TEXT, Rect(x, y, x + width, y + height), text=value, **kw)  # type: ignore[arg-type]


def button(
    label: str, box: Rect, on_tap: Handler | None, rid_: str = "", enabled: bool = True
) -> View:
    return View(
        BUTTON,
        box,
        rid=rid_,
        text=label,
        clickable=True,
        focusable=True,
        enabled=enabled,
        on_tap=on_tap,
    )


def icon_button(desc: str, box: Rect, on_tap: Handler | None, rid_: str = "") -> View:
    return View(
        IMAGE_BUTTON, box, rid=rid_, desc=desc, clickable=True, focusable=True, on_tap=on_tap
    )


def menu_item(desc: str, box: Rect, on_tap: Handler, rid_: str = "") -> View:
    """An icon in an action bar: AppCompat's ActionMenuItemView, a Button named by its
    description."""
    return View(BUTTON, box, rid=rid_, desc=desc, clickable=True, focusable=True, on_tap=on_tap)


def overflow_button(box: Rect, on_tap: Handler) -> View:
    """The action bar's overflow (⋮) button: AppCompat draws it as an ImageView."""
    return View(IMAGE, box, desc="More options", clickable=True, focusable=True, on_tap=on_tap)


@dataclass
class Field:
    """The contents of one text input; the focused field receives typed text."""

    text: str = ""
    cursor: int = 0
    hint: str = ""
    max_length: int | None = None
    digits_only: bool = False
    on_change: Callable[[], None] | None = None
    on_enter: Callable[[], None] | None = None
    # Fields that select their contents on focus (time inputs): the next typing replaces it.
    select_on_focus: bool = False
    selected: bool = False

    def set(self, value: str) -> None:
        self.text = value
        self.cursor = len(value)
        if self.on_change is not None:
            self.on_change()

    def insert(self, value: str) -> str:
        """Insert at the cursor; return what did not fit (a full field passes the rest on)."""
        if self.digits_only:
            value = "".join(char for char in value if char.isdigit())
        if self.selected and value:
            self.text, self.cursor, self.selected = "", 0, False
        room = len(value) if self.max_length is None else self.max_length - len(self.text)
        accepted, rest = value[: max(room, 0)], value[max(room, 0) :]
        self.text = self.text[: self.cursor] + accepted + self.text[self.cursor :]
        self.cursor += len(accepted)
        if accepted and self.on_change is not None:
            self.on_change()
        return rest

    def backspace(self) -> None:
        if self.selected:
            self.selected = False
            self.set("")
        elif self.cursor > 0:
            self.text = self.text[: self.cursor - 1] + self.text[self.cursor :]
            self.cursor -= 1
            if self.on_change is not None:
                self.on_change()

    def forward_delete(self) -> None:
        if self.cursor < len(self.text):
            self.text = self.text[: self.cursor] + self.text[self.cursor + 1 :]
            if self.on_change is not None:
                self.on_change()

    def move_cursor(self, position: int) -> None:
        self.selected = False
        self.cursor = min(max(position, 0), len(self.text))

    def full(self) -> bool:
        return self.max_length is not None and len(self.text) >= self.max_length


def edit_text(
    field: Field,
    box: Rect,
    focused: bool,
    on_focus: Handler,
    rid_: str = "",
    password: bool = False,
) -> View:
    """An EditText: an empty field reports its hint as text, as Android's accessibility does."""
    return View(
        EDIT,
        box,
        rid=rid_,
        text=field.text or field.hint,
        hint=field.hint,
        clickable=True,
        long_clickable=True,
        focusable=True,
        focused=focused,
        password=password,
        on_tap=on_focus,
    )


# ---------------------------------------------------------------------------------------------
# Windows


def app_window(content: View, frame: Rect) -> View:
    """A phone-window decor: root, LinearLayout, android:id/content holding the app's content."""
    return View(
        FRAME,
        SCREEN,
        children=[
            View(
                LINEAR,
                SCREEN,
                children=[View(FRAME, frame, rid="android:id/content", children=[content])],
            ),
            View(VIEW, Rect(0, 0, WIDTH, STATUS_BAR), rid="android:id/statusBarBackground"),
            View(
                VIEW, Rect(0, NAV_BAR_TOP, WIDTH, HEIGHT), rid="android:id/navigationBarBackground"
            ),
        ],
    )


# ---------------------------------------------------------------------------------------------
# Dialogs


def dialog_frame(box: Rect, panel: View, on_outside_tap: Handler | None) -> View:
    """The window of an AlertDialog-style dialog: decor, inset frame, android:id/content."""
    inner = box.inset(42, 42)
    return View(
        FRAME,
        box,
        on_outside_tap=on_outside_tap,
        children=[
            View(
                FRAME,
                inner,
                children=[View(FRAME, inner, rid="android:id/content", children=[panel])],
            ),
        ],
    )


def alert_dialog(
    title: str,
    message: str,
    buttons: Sequence[tuple[str, Handler]],
    on_cancel: Handler | None,
    body: Callable[[Rect], View] | None = None,
    body_height: int = 0,
) -> View:
    """title, message or custom body, then buttons right-aligned (negative first)."""
    left, right = 70, WIDTH - 70
    title_h = 118 if title else 0
    message_h = (len(message) // 38 + 1) * 60 + 40 if message else 0
    content_h = message_h + body_height
    buttons_h = 147
    total = 42 + title_h + content_h + buttons_h + 42
    top = (HEIGHT - total) // 2
    y = top + 42
    parts: list[View] = []
    if title:
        parts.append(
            View(
                LINEAR,
                Rect(left, y, right, y + title_h),
                rid="android:id/topPanel",
                children=[
                    View(
                        LINEAR,
                        Rect(left, y, right, y + title_h),
                        rid="android:id/title_template",
                        children=[
                            text(
                                title,
                                left + 63,
                                y + 47,
                                TITLE_SIZE,
                                right - 63,
                                rid="android:id/alertTitle",
                            )
                        ],
                    )
                ],
            )
        )
        y += title_h
    if message:
        box = Rect(left, y, right, y + message_h)
        parts.append(
            View(
                FRAME,
                box,
                rid="android:id/contentPanel",
                children=[
                    View(
                        SCROLL,
                        box,
                        rid="android:id/scrollView",
                        children=[
                            View(
                                LINEAR,
                                box,
                                children=[
                                    View(
                                        TEXT,
                                        Rect(left + 63, y + 10, right - 63, y + message_h - 20),
                                        rid="android:id/message",
                                        text=message,
                                    ),
                                ],
                            ),
                        ],
                    ),
                ],
            )
        )
        y += message_h
    if body is not None:
        box = Rect(left, y, right, y + body_height)
        parts.append(
            View(
                FRAME,
                box,
                rid="android:id/customPanel",
                children=[
                    View(FRAME, box, rid="android:id/custom", children=[body(box)]),
                ],
            )
        )
        y += body_height
    button_views: list[View] = []
    x = right - 42
    ids = {0: "android:id/button1", 1: "android:id/button2", 2: "android:id/button3"}
    for position, (label, handler) in enumerate(reversed(buttons)):
        width = max(180, len(label) * 26 + 84)
        button_views.insert(
            0, button(label, Rect(x - width, y + 10, x, y + 136), handler, ids[position])
        )
        x -= width + 10
    parts.append(
        View(
            SCROLL,
            Rect(left, y, right, y + buttons_h),
            rid="android:id/buttonPanel",
            focusable=True,
            children=[View(LINEAR, Rect(left, y, right, y + buttons_h), children=button_views)],
        )
    )
    panel = View(
        LINEAR,
        Rect(left, top + 42, right, top + total - 42),
        rid="android:id/parentPanel",
        children=parts,
    )
    return dialog_frame(Rect(left - 42, top, right + 42, top + total), panel, on_cancel)


# ---------------------------------------------------------------------------------------------
# Settings-style pages


@dataclass
class Pref:
    """One row of a preference screen.

    Every row but a header is a clickable container, as androidx Preference builds it, so the
    element list reads it as one `button "Title, Summary"`; a row without `on_tap` takes the tap
    and changes nothing, like a preference whose page the phone does not have.
    """

    title: str
    summary: str = ""
    on_tap: Handler | None = None
    switch: bool | None = None  # None: no switch; else its checked state
    enabled: bool = True
    header: bool = False  # a category title, not clickable
    selectable: bool = True  # False: an information line (android:selectable="false")
    icon: bool | None = None  # None: as the page decides
    desc: str = ""  # the row's own content description (Wi-Fi entries read out their status)
    gear: Handler | None = None  # a second target: the gear button at the right of the row


def pref_height(pref: Pref) -> int:
    if pref.header:
        return 116
    return 206 if pref.summary and pref.title else 168


def pref_row(package: str, pref: Pref, box: Rect, icons: bool) -> View:
    """A row: icon frame, title/summary, then a non-clickable Switch or a clickable gear."""
    if pref.header:
        return View(
            LINEAR,
            box,
            children=[
                View(
                    RELATIVE,
                    box.with_x(63, 1038),
                    children=[
                        text(pref.title, 63, box.y1 + 42, SMALL_SIZE, 1038, rid="android:id/title")
                    ],
                )
            ],
        )
    icons = icons if pref.icon is None else pref.icon
    text_left = 189 if icons else 63
    widget_left = 852 if pref.switch is not None else 791 if pref.gear is not None else 1038
    texts = [
        text(value, text_left, box.y1 + top, size, widget_left, rid=rid_, enabled=pref.enabled)
        for value, top, size, rid_ in (
            (pref.title, 42 if pref.summary else 48, TITLE_SIZE, "android:id/title"),
            (pref.summary, 113 if pref.title else 48, SMALL_SIZE, "android:id/summary"),
        )
        if value
    ]
    cy = box.y1 + box.height // 2
    children: list[View] = []
    if icons:
        children.append(
            View(
                LINEAR,
                Rect(63, cy - 38, 189, cy + 38),
                rid=rid(package, "icon_frame"),
                children=[View(IMAGE, Rect(63, cy - 27, 116, cy + 26), rid="android:id/icon")],
            )
        )
    children.append(
        View(RELATIVE, box.with_x(text_left, widget_left), children=texts, enabled=pref.enabled)
    )
    if pref.switch is not None:
        children.append(
            View(
                LINEAR,
                box.with_x(852, 1038),
                rid="android:id/widget_frame",
                children=[
                    View(
                        SWITCH,
                        Rect(891, cy - 63, 1038, cy + 63),
                        rid="android:id/switch_widget",
                        checkable=True,
                        checked=pref.switch,
                        enabled=pref.enabled,
                    )
                ],
            )
        )
    elif pref.gear is not None:
        children += [
            View(
                LINEAR,
                box.with_x(791, 838),
                rid=rid(package, "two_target_divider"),
                children=[View(VIEW, Rect(835, cy - 44, 838, cy + 44))],
            ),
            View(
                LINEAR,
                box.with_x(838, 1036),
                rid="android:id/widget_frame",
                children=[
                    View(
                        IMAGE,
                        box.with_x(838, 1036),
                        rid=rid(package, "settings_button"),
                        desc="Settings",
                        clickable=True,
                        focusable=True,
                        on_tap=pref.gear,
                    )
                ],
            ),
        ]
    return View(
        LINEAR,
        box,
        desc=pref.desc,
        clickable=pref.selectable,
        focusable=pref.selectable,
        enabled=pref.enabled,
        on_tap=pref.on_tap if pref.selectable else None,
        children=children,
    )


def main_switch_bar(package: str, title: str, checked: bool, on_tap: Handler, box: Rect) -> View:
    """The large on/off bar at the top of pages like Bluetooth or Battery Saver."""
    inner = box.inset(42, 21)
    cy = box.y1 + box.height // 2
    return View(
        LINEAR,
        box,
        children=[
            View(
                LINEAR,
                inner,
                rid=rid(package, "switch_bar"),
                clickable=True,
                focusable=True,
                on_tap=on_tap,
                children=[
                    View(
                        LINEAR,
                        inner,
                        rid=rid(package, "frame"),
                        children=[
                            text(
                                title,
                                inner.x1 + 63,
                                cy - 36,
                                TITLE_SIZE,
                                852,
                                rid=rid(package, "switch_text"),
                            ),
                            View(
                                SWITCH,
                                Rect(850, cy - 63, 997, cy + 63),
                                rid="android:id/switch_widget",
                                checkable=True,
                                checked=checked,
                            ),
                        ],
                    )
                ],
            )
        ],
    )


def navigation_drawer(frame: Rect, panel: View, on_close: Handler) -> View:
    """An open navigation drawer: `panel` at the left over a scrim that closes it when tapped.
    A tap on the panel between its rows does nothing, as the drawer consumes it."""
    return View(
        FRAME,
        frame,
        children=[View(VIEW, frame, on_tap=on_close), replace(panel, on_tap=no_effect)],
    )


@dataclass(frozen=True)
class Tab:
    """One destination of a bottom navigation bar."""

    label: str
    rid: str
    selected: bool
    on_tap: Handler


def navigation_tabs(
    box: Rect, tabs: Sequence[Tab], label_rid: str, label_at: tuple[int, int], label_size: int
) -> list[View]:
    """The items of a Material bottom navigation bar: equal cells across `box`, each named by
    its label, which stands at `label_at` (x, y) from the cell's corner."""
    width = WIDTH // len(tabs)
    items = []
    for position, tab in enumerate(tabs):
        cell = Rect(position * width, box.y1, (position + 1) * width, box.y2)
        label = text(
            tab.label,
            cell.x1 + label_at[0],
            cell.y1 + label_at[1],
            label_size,
            cell.x2 - 10,
            rid=label_rid,
        )
        items.append(
            View(
                FRAME,
                cell,
                rid=tab.rid,
                desc=tab.label,
                clickable=True,
                focusable=True,
                selected=tab.selected,
                on_tap=tab.on_tap,
                children=[label],
            )
        )
    return items


def scroll_rows(
    box: Rect,
    rows: Rows,
    state: ScrollState,
) -> list[View]:
    """Lay rows (height, builder) top to bottom from `box.y1 - offset`; record the scroll range."""
    total = sum(height for height, _ in rows)
    state.max_offset = max(0, total - box.height)
    state.offset = min(state.offset, state.max_offset)
    return _rows_from(box.y1 - state.offset, box, rows)


def _rows_from(y: int, box: Rect, rows: Rows) -> list[View]:
    views: list[View] = []
    for height, build in rows:
        views.append(build(Rect(box.x1, y, box.x2, y + height)))
        y += height
    return views


def recycler(
    box: Rect, rows: Rows, state: ScrollState, rid_: str = "", cls: str = RECYCLER
) -> View:
    """A RecyclerView: rows scrolled out of view are detached, so they leave the dump."""
    return _scrolling(cls, box, rid_, state, scroll_rows(box, rows, state), recycler=True)


def scroll_view(
    box: Rect,
    rows: Rows,
    state: ScrollState,
    rid_: str = "",
    cls: str = SCROLL,
    holder: str = LINEAR,
) -> View:
    """A ScrollView (or NestedScrollView, WebView) whose one child holds every row: unlike a
    recycler's, rows scrolled out of view stay attached."""
    holder_view = View(holder, box, children=scroll_rows(box, rows, state))
    return _scrolling(cls, box, rid_, state, [holder_view])


def _scrolling(
    cls: str, box: Rect, rid_: str, state: ScrollState, children: list[View], recycler: bool = False
) -> View:
    return View(
        cls,
        box,
        rid=rid_,
        scrollable=True,
        focusable=True,
        scroll=state,
        recycler=recycler,
        children=children,
    )


APP_BAR_EXPANDED = 470
APP_BAR_COLLAPSED = 147


def settings_page(
    package: str,
    title: str,
    prefs: Sequence[Pref],
    frame: Rect,
    state: ScrollState,
    on_up: Handler,
    icons: bool = True,
    top: View | Callable[[Rect], View] | None = None,
    top_height: int = 0,
    actions: Sequence[tuple[str, Handler]] = (),
) -> View:
    """A collapsing-toolbar preference screen (Android 14 Settings sub-pages).

    Scrolling first collapses the tall app bar to its action bar, then moves the list, as the
    CoordinatorLayout of real Settings does; `top` (a main switch bar) rides below the app bar.
    `actions` are icon buttons at the right of the action bar, named by their descriptions.
    """
    rows = [(pref_height(p), _row_builder(package, p, icons)) for p in prefs]
    total = sum(height for height, _ in rows)
    expanded_list = frame.y2 - (frame.y1 + APP_BAR_EXPANDED + top_height)
    state.max_offset = max(0, total - expanded_list)
    state.offset = min(state.offset, state.max_offset)
    collapse = min(state.offset, APP_BAR_EXPANDED - APP_BAR_COLLAPSED)
    bar = Rect(0, frame.y1, WIDTH, frame.y1 + APP_BAR_EXPANDED - collapse)
    action = Rect(0, frame.y1, WIDTH, frame.y1 + APP_BAR_COLLAPSED)
    action_views: list[View] = [
        icon_button("Navigate up", Rect(0, action.y1, 147, action.y2), on_up)
    ]
    title_right = WIDTH - len(actions) * 132
    action_views.append(View(VIEW, Rect(189, action.y1, title_right, action.y2)))
    if actions:
        menu = Rect(title_right, action.y1, WIDTH, action.y2)
        action_views.append(
            View(
                LINEAR,
                menu,
                children=[
                    View(
                        BUTTON,
                        Rect(
                            menu.x1 + i * 132,
                            action.y1 + 11,
                            menu.x1 + (i + 1) * 132,
                            action.y2 - 11,
                        ),
                        desc=desc,
                        clickable=True,
                        focusable=True,
                        long_clickable=True,
                        on_tap=handler,
                    )
                    for i, (desc, handler) in enumerate(actions)
                ],
            )
        )
    app_bar = View(
        LINEAR,
        bar,
        rid=rid(package, "app_bar"),
        children=[
            View(
                FRAME,
                bar,
                rid=rid(package, "collapsing_toolbar"),
                desc=title,
                children=[
                    View(VIEW_GROUP, action, rid=rid(package, "action_bar"), children=action_views)
                ],
            ),
        ],
    )
    content = Rect(0, bar.y2, WIDTH, frame.y2)
    list_box = Rect(0, content.y1 + top_height, WIDTH, frame.y2)
    list_children: list[View] = []
    if isinstance(top, View):
        list_children.append(shifted(top, 0, -collapse))
    elif top is not None:
        list_children.append(top(Rect(0, content.y1, WIDTH, content.y1 + top_height)))
    list_children.append(
        View(
            FRAME,
            list_box,
            rid="android:id/list_container",
            children=[
                View(
                    RECYCLER,
                    list_box,
                    rid=rid(package, "recycler_view"),
                    scrollable=True,
                    focusable=True,
                    scroll=state,
                    recycler=True,
                    children=_rows_from(list_box.y1 - (state.offset - collapse), list_box, rows),
                )
            ],
        )
    )
    return View(
        SCROLL,
        frame,
        rid=rid(package, "content_parent"),
        scrollable=True,
        scroll=state,
        children=[
            app_bar,
            View(
                FRAME,
                content,
                rid=rid(package, "content_frame"),
                children=[
                    View(
                        LINEAR,
                        content,
                        children=[
                            View(
                                FRAME,
                                content,
                                rid=rid(package, "main_content"),
                                children=[
                                    View(
                                        LINEAR,
                                        content,
                                        rid=rid(package, "container_material"),
                                        children=list_children,
                                    ),
                                ],
                            ),
                        ],
                    ),
                ],
            ),
        ],
    )


def _row_builder(package: str, pref: Pref, icons: bool) -> Callable[[Rect], View]:
    return lambda box: pref_row(package, pref, box, icons)


def toolbar(
    package: str,
    title: str,
    frame: Rect,
    on_up: Handler | None,
    actions: Sequence[View] = (),
    up_desc: str = "Navigate up",
) -> View:
    """A plain app toolbar: an up (or close) button, a title TextView, actions at the right."""
    box = Rect(0, frame.y1, WIDTH, frame.y1 + 168)
    children: list[View] = []
    x = 42
    if on_up is not None:
        children.append(icon_button(up_desc, Rect(0, box.y1 + 10, 147, box.y2 - 10), on_up))
        x = 189
    if title:
        children.append(text(title, x, box.y1 + 48, TITLE_SIZE + 4, 800))
    children.extend(actions)
    return View(VIEW_GROUP, box, rid=rid(package, "toolbar"), children=children)


def fab(
    package: str, desc: str, on_tap: Handler, bottom: int, rid_name: str, label: str = ""
) -> View:
    """A floating action button at the bottom right (extended when it has a label)."""
    width = 147 if not label else max(300, len(label) * 28 + 170)
    box = Rect(WIDTH - 42 - width, bottom - 42 - 147, WIDTH - 42, bottom - 42)
    return View(
        BUTTON if label else IMAGE_BUTTON,
        box,
        rid=rid(package, rid_name),
        text=label,
        desc=desc,
        clickable=True,
        focusable=True,
        on_tap=on_tap,
    )
