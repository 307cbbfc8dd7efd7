"""Train a Spark2_5 policy on demonstrations and write it as a checkpoint directory.

Steps: a byte-level BPE is trained on the demonstrations' text (Spark's special and markup
tokens added), every demonstration is rendered with the chat template and tokenized, and the
model learns the completions only (the prompt is context, not a target). On request, each
epoch shows a share of the demonstrations that copy a given value with that value disguised,
afresh (`serving.training.disguise`), so that remembering values no longer pays, and a share
of all demonstrations with some words of the goal left out (`serving.training.goal_word_dropout`),
so that no one sentence carries a task; those are tokenized in the background while training
runs (`serving.training.feed`). Batches group demonstrations of similar length under a token
budget; their order, the weights' start and everything else random come from one seed, so a
run on the CPU repeats exactly. The matrix products run in bf16 where the hardware multiplies
bf16 natively (a GPU, a CPU with AMX or AVX512-BF16) and in float32 elsewhere, decided once
before the first step (`matmul_precision`).
"""

from __future__ import annotations

import math
import random
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import torch
from pydantic import BaseModel, Field

from serving.checkpoint import (
    ShapeSpec,
    SparkConfig,
    config_for,
    write_model_files,
    write_tokenizer,
    write_weights,
)
from serving.quantization.hardware import native_bf16, probe_hardware
from serving.training.data import (
    DemoError,
    LineEncoder,
    distinct_examples,
    parse_demo,
    read_demo_lines,
    tokenizer_corpus,
    worker_count,
)
from serving.training.feed import Corpus, EpochFeed, Showing, Shown, group_by_length
from serving.training.model import SparkForTraining, load_checkpoint, parameter_count

# Every matrix dimension a multiple of 128 (W4A16, W4A8 and W8A8 at group size 128); head_dim
# 64 is one the CPU attention kernel takes; 8 layers in Spark's 3:1 sliding/full layout.
POLICY_SHAPE = ShapeSpec(
    hidden_size=384,
    intermediate_size=1152,
    num_hidden_layers=8,
    num_attention_heads=6,
    num_key_value_heads=2,
    head_dim=64,
    sliding_window=512,
    vocab_size=4096,
    tokenizer_vocab=4096,
)
LOG_FILE = "training_log.json"
# Where a run keeps its checkpoint so far, when asked to (`save_every_s`); gone once it ends.
SNAPSHOT_DIR = "latest"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json")
# Weight files stay under 16 MiB: small enough to keep in the repository and to copy around.
WEIGHT_SHARD_BYTES = 15 << 20
# Demonstrations sampled for the tokenizer: enough to see every screen's words.
_TOKENIZER_SAMPLE = 4000


MatmulPrecision = Literal["bf16", "fp32"]


class TrainSettings(BaseModel):
    steps: int = Field(default=2000, ge=1)
    seed: int = 0
    device: str = "cpu"
    matmuls: MatmulPrecision | None = Field(
        default=None,
        description="precision of the matrix products (None: the device's, see "
        "`matmul_precision`); the residual stream, norms and losses stay float32",
    )
    batch_tokens: int = Field(
        default=32768, ge=256, description="padded tokens per batch, after the shared prefix"
    )
    learning_rate: float = Field(default=1e-3, gt=0)
    warmup_steps: int = Field(default=100, ge=0)
    weight_decay: float = Field(default=0.1, ge=0)
    max_length: int = Field(default=4096, ge=16, description="longer demonstrations are left out")
    log_every: int = Field(default=25, ge=1)
    context_loss_weight: float = Field(
        default=0.0,
        ge=0,
        description="weight of a second loss, on predicting each prompt's own tokens (goal, "
        "history, screen: they repeat one another), beside the completions' loss",
    )
    disguise_share: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="share of the demonstrations copying a given value that each epoch shows "
        "with the value disguised",
    )
    goal_dropout_share: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="share of the demonstrations that each epoch shows with some words of "
        "the goal left out",
    )
    # A safety net for a machine lent by the minute: stop early and still write the checkpoint.
    time_limit_s: float | None = Field(default=None, gt=0)
    # For a run that may be killed before it ends: the checkpoint so far, every so often.
    save_every_s: float | None = Field(default=None, gt=0)


class LossPoint(BaseModel):
    step: int
    loss: float  # per completion token: what the policy is trained for
    context_loss: float | None = None  # per prompt token, when the context is scored too
    learning_rate: float
    seconds: float


class TrainingLog(BaseModel):
    """What a run did, written beside the checkpoint (the model card's loss curve)."""

    settings: TrainSettings
    continued_from: str | None = None  # the checkpoint `init` named (its directory's name)
    demonstrations: int
    distinct_demonstrations: int
    copying_demonstrations: int  # distinct ones whose reply copies a value the task was given
    disguised: int  # demonstrations trained on with their copied values disguised
    goals_shortened: int = 0  # demonstrations trained on with words left out of the goal
    left_out_too_long: int
    parameters: int
    shared_prefix_tokens: int
    tokens_per_epoch: int
    scored_tokens_per_epoch: int
    longest_example: int
    steps_per_epoch: int | None = None  # absent from logs written before it was recorded
    matmuls: MatmulPrecision | None = None  # the precision chosen (absent from older logs)
    epochs: float
    steps_done: int
    losses: list[LossPoint]
    # reading, tokenizing and loading before the first step (absent from older logs)
    seconds_before_training: float | None = None
    seconds: float


def matmul_precision(device: torch.device, cpu_flags: Iterable[str]) -> MatmulPrecision:
    """bf16 where it is native: on a GPU, or a CPU with AMX or AVX512-BF16. A CPU without
    either converts every bf16 product through float32, which is slower than float32 itself."""
    if device.type == "cpu" and not native_bf16(cpu_flags):
        return "fp32"
    return "bf16"


# Receives (step, loss of the step, learning rate) after every step.
StepCallback = Callable[[int, float, float], None]


@dataclass(frozen=True)
class _StepLosses:
    """A dispatched step's losses, still on the device until `settle` reads them."""

    step: int
    completion: torch.Tensor
    context: torch.Tensor | None
    rate: float


def _point(
    step: int, window: Sequence[float], context: Sequence[float], rate: float, started: float
) -> LossPoint:
    """The mean losses of the steps since the last point."""
    return LossPoint(
        step=step,
        loss=round(sum(window) / len(window), 5),
        context_loss=round(sum(context) / len(context), 5) if context else None,
        learning_rate=rate,
        seconds=round(time.monotonic() - started, 1),
    )


def learning_rate(step: int, settings: TrainSettings, time_used: float = 0.0) -> float:
    """Linear warm-up, then a cosine down to a tenth of the peak at the last step, or at the
    time limit when that comes first: `time_used` is the share of the training loop's time
    already spent, so a run stopped by the clock still ends its schedule."""
    peak = settings.learning_rate
    if step < settings.warmup_steps:
        return peak * (step + 1) / settings.warmup_steps
    span = max(1, settings.steps - settings.warmup_steps)
    progress = min(1.0, max((step - settings.warmup_steps) / span, time_used))
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def train(
    demos_path: Path,
    out_dir: Path,
    settings: TrainSettings,
    *,
    shape: ShapeSpec = POLICY_SHAPE,
    on_step: StepCallback | None = None,
    on_stage: Callable[[str], None] | None = None,
    init: Path | None = None,
) -> TrainingLog:
    """Train on `demos_path` and write a complete checkpoint into `out_dir` (empty or absent).

    With `init`, training continues from that checkpoint: its weights, shape and tokenizer."""
    started = time.monotonic()
    say = on_stage or (lambda text: None)
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise DemoError(f"{out_dir} exists and is not an empty directory")
    lines = read_demo_lines(demos_path)
    rng = random.Random(settings.seed)
    torch.manual_seed(settings.seed)

    out_dir.mkdir(parents=True, exist_ok=True)
    if init is None:
        say(f"training the tokenizer on {min(len(lines), _TOKENIZER_SAMPLE)} demonstrations")
        sample = rng.sample(range(len(lines)), min(len(lines), _TOKENIZER_SAMPLE))
        sample_demos = [parse_demo(lines[i], i + 1) for i in sorted(sample)]
        write_tokenizer(out_dir, shape.tokenizer_vocab, tokenizer_corpus(sample_demos))
    else:
        say(f"continuing from {init}")
        for name in TOKENIZER_FILES:
            shutil.copyfile(init / name, out_dir / name)

    with ExitStack() as stack:
        say(f"rendering and tokenizing {len(lines)} demonstrations")
        # started before any GPU work: its processes fork from a process without CUDA state
        encoder = stack.enter_context(LineEncoder(out_dir, worker_count(len(lines))))
        distinct = distinct_examples(encoder.encode(lines))
        kept = [i for i, e in enumerate(distinct.examples) if e.length <= settings.max_length]
        if not kept:
            raise DemoError(f"every demonstration is longer than {settings.max_length} tokens")
        corpus = Corpus.build(
            [distinct.examples[i] for i in kept],
            [distinct.counts[i] for i in kept],
            [distinct.sources[i] for i in kept],
        )
        copying = sum(example.copies for example in corpus.examples)

        device = torch.device(settings.device)
        model, optimizer = _model_and_optimizer(settings, shape, init, device)
        config = model.config
        matmuls = settings.matmuls or matmul_precision(device, probe_hardware().cpu_flags)
        autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=matmuls == "bf16")

        prefix = (
            torch.tensor(corpus.prefix, dtype=torch.long, device=device) if corpus.prefix else None
        )
        say(
            f"training {parameter_count(config) / 1e6:.2f}M parameters for {settings.steps} steps "
            f"with {matmuls} matrix products ({len(corpus.prefix)} prefix tokens shared by "
            "every demonstration)"
        )
        losses: list[LossPoint] = []
        window: list[float] = []
        context_window: list[float] = []
        model.train()
        steps_done = 0
        per_epoch = len(group_by_length(corpus, settings.batch_tokens, random.Random(0)))

        def progress_log() -> TrainingLog:
            return TrainingLog(
                settings=settings,
                continued_from=None if init is None else init.name,
                demonstrations=len(lines),
                distinct_demonstrations=len(distinct.examples),
                copying_demonstrations=copying,
                disguised=shown.disguised,
                goals_shortened=shown.goals_shortened,
                left_out_too_long=len(distinct.examples) - len(kept),
                parameters=parameter_count(config),
                shared_prefix_tokens=len(corpus.prefix),
                tokens_per_epoch=corpus.tokens(),
                scored_tokens_per_epoch=corpus.tokens(scored=True),
                longest_example=len(corpus.prefix) + max(e.length for e in corpus.examples),
                steps_per_epoch=per_epoch,
                matmuls=matmuls,
                epochs=round(steps_done / per_epoch, 2),
                steps_done=steps_done,
                losses=losses,
                seconds_before_training=round(loop_started - started, 1),
                seconds=round(time.monotonic() - started, 1),
            )

        # the time limit covers the whole run; what tokenizing left of it is the loop's budget
        loop_started = time.monotonic()
        loop_budget = (
            None
            if settings.time_limit_s is None
            else settings.time_limit_s - (loop_started - started)
        )
        time_used = 0.0
        shown = Shown()
        last_saved = loop_started
        showing = Showing(
            batch_tokens=settings.batch_tokens,
            max_length=settings.max_length,
            disguise_share=settings.disguise_share,
            goal_dropout_share=settings.goal_dropout_share,
        )
        feed = stack.enter_context(EpochFeed(corpus, lines, encoder, showing, rng))
        in_flight: _StepLosses | None = None

        def settle(done: _StepLosses) -> None:
            """Reads a finished step's losses into the log (the one place that waits)."""
            nonlocal window, context_window
            value = float(done.completion)
            window.append(value)
            if done.context is not None:
                context_window.append(float(done.context))
            if on_step is not None:
                on_step(done.step, value, done.rate)
            if done.step % settings.log_every == 0:
                losses.append(_point(done.step, window, context_window, done.rate, started))
                window, context_window = [], []

        # Pinned, non-blocking copies and a loss read one step late keep a GPU's queue full:
        # the host prepares the next step while the device still runs this one.
        def to_device(tensor: torch.Tensor) -> torch.Tensor:
            pinned = tensor.pin_memory() if device.type == "cuda" else tensor
            return pinned.to(device, non_blocking=True)

        for step in range(settings.steps):
            if loop_budget is not None:
                time_used = (time.monotonic() - loop_started) / max(loop_budget, 1e-9)
                if time_used >= 1.0:
                    say(f"time limit reached after {step} steps")
                    break
            batch = feed.next()
            shown += batch.shown
            rate = learning_rate(step, settings, time_used)
            for group in optimizer.param_groups:
                group["lr"] = rate
            input_ids, targets = to_device(batch.input_ids), to_device(batch.targets)
            with autocast:
                if settings.context_loss_weight > 0:
                    completion, context = model.target_losses(
                        input_ids, [targets, to_device(batch.context)], prefix
                    )
                    loss = completion + settings.context_loss_weight * context
                else:
                    completion = loss = model.target_loss(input_ids, targets, prefix)
                    context = None
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            if in_flight is not None:
                settle(in_flight)
            steps_done = step + 1
            in_flight = _StepLosses(
                step=steps_done,
                completion=completion.detach(),
                context=None if context is None else context.detach(),
                rate=rate,
            )
            if settings.save_every_s is not None and (
                time.monotonic() - last_saved >= settings.save_every_s
            ):
                _write_snapshot(out_dir, config, model, progress_log())
                say(f"step {steps_done}: checkpoint so far in {out_dir / SNAPSHOT_DIR}")
                last_saved = time.monotonic()
        if in_flight is not None:
            settle(in_flight)
        if window:
            losses.append(_point(steps_done, window, context_window, rate, started))

    say(f"writing the checkpoint to {out_dir}")
    log = progress_log()
    _write_checkpoint(out_dir, config, model, log)
    shutil.rmtree(out_dir / SNAPSHOT_DIR, ignore_errors=True)
    return log


def _model_and_optimizer(
    settings: TrainSettings, shape: ShapeSpec, init: Path | None, device: torch.device
) -> tuple[SparkForTraining, torch.optim.AdamW]:
    """A new model of `shape` (or `init`'s weights) on `device`, and its optimizer: weight
    decay on the matrices but not on the embedding table (also the output head) or norms."""
    if init is None:
        model = SparkForTraining(config_for(shape))
        model.initialize(torch.Generator().manual_seed(settings.seed))
    else:
        model = load_checkpoint(init)
    model.to(device)
    decay = [p for n, p in model.named_parameters() if p.ndim == 2 and "embedding" not in n]
    rest = [p for n, p in model.named_parameters() if not (p.ndim == 2 and "embedding" not in n)]
    optimizer = torch.optim.AdamW(
        [
            {"params": decay, "weight_decay": settings.weight_decay},
            {"params": rest, "weight_decay": 0.0},
        ],
        lr=settings.learning_rate,
        betas=(0.9, 0.95),
        fused=device.type == "cuda",
    )
    return model, optimizer


def _write_checkpoint(
    directory: Path, config: SparkConfig, model: SparkForTraining, log: TrainingLog
) -> None:
    """Everything but the tokenizer, which a run writes first."""
    write_model_files(directory, config)
    write_weights(directory, model.checkpoint_tensors().items(), WEIGHT_SHARD_BYTES)
    (directory / LOG_FILE).write_text(log.model_dump_json(indent=1) + "\n", encoding="utf-8")


def _write_snapshot(
    out_dir: Path, config: SparkConfig, model: SparkForTraining, log: TrainingLog
) -> None:
    """The checkpoint so far, whole, in `out_dir/latest`. It is written beside that folder and
    swapped in by renaming, so a run killed at any moment leaves one complete checkpoint: in
    `latest`, or in `latest.old` during the swap."""
    fresh = out_dir / f"{SNAPSHOT_DIR}.new"
    latest = out_dir / SNAPSHOT_DIR
    previous = out_dir / f"{SNAPSHOT_DIR}.old"
    fresh.mkdir()
    for name in TOKENIZER_FILES:
        shutil.copyfile(out_dir / name, fresh / name)
    _write_checkpoint(fresh, config, model, log)
    if latest.exists():
        latest.rename(previous)
    fresh.rename(latest)
    shutil.rmtree(previous, ignore_errors=True)
