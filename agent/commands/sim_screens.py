"""`phone-agent sim screens`: the XML of every screen the task suite's oracle plans visit."""

from __future__ import annotations

import argparse
from pathlib import Path

from agent.commands.command_groups import command_group


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    screens = command_group(subparsers, "sim").add_parser(
        "screens",
        help="write the XML of every screen the task suite's oracle plans visit",
        description="Play every task's oracle plan and write each distinct screen as XML.",
    )
    screens.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="DIR",
        help="folder for the XML files (created if missing)",
    )
    screens.set_defaults(handler=_handle_screens)


def _handle_screens(args: argparse.Namespace) -> int:
    import re

    from agent.screen import Screen
    from evals.runner import oracle_screens

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    visited = oracle_screens()
    for number, xml in enumerate(visited.dumps, 1):
        screen = Screen.parse(xml)
        title = next((e.label for e in screen.elements if e.label and e.role == "text"), "")
        slug = "-".join(re.findall(r"[a-z0-9]+", title.casefold()))[:30] or "screen"
        app = screen.app.rsplit(".", 1)[-1]
        (out / f"{number:03d}_{app}_{slug}.xml").write_text(xml, encoding="utf-8")
    print(f"{len(visited.dumps)} distinct screens from the oracle plans written to {out}")
    return 0 if visited.all_succeeded else 1
