"""A real Android phone or emulator over ADB (through adbutils), implementing the Device protocol.

What it does about the ways ADB agents fail:

- Device selection: the serial asked for (or `$ANDROID_SERIAL`), else the only phone attached;
  otherwise a DeviceError that lists the phones and says what to do about unauthorised ones.
- Screen dumps are never stale or half-written: each dump goes to a new remote file (so whatever
  is there was written by this dump; the tool's "dumped to" line must name it), the file is read
  raw (`exec:`) and removed, and the XML must parse whole. "could not get idle state", "null
  root node", empty or cut-off output are retried with backoff until a deadline, then reported.
- Nothing the model produces reaches the device shell unquoted: every argument goes through
  `shlex.quote`. Text goes through `input text` (ASCII, spaces as `%s`, see devices.adb_text)
  or, for anything else, the ADB Keyboard input method (base64 broadcast), switching to it and
  back. Typed text is read back from the screen; a mismatch, or no focused field to read it
  from, raises TextEntryError.
- Lost connections and timeouts become DeviceError with the phone's serial in the message.
"""

from __future__ import annotations

import base64
import os
import re
import shlex
import socket
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import adbutils
from adbutils._adb import AdbConnection

from devices.adb_apps import resolve_package
from devices.adb_text import (
    FieldReading,
    extract_hierarchy,
    focused_field,
    input_text_chunks,
    typeable_by_input_text,
)
from devices.base import KEYCODES, AppNotFound, DeviceError, InputNotApplied

ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"
ADB_KEYBOARD_HELP = (
    "install ADB Keyboard to type it: download ADBKeyboard.apk from "
    "https://github.com/senzhk/ADBKeyBoard/releases, run `adb install ADBKeyBoard.apk`, then "
    f"`adb shell ime enable {ADB_KEYBOARD_IME}`"
)
REMOTE_DUMP_DIR = "/data/local/tmp"
LAUNCHER_CATEGORY = "android.intent.category.LAUNCHER"
MAX_B64_TEXT_CHUNK = 500  # characters per ADB Keyboard broadcast
MAX_DELETES_PER_COMMAND = 100
_KEY_MOVE_END, _KEY_DELETE, _KEY_CTRL, _KEY_A = 123, 67, 113, 29
_DUMP_FAILURES = ("ERROR", "null root node", "Killed")
_DUMPED_TO = re.compile(r"dumped to: (\S+)")
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


class _DirectConnection(AdbConnection):
    """A connection that reports a refused server instead of starting one."""

    def _safe_connect(self) -> socket.socket:
        # adbutils falls back to `adb start-server`, which starts a server on the default port:
        # wrong for a server the user named elsewhere.
        sock: socket.socket = self._create_socket()
        return sock


class _ExplicitServerClient(adbutils.AdbClient):
    """A client for a server at a given address: never starts a local ADB server."""

    def make_connection(self, timeout: float | None = None) -> AdbConnection:
        connection = _DirectConnection(self.host, self.port)
        if timeout:
            connection.conn.settimeout(timeout)
        return connection


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
    ) -> None:
        if host is None and port is None:
            client: adbutils.AdbClient = adbutils.AdbClient()  # may start the local ADB server
        else:
            client = _ExplicitServerClient(host=host or "127.0.0.1", port=port or 5037)
        where = f"{client.host}:{client.port}"
        self.serial = select_serial(client, serial or os.environ.get("ANDROID_SERIAL"), where)
        self.command_timeout = command_timeout
        self.dump_timeout = dump_timeout
        self.verify_text = verify_text
        self._sleep = sleep
        self._device = client.device(self.serial)
        features = self._call(self._device.get_features, "reading its features")
        self._shell_v2 = "shell_v2" in features.split(",")

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
        deadline = time.monotonic() + self.dump_timeout
        delay, attempts = 0.25, 0
        while True:
            attempts += 1
            remaining = max(deadline - time.monotonic(), 1.0)
            try:
                return self._dump_once(remaining)
            except ValueError as exc:
                problem = str(exc)
            if time.monotonic() + delay > deadline:
                raise DeviceError(
                    f"could not read the screen of {self.serial} "
                    f"({attempts} attempts in {self.dump_timeout:g}s): {problem}"
                )
            self._sleep(delay)
            delay = min(delay * 2, 2.0)

    def _dump_once(self, timeout: float) -> str:
        """One dump to a new remote file; ValueError says why it should be retried."""
        path = f"{REMOTE_DUMP_DIR}/phone-agent-{uuid.uuid4().hex}.xml"
        report = self.shell(["uiautomator", "dump", path], timeout=timeout).output
        # Fresh by construction: the path is new, so a file there was written by this dump. The
        # tool's "dumped to" line, where a phone prints one, must name it.
        named = _DUMPED_TO.findall(report)
        if any(marker in report for marker in _DUMP_FAILURES) or any(p != path for p in named):
            self.shell(["rm", "-f", path])
            first_line = (report.strip().splitlines() or ["no output"])[0]
            raise ValueError(f"uiautomator said {first_line!r}")
        # Read and remove in one round trip; a missing file makes `cat` fail, and so the parse.
        data = self.exec_out(["sh", "-c", f"cat {shlex.quote(path)}; rm -f {shlex.quote(path)}"])
        return extract_hierarchy(data)

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
