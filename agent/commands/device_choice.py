"""`--device sim|adb`: which device a command drives, chosen in one place.

The simulator (with a start state) or a phone over ADB; both are `devices.base.Device`s, so
everything after the choice is the same. Commands add the options with `add_device_arguments`
and open what they name with `device_from_arguments`; code that chooses without a command line
calls `open_device`. A phone's screen is read as `--screen-reader` says (auto: uiautomator2's
on-device server, falling back to `uiautomator dump` with one line on stderr saying why).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, assert_never

from agent.commands.arguments import port, utf8_text
from devices.errors import UsageError
from devices.reader_choice import SCREEN_READER_CHOICES, ScreenReaderChoice

if TYPE_CHECKING:
    from devices.base import Device

DeviceKind = Literal["sim", "adb"]
DEVICE_KINDS: tuple[DeviceKind, ...] = ("sim", "adb")


def add_device_arguments(
    parser: argparse.ArgumentParser, default: DeviceKind | None = "sim"
) -> None:
    """The device options; with `default` None, `--device` is optional and absent when not
    given (a command that can also work without a device)."""
    parser.add_argument("--device", choices=DEVICE_KINDS, default=default)
    parser.add_argument(
        "--serial", type=utf8_text, help="device serial (adb), or the simulator's serial"
    )
    parser.add_argument(
        "--adb-host", type=utf8_text, help="ADB server host (default: the local one)"
    )
    parser.add_argument("--adb-port", type=port, help="ADB server port")
    parser.add_argument(
        "--screen-reader",
        choices=SCREEN_READER_CHOICES,
        help="how a phone's screen is read (adb): u2 = uiautomator2's on-device server (fast), "
        "dump = `uiautomator dump` (slow, always there), auto = u2, else dump (default)",
    )
    parser.add_argument(
        "--sim-state",
        type=utf8_text,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="initial simulator state, e.g. wifi=on (repeatable)",
    )


def device_from_arguments(args: argparse.Namespace) -> Device:
    """The device `add_device_arguments`' options name; bad options are usage errors."""
    if args.device == "adb":
        if args.sim_state:
            raise UsageError(f"{args.command}: --sim-state applies to --device sim only")
        return open_device(
            "adb",
            serial=args.serial,
            adb_host=args.adb_host,
            adb_port=args.adb_port,
            screen_reader=args.screen_reader or "auto",
        )
    if args.screen_reader is not None:
        raise UsageError(f"{args.command}: --screen-reader applies to --device adb only")
    from simulator.state import StateError, parse_state_assignments

    try:
        state = parse_state_assignments(args.sim_state)
    except StateError as exc:
        raise UsageError(f"{args.command}: --sim-state: {exc}") from None
    return open_device("sim", serial=args.serial, sim_state=state)


def open_device(
    kind: DeviceKind,
    *,
    serial: str | None = None,
    adb_host: str | None = None,
    adb_port: int | None = None,
    sim_state: Mapping[str, Any] | None = None,
    screen_reader: ScreenReaderChoice = "auto",
) -> Device:
    """A simulator started in `sim_state`, or the phone `serial` of the ADB server at
    `adb_host`:`adb_port` (the local one, and its only phone, by default), its screen read by
    `screen_reader`."""
    match kind:
        case "sim":
            from simulator import Simulator

            if serial:
                return Simulator(state=sim_state, serial=serial)
            return Simulator(state=sim_state)
        case "adb":
            from devices.adb import AdbDevice

            return AdbDevice(
                serial=serial, host=adb_host, port=adb_port, screen_reader=screen_reader
            )
        case _:
            assert_never(kind)


def close_device(device: Device) -> None:
    """Stop what runs on a phone for this process (its screen reader's server). Leaving it is
    harmless, it stops when the process ends, but `uiautomator dump` fails while it runs."""
    from devices.adb import AdbDevice

    if isinstance(device, AdbDevice):
        device.close()


def settle_seconds(kind: DeviceKind) -> float:
    """How long to let the screen settle after an action before reading it: a phone animates,
    the simulator draws the new screen at once."""
    return 1.0 if kind == "adb" else 0.0
