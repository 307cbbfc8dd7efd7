"""`bench device`: what reading a phone's screen costs, per reader (`devices.screen_readers`).

Against the simulator served over the real ADB host protocol in this process (the default), or
a phone on an ADB server. For each reader, on a fresh `AdbDevice`: the time to open it (for
`u2`, pushing the jar when the phone's copy differs and starting the server), the first read,
`reads` reads of an unchanged screen, and `inputs` reads each right after an input that changes
the screen (alternately opening Settings and pressing Home; after `settle_s`, as the agent
waits), where the reader makes sure the tree is not the one from before the input. Medians and
90th percentiles in milliseconds, and the reader's `ReadStats`. Each reader's server is stopped
before the next reader opens, since `uiautomator dump` fails while it runs.

On the simulator the times are those of our protocol stack and the simulated phone, not of a
phone's accessibility service: they compare the readers' overheads, no more.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from pydantic import BaseModel

from devices.adb import AdbDevice
from devices.base import DeviceError
from devices.reader_choice import ScreenReaderChoice
from devices.screen_readers import ReadStats

DEFAULT_READS = 30
DEFAULT_INPUTS = 10
SETTINGS = "com.android.settings"


class ReaderTiming(BaseModel):
    reader: str  # as asked for
    answered_by: str | None = None  # the reader that read (auto: u2, or dump after a fallback)
    error: str | None = None  # the reader could not start (the rest is then empty)
    open_ms: float | None = None
    first_read_ms: float | None = None
    reads: int = 0
    read_ms_median: float | None = None
    read_ms_p90: float | None = None
    inputs: int = 0
    after_input_ms_median: float | None = None
    after_input_ms_p90: float | None = None
    stats: ReadStats | None = None


class DeviceBenchReport(BaseModel):
    target: str
    serial: str
    settle_s: float
    sdk_level: int | None = None  # the simulated phone's
    stale_reads: int | None = None  # the simulated server's cache lag
    readers: list[ReaderTiming]
    read_speedup: float | None = None  # dump's median read / u2's


@dataclass(frozen=True)
class Target:
    """Where the phone answers: an ADB server's address and the phone's serial."""

    description: str
    host: str | None
    port: int | None
    serial: str | None


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 2)


def _p90(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def time_reader(
    reader: ScreenReaderChoice,
    target: Target,
    *,
    reads: int,
    inputs: int,
    settle_s: float,
    sleep: Callable[[float], None] = time.sleep,
) -> ReaderTiming:
    """Open `reader` on a fresh device, time its reads, and stop it."""
    opened: list[AdbDevice] = []

    def open_device() -> None:
        opened.append(
            AdbDevice(target.serial, target.host, target.port, screen_reader=reader, sleep=sleep)
        )

    try:
        open_s = _timed(open_device)
    except DeviceError as exc:
        return ReaderTiming(reader=reader, error=str(exc))
    device = opened[0]
    try:
        first_s = _timed(device.dump_xml)
        steady = [_timed(device.dump_xml) for _ in range(reads)]
        after_input: list[float] = []
        for number in range(inputs):
            if number % 2 == 0:
                device.open_app(SETTINGS)
            else:
                device.press_key("home")
            sleep(settle_s)
            after_input.append(_timed(device.dump_xml))
        stats = device.screen.stats.model_copy()
    finally:
        device.close()
    return ReaderTiming(
        reader=reader,
        answered_by=device.screen.name,
        open_ms=_ms(open_s),
        first_read_ms=_ms(first_s),
        reads=len(steady),
        read_ms_median=_ms(statistics.median(steady)) if steady else None,
        read_ms_p90=_ms(_p90(steady)) if steady else None,
        inputs=len(after_input),
        after_input_ms_median=_ms(statistics.median(after_input)) if after_input else None,
        after_input_ms_p90=_ms(_p90(after_input)) if after_input else None,
        stats=stats,
    )


@contextmanager
def simulated_phone(sdk_level: int, stale_reads: int) -> Iterator[Target]:
    """The simulator behind an ADB server on a free loopback port, for the bench's duration."""
    from simulator import Simulator
    from simulator.adbd import AdbServer, UiAutomationOptions

    phone = Simulator()
    options = UiAutomationOptions(sdk_level=sdk_level, stale_reads=stale_reads)
    with AdbServer([phone], ui_automation=options) as server:
        host, port = server.address
        yield Target(
            "the simulator over the ADB protocol (in this process)", host, port, phone.serial
        )


def run_device_bench(
    target: Target,
    readers: Sequence[ScreenReaderChoice],
    *,
    reads: int = DEFAULT_READS,
    inputs: int = DEFAULT_INPUTS,
    settle_s: float = 0.0,
    sdk_level: int | None = None,
    stale_reads: int | None = None,
    progress: Callable[[str], None] = lambda line: None,
) -> DeviceBenchReport:
    if target.serial is None:  # the only phone attached: found once, used by every reader
        only = AdbDevice(None, target.host, target.port, screen_reader="dump")
        target = Target(target.description, target.host, target.port, only.serial)
    timings = []
    for reader in readers:
        progress(f"timing the {reader} reader")
        timings.append(time_reader(reader, target, reads=reads, inputs=inputs, settle_s=settle_s))
    medians = {t.reader: t.read_ms_median for t in timings if t.read_ms_median}
    speedup = None
    if "dump" in medians and "u2" in medians:
        speedup = round(medians["dump"] / medians["u2"], 2)
    return DeviceBenchReport(
        target=target.description,
        serial=target.serial or "",
        settle_s=settle_s,
        sdk_level=sdk_level,
        stale_reads=stale_reads,
        readers=timings,
        read_speedup=speedup,
    )


def render_text(report: DeviceBenchReport) -> str:
    lines = [f"screen reads on {report.target} ({report.serial})"]
    if report.sdk_level is not None:
        lines.append(f"simulated API level {report.sdk_level}, stale reads {report.stale_reads}")
    lines.append(
        f"{'reader':<11}{'open ms':>10}{'first ms':>10}{'read ms':>10}{'p90':>8}"
        f"{'after input':>13}{'p90':>8}  freshness"
    )
    for timing in report.readers:
        if timing.error is not None:
            lines.append(f"{timing.reader:<11}unavailable: {timing.error}")
            continue
        stats = timing.stats
        fresh = (
            f"{stats.cache_clears} cache clears, {stats.unchanged_after_input} unchanged after "
            f"input, {stats.changed_on_reread} changed on re-read, {stats.restarts} restarts"
            if stats is not None
            else ""
        )
        label = timing.reader
        if timing.answered_by != timing.reader:
            label += f"->{timing.answered_by}"
        lines.append(
            f"{label:<11}{_cell(timing.open_ms, 10)}{_cell(timing.first_read_ms, 10)}"
            f"{_cell(timing.read_ms_median, 10)}{_cell(timing.read_ms_p90, 8)}"
            f"{_cell(timing.after_input_ms_median, 13)}{_cell(timing.after_input_ms_p90, 8)}"
            f"  {fresh}"
        )
    if report.read_speedup is not None:
        lines.append(f"u2 reads an unchanged screen {report.read_speedup}x as fast as dump")
    return "\n".join(lines)


def _cell(value: float | None, width: int) -> str:
    return f"{value:>{width}.1f}" if value is not None else f"{'-':>{width}}"
