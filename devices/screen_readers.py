"""Reading a phone's screen over ADB, two ways behind one small protocol.

- `dump`: `uiautomator dump` to a new file, read raw and removed. Every phone has it; each read
  starts a fresh UI automation connection, so it is fresh by construction and takes about one
  to three seconds on a phone.
- `u2`: the UI automation server the uiautomator2 package ships (`u2.jar`), pushed once (skipped
  when the phone's copy has the same checksum), started with `app_process` (nothing installed)
  and asked for the hierarchy over HTTP through ADB; milliseconds a read once it runs. The
  package's own client does all of that; this module asks it for the hierarchy.
- `auto`: `u2`, and `dump` whenever `u2` cannot start or stops working, saying so in one line.

Fresh reads. A long-lived UI automation connection answers from an accessibility cache that can
lag the screen, so the `u2` reader, after any input (`screen_may_change`), makes sure the tree
it returns is not the one from before the input:
1. the server's cache is cleared before the read where the server can (Android 14 and later:
   the jar clears it when `objInfoOfAllInstances` begins, so the reader asks that for a node
   that cannot exist);
2. a tree identical to the one before the input is read again, after short pauses (`REREADS_S`);
3. still identical where the cache cannot be cleared, the server is restarted, which gives a
   connection with an empty cache, and read once more: what that shows is the screen.
`ReadStats` counts each of these, so a run or a benchmark can say how often they happened.

Android allows one UI automation connection at a time: while the server runs, `uiautomator
dump` fails, so the reader stops the server before anything reads with `dump`.
"""

from __future__ import annotations

import contextlib
import http.client
import re
import shlex
import time
import uuid
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel

from devices.adb_text import extract_hierarchy
from devices.base import DeviceError
from devices.reader_choice import ScreenReaderChoice

if TYPE_CHECKING:
    import adbutils
    from uiautomator2.core import BasicUiautomatorServer

REMOTE_DUMP_DIR = "/data/local/tmp"
REREADS_S = (0.1, 0.3)  # pauses before re-reading a tree that did not change after an input
U2_SERVER_PORT = 9008  # uiautomator2's own default: a server left running is found again
U2_MAX_DEPTH = 50  # the client's default depth; deeper nodes are not dumped
U2_CALL_TIMEOUT_S = 20.0
# A node no screen has: asking for it makes the server clear its accessibility cache first.
_NO_SUCH_NODE_ID = "phone-agent:id/clear-accessibility-cache"
CLEARS_CACHE_FROM_SDK = 34
_DUMP_FAILURES = ("ERROR", "null root node", "Killed")
_UI_AUTOMATION_TAKEN = "already registered"
_DUMPED_TO = re.compile(r"dumped to: (\S+)")
_EMPTY_HIERARCHY = re.compile(r"<hierarchy\b[^>]*/>")


class ScreenReadError(DeviceError):
    """The screen could not be read; the message says why, in one line."""


class ScreenReaderUnavailable(DeviceError):
    """The uiautomator2 server cannot be started or stopped answering."""


class ReadStats(BaseModel):
    """What a reader did to return fresh screens (see the module's docstring)."""

    reader: str
    reads: int = 0
    reads_after_input: int = 0
    cache_clears: int = 0
    unchanged_after_input: int = 0  # first tree after an input was the one from before it
    rereads: int = 0
    changed_on_reread: int = 0  # ...and a re-read then showed a new one
    restarts: int = 0  # a fresh server connection settled it
    changed_after_restart: int = 0  # ...and it showed a new one: the cache had been stale


class ScreenReader(Protocol):
    """Reads the screen of one phone."""

    @property
    def name(self) -> str:
        """The reader that answers now: "dump" or "u2"."""
        ...

    @property
    def stats(self) -> ReadStats: ...

    def read(self) -> str:
        """The current screen as uiautomator XML, whole; DeviceError when it cannot be read."""
        ...

    def screen_may_change(self) -> None:
        """Input was sent: the next read must not return the screen from before it."""
        ...

    def close(self) -> None:
        """Stop anything the reader runs on the phone."""
        ...


class CommandResult(Protocol):
    @property
    def output(self) -> str: ...


class AdbShell(Protocol):
    """What the `dump` reader needs of a phone: quoted commands and their raw output."""

    serial: str

    def shell(self, argv: Sequence[str | int], timeout: float | None = None) -> CommandResult: ...

    def exec_out(self, argv: Sequence[str | int], timeout: float | None = None) -> bytes: ...


def _retrying(
    read_once: Callable[[float], str],
    timeout: float,
    sleep: Callable[[float], None],
    failed: Callable[[int, str], str],
) -> str:
    """`read_once(seconds_left)` until it returns, retrying its ValueErrors with backoff until
    `timeout` runs out; then a ScreenReadError with the message `failed(attempts, problem)`."""
    deadline = time.monotonic() + timeout
    delay, attempts = 0.25, 0
    while True:
        attempts += 1
        try:
            return read_once(max(deadline - time.monotonic(), 1.0))
        except ValueError as exc:
            problem = str(exc)
        if time.monotonic() + delay > deadline:
            raise ScreenReadError(failed(attempts, problem))
        sleep(delay)
        delay = min(delay * 2, 2.0)


class DumpReader:
    """`uiautomator dump` to a new remote file, read raw and removed in one round trip.

    Never stale or half-written: the path is new, so a file there was written by this dump
    (the tool's "dumped to" line, where a phone prints one, must name it), and the XML must
    parse whole. "could not get idle state", "null root node", empty or cut-off output are
    retried with backoff until `timeout`, then reported.
    """

    name = "dump"

    def __init__(self, phone: AdbShell, timeout: float, sleep: Callable[[float], None]) -> None:
        self._phone = phone
        self._timeout = timeout
        self._sleep = sleep
        self._stats = ReadStats(reader=self.name)

    @property
    def stats(self) -> ReadStats:
        return self._stats

    def read(self) -> str:
        self._stats.reads += 1
        return _retrying(
            self._dump_once,
            self._timeout,
            self._sleep,
            lambda attempts, problem: (
                f"could not read the screen of {self._phone.serial} "
                f"({attempts} attempts in {self._timeout:g}s): {problem}"
            ),
        )

    def _dump_once(self, timeout: float) -> str:
        path = f"{REMOTE_DUMP_DIR}/phone-agent-{uuid.uuid4().hex}.xml"
        report = self._phone.shell(["uiautomator", "dump", path], timeout=timeout).output
        if _UI_AUTOMATION_TAKEN in report:
            raise ScreenReadError(
                f"`uiautomator dump` on {self._phone.serial} found another UI automation "
                "service running (a uiautomator2 server, Appium?): stop it and try again"
            )
        named = _DUMPED_TO.findall(report)
        if any(marker in report for marker in _DUMP_FAILURES) or any(p != path for p in named):
            self._phone.shell(["rm", "-f", path])
            first_line = (report.strip().splitlines() or ["no output"])[0]
            raise ValueError(f"uiautomator said {first_line!r}")
        # Read and remove in one round trip; a missing file makes `cat` fail, and so the parse.
        quoted = shlex.quote(path)
        return extract_hierarchy(
            self._phone.exec_out(["sh", "-c", f"cat {quoted}; rm -f {quoted}"])
        )

    def screen_may_change(self) -> None:
        pass  # every dump starts a new UI automation connection: nothing to go stale

    def close(self) -> None:
        pass


def _one_line(exc: BaseException) -> str:
    """An exception as one short line (uiautomator2's carry the server's output as arguments)."""
    parts = [str(part) for part in exc.args if str(part).strip()] or [type(exc).__name__]
    line = " ".join(" ".join(parts).split())
    return line if len(line) <= 300 else line[:297] + "..."


def _u2_errors() -> tuple[type[BaseException], ...]:
    """What the uiautomator2 client raises when its server cannot do what was asked."""
    import adbutils
    import uiautomator2.exceptions

    return (
        uiautomator2.exceptions.BaseException,
        adbutils.AdbError,
        OSError,
        EOFError,
        ValueError,  # a reply that is not JSON
        http.client.HTTPException,
    )


class U2Reader:
    """The hierarchy from uiautomator2's on-device server, kept fresh after inputs."""

    name = "u2"

    def __init__(
        self,
        device: adbutils.AdbDevice,
        timeout: float,
        sleep: Callable[[float], None],
        port: int = U2_SERVER_PORT,
    ) -> None:
        """Start (or find running) the server on the phone; ScreenReaderUnavailable if not."""
        try:
            from uiautomator2.core import BasicUiautomatorServer

            self._errors = _u2_errors()
        except ImportError as exc:
            raise ScreenReaderUnavailable(
                f"the uiautomator2 package is not installed ({exc})"
            ) from None
        self._serial = device.serial
        self._timeout = timeout
        self._sleep = sleep
        self._stats = ReadStats(reader=self.name)
        self._last: str | None = None
        self._input_since_read = False
        try:
            # The library pushes the jar when the phone's copy differs, starts it with
            # app_process and waits until it answers.
            self._server: BasicUiautomatorServer = BasicUiautomatorServer(device, port)
            info = self._call("deviceInfo")
        except self._errors as exc:
            raise ScreenReaderUnavailable(
                f"the uiautomator2 server did not start on {self._serial}: {_one_line(exc)}"
            ) from None
        sdk = info.get("sdkInt") if isinstance(info, dict) else None
        if not isinstance(sdk, int):
            self.close()
            raise ScreenReaderUnavailable(
                f"the uiautomator2 server on {self._serial} answered deviceInfo without sdkInt: "
                f"{str(info)[:120]!r}"
            )
        self.clears_cache = sdk >= CLEARS_CACHE_FROM_SDK

    @property
    def stats(self) -> ReadStats:
        return self._stats

    def _call(self, method: str, *params: Any) -> Any:
        return self._server.jsonrpc_call(method, list(params), timeout=U2_CALL_TIMEOUT_S)

    def read(self) -> str:
        try:
            return self._fresh_read()
        except self._errors as exc:
            raise ScreenReaderUnavailable(
                f"the uiautomator2 server on {self._serial} failed: {_one_line(exc)}"
            ) from None

    def screen_may_change(self) -> None:
        self._input_since_read = True

    def close(self) -> None:
        # A phone that went away runs nothing of ours any more.
        with contextlib.suppress(*self._errors):
            self._server.stop_uiautomator()

    def _fresh_read(self) -> str:
        after_input, self._input_since_read = self._input_since_read, False
        self._stats.reads += 1
        self._stats.reads_after_input += after_input
        xml = self._read_once(clear_cache=after_input)
        if after_input and xml == self._last:
            self._stats.unchanged_after_input += 1
            xml = self._settle(xml)
        self._last = xml
        return xml

    def _settle(self, xml: str) -> str:
        """A tree unchanged by an input: read again until it changes or is known current."""
        for pause in REREADS_S:
            self._sleep(pause)
            self._stats.rereads += 1
            xml = self._read_once(clear_cache=True)
            if xml != self._last:
                self._stats.changed_on_reread += 1
                return xml
        if self.clears_cache:
            return xml  # read through a cleared cache: the screen did not change
        self._stats.restarts += 1
        self._server.stop_uiautomator()
        self._server.start_uiautomator()
        xml = self._read_once(clear_cache=False)
        if xml != self._last:
            self._stats.changed_after_restart += 1
        return xml

    def _read_once(self, clear_cache: bool) -> str:
        if clear_cache and self.clears_cache:
            import uiautomator2

            self._stats.cache_clears += 1
            self._call("objInfoOfAllInstances", uiautomator2.Selector(resourceId=_NO_SUCH_NODE_ID))
        return _retrying(
            lambda _seconds: _hierarchy(self._call("dumpWindowHierarchy", False, U2_MAX_DEPTH)),
            self._timeout,
            self._sleep,
            lambda attempts, problem: (
                f"the uiautomator2 server on {self._serial} gave no usable screen "
                f"({attempts} attempts in {self._timeout:g}s): {problem}"
            ),
        )


def _hierarchy(reply: Any) -> str:
    """The server's reply as a dump; ValueError (retried) when it holds no screen."""
    if not isinstance(reply, str):
        raise ValueError(f"dumpWindowHierarchy returned {type(reply).__name__}, not XML")
    if _EMPTY_HIERARCHY.search(reply):  # what the server writes when no window is in front
        raise ValueError("an empty hierarchy (no window in front)")
    xml = extract_hierarchy(reply.encode())
    if ElementTree.fromstring(xml.encode()).find("node") is None:
        raise ValueError("an empty hierarchy (no window in front)")
    return xml


class AutoReader:
    """`u2` while it works; `dump` from the first failure on, saying why in one line."""

    def __init__(
        self, primary: U2Reader, fallback: DumpReader, notice: Callable[[str], None]
    ) -> None:
        self._primary: U2Reader | None = primary
        self._fallback = fallback
        self._notice = notice

    @property
    def name(self) -> str:
        return self._primary.name if self._primary is not None else self._fallback.name

    @property
    def stats(self) -> ReadStats:
        return self._primary.stats if self._primary is not None else self._fallback.stats

    def read(self) -> str:
        if self._primary is not None:
            try:
                return self._primary.read()
            except (ScreenReaderUnavailable, ScreenReadError) as exc:
                self._notice(f"screen reader: {exc}; reading with uiautomator dump from now on")
                self._primary.close()  # `uiautomator dump` fails while it runs
                self._primary = None
        return self._fallback.read()

    def screen_may_change(self) -> None:
        if self._primary is not None:
            self._primary.screen_may_change()

    def close(self) -> None:
        if self._primary is not None:
            self._primary.close()


def open_screen_reader(
    choice: ScreenReaderChoice,
    phone: AdbShell,
    device: adbutils.AdbDevice,
    *,
    timeout: float,
    sleep: Callable[[float], None],
    notice: Callable[[str], None],
) -> ScreenReader:
    """The reader `choice` names, started. `u2` that cannot start raises DeviceError; `auto`
    then reads with `dump` and says so through `notice`."""
    dump = DumpReader(phone, timeout, sleep)
    if choice == "dump":
        return dump
    try:
        u2 = U2Reader(device, timeout, sleep)
    except ScreenReaderUnavailable as exc:
        if choice == "u2":
            raise
        notice(f"screen reader: {exc}; reading with uiautomator dump")
        return dump
    return u2 if choice == "u2" else AutoReader(u2, dump, notice)
