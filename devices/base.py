"""The Device protocol every phone-like backend implements (a real phone over ADB, the simulator).

Coordinates are screen pixels in the current rotation. Nothing here knows about elements,
models or agents: callers translate their own notions (an element index) into coordinates.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


class DeviceError(Exception):
    """A device could not do what was asked; the message is one line meant for a user."""


class RecoverableDeviceError(DeviceError):
    """One request did not take effect, but the device is fine and still usable, so a caller
    may report it and go on rather than give up."""


class InputNotApplied(RecoverableDeviceError):
    """The device took the input but the screen does not show its effect (typed text missing
    from the field, text typed with no field focused, a field that would not clear)."""


class AppNotFound(RecoverableDeviceError):
    """No app on the device can be started under the name given: nothing matches, several
    match equally well, or the match has no launcher activity. The message says what would
    work (close names, or that a package name is needed)."""


# Key names the rest of the project may use, with their Android key codes.
KEYCODES: dict[str, int] = {
    "home": 3,
    "back": 4,
    "call": 5,
    "endcall": 6,
    "dpad_up": 19,
    "dpad_down": 20,
    "dpad_left": 21,
    "dpad_right": 22,
    "dpad_center": 23,
    "volume_up": 24,
    "volume_down": 25,
    "power": 26,
    "camera": 27,
    "tab": 61,
    "space": 62,
    "enter": 66,
    "delete": 67,
    "menu": 82,
    "search": 84,
    "media_play_pause": 85,
    "page_up": 92,
    "page_down": 93,
    "escape": 111,
    "forward_delete": 112,
    "move_home": 122,
    "move_end": 123,
    "volume_mute": 164,
    "recent_apps": 187,
    "app_switch": 187,
    "brightness_down": 220,
    "brightness_up": 221,
}


@runtime_checkable
class Device(Protocol):
    """What the agent, the evals and the tests may ask of a phone."""

    serial: str

    def dump_xml(self) -> str:
        """The current screen as uiautomator XML (`<hierarchy rotation=...>`), fresh and whole."""
        ...

    def tap(self, x: int, y: int) -> None: ...

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None: ...

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        """Move a finger from (x1, y1) to (x2, y2): content follows the finger."""
        ...

    def type_text(self, text: str) -> None:
        """Type text literally into the focused field; no character is interpreted by a shell."""
        ...

    def clear_text(self) -> None:
        """Empty the focused field."""
        ...

    def press_key(self, key: str) -> None:
        """Press a key by name (a key of KEYCODES); unknown names raise DeviceError."""
        ...

    def open_app(self, name: str) -> str:
        """Launch an app by package name or launcher label; return the package started."""
        ...

    def screen_size(self) -> tuple[int, int]:
        """Width and height in pixels, in the current rotation."""
        ...

    def foreground_app(self) -> str:
        """The package of the focused window."""
        ...

    def screenshot_png(self) -> bytes | None:
        """A PNG of the screen, or None where the backend cannot take one."""
        ...
