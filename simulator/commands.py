"""`phone-agent sim ...`: commands about the simulator itself."""

from __future__ import annotations

import argparse
import re
from pathlib import Path


def sim_subcommands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    """The `sim` command's own subcommands, creating `sim` the first time it is asked for.

    Other modules that add `sim` subcommands call this too, whichever registers first.
    """
    sim = subparsers.choices.get("sim")
    if sim is None:
        sim = subparsers.add_parser(
            "sim", help="the simulated phone", description="Commands about the simulated phone."
        )
        sim.set_defaults(handler=lambda args: _missing_subcommand(sim))
        # type(sim): the parser class the CLI gave its subcommands (errors stay one line)
        sim.add_subparsers(dest="sim_command", metavar="SUBCOMMAND", parser_class=type(sim))
    for action in sim._actions:  # argparse keeps no public handle on a parser's subparsers
        if isinstance(action, argparse._SubParsersAction):
            return action
    raise RuntimeError("the sim command has no subcommands")


def _missing_subcommand(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    screens = sim_subcommands(subparsers).add_parser(
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
    # The catalogue needs the oracle, which resolves plans through the agent's screen model:
    # a CLI handler may compose the parts, the simulator package itself does not.
    import tempfile

    from agent.screen import Screen
    from evals.runner import run_suite
    from simulator.tasks import TASKS

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    seen: set[str] = set()

    def keep(xml: str, screen: Screen) -> None:
        if screen.signature in seen:
            return
        seen.add(screen.signature)
        title = next((e.label for e in screen.elements if e.label and e.role == "text"), "")
        slug = "-".join(re.findall(r"[a-z0-9]+", title.casefold()))[:30] or "screen"
        app = screen.app.rsplit(".", 1)[-1]
        (out / f"{len(seen):03d}_{app}_{slug}.xml").write_text(xml, encoding="utf-8")

    with tempfile.TemporaryDirectory() as scratch:
        report = run_suite(TASKS, 1, Path(scratch), on_screen=keep)
    print(
        f"{len(seen)} distinct screens from {report.summary.episodes} oracle episodes "
        f"written to {out}"
    )
    return 0 if report.summary.success_rate == 1.0 else 1
