"""Gboard, the keyboard that slides up over the bottom of the screen while a text field has
the focus."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from simulator.display import HEIGHT, KEYBOARD_TOP, WIDTH
from simulator.view import FRAME, LINEAR, Handler, Rect, View, rid

KEYBOARD = "com.google.android.inputmethod.latin"

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
