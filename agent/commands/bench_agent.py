"""`phone-agent bench prompt|step`: what a screen costs the model and what an agent decision
costs (the model server's own benchmarks, `bench serving|kernels`, are in bench_serving).

Each handler imports what it measures, so `phone-agent --help` stays fast.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import Any

from agent.commands.command_groups import command_group
from agent.commands.model_server import add_model_server_arguments, model_client_settings
from devices.errors import UsageError


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    benchmarks = command_group(subparsers, "bench")
    _add_prompt(benchmarks)
    _add_step(benchmarks)


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
        help="folder of *.xml dumps (default: every screen the simulator shows while the "
        "oracle plays the task suite)",
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
        corpus_name, dumps = "simulator oracle screens", prompt.oracle_screens()
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
        "model, device and our own code, for cold, episode-start and later steps, with thinking "
        "off, on and auto (on after a wait, an unusable reply or a guard escalation); and what "
        "a later step would cost with a call of --call-tokens tokens, whatever length the "
        "model writes.",
    )
    parser.add_argument("--steps", type=int, metavar="N", help="decisions per thinking mode (5)")
    parser.add_argument(
        "--episode-steps",
        type=int,
        metavar="N",
        help="steps per episode, so that later episodes show what they reuse (all --steps)",
    )
    parser.add_argument(
        "--thinking",
        choices=("off", "on", "auto", "both", "all"),
        default="all",
        help="modes to run: one, both (off and on) or all (off, on, auto; the default)",
    )
    parser.add_argument("--task", help="simulator task to play (SystemWifiTurnOn)")
    parser.add_argument(
        "--call-tokens",
        type=int,
        metavar="N",
        help="length of the call each mode's fixed-length decision is reckoned for (24)",
    )
    parser.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="write every request sent, one JSON body a line (for `bench speculative`)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    add_model_server_arguments(parser)
    parser.set_defaults(handler=_run_step)


def _run_step(args: argparse.Namespace) -> int:
    from evals.bench import step

    settings = model_client_settings(args)
    modes: tuple[step.ThinkingMode, ...] = {"both": ("off", "on"), "all": step.ALL_MODES}.get(
        args.thinking, (args.thinking,)
    )

    def progress(timing: step.StepTiming) -> None:
        print(
            f"thinking {timing.mode} episode {timing.episode} step {timing.step}: "
            f"{timing.model_ms:.0f} ms model, {timing.overhead_ms:.1f} ms ours",
            file=sys.stderr,
        )

    with contextlib.ExitStack() as stack:
        record = None
        if args.record is not None:
            from serving.bench.speculative import RequestRecorder

            try:
                record = stack.enter_context(RequestRecorder(args.record))
            except OSError as exc:
                raise UsageError(f"cannot write {args.record}: {exc.strerror or exc}") from None
        report = step.run_step_bench(
            settings,
            steps=step.DEFAULT_STEPS if args.steps is None else args.steps,
            task_name=args.task or step.DEFAULT_TASK,
            modes=modes,
            progress=progress,
            episode_steps=args.episode_steps,
            call_tokens=step.DEFAULT_CALL_TOKENS if args.call_tokens is None else args.call_tokens,
            record=record,
        )
    print(report.model_dump_json(indent=2) if args.json else step.render_text(report))
    return 0
