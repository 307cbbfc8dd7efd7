"""`phone-agent elements XMLFILE [--json]`: a uiautomator dump's elements as the model sees them.

Text (default): the header and one line per element, exactly the prompt's screen text.
JSON: `{"app", "keyboard", "signature", "elements": [{"index", "label", "role", "checked",
"enabled", "focused", "selected", "password", "scrollable", "bounds", "center", "package",
"resource_id"}]}`. A file that is not a usable dump exits 2 with one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from agent.cli import UsageError


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

    data = _read(args.xmlfile)
    try:
        screen = Screen.parse(data)
    except ScreenParseError as exc:
        raise UsageError(f"{args.xmlfile}: {exc}") from None
    if args.json:
        print(json.dumps(screen.to_json(), ensure_ascii=False))
    else:
        print(screen.render())
    return 0


def _read(name: str) -> bytes:
    if name == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(name).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from None
