"""`phone-agent`: one entry point. Every subcommand is declared in `agent/commands/`, the one
place that composes packages; its handler calls the library of the package that owns its job.

A command module exposes `register(subparsers)`, which adds its parsers and sets `handler` on
each to a function `(args) -> int` (the exit code). Modules import heavy dependencies (vLLM,
torch, the simulator's apps) inside their handlers so the CLI starts fast and works without the
serving stack.

Errors are one line on stderr: exit 2 for bad input (`BAD_INPUT`: the bases that every
package's errors for bad input subclass), 1 otherwise; `--debug`, before or after the command,
adds the traceback. A reader that goes away (`| head`) does not change the exit code: what is
written after it left is dropped.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Sequence
from typing import Any, TextIO, cast

from devices.errors import UsageError
from serving.errors import ServingUsageError

# Bad input, whichever package found it. serving imports nothing of ours, so it has a base of
# its own; every other package's errors for bad input subclass `UsageError`.
BAD_INPUT = (UsageError, ServingUsageError)

COMMAND_MODULES = (
    "agent.commands.run",
    "agent.commands.elements",
    "agent.commands.parse_call",
    "agent.commands.sim_adb_server",
    "agent.commands.serve",
    "agent.commands.quantize",
    "agent.commands.bench_serving",
    "agent.commands.eval",
    "agent.commands.report",
    "agent.commands.sim_screens",
    "agent.commands.bench_agent",
    "agent.commands.bench_device",
    "agent.commands.sim_fidelity",
    "agent.commands.train",
)


class ArgumentParser(argparse.ArgumentParser):
    """argparse that raises instead of printing usage and exiting, so errors stay one line.

    Every parser, each subcommand's included, takes `--debug`, so it may follow the command.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.add_argument(
            "--debug",
            action="store_true",
            default=argparse.SUPPRESS,  # a subcommand's parser must not reset the main one's
            help="show tracebacks on errors",
        )

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


class _VersionAction(argparse.Action):
    """`--version`: the installed distribution's version, looked up only when asked for."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(
            option_strings, argparse.SUPPRESS, nargs=0, help="show the version and exit"
        )

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("phone-agent")
        except PackageNotFoundError:
            number = "(not installed)"
        print(f"phone-agent {number}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="phone-agent",
        description="Let a small, locally served language model operate an Android phone.",
    )
    parser.add_argument("--version", action=_VersionAction)
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=ArgumentParser
    )
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    options = args_list[: args_list.index("--")] if "--" in args_list else args_list
    streams = sys.stdout, sys.stderr
    if sys.stdout is not None:
        sys.stdout = cast(TextIO, _Outliving(sys.stdout))
    if sys.stderr is not None:
        sys.stderr = cast(TextIO, _Outliving(sys.stderr))
    try:
        return _run(args_list, debug="--debug" in options)
    finally:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
        sys.stdout, sys.stderr = streams


def _run(args_list: list[str], debug: bool) -> int:
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(args_list)
        except SystemExit as stop:  # --help, --version
            return stop.code if isinstance(stop.code, int) else 0
        if args.command is None:
            parser.print_help()
            return 2
        code: int = args.handler(args)
        return code
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if debug:
            traceback.print_exc()
        lines = str(exc).strip().splitlines()
        print(f"error: {lines[0] if lines else type(exc).__name__}", file=sys.stderr)
        return 2 if isinstance(exc, BAD_INPUT) else 1


class _Outliving:
    """A standard stream that outlives its reader.

    When the reader of a pipe goes away (`phone-agent eval | head -1`), writing fails, and
    whether a command still writes after that depends on timing: rich then exits 1, a print
    raises wherever it happens to be. Here the stream goes to /dev/null instead, so the command
    finishes and its exit code is the same on every run.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._discard()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._discard()

    def _discard(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self._stream.fileno())
        os.close(devnull)
        self._stream.flush()  # what was buffered for the reader goes to /dev/null now

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


if __name__ == "__main__":
    sys.exit(main())
