"""Commands whose subcommands come from several modules: `sim` (the ADB server, the oracle's
screen catalogue, the fidelity score) and `bench` (the agent's benchmarks and the model
server's)."""

from __future__ import annotations

import argparse

SubParsers = argparse._SubParsersAction  # argparse's own name for a parser's subcommands

# name: (help, description)
GROUPS = {
    "sim": ("the simulated phone", "Commands about the simulated phone."),
    "bench": (
        "measure what a screen, a decision and a weight build cost (prompt, step, serving)",
        "Performance benchmarks; absolute numbers vary between machines, compare the ratios.",
    ),
}


def command_group(
    subparsers: SubParsers[argparse.ArgumentParser], name: str
) -> SubParsers[argparse.ArgumentParser]:
    """The subcommands of the group `name`, creating it the first time any module asks.

    Every module that adds a subcommand to a group calls this, in whatever order the modules
    register; the group's command alone shows its subcommands and exits with 2.
    """
    group = subparsers.choices.get(name)
    if group is None:
        help_line, description = GROUPS[name]
        group = subparsers.add_parser(name, help=help_line, description=description)
        group.set_defaults(handler=lambda args: _show_subcommands(group))
        # type(group): the parser class the CLI gave its subcommands (errors stay one line)
        group.add_subparsers(dest=f"{name}_command", metavar="SUBCOMMAND", parser_class=type(group))
    for action in group._actions:  # argparse keeps no public handle on a parser's subparsers
        if isinstance(action, argparse._SubParsersAction):
            return action
    raise RuntimeError(f"the {name} command has no subcommands")


def _show_subcommands(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2
