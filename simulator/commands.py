"""`phone-agent sim ...`: commands about the simulator itself."""

from __future__ import annotations

import argparse


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
    """The `sim` command group; its subcommands come from the modules that own them (the
    screen catalogue, for one, needs the oracle from evals, which the simulator must not
    import)."""
    sim_subcommands(subparsers)
