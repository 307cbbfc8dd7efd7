"""`phone-agent train`: a Spark2_5 policy from demonstrations, written as a checkpoint.

Only the standard library at module level: the CLI starts without the serving stack.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path
from typing import Any

from agent.commands.arguments import non_negative_float, positive_float, positive_int, share
from devices.errors import UsageError


class BadInput(UsageError):
    """Bad input to `train`: reported by the CLI in one line with exit code 2."""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train a small Spark2_5 policy on demonstrations (see `eval --export-demos`)",
        description="Train a Spark2_5-architecture model on demonstrations (JSON Lines, "
        "optionally .gz or .xz) and write a checkpoint that `serve --model DIR` and "
        "`quantize` take. Only the assistant turns are learned.",
    )
    parser.add_argument("demos", type=Path, metavar="DEMOS.jsonl")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="new checkpoint")
    parser.add_argument(
        "--device", choices=("cuda", "cpu"), default=None, help="default: cuda when present"
    )
    parser.add_argument(
        "--matmuls",
        choices=("auto", "bf16", "fp32"),
        default="auto",
        help="precision of the matrix products (default auto: bf16 on a GPU and on CPUs that "
        "multiply bf16 in hardware, AMX or AVX512-BF16; fp32 on other CPUs, where bf16 is "
        "emulated and slower)",
    )
    parser.add_argument("--steps", type=positive_int, default=2000, metavar="N")
    parser.add_argument("--seed", type=int, default=0, metavar="S")
    parser.add_argument(
        "--batch-tokens",
        type=positive_int,
        default=32768,
        metavar="N",
        help="padded tokens per batch, not counting the prompt prefix every demonstration "
        "shares (computed once a batch)",
    )
    parser.add_argument("--lr", type=float, default=1e-3, help="peak learning rate")
    parser.add_argument(
        "--init",
        type=Path,
        default=None,
        metavar="DIR",
        help="continue from this checkpoint (its weights, shape and tokenizer)",
    )
    parser.add_argument(
        "--context-loss",
        type=non_negative_float,
        default=0.0,
        metavar="WEIGHT",
        help="also learn to predict each prompt's own tokens (goal, history, screen), weighted "
        "so against the replies' loss: they repeat one another, which gives copying a signal "
        "on every token rather than on the replies alone (default 0: off)",
    )
    parser.add_argument(
        "--disguise",
        type=share,
        default=0.0,
        metavar="SHARE",
        help="share of the demonstrations that copy a value the task gave (a name, a number, a "
        "text) shown each epoch with that value replaced by a new string, so that remembering "
        "values no longer pays (default 0: off)",
    )
    parser.add_argument(
        "--goal-dropout",
        type=share,
        default=0.0,
        metavar="SHARE",
        help="share of the demonstrations shown each epoch with some words of the goal left "
        "out (never the task's values, quoted text or words such as on/off/not), so that the "
        "policy acts on a goal's words rather than on one sentence; needs demonstrations that "
        "record their goal (default 0: off)",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop early once this much time has passed, and write the checkpoint",
    )
    parser.add_argument(
        "--save-every",
        type=positive_float,
        default=None,
        metavar="SECONDS",
        help="also write the checkpoint so far into DIR/latest this often, so that a run killed "
        "before it ends still leaves a usable checkpoint (removed when the run ends)",
    )
    parser.set_defaults(handler=run_train)


def run_train(args: argparse.Namespace) -> int:
    missing = [
        m for m in ("torch", "tokenizers", "transformers") if not importlib.util.find_spec(m)
    ]
    if missing:
        raise BadInput(f"training needs {', '.join(missing)}: run `make serving-stack`")
    import torch
    from rich.console import Console

    from serving.training.train import TrainSettings, train

    if args.init is not None and not (args.init / "config.json").is_file():
        raise BadInput(f"--init {args.init}: not a checkpoint directory")
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise BadInput("--device cuda: no CUDA device is available here")
    settings = TrainSettings(
        steps=args.steps,
        seed=args.seed,
        device=device,
        matmuls=None if args.matmuls == "auto" else args.matmuls,
        batch_tokens=args.batch_tokens,
        learning_rate=args.lr,
        context_loss_weight=args.context_loss,
        disguise_share=args.disguise,
        goal_dropout_share=args.goal_dropout,
        time_limit_s=args.time_limit,
        save_every_s=args.save_every,
    )
    console = Console(stderr=True, highlight=False)
    with _StepProgress(console, settings.steps) as progress:
        log = train(
            args.demos,
            args.out,
            settings,
            on_step=progress.step,
            on_stage=lambda text: console.print(f"[dim]{text}[/]"),
            init=args.init,
        )
    first, last = log.losses[0], log.losses[-1]
    console.print(
        f"[bold green]done[/] in {log.seconds:.0f} s: {log.parameters / 1e6:.2f}M parameters, "
        f"{log.demonstrations} demonstrations ({log.epochs:g} epochs), loss {first.loss:.3f} "
        f"(first {first.step} steps) -> {last.loss:.3f}; checkpoint in {args.out}"
    )
    return 0


class _StepProgress:
    """A progress bar with the running loss on a terminal; elsewhere a line every 5% of the
    steps, and at least one a minute."""

    def __init__(self, console: Any, steps: int) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._console = console
        self._steps = steps
        self._progress = Progress(
            TextColumn("training"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("loss {task.fields[loss]}"),
            TextColumn("lr {task.fields[rate]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            disable=not console.is_terminal,
        )
        self._task = self._progress.add_task("train", total=steps, loss="-", rate="-")
        self._smoothed: float | None = None
        self._last_line = time.monotonic()

    def __enter__(self) -> _StepProgress:
        self._progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.__exit__(None, None, None)

    def step(self, step: int, loss: float, rate: float) -> None:
        self._smoothed = loss if self._smoothed is None else 0.9 * self._smoothed + 0.1 * loss
        self._progress.update(
            self._task, completed=step, loss=f"{self._smoothed:.4f}", rate=f"{rate:.2e}"
        )
        if self._console.is_terminal:
            return
        # A run stopped by its time limit may never reach 5% of its steps: a line a minute too.
        if step % max(1, self._steps // 20) == 0 or time.monotonic() - self._last_line >= 60:
            self._console.print(f"step {step}/{self._steps}: loss {self._smoothed:.4f}")
            self._last_line = time.monotonic()
