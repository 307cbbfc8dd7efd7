"""`phone-agent`: one entry point; each subcommand lives in the package that owns its job.

A command module exposes `register(subparsers)`, which adds its parsers and sets `handler` on
each to a function `(args) -> int` (the exit code). Modules import heavy dependencies (vLLM,
torch) inside their handlers so the CLI starts fast and works without the serving stack.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

COMMAND_MODULES = (
    "agent.commands.run",
    "agent.commands.elements",
    "agent.commands.parse_call",
    "simulator.commands",
    "simulator.adbd.commands",
    "serving.commands",
    "serving.quantization.commands",
    "evals.commands",
    "evals.bench.commands",
    "evals.fidelity_commands",
    "serving.training.commands",
)


class UsageError(Exception):
    """Bad input from the user: reported in one line, exit code 2."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting, so errors stay one line."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="phone-agent",
        description="Let a small, locally served language model operate an Android phone.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=ArgumentParser
    )
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args_list
    try:
        parser = build_parser()
        args = parser.parse_args(args_list)
        if args.command is None:
            parser.print_help()
            return 2
        code: int = args.handler(args)
        return code
    except UsageError as exc:
        if debug:
            raise
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (`phone-agent elements f | head`): exit quietly like other tools
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if debug:
            raise
        exit_code = getattr(exc, "exit_code", 1)
        message = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"error: {message}", file=sys.stderr)
        return int(exit_code)


if __name__ == "__main__":
    sys.exit(main())
