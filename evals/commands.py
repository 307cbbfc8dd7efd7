"""`phone-agent eval`: run the simulator task suite with a policy and score it."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "eval",
        help="run a task suite and score it",
        description="Run the simulator task suite and score every episode on device state.",
    )
    parser.add_argument("--suite", choices=["sim"], default="sim", help="task suite (sim)")
    parser.add_argument(
        "--policy",
        choices=["oracle"],
        default="oracle",
        help="who decides: the oracle plays each task's scripted plan",
    )
    parser.add_argument(
        "--tasks",
        metavar="PATTERN",
        help="comma-separated task-name patterns, e.g. 'clock_*,settings_wifi*'",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        metavar="N",
        help="seeds per task (0..N-1); each seed picks different parameters",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the report as JSON")
    parser.add_argument(
        "--run-dir",
        type=Path,
        metavar="DIR",
        help="where trajectories go (default runs/eval-<timestamp>)",
    )
    parser.set_defaults(handler=_handle_eval)


def _handle_eval(args: argparse.Namespace) -> int:
    from agent.cli import UsageError
    from evals.runner import run_suite, select_tasks

    if args.runs < 1:
        raise UsageError("--runs must be at least 1")
    tasks = select_tasks(args.tasks)
    run_dir = args.run_dir or Path("runs") / f"eval-{datetime.now():%Y%m%d-%H%M%S}"

    def progress(outcome: object) -> None:
        from evals.runner import EpisodeOutcome

        assert isinstance(outcome, EpisodeOutcome)
        mark = "ok  " if outcome.success else "FAIL"
        print(
            f"{mark} {outcome.task} seed={outcome.seed} steps={outcome.steps} "
            f"{outcome.stop_reason}",
            file=sys.stderr,
        )

    report = run_suite(tasks, args.runs, run_dir, on_episode=progress)
    summary = report.summary
    print(
        f"{summary.successes}/{summary.episodes} episodes succeeded "
        f"({summary.success_rate:.0%}) over {summary.tasks} tasks; trajectories in {run_dir}"
    )
    for family, score in summary.by_family.items():
        print(f"  {family:<14} {score.successes}/{score.episodes}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(report.model_dump_json(indent=2), encoding="utf-8")
    return 0
