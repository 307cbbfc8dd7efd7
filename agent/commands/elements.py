"""`phone-agent elements XMLFILE [--json]`: a uiautomator dump's elements as the model sees them.
`phone-agent elements --device adb|sim [--json]`: the same for the screen a device shows now.

Text (default): the header and one line per element, exactly the prompt's screen text.
JSON: `{"app", "keyboard", "signature", "omitted", "elements": [{"index", "label", "role",
"checked", "enabled", "focused", "selected", "password", "scrollable", "bounds", "center",
"package", "resource_id"}]}`. A screen lists at most 200 elements, the first in reading order;
`omitted` counts the others (the text ends with a line that says so, as the model reads it).
A file that is not a usable dump (or larger than 8 MiB) exits 2 with one line on stderr.
With `--device adb` the phone's screen is read as `--screen-reader` says (auto by default).
"""

from __future__ import annotations

import argparse
import json

from agent.commands.device_choice import (
    add_device_arguments,
    close_device,
    device_from_arguments,
)
from agent.commands.reading import read_input
from devices.base import DeviceError
from devices.errors import UsageError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "elements",
        help="list the elements of a uiautomator dump, or of a device's screen, as the model "
        "sees them",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "xmlfile",
        metavar="XMLFILE",
        nargs="?",
        help="a uiautomator dump ('-' reads standard input); leave out with --device",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    add_device_arguments(parser, default=None)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from agent.screen import Screen, ScreenParseError
    from agent.screen_xml import MAX_DUMP_BYTES

    if (args.xmlfile is None) == (args.device is None):
        raise UsageError("elements: give either XMLFILE or --device adb|sim")
    if args.xmlfile is not None:
        device_options = ("serial", "adb_host", "adb_port", "screen_reader", "sim_state")
        given = [name for name in device_options if getattr(args, name)]
        if given:
            raise UsageError(f"elements: --{given[0].replace('_', '-')} applies with --device only")
        data = read_input(args.xmlfile, MAX_DUMP_BYTES, "a uiautomator dump")
    else:
        device = device_from_arguments(args)
        try:
            data = device.dump_xml().encode()
        finally:
            close_device(device)
    try:
        screen = Screen.parse(data)
    except ScreenParseError as exc:
        if args.xmlfile is None:
            raise DeviceError(f"the screen of {device.serial}: {exc}") from None
        raise UsageError(f"{args.xmlfile}: {exc}") from None
    if args.json:
        print(json.dumps(screen.to_json(), ensure_ascii=False))
    else:
        print(screen.render())
    return 0
