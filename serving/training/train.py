"""Train a Spark2_5 policy on demonstrations and write it as a checkpoint directory.

Steps: a byte-level BPE is trained on the demonstrations' text (Spark's special and markup
tokens added), every demonstration is rendered with the chat template and tokenized, and the
model learns the completions only (the prompt is context, not a target). Batches group
demonstrations of similar length under a token budget; their order, the weights' start and
everything else random come from one seed, so a run on the CPU repeats exactly.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import torch
from pydantic import BaseModel, Field

from serving.checkpoint import (
    ShapeSpec,
    config_for,
    write_model_files,
    write_tokenizer,
    write_weights,
)
from serving.training.data import (
    DemoError,
    Example,
    encode_lines,
    parse_demo,
    read_demo_lines,
    tokenizer_corpus,
)
from serving.training.model import SparkForTraining, parameter_count

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
# Weight files stay under 16 MiB: small enough to keep in the repository and to copy around.
WEIGHT_SHARD_BYTES = 15 << 20
# Demonstrations sampled for the tokenizer: enough to see every screen's words.
_TOKENIZER_SAMPLE = 4000


class TrainSettings(BaseModel):
    steps: int = Field(default=2000, ge=1)
    seed: int = 0
    device: str = "cpu"
    batch_tokens: int = Field(default=65536, ge=256, description="padded tokens per batch")
    learning_rate: float = Field(default=1e-3, gt=0)
    warmup_steps: int = Field(default=100, ge=0)
    weight_decay: float = Field(default=0.1, ge=0)
    max_length: int = Field(default=4096, ge=16, description="longer demonstrations are left out")
    log_every: int = Field(default=25, ge=1)


class LossPoint(BaseModel):
    step: int
    loss: float
    learning_rate: float
    seconds: float


class TrainingLog(BaseModel):
    """What a run did, written beside the checkpoint (the model card's loss curve)."""

    settings: TrainSettings
    demonstrations: int
    left_out_too_long: int
    parameters: int
    tokens_per_epoch: int
    scored_tokens_per_epoch: int
    longest_example: int
    epochs: float
    losses: list[LossPoint]
    seconds: float


# Receives (step, loss of the step, learning rate) after every step.
StepCallback = Callable[[int, float, float], None]


@dataclass(frozen=True)
class Batch:
    input_ids: torch.Tensor
    targets: torch.Tensor


def make_batches(examples: Sequence[Example], batch_tokens: int, rng: random.Random) -> list[Batch]:
    """Examples of similar length together, each batch at most `batch_tokens` padded tokens,
    in a shuffled order (the shuffle within equal lengths comes from `rng` too)."""
    order = sorted(range(len(examples)), key=lambda i: (examples[i].length, rng.random()))
    groups: list[list[int]] = []
    current: list[int] = []
    for index in order:
        longest = examples[index].length  # sorted: the newest is the longest
        if current and longest * (len(current) + 1) > batch_tokens:
            groups.append(current)
            current = []
        current.append(index)
    if current:
        groups.append(current)
    rng.shuffle(groups)
    return [_collate([examples[i] for i in group]) for group in groups]


def _collate(examples: Sequence[Example]) -> Batch:
    length = max(example.length for example in examples)
    pad = 2  # Spark's pad id; padded positions are never scored and only follow real tokens
    input_ids = torch.full((len(examples), length), pad, dtype=torch.long)
    targets = torch.zeros((len(examples), length), dtype=torch.bool)
    for row, example in enumerate(examples):
        input_ids[row, : example.length] = torch.tensor(example.ids)
        targets[row, example.prompt_tokens : example.length] = True
    return Batch(input_ids, targets)


def learning_rate(step: int, settings: TrainSettings) -> float:
    """Linear warm-up, then a cosine down to a tenth of the peak at the last step."""
    peak = settings.learning_rate
    if step < settings.warmup_steps:
        return peak * (step + 1) / settings.warmup_steps
    span = max(1, settings.steps - settings.warmup_steps)
    progress = min(1.0, (step - settings.warmup_steps) / span)
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def train(
    demos_path: Path,
    out_dir: Path,
    settings: TrainSettings,
    *,
    shape: ShapeSpec = POLICY_SHAPE,
    on_step: StepCallback | None = None,
    on_stage: Callable[[str], None] | None = None,
) -> TrainingLog:
    """Train on `demos_path` and write a complete checkpoint into `out_dir` (empty or absent)."""
    started = time.monotonic()
    say = on_stage or (lambda text: None)
    if out_dir.exists() and (not out_dir.is_dir() or any(out_dir.iterdir())):
        raise DemoError(f"{out_dir} exists and is not an empty directory")
    lines = read_demo_lines(demos_path)
    rng = random.Random(settings.seed)
    torch.manual_seed(settings.seed)

    say(f"training the tokenizer on {min(len(lines), _TOKENIZER_SAMPLE)} demonstrations")
    sample = rng.sample(range(len(lines)), min(len(lines), _TOKENIZER_SAMPLE))
    sample_demos = [parse_demo(lines[i], i + 1) for i in sorted(sample)]
    out_dir.mkdir(parents=True, exist_ok=True)
    write_tokenizer(out_dir, shape.tokenizer_vocab, tokenizer_corpus(sample_demos))

    say(f"rendering and tokenizing {len(lines)} demonstrations")
    encoded = encode_lines(out_dir, lines)
    examples = [e for e in encoded if e.length <= settings.max_length]
    if not examples:
        raise DemoError(f"every demonstration is longer than {settings.max_length} tokens")

    config = config_for(shape)
    device = torch.device(settings.device)
    model = SparkForTraining(config)
    model.initialize(torch.Generator().manual_seed(settings.seed))
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
    autocast = torch.autocast(device.type, dtype=torch.bfloat16, enabled=device.type == "cuda")

    say(f"training {parameter_count(config) / 1e6:.2f}M parameters for {settings.steps} steps")
    losses: list[LossPoint] = []
    window: list[float] = []
    batches: list[Batch] = []
    model.train()
    for step in range(settings.steps):
        if not batches:
            batches = make_batches(examples, settings.batch_tokens, rng)
            batches.reverse()  # popped from the end
        batch = batches.pop()
        rate = learning_rate(step, settings)
        for group in optimizer.param_groups:
            group["lr"] = rate
        with autocast:
            loss = model.target_loss(batch.input_ids.to(device), batch.targets.to(device))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        value = float(loss.detach())
        window.append(value)
        if on_step is not None:
            on_step(step + 1, value, rate)
        if (step + 1) % settings.log_every == 0 or step + 1 == settings.steps:
            losses.append(
                LossPoint(
                    step=step + 1,
                    loss=round(sum(window) / len(window), 5),
                    learning_rate=rate,
                    seconds=round(time.monotonic() - started, 1),
                )
            )
            window = []

    say(f"writing the checkpoint to {out_dir}")
    write_model_files(out_dir, config)
    write_weights(out_dir, model.checkpoint_tensors().items(), WEIGHT_SHARD_BYTES)
    per_epoch = make_batches(examples, settings.batch_tokens, random.Random(0))
    log = TrainingLog(
        settings=settings,
        demonstrations=len(encoded),
        left_out_too_long=len(encoded) - len(examples),
        parameters=parameter_count(config),
        tokens_per_epoch=sum(e.length for e in examples),
        scored_tokens_per_epoch=sum(e.length - e.prompt_tokens for e in examples),
        longest_example=max(e.length for e in examples),
        epochs=round(settings.steps / len(per_epoch), 2),
        losses=losses,
        seconds=round(time.monotonic() - started, 1),
    )
    (out_dir / LOG_FILE).write_text(log.model_dump_json(indent=1) + "\n", encoding="utf-8")
    return log
