"""The simulated phone's side of `adb shell`: its files, its input methods and its commands.

Every command answers in the words a real phone uses (`UI hierchary dumped to: ...`,
`mCurrentFocus=Window{...}`, `Physical size: 1080x2400`, ...) so the code that drives a real
phone through ADB is exercised unchanged. The phone behind it is anything with the Device
protocol plus the few hooks of `ServedPhone`.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import errno
import hashlib
import posixpath
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from devices import KEYCODES, Device, DeviceError
from simulator.adbd.memory import ByteBudget
from simulator.adbd.png import draw_outlines
from simulator.adbd.sh import MAX_COMMAND_BYTES, CommandFunction, Invocation, Shell, absolute

LATIN_IME = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"
ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"
ADB_KEYBOARD_PACKAGE = "com.android.adbkeyboard"
SYSTEM_PACKAGES = ("android", "com.android.shell", "com.android.systemui", LATIN_IME.split("/")[0])
LAUNCHER_ACTIVITY = ".MainActivity"
DENSITY_DPI = 420
LONG_PRESS_MS = 500  # a swipe that stays put for this long is a long press
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_FILES = 10_000  # empty files cost memory too
MAX_SLEEP_S = 5.0  # one `sleep`; a served phone never hangs a client for long
IDLE_STATE_ERROR = "ERROR: could not get idle state."

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


class DumpFault(StrEnum):
    """A way `uiautomator dump` fails on real phones; injected to test the client's retries."""

    IDLE_STATE = "idle-state"  # prints `ERROR: could not get idle state.`, writes nothing
    NULL_ROOT = "null-root"  # prints `ERROR: null root node returned by UiTestAutomationBridge.`
    EMPTY = "empty"  # reports success but the file is empty
    TRUNCATED = "truncated"  # reports success but the file holds half the XML
    NO_FILE = "no-file"  # reports success but writes no file


@runtime_checkable
class ServedPhone(Device, Protocol):
    """A Device that can also answer the settings, package and keyboard questions adb asks."""

    adb_keyboard_installed: bool

    @property
    def state(self) -> Mapping[str, Any]: ...

    def installed_apps(self) -> Mapping[str, str]:
        """Package -> launcher label of every app with a launcher icon."""
        ...


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


class MemoryFiles:
    """An in-memory file tree with the directories an `adb shell` user can write to."""

    _DIRECTORIES = (
        "/", "/data", "/data/local", "/data/local/tmp", "/dev", "/sdcard", "/sdcard/Download",
        "/sdcard/Pictures", "/storage", "/storage/emulated", "/system", "/system/bin",
    )  # fmt: skip
    _ALIASES = ("/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard")

    def __init__(self) -> None:
        self._directories = set(self._DIRECTORIES)
        self._files: dict[str, tuple[bytes, int]] = {}  # path -> (content, mtime)

    def normalize(self, path: str) -> str:
        path = posixpath.normpath(absolute(path))
        path = "/" + path.lstrip("/")
        for alias in self._ALIASES:
            if path == alias or path.startswith(alias + "/"):
                return "/sdcard" + path[len(alias) :]
        return path

    def is_dir(self, path: str) -> bool:
        return self.normalize(path) in self._directories

    def read(self, path: str) -> bytes:
        path = self.normalize(path)
        if path == "/dev/null":
            return b""
        if path in self._directories:
            raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
        if path not in self._files:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        return self._files[path][0]

    def write(self, path: str, data: bytes, append: bool) -> None:
        path = self.normalize(path)
        if path == "/dev/null":
            return
        if path in self._directories:
            raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
        if posixpath.dirname(path) not in self._directories:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        old = self._files.get(path, (b"", 0))[0] if append else b""
        total = sum(len(content) for content, _ in self._files.values()) + len(data)
        if total > MAX_FILE_BYTES or (path not in self._files and len(self._files) >= MAX_FILES):
            raise OSError(errno.ENOSPC, "No space left on device", path)
        self._files[path] = (old + data, int(time.time()))

    def remove(self, path: str) -> None:
        path = self.normalize(path)
        if path in self._directories:
            raise IsADirectoryError(errno.EISDIR, "Is a directory", path)
        if self._files.pop(path, None) is None:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)

    def make_directory(self, path: str) -> None:
        path = self.normalize(path)
        if posixpath.dirname(path) not in self._directories:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", path)
        if path in self._files:
            raise FileExistsError(errno.EEXIST, "File exists", path)
        self._directories.add(path)

    def stat(self, path: str) -> tuple[int, int, int] | None:
        """(mode, size, mtime) as the sync protocol reports them, or None."""
        path = self.normalize(path)
        if path in self._directories:
            return 0o040771, 4096, int(time.time())
        if path in self._files:
            content, mtime = self._files[path]
            return 0o100644, len(content), mtime
        return None

    def list_directory(self, path: str) -> list[str]:
        path = self.normalize(path)
        if path not in self._directories:
            raise NotADirectoryError(errno.ENOTDIR, "Not a directory", path)
        children = {
            entry
            for entry in (*self._directories, *self._files)
            if entry != path and posixpath.dirname(entry) == path
        }
        return sorted(posixpath.basename(entry) for entry in children)

    def paths(self) -> list[str]:
        return sorted(self._directories | set(self._files))


class PhoneSession:
    """One served phone: its files, input methods and command table; one command line at a time."""

    def __init__(self, device: ServedPhone, dump_faults: Iterable[DumpFault] = ()) -> None:
        self.device = device
        self.files = MemoryFiles()
        self.lock = threading.Lock()
        self._dump_faults: deque[DumpFault] = deque(dump_faults)
        self._enabled_imes = [LATIN_IME]
        self._current_ime = LATIN_IME
        self._selection_pending = False  # select-all (ctrl+A) waiting for the next key
        self.commands: dict[str, CommandFunction] = {
            "am": self._am,
            "cat": self._cat,
            "cmd": self._cmd,
            "dumpsys": self._dumpsys,
            "echo": self._echo,
            "false": lambda invocation: 1,
            "getprop": self._getprop,
            "ime": self._ime,
            "input": self._input,
            "ls": self._ls,
            "mkdir": self._mkdir,
            "monkey": self._monkey,
            "pm": self._pm,
            "rm": self._rm,
            "screencap": self._screencap,
            "settings": self._settings,
            "sh": self._sh,
            "sleep": self._sleep,
            "true": lambda invocation: 0,
            "uiautomator": self._uiautomator,
            "wm": self._wm,
        }

    @property
    def serial(self) -> str:
        return self.device.serial

    def inject_dump_faults(self, faults: Iterable[DumpFault]) -> None:
        """The next dumps fail in these ways, one fault per dump, in order."""
        with self.lock:
            self._dump_faults.extend(faults)

    def run(
        self, command_line: str, merge_output: bool = False, budget: ByteBudget | None = None
    ) -> tuple[bytes, bytes, int]:
        """Run one `adb shell` command line; (stdout, stderr, exit status).

        The command line holds at most what `budget` allows (MAX_COMMAND_BYTES by default).
        """
        with self.lock:
            return self._new_shell(budget or ByteBudget(MAX_COMMAND_BYTES)).run(
                command_line, merge_output
            )

    def _new_shell(self, budget: ByteBudget) -> Shell:
        environment = {"HOME": "/", "PATH": "/system/bin"}
        return Shell(self._guarded_commands(), self.files, environment, budget)

    def _guarded_commands(self) -> dict[str, CommandFunction]:
        def guard(function: CommandFunction) -> CommandFunction:
            def run(invocation: Invocation) -> int:
                try:
                    return function(invocation)
                except DeviceError as exc:
                    invocation.err(f"Error: {exc}\n")
                    return 1

            return run

        return {name: guard(function) for name, function in self.commands.items()}

    # --- helpers ---------------------------------------------------------------------------

    def _packages(self) -> list[str]:
        packages = set(self.device.installed_apps()) | set(SYSTEM_PACKAGES)
        if self.device.adb_keyboard_installed:
            packages.add(ADB_KEYBOARD_PACKAGE)
        return sorted(packages)

    def _installed_imes(self) -> list[str]:
        return [LATIN_IME, ADB_KEYBOARD_IME] if self.device.adb_keyboard_installed else [LATIN_IME]

    def _apk_path(self, package: str) -> str:
        digest = base64.urlsafe_b64encode(hashlib.sha256(package.encode()).digest()[:16]).decode()
        return f"/data/app/~~{digest[:22]}==/{package}-{digest[:22]}==/base.apk"

    def _focus_component(self) -> str:
        package = self.device.foreground_app()
        return f"{package}/{package}{LAUNCHER_ACTIVITY}"

    def _natural_size(self) -> tuple[int, int]:
        # The simulated phone does not rotate: its current size is its natural size.
        return self.device.screen_size()

    def _launch(self, package: str) -> bool:
        if package not in self.device.installed_apps():
            return False
        self._selection_pending = False
        self.device.open_app(package)
        return True

    def _type(self, text: str) -> None:
        if self._selection_pending:
            self._selection_pending = False
            self.device.clear_text()
        if text:
            self.device.type_text(text)

    def _key(self, code: int) -> None:
        if code in (_KEY_DEL, _KEY_FORWARD_DEL) and self._selection_pending:
            self._selection_pending = False
            self.device.clear_text()
            return
        self._selection_pending = False
        if 7 <= code <= 16:  # KEYCODE_0 .. KEYCODE_9
            self.device.type_text(str(code - 7))
        elif _KEY_A <= code <= 54:  # KEYCODE_A .. KEYCODE_Z
            self.device.type_text(chr(ord("a") + code - _KEY_A))
        elif code in _KEY_NAME_BY_CODE:
            self.device.press_key(_KEY_NAME_BY_CODE[code])
        # Any other key has no effect on the simulated phone, as on a screen that ignores it.

    # --- file commands --------------------------------------------------------------------

    def _cat(self, invocation: Invocation) -> int:
        status = 0
        paths = invocation.argv[1:]
        if not paths:
            invocation.out(invocation.stdin)
        for path in paths:
            try:
                invocation.out(self.files.read(path))
            except OSError as exc:
                invocation.err(f"cat: {path}: {exc.strerror}\n")
                status = 1
        return status

    def _rm(self, invocation: Invocation) -> int:
        force = any(arg.startswith("-") and "f" in arg for arg in invocation.argv[1:])
        status = 0
        for path in (arg for arg in invocation.argv[1:] if not arg.startswith("-")):
            try:
                self.files.remove(path)
            except FileNotFoundError as exc:
                if not force:
                    invocation.err(f"rm: {path}: {exc.strerror}\n")
                    status = 1
            except OSError as exc:
                invocation.err(f"rm: {path}: {exc.strerror}\n")
                status = 1
        return status

    def _ls(self, invocation: Invocation) -> int:
        status = 0
        for path in [arg for arg in invocation.argv[1:] if not arg.startswith("-")] or ["/"]:
            if self.files.is_dir(path):
                invocation.out("".join(f"{name}\n" for name in self.files.list_directory(path)))
            elif self.files.stat(path) is not None:
                invocation.out(f"{path}\n")
            else:
                invocation.err(f"ls: {path}: No such file or directory\n")
                status = 1
        return status

    def _mkdir(self, invocation: Invocation) -> int:
        parents = "-p" in invocation.argv[1:]
        for path in (arg for arg in invocation.argv[1:] if not arg.startswith("-")):
            todo = [path]
            if parents:
                todo = [
                    p for p in _ancestors(self.files.normalize(path)) if not self.files.is_dir(p)
                ]
            for directory in todo:
                try:
                    self.files.make_directory(directory)
                except OSError as exc:
                    invocation.err(f"mkdir: '{path}': {exc.strerror}\n")
                    return 1
        return 0

    def _sh(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        if len(args) < 2 or args[0] != "-c":
            invocation.err("sh: only `sh -c COMMAND` runs on this phone\n")
            return 2
        return self._new_shell(invocation.budget).run_into(
            args[1], invocation.stdout, invocation.stderr
        )

    def _echo(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        newline = True
        while args and args[0] == "-n":
            newline = False
            args = args[1:]
        invocation.out(" ".join(args) + ("\n" if newline else ""))
        return 0

    def _sleep(self, invocation: Invocation) -> int:
        try:
            seconds = float(invocation.argv[1])
        except (IndexError, ValueError):
            invocation.err("sleep: missing or bad duration\n")
            return 1
        # Other clients' commands run meanwhile, as on a phone: sleeping touches nothing.
        self.lock.release()
        try:
            time.sleep(min(max(seconds, 0.0), MAX_SLEEP_S))
        finally:
            self.lock.acquire()
        return 0

    def _getprop(self, invocation: Invocation) -> int:
        state = self.device.state
        properties = {
            "ro.build.version.release": str(state.get("android_version", "14")),
            "ro.build.version.sdk": "34",
            "ro.product.model": str(state.get("device_model", "Pixel 7")),
            "ro.product.manufacturer": "Google",
            "ro.serialno": self.serial,
            "ro.kernel.qemu": "1",
        }
        if len(invocation.argv) > 1:
            invocation.out(properties.get(invocation.argv[1], "") + "\n")
        else:
            invocation.out("".join(f"[{key}]: [{value}]\n" for key, value in properties.items()))
        return 0

    # --- UI Automator and input ----------------------------------------------------------

    def _uiautomator(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        if not args or args[0] != "dump":
            invocation.err(
                "Usage: uiautomator <subcommand> [options]\n  dump [--compressed] [file]\n"
            )
            return 1
        paths = [arg for arg in args[1:] if not arg.startswith("--")]
        path = paths[0] if paths else "/sdcard/window_dump.xml"
        fault = self._dump_faults.popleft() if self._dump_faults else None
        if fault is DumpFault.IDLE_STATE:
            invocation.out(IDLE_STATE_ERROR + "\n")
            return 0
        if fault is DumpFault.NULL_ROOT:
            invocation.out("ERROR: null root node returned by UiTestAutomationBridge.\n")
            return 0
        try:
            xml = self.device.dump_xml()
        except DeviceError as exc:
            # The phone's own uiautomator error when it gives one; the commonest one otherwise.
            message = str(exc) if str(exc).startswith("ERROR:") else IDLE_STATE_ERROR
            invocation.out(message + "\n")
            return 0
        if not xml.startswith("<?xml"):
            xml = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>" + xml
        data = xml.encode()
        if fault is DumpFault.EMPTY:
            data = b""
        elif fault is DumpFault.TRUNCATED:
            data = data[: len(data) // 2]
        if path == "/dev/tty":
            invocation.out(data)  # the real tool runs the trailing line onto the XML
        elif fault is not DumpFault.NO_FILE:
            try:
                self.files.write(path, data, append=False)
            except OSError as exc:
                invocation.out(f"ERROR: could not write {path}: {exc.strerror}\n")
                return 0
        invocation.out(f"UI hierchary dumped to: {path}\n")
        return 0

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
            "text": self._input_text,
            "keyevent": self._input_keyevent,
            "keycombination": self._input_keycombination,
            "tap": self._input_tap,
            "swipe": self._input_swipe,
        }
        handler = handlers.get(command)
        if handler is None:
            invocation.err(f"Error: Unknown command: {command}\n")
            return 1
        return handler(invocation, rest)

    def _input_text(self, invocation: Invocation, args: list[str]) -> int:
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
        self._type(text)
        return 0

    def _input_keyevent(self, invocation: Invocation, args: list[str]) -> int:
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
            self._key(code)
        return 0

    def _input_keycombination(self, invocation: Invocation, args: list[str]) -> int:
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
            self._selection_pending = True
        return 0

    def _input_tap(self, invocation: Invocation, args: list[str]) -> int:
        point = _numbers(args, 2)
        if point is None:
            invocation.err("Error: tap needs x and y\n")
            return 1
        self._selection_pending = False
        self.device.tap(point[0], point[1])
        return 0

    def _input_swipe(self, invocation: Invocation, args: list[str]) -> int:
        numbers = _numbers(args, 5) or _numbers(args, 4)
        if numbers is None:
            invocation.err("Error: swipe needs x1 y1 x2 y2 [duration(ms)]\n")
            return 1
        x1, y1, x2, y2 = numbers[:4]
        duration = numbers[4] if len(numbers) == 5 else 300
        self._selection_pending = False
        if (x1, y1) == (x2, y2):
            if duration >= LONG_PRESS_MS:
                self.device.long_press(x1, y1, duration)
            else:
                self.device.tap(x1, y1)
        else:
            self.device.swipe(x1, y1, x2, y2, duration)
        return 0

    # --- activities, packages and input methods --------------------------------------------

    def _am(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        if not args:
            invocation.err("usage: am [start|force-stop|broadcast] ...\n")
            return 1
        if args[0] in ("start", "start-activity"):
            return self._am_start(invocation, args[1:])
        if args[0] == "force-stop" and len(args) >= 2:
            # What a user sees of a force-stop: the app in front goes away, to the home screen.
            if self.device.foreground_app() == args[-1]:
                self.device.press_key("home")
            return 0
        if args[0] == "broadcast":
            return self._am_broadcast(invocation, args[1:])
        invocation.err(f"Error: unknown command '{args[0]}'\n")
        return 1

    def _am_start(self, invocation: Invocation, args: list[str]) -> int:
        options = _intent_options(args)
        component = options.get("-n")
        if component is None:
            invocation.err(f"Error: Activity not started, unable to resolve {_intent(options)}\n")
            return 1
        package, _, activity = component.partition("/")
        expanded = package + activity if activity.startswith(".") else activity
        if expanded != package + LAUNCHER_ACTIVITY or not self._launch(package):
            invocation.out(f"Starting: {_intent(options)}\n")
            invocation.err(
                f"Error type 3\nError: Activity class {{{package}/{expanded}}} does not exist.\n"
            )
            return 1
        invocation.out(f"Starting: {_intent(options)}\n")
        return 0

    def _am_broadcast(self, invocation: Invocation, args: list[str]) -> int:
        options = _intent_options(args)
        invocation.out(f"Broadcasting: {_intent(options)}\nBroadcast completed: result=0\n")
        # ADB Keyboard listens only while it is the current input method, as on a phone.
        if not (self.device.adb_keyboard_installed and self._current_ime == ADB_KEYBOARD_IME):
            return 0
        action = options.get("-a")
        message = options.get("msg", "")
        if action == "ADB_INPUT_TEXT":
            self._type(message)
        elif action == "ADB_INPUT_B64":
            # The keyboard drops a message it cannot decode.
            with contextlib.suppress(binascii.Error, UnicodeDecodeError):
                self._type(base64.b64decode(message, validate=True).decode("utf-8"))
        elif action == "ADB_CLEAR_TEXT":
            self._selection_pending = False
            self.device.clear_text()
        return 0

    def _monkey(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        package = args[args.index("-p") + 1] if "-p" in args[:-1] else None
        if package is None or not self._launch(package):
            invocation.err("** No activities found to run, monkey aborted.\n")
            return 1
        invocation.out(
            "Events injected: 1\n"
            "## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)\n"
        )
        return 0

    def _pm(self, invocation: Invocation) -> int:
        return self._package_command(invocation, invocation.argv[1:])

    def _cmd(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        if not args:
            invocation.err("cmd: no service specified\n")
            return 1
        if args[0] != "package":
            invocation.err(f"cmd: Can't find service: {args[0]}\n")
            return 20
        return self._package_command(invocation, args[1:])

    def _package_command(self, invocation: Invocation, args: list[str]) -> int:
        if args[:2] == ["list", "packages"]:
            flags = [arg for arg in args[2:] if arg.startswith("-")]
            filters = [arg for arg in args[2:] if not arg.startswith("-")]
            for package in self._packages():
                if filters and filters[0] not in package:
                    continue
                prefix = f"{self._apk_path(package)}=" if "-f" in flags else ""
                invocation.out(f"package:{prefix}{package}\n")
            return 0
        if args[:1] == ["path"] and len(args) == 2:
            if args[1] not in self._packages():
                return 1
            invocation.out(f"package:{self._apk_path(args[1])}\n")
            return 0
        if args[:1] in (["resolve-activity"], ["query-activities"]):
            return self._resolve_activities(invocation, args[0], args[1:])
        invocation.err(f"Unknown command: {' '.join(args[:1]) or '(none)'}\n")
        return 1

    def _resolve_activities(self, invocation: Invocation, command: str, args: list[str]) -> int:
        options = _intent_options(args)
        brief = "--brief" in args or "--components" in args
        action = options.get("-a", "android.intent.action.MAIN")
        category = options.get("-c", "android.intent.category.LAUNCHER")
        apps = self.device.installed_apps()
        if action != "android.intent.action.MAIN" or category != "android.intent.category.LAUNCHER":
            matches: list[str] = []
        elif command == "resolve-activity":
            target = options.get("package") or options.get("-p")
            matches = [target] if target is not None and target in apps else []
        else:
            matches = sorted(apps)
        if command == "resolve-activity":
            if not matches:
                invocation.out("No activity found\n")
                return 0
            invocation.out(self._resolve_info(matches[0], brief))
            return 0
        if not matches:
            invocation.out("No activities found\n")
            return 0
        invocation.out(f"{len(matches)} activities found:\n")
        for number, package in enumerate(matches):
            invocation.out(f"  Activity #{number}:\n")
            invocation.out(
                "".join(f"    {line}\n" for line in self._resolve_info(package, brief).splitlines())
            )
        return 0

    def _resolve_info(self, package: str, brief: bool) -> str:
        header = "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n"
        if brief:
            return f"{header}{package}/{LAUNCHER_ACTIVITY}\n"
        # As on a real phone the label is a resource id: no readable name leaves the phone.
        return (
            header + "ActivityInfo:\n"
            f"  name={package}{LAUNCHER_ACTIVITY}\n"
            f"  packageName={package}\n"
            "  labelRes=0x7f140000 nonLocalizedLabel=null icon=0x7f0f0000\n"
            "  enabled=true exported=true\n"
        )

    def _ime(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        if args[:1] == ["list"]:
            imes = self._installed_imes() if "-a" in args else self._enabled_imes
            if "-s" in args:
                invocation.out("".join(f"{ime}\n" for ime in imes))
            else:
                invocation.out(
                    "".join(f"{ime}:\n  mId={ime} mSettingsActivityName=null\n" for ime in imes)
                )
            return 0
        if len(args) == 2 and args[0] in ("enable", "disable", "set"):
            verb, ime = args
            if ime not in self._installed_imes():
                invocation.err(f"Unknown input method {ime} cannot be {verb}d for user #0\n")
                return 1
            if verb == "enable":
                if ime not in self._enabled_imes:
                    self._enabled_imes.append(ime)
                invocation.out(f"Input method {ime}: now enabled for user #0\n")
            elif verb == "disable":
                if ime in self._enabled_imes and len(self._enabled_imes) > 1:
                    self._enabled_imes.remove(ime)
                    if self._current_ime == ime:
                        self._current_ime = self._enabled_imes[0]
                invocation.out(f"Input method {ime}: now disabled for user #0\n")
            else:
                if ime not in self._enabled_imes:
                    invocation.err(f"Input method {ime}: not enabled for user #0\n")
                    return 1
                self._current_ime = ime
                invocation.out(f"Input method {ime} selected for user #0\n")
            return 0
        if args == ["reset"]:
            self._enabled_imes, self._current_ime = [LATIN_IME], LATIN_IME
            invocation.out(f"Reset current and enabled IMEs for user #0\n  Selected: {LATIN_IME}\n")
            return 0
        invocation.err("ime: usage: ime list [-a] [-s] | enable ID | disable ID | set ID | reset\n")
        return 1

    # --- window manager, settings, screen ------------------------------------------------

    def _wm(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        if args == ["size"]:
            width, height = self._natural_size()
            invocation.out(f"Physical size: {width}x{height}\n")
            return 0
        if args == ["density"]:
            invocation.out(f"Physical density: {DENSITY_DPI}\n")
            return 0
        invocation.err("wm: only `wm size` and `wm density` are available on this phone\n")
        return 1

    def _dumpsys(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        if args[:1] != ["window"]:
            invocation.out(f"Can't find service: {args[0] if args else '(none)'}\n")
            return 0
        width, height = self._natural_size()
        component = self._focus_component()
        package, _, activity = component.partition("/")
        short = activity[len(package) :] if activity.startswith(package + ".") else activity
        invocation.out(
            "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n"
            "  Display: mDisplayId=0 rootTasks=1\n"
            f"    init={width}x{height} {DENSITY_DPI}dpi base={width}x{height} {DENSITY_DPI}dpi "
            f"cur={width}x{height} app={width}x{height} rng={width}x{width}-{height}x{height}\n"
            "    mLayoutSeq=212\n"
            f"  mCurrentFocus=Window{{9b1c2e4 u0 {component}}}\n"
            f"  mFocusedApp=ActivityRecord{{4f0a7d1 u0 {package}/{short} t17}}\n"
            "  DisplayRotation\n"
            "    mRotation=0 mDeferredRotationPauseCount=0\n"
            "    WindowOrientationListener\n"
            "      mCurrentRotation=ROTATION_0\n"
        )
        return 0

    def _settings(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        if len(args) != 3 or args[0] != "get" or args[1] not in ("system", "secure", "global"):
            invocation.err("usage: settings get {system|secure|global} NAME\n")
            return 1
        _, namespace, name = args
        state = self.device.state
        values: dict[tuple[str, str], str] = {
            ("global", "wifi_on"): _flag(state.get("wifi")),
            ("global", "bluetooth_on"): _flag(state.get("bluetooth")),
            ("global", "airplane_mode_on"): _flag(state.get("airplane_mode")),
            ("secure", "default_input_method"): self._current_ime,
            ("secure", "enabled_input_methods"): ":".join(self._enabled_imes),
        }
        invocation.out(values.get((namespace, name), "null") + "\n")
        return 0

    def _screencap(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        paths = [arg for arg in args if not arg.startswith("-")]
        if "-p" not in args and not (paths and paths[0].endswith(".png")):
            invocation.err("screencap: this phone writes PNG only: use -p\n")
            return 1
        png = self.device.screenshot_png()
        if png is None:
            width, height = self.device.screen_size()
            png = draw_outlines(width, height, self.device.dump_xml())
        if paths:
            try:
                self.files.write(paths[0], png, append=False)
            except OSError as exc:
                invocation.err(f"Error opening file: {paths[0]} ({exc.strerror})\n")
                return 1
        else:
            invocation.out(png)
        return 0


def _flag(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return "1" if value.lower() in ("1", "on", "true", "yes") else "0"
    return "1" if value else "0"


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


def _intent_options(args: list[str]) -> dict[str, str]:
    """`-a ACTION -c CATEGORY -n COMPONENT --es KEY VALUE ... [PACKAGE]` as a flat dict."""
    options: dict[str, str] = {}
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("--es", "--ei", "--ez", "--el", "--ef", "--eu") and index + 2 < len(args):
            options[args[index + 1]] = args[index + 2]
            index += 3
        elif arg in ("-a", "-c", "-n", "-d", "-t", "-f", "-p", "--user") and index + 1 < len(args):
            options[arg] = args[index + 1]
            index += 2
        elif arg.startswith("-"):
            index += 1
        else:
            options["package"] = arg
            index += 1
    return options


def _intent(options: Mapping[str, str]) -> str:
    """The `Intent { ... }` summary `am` prints."""
    fields = [f"act={options['-a']}"] if "-a" in options else []
    fields += [f"cat=[{options['-c']}]"] if "-c" in options else []
    fields += [f"cmp={options['-n']}"] if "-n" in options else []
    extras = any(
        key not in ("-a", "-c", "-n", "-d", "-t", "-f", "-p", "--user", "package")
        for key in options
    )
    fields += ["flg=0x400000"] if "-a" in options and "-n" not in options else []
    fields += ["(has extras)"] if extras else []
    return "Intent { " + " ".join(fields) + " }"


def _ancestors(path: str) -> list[str]:
    parts = [part for part in path.split("/") if part]
    return ["/" + "/".join(parts[: index + 1]) for index in range(len(parts))]
