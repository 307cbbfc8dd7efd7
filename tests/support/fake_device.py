"""A tiny scripted phone for unit tests: two Settings pages drawn as uiautomator XML.

Page "settings" lists Network and internet, Display, Battery (a row that does nothing) and Reset
options (a risky row: tapping it sets `reset`). Page "network" has Navigate up, a Wi-Fi row
with a switch (tapping the row toggles `wifi`; "Connected to Home" shows while it is on) and an
Airplane mode row. Every device call is recorded in `calls`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import quoteattr

from agent.screen import Screen
from devices.base import KEYCODES, DeviceError

WIDTH, HEIGHT = 1080, 2400
PACKAGE = "com.android.settings"
ROW_HEIGHT = 180


@dataclass
class _Row:
    label: str
    action: str  # what a tap does: a page name, a state key to toggle, "set:<key>" or ""
    switch: str | None = None  # state key shown by a switch in the row


_PAGES: dict[str, list[_Row]] = {
    "settings": [
        _Row("Network and internet", "network"),
        _Row("Display", "display"),
        _Row("Battery", ""),
        _Row("Reset options", "set:reset"),
    ],
    "network": [
        _Row("Wi-Fi", "wifi", switch="wifi"),
        _Row("Airplane mode", "airplane_mode", switch="airplane_mode"),
    ],
    "display": [_Row("Dark theme", "dark_theme", switch="dark_theme")],
}


@dataclass
class FakePhone:
    """Implements the Device protocol over a few hand-made screens."""

    state: dict[str, Any] = field(
        default_factory=lambda: {
            "wifi": False,
            "airplane_mode": False,
            "dark_theme": False,
            "reset": False,
        }
    )
    page: str = "settings"
    serial: str = "fake-0001"
    calls: list[str] = field(default_factory=list)
    typed: list[str] = field(default_factory=list)

    def dump_xml(self) -> str:
        self.calls.append("dump_xml")
        nodes = [_text_node("Settings" if self.page == "settings" else self.page.title(), 0)]
        if self.page != "settings":
            nodes.append(_button("Navigate up", (0, 150, 150, 300)))
        for position, row in enumerate(_PAGES[self.page]):
            nodes.append(self._row_xml(row, position))
        if self.page == "network" and self.state["wifi"]:
            nodes.append(_text_node("Connected to Home", 300 + 2 * ROW_HEIGHT + 40))
        body = "".join(nodes)
        return (
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
            '<hierarchy rotation="0">'
            f'<node index="0" text="" resource-id="" class="android.widget.FrameLayout" '
            f'package="{PACKAGE}" content-desc="" checkable="false" checked="false" '
            'clickable="false" enabled="true" focusable="false" focused="false" '
            'scrollable="false" long-clickable="false" password="false" selected="false" '
            f'bounds="[0,0][{WIDTH},{HEIGHT}]">{body}</node></hierarchy>'
        )

    def _row_xml(self, row: _Row, position: int) -> str:
        top = 300 + position * ROW_HEIGHT
        inner = _text_node(row.label, top + 40, right=800)
        if row.switch is not None:
            checked = "true" if self.state[row.switch] else "false"
            inner += _node(
                "android.widget.Switch",
                (880, top + 40, 1040, top + 140),
                checkable="true",
                checked=checked,
                resource_id="android:id/switch_widget",
            )
        return _node(
            "android.widget.LinearLayout",
            (0, top, WIDTH, top + ROW_HEIGHT),
            clickable="true",
            focusable="true",
            children=inner,
        )

    def tap(self, x: int, y: int) -> None:
        self.calls.append(f"tap({x}, {y})")
        if self.page != "settings" and x < 150 and 150 <= y < 300:
            self.page = "settings"
            return
        for position, row in enumerate(_PAGES[self.page]):
            top = 300 + position * ROW_HEIGHT
            if top <= y < top + ROW_HEIGHT:
                self._activate(row)
                return

    def _activate(self, row: _Row) -> None:
        if row.action in _PAGES:
            self.page = row.action
        elif row.action.startswith("set:"):
            self.state[row.action.removeprefix("set:")] = True
        elif row.action:
            self.state[row.action] = not self.state[row.action]

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        self.calls.append(f"long_press({x}, {y})")

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        self.calls.append(f"swipe({x1}, {y1}, {x2}, {y2})")

    def type_text(self, text: str) -> None:
        self.calls.append("type_text")
        self.typed.append(text)

    def clear_text(self) -> None:
        self.calls.append("clear_text")

    def press_key(self, key: str) -> None:
        if key not in KEYCODES:
            raise DeviceError(f"unknown key {key!r}")
        self.calls.append(f"press_key({key})")
        if key in ("back", "home"):
            self.page = "settings"

    def open_app(self, name: str) -> str:
        self.calls.append(f"open_app({name})")
        if name.casefold() not in ("settings", PACKAGE):
            raise DeviceError(f"no app called {name!r}")
        self.page = "settings"
        return PACKAGE

    def screen_size(self) -> tuple[int, int]:
        return WIDTH, HEIGHT

    def foreground_app(self) -> str:
        return PACKAGE

    def screenshot_png(self) -> bytes | None:
        return None


def _node(
    class_name: str,
    bounds: tuple[int, int, int, int],
    *,
    text: str = "",
    desc: str = "",
    clickable: str = "false",
    focusable: str = "false",
    checkable: str = "false",
    checked: str = "false",
    resource_id: str = "",
    children: str = "",
) -> str:
    x1, y1, x2, y2 = bounds
    return (
        f'<node index="0" text={quoteattr(text)} resource-id={quoteattr(resource_id)} '
        f'class="{class_name}" package="{PACKAGE}" content-desc={quoteattr(desc)} '
        f'checkable="{checkable}" checked="{checked}" clickable="{clickable}" enabled="true" '
        f'focusable="{focusable}" focused="false" scrollable="false" long-clickable="false" '
        f'password="false" selected="false" bounds="[{x1},{y1}][{x2},{y2}]">{children}</node>'
    )


def _text_node(text: str, top: int, right: int = WIDTH) -> str:
    return _node("android.widget.TextView", (40, top, right, top + 100), text=text)


def _button(desc: str, bounds: tuple[int, int, int, int]) -> str:
    return _node(
        "android.widget.ImageButton", bounds, desc=desc, clickable="true", focusable="true"
    )


def screen_of(page: str = "settings", **state: bool) -> Screen:
    """Page `page` of a fresh FakePhone with `state` set, as the agent reads it."""
    phone = FakePhone(page=page)
    phone.state.update(state)
    return Screen.parse(phone.dump_xml())
