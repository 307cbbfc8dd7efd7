"""`phone-agent sim`: one subcommand registry, whichever module registers first."""

from __future__ import annotations

import argparse
import importlib
import itertools
from types import ModuleType

import pytest

from agent.cli import ArgumentParser

SIM_COMMAND_MODULES = (
    "agent.commands.sim_adb_server",
    "agent.commands.sim_screens",
    "agent.commands.sim_fidelity",
)
SIM_SUBCOMMANDS = {"adb-server", "screens", "fidelity"}


def _parser(modules: tuple[ModuleType, ...]) -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="phone-agent")
    subparsers = parser.add_subparsers(dest="command", parser_class=ArgumentParser)
    for module in modules:
        module.register(subparsers)
    return parser


def _sim_subcommands(parser: argparse.ArgumentParser) -> set[str]:
    (top,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    sim = top.choices["sim"]
    (own,) = [a for a in sim._actions if isinstance(a, argparse._SubParsersAction)]
    return set(own.choices)


@pytest.mark.parametrize(
    "order", list(itertools.permutations(SIM_COMMAND_MODULES)), ids=lambda order: ">".join(order)
)
def test_every_sim_subcommand_is_offered_whatever_the_registration_order(
    order: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    parser = _parser(tuple(importlib.import_module(name) for name in order))
    assert _sim_subcommands(parser) >= SIM_SUBCOMMANDS
    args = parser.parse_args(["sim"])
    assert args.handler(args) == 2  # `phone-agent sim` alone shows its subcommands
    assert "adb-server" in capsys.readouterr().out
    assert parser.parse_args(["sim", "adb-server", "--port", "0"]).port == 0
