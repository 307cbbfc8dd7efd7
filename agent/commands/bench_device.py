"""`phone-agent bench device`: screen reads per screen reader (`--screen-reader`), timed against
the simulator over the ADB protocol (default) or a phone (`--device adb`). See
`evals.bench.device`."""

from __future__ import annotations

import argparse
import sys
from typing import cast

from agent.commands.arguments import port, utf8_text
from agent.commands.command_groups import command_group
from devices.errors import UsageError
from devices.reader_choice import SCREEN_READER_CHOICES, ScreenReaderChoice


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_group(subparsers, "bench").add_parser(
        "device",
        help="time screen reads per screen reader (uiautomator dump, uiautomator2's server)",
        description="Time reading the screen with each screen reader: opening it, reads of an "
        "unchanged screen and reads right after an input (opening Settings, pressing Home), "
        "with what each did to stay fresh. Against the simulator served over the ADB protocol "
        "in this process (default), or a phone (--device adb).",
    )
    parser.add_argument(
        "--device",
        choices=("sim", "adb"),
        default="sim",
        help="sim: the simulator over the ADB protocol (default); adb: a phone",
    )
    parser.add_argument("--serial", type=utf8_text, help="the phone's serial (adb)")
    parser.add_argument("--adb-host", type=utf8_text, help="ADB server host (adb)")
    parser.add_argument("--adb-port", type=port, help="ADB server port (adb)")
    parser.add_argument(
        "--readers",
        default="dump,u2",
        metavar="LIST",
        help=f"comma-separated readers to time, of {', '.join(SCREEN_READER_CHOICES)} (dump,u2)",
    )
    parser.add_argument("--reads", type=int, metavar="N", help="reads of an unchanged screen (30)")
    parser.add_argument("--inputs", type=int, metavar="N", help="reads after an input (10)")
    parser.add_argument(
        "--settle",
        type=float,
        metavar="SECONDS",
        help="pause after each input before reading (1.0 on a phone, 0 on the simulator)",
    )
    parser.add_argument(
        "--sdk-level", type=int, default=34, metavar="N", help="the simulated API level (34)"
    )
    parser.add_argument(
        "--stale-reads",
        type=int,
        default=0,
        metavar="N",
        help="reads after a screen change that the simulated server's cache answers with the "
        "screen from before it (0)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=_run)


def _readers(text: str) -> list[ScreenReaderChoice]:
    readers: list[ScreenReaderChoice] = []
    for name in (part.strip() for part in text.split(",")):
        if name not in SCREEN_READER_CHOICES:
            raise UsageError(
                f"bench device: --readers: unknown reader {name!r}; choose from "
                f"{', '.join(SCREEN_READER_CHOICES)}"
            )
        readers.append(cast(ScreenReaderChoice, name))
    return readers


def _count(value: int | None, default: int, option: str) -> int:
    if value is None:
        return default
    if value < 0:
        raise UsageError(f"bench device: {option} must be 0 or more, got {value}")
    return value


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _run(args: argparse.Namespace) -> int:
    from evals.bench import device as bench

    readers = _readers(args.readers)
    reads = _count(args.reads, bench.DEFAULT_READS, "--reads")
    inputs = _count(args.inputs, bench.DEFAULT_INPUTS, "--inputs")
    if args.settle is not None and not 0 <= args.settle <= 60:
        raise UsageError(f"bench device: --settle must be 0-60 seconds, got {args.settle}")
    if args.device == "adb":
        if args.stale_reads or args.sdk_level != 34:
            raise UsageError("bench device: --sdk-level and --stale-reads apply to --device sim")
        target = bench.Target("a phone over ADB", args.adb_host, args.adb_port, args.serial)
        report = bench.run_device_bench(
            target,
            readers,
            reads=reads,
            inputs=inputs,
            settle_s=1.0 if args.settle is None else args.settle,
            progress=_progress,
        )
    else:
        if args.serial or args.adb_host or args.adb_port:
            raise UsageError(
                "bench device: --serial, --adb-host and --adb-port apply to --device adb"
            )
        if args.stale_reads < 0:
            raise UsageError(
                f"bench device: --stale-reads must be 0 or more, got {args.stale_reads}"
            )
        with bench.simulated_phone(args.sdk_level, args.stale_reads) as target:
            report = bench.run_device_bench(
                target,
                readers,
                reads=reads,
                inputs=inputs,
                settle_s=args.settle or 0.0,
                sdk_level=args.sdk_level,
                stale_reads=args.stale_reads,
                progress=_progress,
            )
    print(report.model_dump_json(indent=2) if args.json else bench.render_text(report))
    return 0
