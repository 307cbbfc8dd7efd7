"""`phone-agent bench prompt|step`: performance figures, measured in one run.

Each benchmark is one subcommand of `bench`, added by a function in `_BENCHMARKS`; its handler
imports what it measures, so `phone-agent --help` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

AddBenchmark = Callable[[Any], None]


def register(subparsers: Any) -> None:
    bench = subparsers.add_parser(
        "bench",
        help="measure what a screen and a decision cost (prompt, step)",
        description="Performance benchmarks; absolute numbers vary between machines, compare "
        "the ratios.",
    )
    benchmarks = bench.add_subparsers(dest="benchmark", metavar="BENCHMARK", required=True)
    for add in _BENCHMARKS:
        add(benchmarks)


def _add_prompt(benchmarks: Any) -> None:
    parser = benchmarks.add_parser(
        "prompt",
        help="screen text size against raw XML and AndroidWorld T3A; parse speed",
        description="For each uiautomator dump: our screen text against the raw XML and "
        "AndroidWorld T3A's element list (characters, tokens with --tokenizer), controls "
        "that no element reaches, and parse + render time against a bare lxml parse.",
    )
    parser.add_argument(
        "--corpus",
        type=Path,
        metavar="DIR",
        help="folder of *.xml dumps (default: the shipped fixture screens, or the simulator's "
        "screens where none are shipped)",
    )
    parser.add_argument(
        "--tokenizer",
        type=Path,
        metavar="PATH",
        help="a tokenizer.json, or a model folder holding one, to count tokens",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        metavar="N",
        help="timed runs per dump for the medians (default 20)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=_run_prompt)


def _run_prompt(args: argparse.Namespace) -> int:
    from evals.bench import prompt

    counter = prompt.load_token_counter(args.tokenizer) if args.tokenizer else None
    if args.corpus is not None:
        corpus_name, dumps = str(args.corpus), prompt.corpus_from_dir(args.corpus)
    else:
        corpus_name, dumps = prompt.default_corpus()
    report = prompt.run_prompt_bench(
        corpus_name,
        dumps,
        counter,
        tokenizer_name=str(args.tokenizer) if args.tokenizer else None,
        repeat=prompt.DEFAULT_REPEAT if args.repeat is None else args.repeat,
    )
    print(report.model_dump_json(indent=2) if args.json else prompt.render_text(report))
    return 0


def _add_step(benchmarks: Any) -> None:
    parser = benchmarks.add_parser(
        "step",
        help="one agent decision against a running server: model, device, our overhead",
        description="Play a simulator task with the agent loop against a running "
        "OpenAI-compatible server and time every step: prompt tokens, time to first token, "
        "model, device and our own code, for first and later steps, thinking off and on.",
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="OpenAI-compatible server URL (default: where `phone-agent serve` listens)",
    )
    parser.add_argument("--model", default=None, help="model name (default: the server's first)")
    parser.add_argument("--steps", type=int, metavar="N", help="decisions per thinking mode (5)")
    parser.add_argument(
        "--thinking", choices=("off", "on", "both"), default="both", help="modes to run (both)"
    )
    parser.add_argument(
        "--think-budget", type=int, metavar="TOKENS", help="token cap of a thinking step (512)"
    )
    parser.add_argument(
        "--tool-choice",
        choices=("auto", "required"),
        default="auto",
        help="`required` makes even random-weight checkpoints call a tool",
    )
    parser.add_argument("--task", help="simulator task to play (settings_wifi_on)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=_run_step)


def _run_step(args: argparse.Namespace) -> int:
    from agent.cli import UsageError
    from agent.model_client import ClientSettings
    from evals.bench import step

    if args.think_budget is not None and args.think_budget < 1:
        raise UsageError("--think-budget must be at least 1")
    given = {"base_url": args.base_url, "think_budget": args.think_budget}
    settings = ClientSettings(
        model=args.model,
        tool_choice=args.tool_choice,
        **{name: value for name, value in given.items() if value is not None},
    )
    modes: tuple[step.ThinkingMode, ...] = (
        ("off", "on") if args.thinking == "both" else (args.thinking,)
    )

    def progress(timing: step.StepTiming) -> None:
        print(
            f"thinking {timing.mode} episode {timing.episode} step {timing.step}: "
            f"{timing.model_ms:.0f} ms model, {timing.overhead_ms:.1f} ms ours",
            file=sys.stderr,
        )

    report = step.run_step_bench(
        settings,
        steps=step.DEFAULT_STEPS if args.steps is None else args.steps,
        task_name=args.task or step.DEFAULT_TASK,
        modes=modes,
        progress=progress,
    )
    print(report.model_dump_json(indent=2) if args.json else step.render_text(report))
    return 0


_BENCHMARKS: tuple[AddBenchmark, ...] = (_add_prompt, _add_step)
