"""`phone-agent report`: trajectories as one offline HTML report."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write trajectories as one offline HTML report",
        description=(
            "Render trajectories (files, folders searched for *.jsonl, or an eval's "
            "report.json / results.jsonl) as one self-contained HTML file."
        ),
    )
    parser.add_argument("paths", nargs="+", type=Path, metavar="TRAJECTORY")
    parser.add_argument("--html", type=Path, required=True, metavar="PATH")
    parser.add_argument("--title", default="phone-agent report")
    parser.set_defaults(handler=_handle_report)


def _handle_report(args: argparse.Namespace) -> int:
    from evals.report import load_inputs, write_html

    episodes, report = load_inputs(args.paths)
    write_html(args.html, episodes, report, title=args.title)
    print(f"{len(episodes)} episode(s) written to {args.html}")
    return 0
