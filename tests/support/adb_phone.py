"""A one-screen phone behind the simulated ADB server, small enough that tests of the server
and of `devices.adb` pin their own behaviour rather than the simulator's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import quoteattr

from devices import DeviceError

NODE = (
    '<node index="{index}" text={text} resource-id={rid} class="{cls}" package="{package}" '
    'content-desc="" checkable="false" checked="false" clickable="true" enabled="true" '
    'focusable="true" focused="{focused}" scrollable="false" long-clickable="false" '
    'password="false" selected="false" bounds="{bounds}"{extra} />'
)


class FakePhone:
    """A one-screen phone: a search field (focused) and an OK button, with a few apps."""

    def __init__(self, serial: str = "emulator-5554", adb_keyboard: bool = True) -> None:
        self.serial = serial
        self.adb_keyboard_installed = adb_keyboard
        self.field = ""
        self.hint = "Search settings"
        self.foreground = "com.android.settings"
        self.events: list[tuple[Any, ...]] = []
        self.dump_errors = 0  # the next dumps raise DeviceError, like an animating screen
        self.dumps = 0
        self._state: dict[str, Any] = {"wifi": True, "bluetooth": False, "airplane_mode": False}

    @property
    def state(self) -> Mapping[str, Any]:
        return dict(self._state)

    def installed_apps(self) -> Mapping[str, str]:
        return {
            "com.android.settings": "Settings",
            "com.google.android.deskclock": "Clock",
            "com.google.android.apps.messaging": "Messages",
            "com.android.chrome": "Chrome",
        }

    def dump_xml(self) -> str:
        self.dumps += 1
        if self.dump_errors:
            self.dump_errors -= 1
            raise DeviceError("screen is animating")
        shown = self.field or self.hint
        field = NODE.format(
            index=0, text=quoteattr(shown), rid='"com.android.settings:id/search"',
            cls="android.widget.EditText", package=self.foreground, focused="true",
            bounds="[0,100][1080,200]", extra=f" hint={quoteattr(self.hint)}",
        )  # fmt: skip
        button = NODE.format(
            index=1, text='"OK"', rid='""', cls="android.widget.Button", package=self.foreground,
            focused="false", bounds="[400,1000][680,1100]", extra="",
        )  # fmt: skip
        return (
            "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
            f'<hierarchy rotation="0"><node index="0" text="" resource-id="" '
            f'class="android.widget.FrameLayout" package="{self.foreground}" content-desc="" '
            'checkable="false" checked="false" clickable="false" enabled="true" '
            'focusable="false" focused="false" scrollable="false" long-clickable="false" '
            'password="false" selected="false" bounds="[0,0][1080,2400]">'
            f"{field}{button}</node></hierarchy>"
        )

    def tap(self, x: int, y: int) -> None:
        self.events.append(("tap", x, y))

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        self.events.append(("long_press", x, y, duration_ms))

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        self.events.append(("swipe", x1, y1, x2, y2, duration_ms))

    def type_text(self, text: str) -> None:
        self.field += text

    def clear_text(self) -> None:
        self.field = ""

    def press_key(self, key: str) -> None:
        self.events.append(("key", key))
        if key == "delete":
            self.field = self.field[:-1]

    def open_app(self, name: str) -> str:
        if name not in self.installed_apps():
            raise DeviceError(f"no app {name}")
        self.foreground = name
        return name

    def screen_size(self) -> tuple[int, int]:
        return 1080, 2400

    def foreground_app(self) -> str:
        return self.foreground

    def screenshot_png(self) -> bytes | None:
        return None
