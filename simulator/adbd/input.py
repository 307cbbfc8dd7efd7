"""`input`: the key events, text, taps and swipes Android's input command injects, and the
focused field they reach (with the select-all that the next key replaces)."""

from __future__ import annotations

from collections.abc import Callable

from devices import KEYCODES, Device
from simulator.adbd.sh import CommandFunction, Invocation

LONG_PRESS_MS = 500  # a swipe that stays put for this long is a long press

# Android key names (`KEYCODE_` stripped) where they differ from the project's names.
_ANDROID_KEY_NAMES = {
    "DEL": 67,
    "FORWARD_DEL": 112,
    "APP_SWITCH": 187,
    "CTRL_LEFT": 113,
    "CTRL_RIGHT": 114,
    "SHIFT_LEFT": 59,
    "SHIFT_RIGHT": 60,
    **{name.upper(): code for name, code in KEYCODES.items()},
}
_KEY_NAME_BY_CODE: dict[int, str] = {}
for _name, _code in KEYCODES.items():
    _KEY_NAME_BY_CODE.setdefault(_code, _name)
_CTRL_KEYS = frozenset({113, 114})
_SHIFT_KEYS = frozenset({59, 60})
_KEY_A, _KEY_DEL, _KEY_FORWARD_DEL, _KEY_MOVE_HOME = 29, 67, 112, 122
# Characters Android's virtual key map can type; `input text` refuses a string with any other.
_VIRTUAL_KEYBOARD_CHARS = frozenset(chr(code) for code in range(0x20, 0x7F)) | {"\n", "\t"}


def decode_input_text(argument: str) -> str:
    """What Android's `input text ARG` types: each `%s` becomes a space, nothing else changes.

    This follows the platform's loop exactly, including its quirks: `%%s` types `% ` and there
    is no way to type a literal `%s` in one command.
    """
    chars = list(argument)
    escaping = False
    index = 0
    while index < len(chars):
        if escaping:
            escaping = False
            if chars[index] == "s":
                chars[index] = " "
                del chars[index - 1]
                index -= 1
        if chars[index] == "%":
            escaping = True
        index += 1
    return "".join(chars)


class FocusedField:
    """Where typed text and key events land, and whether a select-all waits for the next key."""

    def __init__(self, device: Device) -> None:
        self._device = device
        self._selection_pending = False

    def type(self, text: str) -> None:
        if self._selection_pending:
            self._selection_pending = False
            self._device.clear_text()
        if text:
            self._device.type_text(text)

    def press(self, code: int) -> None:
        if code in (_KEY_DEL, _KEY_FORWARD_DEL) and self._selection_pending:
            self._selection_pending = False
            self._device.clear_text()
            return
        self._selection_pending = False
        if 7 <= code <= 16:  # KEYCODE_0 .. KEYCODE_9
            self._device.type_text(str(code - 7))
        elif _KEY_A <= code <= 54:  # KEYCODE_A .. KEYCODE_Z
            self._device.type_text(chr(ord("a") + code - _KEY_A))
        elif code in _KEY_NAME_BY_CODE:
            self._device.press_key(_KEY_NAME_BY_CODE[code])
        # Any other key has no effect on the simulated phone, as on a screen that ignores it.

    def clear(self) -> None:
        self._selection_pending = False
        self._device.clear_text()

    def select_all(self) -> None:
        self._selection_pending = True

    def forget_selection(self) -> None:
        """Focus moved (a touch, another app): a pending select-all no longer applies."""
        self._selection_pending = False


class InputCommand:
    """`input [SOURCE] [-d DISPLAY] text|keyevent|keycombination|tap|swipe ...`."""

    def __init__(self, device: Device, field: FocusedField) -> None:
        self._device = device
        self._field = field

    def commands(self) -> dict[str, CommandFunction]:
        return {"input": self._input}

    def _input(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        while args and args[0] in (
            "keyboard",
            "touchscreen",
            "touchpad",
            "mouse",
            "dpad",
            "stylus",
        ):
            args = args[1:]
        if len(args) >= 2 and args[0] == "-d":
            args = args[2:]
        if not args:
            invocation.err("Error: no input command\n")
            return 1
        command, rest = args[0], args[1:]
        handlers: dict[str, Callable[[Invocation, list[str]], int]] = {
            "text": self._text,
            "keyevent": self._keyevent,
            "keycombination": self._keycombination,
            "tap": self._tap,
            "swipe": self._swipe,
        }
        handler = handlers.get(command)
        if handler is None:
            invocation.err(f"Error: Unknown command: {command}\n")
            return 1
        return handler(invocation, rest)

    def _text(self, invocation: Invocation, args: list[str]) -> int:
        if not args:
            invocation.err('Error: Argument expected after "text"\n')
            return 1
        text = decode_input_text(args[0])
        if any(char not in _VIRTUAL_KEYBOARD_CHARS for char in text):
            # The virtual key map has no key for it: the platform types nothing and throws.
            invocation.err(
                "Exception occurred while executing 'text':\n"
                "java.lang.NullPointerException: Attempt to get length of null array\n"
            )
            return 255
        self._field.type(text)
        return 0

    def _keyevent(self, invocation: Invocation, args: list[str]) -> int:
        codes = []
        for arg in args:
            if arg in ("--longpress", "--doubletap"):
                continue
            code = _key_code(arg)
            if code is None:
                invocation.err(f"Error: Unknown keycode: {arg}\n")
                return 1
            codes.append(code)
        if not codes:
            invocation.err('Error: Argument expected after "keyevent"\n')
            return 1
        for code in codes:
            self._field.press(code)
        return 0

    def _keycombination(self, invocation: Invocation, args: list[str]) -> int:
        codes = [_key_code(arg) for arg in args if not arg.startswith("-")]
        if len(codes) < 2 or any(code is None for code in codes):
            invocation.err("Error: keycombination needs two or more key codes\n")
            return 1
        modifiers, key = set(codes[:-1]), codes[-1]
        if (modifiers <= _CTRL_KEYS and key == _KEY_A) or (
            modifiers <= _SHIFT_KEYS and key == _KEY_MOVE_HOME
        ):
            # Select all, or select back to the start: with the cursor at the end of a
            # one-line field both select the whole text, which the next key replaces.
            self._field.select_all()
        return 0

    def _tap(self, invocation: Invocation, args: list[str]) -> int:
        point = _numbers(args, 2)
        if point is None:
            invocation.err("Error: tap needs x and y\n")
            return 1
        self._field.forget_selection()
        self._device.tap(point[0], point[1])
        return 0

    def _swipe(self, invocation: Invocation, args: list[str]) -> int:
        numbers = _numbers(args, 5) or _numbers(args, 4)
        if numbers is None:
            invocation.err("Error: swipe needs x1 y1 x2 y2 [duration(ms)]\n")
            return 1
        x1, y1, x2, y2 = numbers[:4]
        duration = numbers[4] if len(numbers) == 5 else 300
        self._field.forget_selection()
        if (x1, y1) == (x2, y2):
            if duration >= LONG_PRESS_MS:
                self._device.long_press(x1, y1, duration)
            else:
                self._device.tap(x1, y1)
        else:
            self._device.swipe(x1, y1, x2, y2, duration)
        return 0


def _key_code(arg: str) -> int | None:
    if arg.isdigit():
        return int(arg)
    name = arg.upper().removeprefix("KEYCODE_")
    if len(name) == 1 and name.isalnum():
        return 7 + int(name) if name.isdigit() else _KEY_A + ord(name) - ord("A")
    return _ANDROID_KEY_NAMES.get(name)


def _numbers(args: list[str], count: int) -> list[int] | None:
    if len(args) != count:
        return None
    try:
        return [round(float(arg)) for arg in args]
    except ValueError:
        return None
