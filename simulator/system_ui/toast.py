"""The toast: a short message System UI shows near the bottom of the screen."""

from __future__ import annotations

from simulator.display import NAV_BAR_TOP, WIDTH
from simulator.system_ui import SYSTEM_UI
from simulator.view import IMAGE, LINEAR, TEXT, Rect, View, rid, text_box

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
