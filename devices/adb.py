"""A real Android phone or emulator over ADB (through adbutils), implementing the Device protocol.

What it does about the ways ADB agents fail:

- Device selection: the serial asked for (or `$ANDROID_SERIAL`), else the only phone attached;
  otherwise a DeviceError that lists the phones and says what to do about unauthorised ones.
- The screen is read by one of `devices.screen_readers` (`uiautomator dump`, or uiautomator2's
  on-device server, or that server falling back to the dump): never stale, never half-written.
  Every input sent is reported to the reader, so the next read shows what it did.
- Nothing the model produces reaches the device shell unquoted: every argument goes through
  `shlex.quote`. Text goes through `input text` (ASCII, spaces as `%s`, see devices.adb_text)
  or, for anything else, the ADB Keyboard input method (base64 broadcast), switching to it and
  back. Typed text is read back from the screen; a mismatch, or no focused field to read it
  from, raises TextEntryError.
- Lost connections and timeouts become DeviceError with the phone's serial in the message.
"""

from __future__ import annotations

import base64
import functools
import os
import re
import shlex
import socket
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import adbutils
from adbutils._adb import AdbConnection

from devices.adb_apps import resolve_package
from devices.adb_text import (
    FieldReading,
    focused_field,
    input_text_chunks,
    typeable_by_input_text,
)
from devices.base import KEYCODES, AppNotFound, DeviceError, InputNotApplied
from devices.reader_choice import ScreenReaderChoice
from devices.screen_readers import ScreenReader, open_screen_reader

ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"
ADB_KEYBOARD_HELP = (
    "install ADB Keyboard to type it: download ADBKeyboard.apk from "
    "https://github.com/senzhk/ADBKeyBoard/releases, run `adb install ADBKeyBoard.apk`, then "
    f"`adb shell ime enable {ADB_KEYBOARD_IME}`"
)
LAUNCHER_CATEGORY = "android.intent.category.LAUNCHER"
MAX_B64_TEXT_CHUNK = 500  # characters per ADB Keyboard broadcast
MAX_DELETES_PER_COMMAND = 100
_KEY_MOVE_END, _KEY_DELETE, _KEY_CTRL, _KEY_A = 123, 67, 113, 29
# Commands that change what the screen shows (`ime` only with `set`): the reader must not answer
# the next read with the screen from before them.
_INPUT_COMMANDS = frozenset({"input", "am", "monkey"})
_FOCUS = re.compile(r"mCurrentFocus=Window\{\S+ (?:u\d+ )?([A-Za-z][\w.]*)/")
_FOCUSED_APP = re.compile(r"mFocusedApp=\S*\{\S+ (?:u\d+ )?([A-Za-z][\w.]*)/")
_CURRENT_SIZE = re.compile(r"\bcur=(\d+)x(\d+)")
_WM_SIZE = re.compile(r"(Physical|Override) size: (\d+)x(\d+)")
_ROTATION = (
    (re.compile(r"mCurrentRotation=(?:ROTATION_)?(\d+)"), True),
    (re.compile(r"\bmRotation=(?:ROTATION_)?(\d+)"), True),
    (re.compile(r"SurfaceOrientation: (\d)"), False),
)
_COMPONENT = re.compile(r"^\s*([A-Za-z][\w.]*)/([\w.$]+)\s*$", re.MULTILINE)


_T = TypeVar("_T")


class TextEntryError(InputNotApplied):
    """Text was sent but the focused field does not show it (or could not be cleared)."""


@dataclass(frozen=True)
class ShellResult:
    stdout: str
    stderr: str
    status: int

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


class _PromptConnection(AdbConnection):
    """A connection that sends each write at once. An HTTP request to the phone's UI automation
    server leaves in two writes (headers, body): with Nagle's algorithm the second waits for
    the first's delayed ACK, tens of milliseconds a read."""

    def _create_socket(self) -> socket.socket:
        sock: socket.socket = super()._create_socket()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock


class _DirectConnection(_PromptConnection):
    """A connection that reports a refused server instead of starting one."""

    def _safe_connect(self) -> socket.socket:
        # adbutils falls back to `adb start-server`, which starts a server on the default port:
        # wrong for a server the user named elsewhere.
        return self._create_socket()


class _Client(adbutils.AdbClient):
    """A client whose connections send at once; at an address the user named (`explicit`) it
    never starts a local ADB server."""

    def __init__(self, host: str | None, port: int | None) -> None:
        explicit = host is not None or port is not None
        if explicit:
            super().__init__(host=host or "127.0.0.1", port=port or 5037)
        else:
            super().__init__()  # the ADB server's address from the environment, or the default
        self._connection_class = _DirectConnection if explicit else _PromptConnection

    def make_connection(self, timeout: float | None = None) -> AdbConnection:
        connection = self._connection_class(self.host, self.port)
        if timeout:
            connection.conn.settimeout(timeout)
        return connection

    @functools.cache  # noqa: B019  # one client per device: the cache lives as long as it
    def server_version(self) -> int:
        # adbutils asks before every command it sends to a phone: one round trip each time.
        version: int = super().server_version()
        return version


def _quote(argv: Sequence[str | int]) -> str:
    return " ".join(shlex.quote(str(arg)) for arg in argv)


def select_serial(client: adbutils.AdbClient, serial: str | None, where: str) -> str:
    """The serial to use: the one asked for, or the only phone ready; else a DeviceError."""
    try:
        listed = client.list()
    except (adbutils.AdbError, OSError) as exc:
        raise DeviceError(f"cannot reach the ADB server at {where}: {exc}") from exc
    states = {info.serial: info.state for info in listed}
    described = ", ".join(f"{name} ({state})" for name, state in states.items()) or "none"
    advice = {
        "unauthorized": "unlock it and accept the 'Allow USB debugging' prompt",
        "offline": "reconnect the cable or restart adb (`adb kill-server`)",
        "no": "adb may not open it: set up udev rules for USB debugging on this computer",
    }
    if serial is not None:
        state = states.get(serial)
        if state is None:
            raise DeviceError(f"no phone with serial {serial!r} at {where}; attached: {described}")
        if state != "device":
            tip = advice.get(state, "check the connection")
            raise DeviceError(f"phone {serial} is {state}: {tip}")
        return serial
    ready = [name for name, state in states.items() if state == "device"]
    if len(ready) == 1:
        return ready[0]
    if len(ready) > 1:
        raise DeviceError(
            f"{len(ready)} phones are attached ({described}): choose one with --serial"
        )
    if states:
        tips = "; ".join(f"{name}: {advice.get(state, state)}" for name, state in states.items())
        raise DeviceError(f"no phone is ready at {where} ({tips})")
    raise DeviceError(
        f"no phone is attached at {where}: connect one with USB debugging on, or start an emulator"
    )


class AdbDevice:
    """A phone over ADB. Construction selects the phone; every call may raise DeviceError."""

    def __init__(
        self,
        serial: str | None = None,
        host: str | None = None,
        port: int | None = None,
        *,
        command_timeout: float = 20.0,
        dump_timeout: float = 30.0,
        verify_text: bool = True,
        sleep: Callable[[float], None] = time.sleep,
        screen_reader: ScreenReaderChoice = "dump",
        notice: Callable[[str], None] | None = None,
    ) -> None:
        """Select the phone and start its screen reader (see `devices.screen_readers`);
        `notice` hears the one-line reason when `auto` reads with `dump` (stderr by default)."""
        client = _Client(host, port)  # no address: the local ADB server, started if need be
        where = f"{client.host}:{client.port}"
        self.serial = select_serial(client, serial or os.environ.get("ANDROID_SERIAL"), where)
        self.command_timeout = command_timeout
        self.dump_timeout = dump_timeout
        self.verify_text = verify_text
        self._sleep = sleep
        self._device = client.device(self.serial)
        features = self._call(self._device.get_features, "reading its features")
        self._shell_v2 = "shell_v2" in features.split(",")
        self.screen: ScreenReader = open_screen_reader(
            screen_reader,
            self,
            self._device,
            timeout=dump_timeout,
            sleep=sleep,
            notice=notice or _to_stderr,
        )

    def close(self) -> None:
        """Stop what runs on the phone for this device (the screen reader's server)."""
        self.screen.close()

    # --- running commands --------------------------------------------------------------

    def _call(self, action: Callable[[], _T], what: str) -> _T:
        try:
            return action()
        except adbutils.AdbTimeout as exc:
            raise DeviceError(f"{what} on {self.serial} timed out: {exc}") from exc
        except (adbutils.AdbError, OSError, EOFError) as exc:
            raise DeviceError(f"lost the connection to {self.serial} while {what}: {exc}") from exc

    def shell(self, argv: Sequence[str | int], timeout: float | None = None) -> ShellResult:
        """Run one command with every argument quoted; its output and exit status."""
        if argv and (argv[0] in _INPUT_COMMANDS or list(argv[:2]) == ["ime", "set"]):
            self.screen.screen_may_change()
        command = _quote(argv)
        result = self._call(
            lambda: self._device.shell2(
                command, timeout=timeout or self.command_timeout, v2=self._shell_v2
            ),
            f"running `{_quote(argv[:2])}`",
        )
        if self._shell_v2:
            return ShellResult(result.stdout, result.stderr, result.returncode)
        return ShellResult(result.output, "", result.returncode)  # v1 mixes the two streams

    def _checked(self, argv: Sequence[str | int]) -> ShellResult:
        result = self.shell(argv)
        if result.status != 0:
            message = (result.output.strip().splitlines() or ["no output"])[-1]
            raise DeviceError(f"`{_quote(argv)}` failed on {self.serial}: {message}")
        return result

    def exec_out(self, argv: Sequence[str | int], timeout: float | None = None) -> bytes:
        """Raw bytes of a command's output (`adb exec-out`): no terminal, no newline rewriting."""
        command = _quote(argv)

        def run() -> bytes:
            with self._device.open_transport(timeout=timeout or self.command_timeout) as conn:
                conn.send_command("exec:" + command)
                conn.check_okay()
                data = conn.read_until_close(encoding=None)
            return data if isinstance(data, bytes) else data.encode()

        return self._call(run, f"running `{_quote(argv[:2])}`")

    # --- the screen --------------------------------------------------------------------

    def dump_xml(self) -> str:
        return self.screen.read()

    def screen_size(self) -> tuple[int, int]:
        displays = self._checked(["dumpsys", "window", "displays"]).stdout
        current = _CURRENT_SIZE.search(displays)
        if current:
            return int(current.group(1)), int(current.group(2))
        reported = _WM_SIZE.findall(self._checked(["wm", "size"]).stdout)
        sizes = {kind: (int(width), int(height)) for kind, width, height in reported}
        size = sizes.get("Override") or sizes.get("Physical")
        if size is None:
            raise DeviceError(f"`wm size` on {self.serial} gave no size")
        return (size[1], size[0]) if self.rotation() % 2 else size

    def rotation(self) -> int:
        """0-3, quarter turns from the natural orientation (0 when the phone does not say)."""
        displays = self._checked(["dumpsys", "window", "displays"]).stdout
        for pattern, may_be_degrees in _ROTATION:
            match = pattern.search(displays)
            if match:
                value = int(match.group(1))
                return value // 90 if may_be_degrees and value >= 90 else value % 4
        return 0

    def foreground_app(self) -> str:
        for section in ("displays", "windows"):
            output = self._checked(["dumpsys", "window", section]).stdout
            for pattern in (_FOCUS, _FOCUSED_APP):
                match = pattern.search(output)
                if match:
                    return match.group(1)
        raise DeviceError(f"{self.serial} reports no focused window")

    def screenshot_png(self) -> bytes | None:
        data = self.exec_out(["screencap", "-p"])
        # Secure windows or old phones give no PNG; a report can do without the picture.
        return data if data.startswith(b"\x89PNG\r\n\x1a\n") else None

    # --- touch and keys ----------------------------------------------------------------

    def tap(self, x: int, y: int) -> None:
        self._checked(["input", "tap", *_coordinates(x, y)])

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        point = _coordinates(x, y)
        self._checked(["input", "swipe", *point, *point, _duration(duration_ms)])

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        points = (*_coordinates(x1, y1), *_coordinates(x2, y2))
        self._checked(["input", "swipe", *points, _duration(duration_ms)])

    def press_key(self, key: str) -> None:
        code = KEYCODES.get(key.strip().lower())
        if code is None:
            raise DeviceError(f"unknown key {key!r}; known keys: {', '.join(sorted(KEYCODES))}")
        self._checked(["input", "keyevent", code])

    # --- text --------------------------------------------------------------------------

    def type_text(self, text: str) -> None:
        if not text:
            return
        if typeable_by_input_text(text):
            for chunk in input_text_chunks(text):
                self._checked(["input", "text", chunk])
        else:
            self._type_with_adb_keyboard(text)
        if self.verify_text:
            self._verify_typed(text)

    def _type_with_adb_keyboard(self, text: str) -> None:
        installed = self._checked(["ime", "list", "-a", "-s"]).stdout.split()
        if ADB_KEYBOARD_IME not in installed:
            raise DeviceError(
                f"{self.serial} cannot type {text[:20]!r} with `input text`; {ADB_KEYBOARD_HELP}"
            )
        previous = self._current_ime()
        if ADB_KEYBOARD_IME not in self._checked(["ime", "list", "-s"]).stdout.split():
            self._checked(["ime", "enable", ADB_KEYBOARD_IME])
        if previous != ADB_KEYBOARD_IME:
            self._checked(["ime", "set", ADB_KEYBOARD_IME])
            self._wait_for_ime(ADB_KEYBOARD_IME)
        try:
            for start in range(0, len(text), MAX_B64_TEXT_CHUNK):
                chunk = text[start : start + MAX_B64_TEXT_CHUNK]
                message = base64.b64encode(chunk.encode("utf-8")).decode("ascii")
                self._checked(["am", "broadcast", "-a", "ADB_INPUT_B64", "--es", "msg", message])
        finally:
            if previous not in ("", "null", ADB_KEYBOARD_IME):
                self._checked(["ime", "set", previous])

    def _current_ime(self) -> str:
        return self._checked(["settings", "get", "secure", "default_input_method"]).stdout.strip()

    def _wait_for_ime(self, ime: str) -> None:
        """The switch is asynchronous: wait until the setting says so, then let it bind."""
        for _ in range(10):
            if self._current_ime() == ime:
                self._sleep(0.2)
                return
            self._sleep(0.2)
        raise DeviceError(f"{self.serial} did not switch its keyboard to {ime}")

    def _focused_field(self) -> FieldReading | None:
        return focused_field(self.dump_xml())

    def _verify_typed(self, text: str) -> None:
        field: FieldReading | None = None
        for attempt in range(2):
            if attempt:
                self._sleep(0.5)  # the accessibility tree may lag the keystrokes
            field = self._focused_field()
            if field is None:
                continue
            if field.password:
                return  # a masked field cannot be read back
            if text in field.text or (text.strip() and text.strip() in field.text):
                return  # fields may trim what they show, never drop what was typed
        if field is None:
            raise TextEntryError(f"typed {text!r}, but no text field has focus: it went nowhere")
        raise TextEntryError(f"typed {text!r} but the focused field reads {field.text!r}")

    def clear_text(self) -> None:
        field = self._focused_field()
        if field is None:
            raise TextEntryError("no text field has focus: tap the field before clearing it")
        if field.looks_empty:
            return
        for strategy in (self._delete_backwards, self._select_all_and_delete):
            strategy(len(field.text))
            after = self._focused_field()
            if after is None or after.looks_empty:
                return
            field = after
        if self._only_a_placeholder():
            return
        raise TextEntryError(f"could not clear the focused field: it still reads {field.text!r}")

    def _delete_backwards(self, count: int) -> None:
        self._checked(["input", "keyevent", _KEY_MOVE_END])
        remaining = count
        while remaining > 0:
            batch = min(remaining, MAX_DELETES_PER_COMMAND)
            self._checked(["input", "keyevent", *([_KEY_DELETE] * batch)])
            remaining -= batch

    def _select_all_and_delete(self, _count: int) -> None:
        # `keycombination` exists from Android 13; older phones answer with an error we ignore.
        if self.shell(["input", "keycombination", _KEY_CTRL, _KEY_A]).status == 0:
            self._checked(["input", "keyevent", _KEY_DELETE])

    def _only_a_placeholder(self) -> bool:
        """Whether the field is empty and shows its hint, which older Android reports as text.

        Type one letter: if the field then reads just that letter, it was empty; take it back.
        """
        self._checked(["input", "text", "x"])
        probe = self._focused_field()
        self._checked(["input", "keyevent", _KEY_DELETE])
        return probe is not None and probe.text == "x"

    # --- apps --------------------------------------------------------------------------

    def _launcher_packages(self) -> dict[str, str | None]:
        """Package -> APK path of apps with a launcher icon (all packages on old phones)."""
        listing = self._checked(["pm", "list", "packages", "-f"]).stdout
        paths: dict[str, str | None] = {}
        for line in listing.splitlines():
            entry = line.strip().removeprefix("package:")
            path, _, package = entry.rpartition("=")
            if package:
                paths[package] = path or None
        query = self.shell(
            ["cmd", "package", "query-activities", "--brief", "-a", "android.intent.action.MAIN",
             "-c", LAUNCHER_CATEGORY]
        )  # fmt: skip
        launchers = {match.group(1) for match in _COMPONENT.finditer(query.stdout)}
        if query.status == 0 and launchers:
            return {package: paths.get(package) for package in launchers}
        return paths

    def open_app(self, name: str) -> str:
        package = resolve_package(name, self._launcher_packages())
        resolved = self.shell(
            ["cmd", "package", "resolve-activity", "--brief", "-c", LAUNCHER_CATEGORY, package]
        )
        components = [m.group(0).strip() for m in _COMPONENT.finditer(resolved.stdout)]
        started = False
        if resolved.status == 0 and components:
            result = self.shell(["am", "start", "-n", components[-1]])
            started = result.status == 0 and "Error" not in result.output
        if not started:
            result = self.shell(["monkey", "-p", package, "-c", LAUNCHER_CATEGORY, "1"])
            if "No activities found" in result.output or result.status != 0:
                raise AppNotFound(f"{package} has no launcher activity on {self.serial}")
        for _ in range(10):  # the window changes a moment after the start request returns
            if self.foreground_app() == package:
                break
            self._sleep(0.2)
        return package


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _coordinates(x: int, y: int) -> tuple[int, int]:
    if not all(isinstance(value, int) and not isinstance(value, bool) for value in (x, y)):
        raise DeviceError(f"coordinates must be whole numbers, got ({x!r}, {y!r})")
    if x < 0 or y < 0:
        raise DeviceError(f"coordinates must not be negative, got ({x}, {y})")
    return x, y


def _duration(duration_ms: int) -> int:
    whole = isinstance(duration_ms, int) and not isinstance(duration_ms, bool)
    if not whole or not 0 < duration_ms <= 60_000:
        raise DeviceError(f"a gesture lasts 1 to 60000 ms, got {duration_ms!r}")
    return duration_ms
