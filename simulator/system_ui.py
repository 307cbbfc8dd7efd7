"""The windows System UI draws over apps: the status bar, Gboard's keyboard and toasts.

They sit in the bands of `simulator.display` that apps do not get; the notification shade,
built from the apps it shows, is `simulator.apps.system`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from simulator.display import HEIGHT, KEYBOARD_TOP, NAV_BAR_TOP, STATUS_BAR, WIDTH
from simulator.view import FRAME, IMAGE, LINEAR, TEXT, Handler, Rect, View, rid, text_box

SYSTEM_UI = "com.android.systemui"
KEYBOARD = "com.google.android.inputmethod.latin"


@dataclass(frozen=True)
class StatusIcons:
    clock: str
    wifi: bool
    bluetooth: bool
    airplane: bool
    do_not_disturb: bool
    battery_level: int
    battery_percentage: bool
    battery_saver: bool


def status_bar_window(icons: StatusIcons) -> View:
    bar = Rect(0, 0, WIDTH, STATUS_BAR)
    clock = View(
        TEXT,
        Rect(42, 0, 42 + len(icons.clock) * 22 + 10, STATUS_BAR),
        rid=rid(SYSTEM_UI, "clock"),
        text=icons.clock,
    )
    status: list[tuple[str, str]] = []
    if icons.do_not_disturb:
        status.append(("", "Do Not Disturb."))
    if icons.bluetooth:
        status.append(("", "Bluetooth on."))
    if icons.airplane:
        status.append(("", "Airplane mode."))
    if icons.battery_saver:
        status.append(("", "Battery Saver is on."))
    if icons.wifi and not icons.airplane:
        status.append((rid(SYSTEM_UI, "wifi_combo"), "Wi‑Fi signal full."))
    battery_width = 130 if icons.battery_percentage else 70
    x = WIDTH - 30 - battery_width - 48 * len(status)
    icon_views: list[View] = []
    for icon_rid, desc in status:
        icon_views.append(
            View(IMAGE if not icon_rid else FRAME, Rect(x, 6, x + 48, 57), rid=icon_rid, desc=desc)
        )
        x += 48
    battery_children = [
        View(
            IMAGE,
            Rect(x, 9, x + 70, 54),
            rid=rid(SYSTEM_UI, "battery_image"),
            desc=f"Battery {icons.battery_level} percent.",
        ),
    ]
    if icons.battery_percentage:
        battery_children.append(
            View(
                TEXT,
                Rect(x + 70, 9, x + battery_width, 54),
                rid=rid(SYSTEM_UI, "battery_percentage_view"),
                text=f"{icons.battery_level}%",
            )
        )
    battery = View(
        LINEAR,
        Rect(x, 6, x + battery_width, 57),
        rid=rid(SYSTEM_UI, "battery"),
        focusable=True,
        children=battery_children,
    )
    system_icons = View(
        LINEAR,
        Rect(WIDTH - 30 - battery_width - 48 * len(status), 6, WIDTH - 30, 57),
        rid=rid(SYSTEM_UI, "system_icons"),
        children=[*icon_views, battery],
    )
    contents = View(
        LINEAR,
        bar,
        rid=rid(SYSTEM_UI, "phone_status_bar_contents_container"),
        children=[
            View(
                FRAME,
                Rect(42, 0, clock.bounds.x2, STATUS_BAR),
                rid=rid(SYSTEM_UI, "clock_container"),
                children=[clock],
            ),
            View(
                LINEAR,
                system_icons.bounds,
                rid=rid(SYSTEM_UI, "system_icon_area"),
                children=[system_icons],
            ),
        ],
    )
    return View(
        FRAME,
        bar,
        children=[
            View(
                FRAME,
                bar,
                rid=rid(SYSTEM_UI, "status_bar_container"),
                children=[
                    View(FRAME, bar, rid=rid(SYSTEM_UI, "status_bar"), children=[contents]),
                ],
            ),
        ],
    )


KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


@dataclass(frozen=True)
class KeyboardActions:
    type_char: Callable[[str], Handler]
    delete: Handler
    enter: Handler
    action_label: str


def _key(name: str, desc: str, box: Rect, handler: Handler, long_clickable: bool = True) -> View:
    """A Gboard key: a FrameLayout named by what it types or does."""
    return View(
        FRAME,
        box,
        rid=rid(KEYBOARD, name),
        desc=desc,
        clickable=True,
        focusable=True,
        long_clickable=long_clickable,
        on_tap=handler,
    )


def keyboard_window(actions: KeyboardActions) -> View:
    """Gboard: a suggestion header and four rows of keys, each key a clickable FrameLayout."""
    window = Rect(0, KEYBOARD_TOP, WIDTH, HEIGHT)
    header = Rect(0, KEYBOARD_TOP, WIDTH, KEYBOARD_TOP + 132)
    row_height = 147
    top = header.y2 + 12
    key_width = (WIDTH - 12) / 10

    def key(name: str, desc: str, x1: float, x2: float, y: int, handler: Handler) -> View:
        return _key(name, desc, Rect(int(x1), y, int(x2), y + row_height), handler)

    rows: list[View] = []
    for r, letters in enumerate(KEY_ROWS):
        y = top + r * row_height
        indent = (10 - len(letters)) * key_width / 2 if r < 2 else 1.5 * key_width
        keys = [
            key(
                f"key_pos_{r}_{c}",
                letter,
                6 + indent + c * key_width,
                6 + indent + (c + 1) * key_width,
                y,
                actions.type_char(letter),
            )
            for c, letter in enumerate(letters)
        ]
        if r == 2:
            keys.insert(0, key("key_pos_shift", "Shift", 6, 6 + 1.5 * key_width, y, lambda: None))
            keys.append(
                key(
                    "key_pos_del",
                    "Delete",
                    WIDTH - 6 - 1.5 * key_width,
                    WIDTH - 6,
                    y,
                    actions.delete,
                )
            )
        rows.append(View(LINEAR, Rect(6, y, WIDTH - 6, y + row_height), children=keys))
    y = top + 3 * row_height
    bottom_keys = [
        key("key_pos_switch_to_symbol", "Symbol keyboard", 6, 6 + 1.5 * key_width, y, lambda: None),
        key(
            "key_pos_comma",
            ",",
            6 + 1.5 * key_width,
            6 + 2.5 * key_width,
            y,
            actions.type_char(","),
        ),
        key(
            "key_pos_space",
            "Space",
            6 + 2.5 * key_width,
            6 + 7.5 * key_width,
            y,
            actions.type_char(" "),
        ),
        key(
            "key_pos_period",
            ".",
            6 + 7.5 * key_width,
            6 + 8.5 * key_width,
            y,
            actions.type_char("."),
        ),
        key(
            "key_pos_ime_action",
            actions.action_label,
            6 + 8.5 * key_width,
            WIDTH - 6,
            y,
            actions.enter,
        ),
    ]
    rows.append(View(LINEAR, Rect(6, y, WIDTH - 6, y + row_height), children=bottom_keys))
    header_view = View(
        FRAME,
        header,
        rid=rid(KEYBOARD, "keyboard_header_view_holder"),
        children=[
            _key(
                "key_pos_header_access_points_menu",
                "Open features menu",
                Rect(6, header.y1, 132, header.y2),
                lambda: None,
                long_clickable=False,
            ),
            _key(
                "key_pos_header_power_key",
                "Voice input",
                Rect(948, header.y1, 1074, header.y2),
                lambda: None,
            ),
        ],
    )
    holder = View(
        LINEAR,
        window,
        rid=rid(KEYBOARD, "keyboard_holder"),
        children=[
            header_view,
            View(
                LINEAR,
                Rect(6, top, WIDTH - 6, top + 4 * row_height),
                rid=rid(KEYBOARD, "input_area"),
                children=rows,
            ),
        ],
    )
    return View(
        FRAME,
        window,
        children=[
            View(
                LINEAR,
                window,
                children=[
                    View(
                        FRAME,
                        window,
                        rid="android:id/content",
                        children=[
                            View(FRAME, window, rid="android:id/inputArea", children=[holder]),
                        ],
                    ),
                ],
            ),
        ],
    )


TOAST_TEXT_SIZE = 37  # 14sp
TOAST_MAX_WIDTH = 787  # 300dp
TOAST_BOTTOM = NAV_BAR_TOP - 63  # 24dp above the navigation bar


def toast_window(message: str) -> View:
    """System UI's text toast (`text_toast.xml`): the app icon and up to two lines of text in a
    pill centred near the bottom; its own window, with no decor around it."""
    line = text_box(message, 0, 0, TOAST_TEXT_SIZE, 10**6)
    text_room = TOAST_MAX_WIDTH - 42 - 63 - 26 - 42
    lines = 1 if line.width <= text_room else 2
    text_width = min(line.width, text_room)
    width = 42 + 63 + 26 + text_width + 42
    height = 64 + 53 * lines
    x1 = (WIDTH - width) // 2
    box = Rect(x1, TOAST_BOTTOM - height, x1 + width, TOAST_BOTTOM)
    middle = box.y1 + height // 2
    return View(
        LINEAR,
        box,
        children=[
            View(
                IMAGE,
                Rect(x1 + 42, middle - 31, x1 + 105, middle + 32),
                rid=rid(SYSTEM_UI, "icon"),
            ),
            View(
                TEXT,
                Rect(x1 + 131, box.y1, x1 + 131 + text_width, box.y2),
                rid=rid(SYSTEM_UI, "text"),
                text=message,
            ),
        ],
    )
