"""`phone-agent sim ...`: commands about the simulator itself."""

from __future__ import annotations

import argparse

from cli_common.command_groups import command_group


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The `sim` command group; its subcommands come from the modules that own them (the
    screen catalogue, for one, needs the oracle from evals, which the simulator must not
    import)."""
    command_group(subparsers, "sim")
