"""`uiautomator dump` and `screencap`: the screen as XML and as an image, with the ways a real
dump fails when a test asks for them."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from enum import StrEnum

from devices import DeviceError
from simulator.adbd.files import MemoryFiles
from simulator.adbd.phone import ServedPhone
from simulator.adbd.png import draw_outlines
from simulator.adbd.sh import CommandFunction, Invocation

IDLE_STATE_ERROR = "ERROR: could not get idle state."
XML_DECLARATION = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
UI_AUTOMATION_TAKEN = (
    "java.lang.IllegalStateException: UiAutomationService "
    "android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@5e1d4a2already registered!"
)


def with_declaration(xml: str) -> str:
    """The XML as the phone's tools write it: with the declaration uiautomator starts with."""
    return xml if xml.startswith("<?xml") else XML_DECLARATION + xml


class DumpFault(StrEnum):
    """A way `uiautomator dump` fails on real phones; injected to test the client's retries."""

    IDLE_STATE = "idle-state"  # prints `ERROR: could not get idle state.`, writes nothing
    NULL_ROOT = "null-root"  # prints `ERROR: null root node returned by UiTestAutomationBridge.`
    EMPTY = "empty"  # reports success but the file is empty
    TRUNCATED = "truncated"  # reports success but the file holds half the XML
    NO_FILE = "no-file"  # reports success but writes no file


class ScreenCapture:
    """The commands that read the screen, and the dump faults waiting for the next dumps."""

    def __init__(
        self,
        phone: ServedPhone,
        files: MemoryFiles,
        dump_faults: Iterable[DumpFault],
        ui_automation_busy: Callable[[], bool],
    ) -> None:
        self._phone = phone
        self._files = files
        self._dump_faults: deque[DumpFault] = deque(dump_faults)
        self._ui_automation_busy = ui_automation_busy

    def commands(self) -> dict[str, CommandFunction]:
        return {"uiautomator": self._uiautomator, "screencap": self._screencap}

    def inject_dump_faults(self, faults: Iterable[DumpFault]) -> None:
        self._dump_faults.extend(faults)

    def _uiautomator(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        if not args or args[0] != "dump":
            invocation.err(
                "Usage: uiautomator <subcommand> [options]\n  dump [--compressed] [file]\n"
            )
            return 1
        if self._ui_automation_busy():
            # Android registers one UiAutomation at a time: a running server keeps dump out.
            invocation.err(f"{UI_AUTOMATION_TAKEN}\n")
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
            xml = self._phone.dump_xml()
        except DeviceError as exc:
            # The phone's own uiautomator error when it gives one; the commonest one otherwise.
            message = str(exc) if str(exc).startswith("ERROR:") else IDLE_STATE_ERROR
            invocation.out(message + "\n")
            return 0
        data = with_declaration(xml).encode()
        if fault is DumpFault.EMPTY:
            data = b""
        elif fault is DumpFault.TRUNCATED:
            data = data[: len(data) // 2]
        if path == "/dev/tty":
            invocation.out(data)  # the real tool runs the trailing line onto the XML
        elif fault is not DumpFault.NO_FILE:
            try:
                self._files.write(path, data, append=False)
            except OSError as exc:
                invocation.out(f"ERROR: could not write {path}: {exc.strerror}\n")
                return 0
        invocation.out(f"UI hierchary dumped to: {path}\n")
        return 0

    def _screencap(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        paths = [arg for arg in args if not arg.startswith("-")]
        if "-p" not in args and not (paths and paths[0].endswith(".png")):
            invocation.err("screencap: this phone writes PNG only: use -p\n")
            return 1
        png = self._phone.screenshot_png()
        if png is None:
            width, height = self._phone.screen_size()
            png = draw_outlines(width, height, self._phone.dump_xml())
        if paths:
            try:
                self._files.write(paths[0], png, append=False)
            except OSError as exc:
                invocation.err(f"Error opening file: {paths[0]} ({exc.strerror})\n")
                return 1
        else:
            invocation.out(png)
        return 0
