"""`phone-agent elements XMLFILE [--json]`: a uiautomator dump's elements as the model sees them.

Text (default): the header and one line per element, exactly the prompt's screen text.
JSON: `{"app", "keyboard", "signature", "omitted", "elements": [{"index", "label", "role",
"checked", "enabled", "focused", "selected", "password", "scrollable", "bounds", "center",
"package", "resource_id"}]}`. A screen lists at most 200 elements, the first in reading order;
`omitted` counts the others (the text ends with a line that says so, as the model reads it).
A file that is not a usable dump (or larger than 8 MiB) exits 2 with one line on stderr.
"""

from __future__ import annotations

import argparse
import json

from agent.commands.reading import read_input
from devices.errors import UsageError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "elements",
        help="list the elements of a uiautomator dump as the model sees them",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "xmlfile", metavar="XMLFILE", help="a uiautomator dump ('-' reads standard input)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from agent.screen import Screen, ScreenParseError
    from agent.screen_xml import MAX_DUMP_BYTES

    data = read_input(args.xmlfile, MAX_DUMP_BYTES, "a uiautomator dump")
    try:
        screen = Screen.parse(data)
    except ScreenParseError as exc:
        raise UsageError(f"{args.xmlfile}: {exc}") from None
    if args.json:
        print(json.dumps(screen.to_json(), ensure_ascii=False))
    else:
        print(screen.render())
    return 0
