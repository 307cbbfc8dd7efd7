"""`phone-agent sim fidelity`: simulated screens scored against the real dumps they imitate."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from agent.commands.command_groups import command_group

if TYPE_CHECKING:
    from evals.fidelity import FidelityReport


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command_group(subparsers, "sim").add_parser(
        "fidelity",
        help="score simulated screens against the real dumps they imitate",
        description=(
            "Walk the simulator to each screen that imitates a real uiautomator dump and report "
            "the share of the real screen's actionable elements it shows with the same role and "
            "label. Exit 0 when every pair reaches the target, 1 otherwise."
        ),
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        required=True,
        metavar="DIR",
        help="folder of the real dumps (the uiautomator corpus)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=_handle_fidelity)


def _handle_fidelity(args: argparse.Namespace) -> int:
    from devices.errors import UsageError
    from evals.fidelity import FidelityError, measure

    corpus: Path = args.corpus
    if not corpus.is_dir():
        raise UsageError(f"sim fidelity: --corpus {corpus} is not a folder")
    try:
        report = measure(corpus)
    except FidelityError as exc:
        raise UsageError(f"sim fidelity: {exc}") from None
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        _print_report(report)
    return 0 if report.passed else 1


def _print_report(report: FidelityReport) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    table = Table(title="Simulated screens against real dumps", title_justify="left")
    table.add_column("pair")
    table.add_column("real dump")
    for column in ("in scope / actionable", "matched", "share", "only simulated"):
        table.add_column(column, justify="right")
    for pair in report.pairs:
        share = f"{pair.share:.0%}"
        table.add_row(
            pair.name,
            pair.dump,
            f"{pair.in_scope} / {pair.real_actionable}",
            str(pair.matched),
            share if pair.meets_target else f"[red]{share}[/red]",
            str(len(pair.extra)),
        )
    console.print(table)
    console.print(f"Scope: {escape(report.scope)}. Target {report.target:.0%} per pair.")
    for pair in report.pairs:
        lines = [f"[bold]{escape(pair.name)}[/bold] ({escape(' > '.join(pair.path))})"]
        lines += [f"  missing: {escape(item)}" for item in pair.missing]
        lines += [f"  only simulated: {escape(item)}" for item in pair.extra]
        reasons: dict[str, list[str]] = {}
        for excluded in pair.out_of_scope:
            reasons.setdefault(excluded.reason, []).append(excluded.element)
        for reason, elements in reasons.items():
            lines.append(f"  out of scope, {escape(reason)}: {escape('; '.join(elements))}")
        console.print("\n".join(lines))
    verdict = "every pair meets the target" if report.passed else "some pairs miss the target"
    console.print(verdict)
