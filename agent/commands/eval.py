"""`phone-agent eval`: run a task suite with a policy and score it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.commands.arguments import positive_int, share
from agent.commands.model_server import (
    add_model_server_arguments,
    add_thinking_argument,
    model_client_settings,
)
from devices.errors import UsageError

if TYPE_CHECKING:
    from agent.model_client import ClientSettings
    from evals.policies import PolicySpec
    from evals.runner import Run

RUNS_DIR = Path("runs")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "eval",
        help="run a task suite with a policy and score it",
        description=(
            "Run a task suite and score every episode on the device state. A task counts "
            "only when the agent declared it done and nothing outside the task's scope "
            "changed (side effects)."
        ),
    )
    parser.add_argument("--suite", choices=["sim", "androidworld"], default="sim")
    parser.add_argument(
        "--policy",
        default="llm",
        metavar="POLICY",
        help=(
            "llm (the model server), oracle (each task's plan), replay:PATH (replies recorded "
            "in trajectories), faulty:MODE (a known failure mode; faulty:all for every one)"
        ),
    )
    add_thinking_argument(parser)
    add_model_server_arguments(parser)
    parser.add_argument(
        "--tasks",
        metavar="PATTERN",
        help="comma-separated task names, globs ('Clock*') or substrings ('wifi'), any case",
    )
    parser.add_argument(
        "--phrasing",
        metavar="N|held-out|all",
        help=(
            "which goal phrasing each task is given: its N-th, its held-out one (the last, "
            "kept out of training data) or every one (default 0)"
        ),
    )
    parser.add_argument(
        "--goals",
        type=Path,
        action="append",
        metavar="FILE",
        help=(
            'goals in any words: a JSON Lines file of {"task": NAME, "seed": N, "goal": TEXT}, '
            "each line played from that task's start for that seed and judged by its check, "
            "with TEXT as the goal; results are grouped by the file's name (repeatable; "
            "instead of --phrasing and --runs; --tasks picks among the lines)"
        ),
    )
    parser.add_argument(
        "--split",
        choices=("validation", "test", "development"),
        help=(
            "play a split (evals.splits): validation chooses (seeds 0-1, phrasing 0, the "
            "held-out one and its goals in other people's words), test reports a shipped model "
            "once (seeds 50-51, both phrasings and goals in other people's words of its own), "
            "development tries changes to the loop (seeds 10-11, likewise); instead of --runs, "
            "--phrasing and --goals"
        ),
    )
    parser.add_argument(
        "--detour",
        action="store_true",
        help=(
            "start each task from a detour the seed picks: another app in front, another page "
            "of the task's app, or its list scrolled away"
        ),
    )
    parser.add_argument(
        "--runs", type=positive_int, metavar="N", help="seeds per task (0..N-1; default 1)"
    )
    parser.add_argument(
        "--parallel",
        type=positive_int,
        default=1,
        metavar="N",
        help="simulator sessions at once, all against the same model server",
    )
    parser.add_argument(
        "--max-steps", type=positive_int, metavar="N", help="step budget (default: per task)"
    )
    parser.add_argument(
        "--guards",
        choices=("on", "off", "both"),
        default="on",
        help="the loop's guards; both runs every episode twice and prints the guard effect",
    )
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the results JSON")
    parser.add_argument("--html", type=Path, metavar="PATH", help="write an HTML report")
    parser.add_argument(
        "--run-dir",
        type=Path,
        metavar="DIR",
        help="trajectories and results.jsonl (default runs/eval-<timestamp>)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="keep the finished runs of --run-dir (default: the newest runs/eval-*), play the rest",
    )
    aw = parser.add_argument_group("androidworld suite")
    aw.add_argument("--console-port", type=positive_int, help="emulator console port (5554)")
    aw.add_argument(
        "--n-task-combinations", type=positive_int, help="instances per task template (1)"
    )
    aw.add_argument("--task-random-seed", type=int, help="seed of the task parameters (30)")
    aw.add_argument("--adb-path", help="adb binary (default: the Android SDK's)")
    aw.add_argument(
        "--perform-emulator-setup",
        action="store_true",
        help="install AndroidWorld's apps on the emulator (once)",
    )
    demos = parser.add_argument_group("training data (sim suite, --policy oracle or llm)")
    demos.add_argument(
        "--export-demos",
        type=Path,
        metavar="PATH",
        help="write each oracle decision as the chat request the agent sends and its target "
        "reply (JSON Lines; .gz or .xz compress) instead of scoring; with --policy llm, the "
        "oracle's labels of the states where the model's failed episodes went another way "
        "(corrections); held-out seeds (0-99) and phrasings are never written",
    )
    demos.add_argument(
        "--demo-seeds", default="100-499", metavar="A-B", help="training seeds (100-499)"
    )
    demos.add_argument(
        "--refused-claims",
        type=share,
        default=0.5,
        metavar="SHARE",
        help="with --detour, the share of seeds of each task whose goal the loop checks that "
        "also claim success too early and record the way on from the refusal (0.5; 0: none)",
    )
    demos.add_argument(
        "--voices",
        type=share,
        default=0.0,
        metavar="SHARE",
        help="the share of episodes of a task with training voices that say one instead of "
        "the task's phrasing (0: none; evals/goals/training_voices.py)",
    )
    demos.add_argument(
        "--demo-thinking",
        choices=("on", "off", "mixed"),
        default="mixed",
        help="thinking mode of the recorded requests (mixed: about half the episodes each)",
    )
    parser.set_defaults(handler=_handle_eval)


# What the suite's results depend on, saved with them and checked on --resume.
_RECORDED_CLIENT_SETTINGS = {
    "model",
    "thinking",
    "think_budget",
    "tool_choice",
    "temperature",
    "top_p",
}
_AW_ONLY = ("console_port", "n_task_combinations", "task_random_seed", "adb_path")


def _handle_eval(args: argparse.Namespace) -> int:
    if args.suite == "androidworld":
        return _eval_androidworld(args)
    used = list(_androidworld_options_given(args))
    if used or args.perform_emulator_setup:
        flag = "--" + (used[0] if used else "perform_emulator_setup").replace("_", "-")
        raise UsageError(f"eval: {flag} applies to --suite androidworld only")
    if (args.goals or args.split) and args.export_demos is not None:
        flag = "--goals" if args.goals else "--split"
        raise UsageError(f"eval: {flag} and --export-demos do not go together")
    if args.export_demos is not None:
        return _export_demos(args)
    return _eval_sim(args)


def _export_demos(args: argparse.Namespace) -> int:
    """Record training lines on the selected tasks' training seeds and phrasings into a file:
    the oracle's decisions (--policy oracle), or the oracle's corrections of the model's
    failed episodes (--policy llm)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from evals.demos import DemoSplitError, parse_seed_range, plan_demo_episodes
    from evals.runner import select_tasks

    if args.policy not in ("oracle", "llm"):
        raise DemoSplitError(
            "eval --export-demos records the oracle (--policy oracle) or its corrections of "
            "the model's failed episodes (--policy llm)"
        )
    episodes = plan_demo_episodes(
        select_tasks(args.tasks),
        parse_seed_range(args.demo_seeds),
        args.demo_thinking,
        detours=args.detour,
        refused_claims=args.refused_claims if args.detour else 0.0,
        voices_share=args.voices,
    )
    console = Console(stderr=True, highlight=False)
    progress = Progress(
        TextColumn(f"[bold]{'demos' if args.policy == 'oracle' else 'corrections'}[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        console=console,
        transient=True,
    )
    bar = progress.add_task("episodes", total=len(episodes))

    def advance(episode: Any, ok: bool) -> None:
        progress.advance(bar)

    if args.policy == "llm":
        return _export_corrections(args, episodes, progress, advance)
    from evals.demos import export_demos

    with progress:
        summary = export_demos(
            episodes, args.export_demos, workers=args.parallel, on_episode=advance
        )
    sources = ", ".join(f"{source} {count}" for source, count in summary.by_source.items())
    print(
        f"{summary.decisions} decisions ({summary.distinct} distinct; {sources}) written to "
        f"{summary.path} from {summary.episodes} episodes"
    )
    if summary.failed_episodes:
        shown = ", ".join(summary.failed_episodes[:5])
        more = len(summary.failed_episodes) - 5
        console.print(
            f"[yellow]{len(summary.failed_episodes)} oracle episode(s) did not succeed and were "
            f"left out: {shown}{f', ... ({more} more)' if more > 0 else ''}[/]"
        )
    return 0


def _export_corrections(
    args: argparse.Namespace,
    episodes: list[Any],
    progress: Any,
    advance: Callable[[Any, bool], None],
) -> int:
    from evals.corrections import export_corrections

    client, _ = _model_client(model_client_settings(args))
    try:
        with progress:
            summary = export_corrections(
                episodes, client, args.export_demos, workers=args.parallel, on_episode=advance
            )
    finally:
        client.close()
    failed = summary.episodes - summary.solved
    print(
        f"{summary.corrections} corrections written to {summary.path} from the {failed} of "
        f"{summary.episodes} episodes the model did not solve"
    )
    if summary.unlabelled:
        print(f"{summary.unlabelled} state(s) the oracle could not finish the task from")
    return 0


def _eval_androidworld(args: argparse.Namespace) -> int:
    if args.goals or args.split:
        flag = "--goals" if args.goals else "--split"
        raise UsageError(f"eval: {flag} applies to --suite sim only")
    if args.policy != "llm":
        raise UsageError("eval --suite androidworld: only --policy llm runs there")
    if args.guards == "both":
        raise UsageError("eval --suite androidworld: --guards is on or off there")
    from evals.androidworld.suite import SuiteOptions, run_androidworld

    options = SuiteOptions(
        task_patterns=args.tasks,
        perform_emulator_setup=args.perform_emulator_setup,
        guards=args.guards == "on",
        **_androidworld_options_given(args),
    )
    run_dir = args.run_dir or RUNS_DIR / f"androidworld-{datetime.now():%Y%m%d-%H%M%S}"
    return run_androidworld(model_client_settings(args), run_dir, options)


def _androidworld_options_given(args: argparse.Namespace) -> dict[str, Any]:
    """The androidworld-only options on the command line; one left out keeps `SuiteOptions`'
    default, AndroidWorld's own."""
    return {name: getattr(args, name) for name in _AW_ONLY if getattr(args, name) is not None}


def _eval_sim(args: argparse.Namespace) -> int:
    from rich.console import Console

    from evals.display import SuiteProgress, print_report
    from evals.policies import Recordings, parse_policy
    from evals.results import ResultStore, build_report, guard_effect_markdown, write_report
    from evals.runner import EvalSettings, Runner, recorded_replies, run_suite

    policies = parse_policy(args.policy)
    runs = _planned_runs(args, policies)
    client_settings = model_client_settings(args)
    settings = EvalSettings(
        max_steps=args.max_steps,
        think_when_unsure=args.thinking == "auto",
        base_url=args.base_url,
        **client_settings.model_dump(include=_RECORDED_CLIENT_SETTINGS),
    )
    recordings = None
    if policies[0].kind == "replay":
        recordings = Recordings.load(Path(policies[0].argument or ""))
        runs = [r for r in runs if recorded_replies(recordings, r)]
        if not runs:
            raise UsageError("eval: no recording matches the selected tasks and seeds")
    client, model_name = (
        _model_client(client_settings) if policies[0].kind == "llm" else (None, None)
    )
    try:
        run_dir = _run_dir(args)
        _check_settings(run_dir, settings, args.resume)
        console = Console(stderr=True, highlight=False)
        runner = Runner(
            run_dir,
            settings,
            model=client,
            model_name=model_name,
            recordings=recordings,
        )
        console.print(f"[dim]{len(runs)} run(s); results in {run_dir / 'results.jsonl'}[/]")
        with SuiteProgress(console, len(runs)) as progress:
            outcomes = run_suite(
                runs,
                runner,
                ResultStore(run_dir / "results.jsonl"),
                parallel=args.parallel,
                resume=args.resume,
                on_outcome=progress.finished,
                on_skipped=progress.skipped,
            )
    finally:
        if client is not None:
            client.close()

    report = build_report(outcomes)
    write_report(report, run_dir / "report.json")
    out = Console(highlight=False)
    print_report(out, report)
    if report.guard_effect:
        print()
        print(guard_effect_markdown(report.guard_effect))
    if args.json is not None:
        write_report(report, args.json)
    if args.html is not None:
        from evals.report import episodes_from_outcomes, write_html

        write_html(args.html, episodes_from_outcomes(report.results), report)
    summary = report.summary
    print(
        f"{summary.successes}/{summary.episodes} episodes succeeded "
        f"({summary.success_rate:.0%}); trajectories in {run_dir}"
    )
    if summary.errors:
        print(
            f"{summary.errors} run(s) could not be judged; finish them with "
            f"--resume --run-dir {run_dir}",
            file=sys.stderr,
        )
        return 1
    return 0


def _planned_runs(args: argparse.Namespace, policies: list[PolicySpec]) -> list[Run]:
    """The runs the options ask for: every selected task's phrasings and seeds, or the lines
    of the --goals files whose tasks --tasks selects."""
    from evals.runner import parse_phrasing, plan_given_goals, plan_runs, select_tasks

    tasks = select_tasks(args.tasks)
    guards = {"on": [True], "off": [False], "both": [True, False]}[args.guards]
    if args.split is not None:
        if args.goals or args.phrasing is not None or args.runs is not None:
            raise UsageError(
                "eval: --split names its seeds and goals: leave out --goals, --phrasing and --runs"
            )
        from evals.splits import plan_split

        return plan_split(args.split, tasks, policies, guards, detour=args.detour)
    if not args.goals:
        phrasing = parse_phrasing(args.phrasing or "0")
        return plan_runs(tasks, args.runs or 1, policies, guards, phrasing, detour=args.detour)
    if args.phrasing is not None:
        raise UsageError("eval: --phrasing does not go with --goals, which gives every goal")
    if args.runs is not None:
        raise UsageError("eval: --runs does not go with --goals, whose lines name their seeds")
    from evals.goal_files import load_goal_files
    from simulator.tasks import TASKS_BY_NAME

    selected = {task.name for task in tasks}
    given = [g for g in load_goal_files(args.goals, TASKS_BY_NAME) if g.task.name in selected]
    if not given:
        raise UsageError("eval: no line of the --goals file(s) is for a task --tasks selects")
    return plan_given_goals(given, policies, guards, detour=args.detour)


def _run_dir(args: argparse.Namespace) -> Path:
    if args.run_dir is not None:
        if args.resume and not (args.run_dir / "results.jsonl").exists():
            raise UsageError(f"eval: --resume: {args.run_dir} holds no results.jsonl")
        return Path(args.run_dir)
    if not args.resume:
        return RUNS_DIR / f"eval-{datetime.now():%Y%m%d-%H%M%S}"
    previous = sorted(p.parent for p in RUNS_DIR.glob("eval-*/results.jsonl"))
    if not previous:
        raise UsageError("eval: --resume: no runs/eval-* folder with results; pass --run-dir")
    return previous[-1]


def _check_settings(run_dir: Path, settings: Any, resume: bool) -> None:
    """A resumed suite must keep the settings its finished runs were played with."""
    saved = run_dir / "settings.json"
    if resume and saved.exists():
        before = type(settings).model_validate_json(saved.read_text(encoding="utf-8"))
        changed = [
            name
            for name in type(settings).model_fields
            if getattr(before, name) != getattr(settings, name)
        ]
        if changed:
            name = changed[0]
            raise UsageError(
                f"eval: --resume: {run_dir} was run with {name}={getattr(before, name)!r}, "
                f"not {getattr(settings, name)!r}"
            )
    run_dir.mkdir(parents=True, exist_ok=True)
    saved.write_text(settings.model_dump_json(indent=2) + "\n", encoding="utf-8")


def _model_client(settings: ClientSettings) -> tuple[Any, str]:
    from agent.model_client import ModelClient

    client = ModelClient(settings)
    try:
        return client, client.model_name()  # fails in one line when no server answers
    except Exception:
        client.close()
        raise
