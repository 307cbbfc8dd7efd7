"""Quantize a bf16 Spark checkpoint into a checkpoint vLLM loads directly.

Tensors are streamed: each one is read from the memory-mapped safetensors, quantized in blocks
of rows and appended to an output shard that is written once it reaches `SHARD_BYTES`, so the
process never holds the model twice. Schemes:

- `w4a16`: our format for `phone_agent_w4a16`: asymmetric 4-bit per group of input columns,
  with a per-group search of the clipping range. The vocabulary table (tied: vLLM's Spark model
  uses one module for the lookup and the output head) is int8 with one scale per row: it is the
  tensor 4-bit rounds worst, and its error lands straight on every logit.
- `w4a8`: GPTQ (4 bits, symmetric, implicit zero point 8, no act-order), the format vLLM's CPU
  kernel selector accepts; `lm_head` is untied and quantized, because left tied that one GEMM
  runs in bf16 and costs more than the whole 4-bit saving. Rounding is to nearest (no
  calibration data), with the same per-group range search.
- `w8a8`: compressed-tensors int8, symmetric per output channel, dynamic per-token activations.

The head-wise gate `g_proj` (one output per attention head, each scaling a whole head), the
norms, and whatever is not a linear weight stay in the source precision.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from serving.errors import ServingUsageError
from serving.schemes import VLLM_METHODS, QuantizedScheme

DEFAULT_GROUP_SIZE = 128
SHARD_BYTES = 1 << 30
EMBEDDING = "model.embedding.weight"
LM_HEAD = "lm_head.weight"
LINEAR_WEIGHT = re.compile(
    r"^model\.layers\.\d+\.(self_attn\.(q_k_v_proj|out_proj)|mlp\.(gate_proj|up_proj|down_proj))"
    r"\.weight$"
)
# Shrink factors tried for each group's range; the one with the least squared error wins.
RANGE_SEARCH = (1.0, 0.96, 0.92, 0.88, 0.84, 0.80, 0.76)
# Elements per block of rows while quantizing (64 MiB of fp32 temporaries at most).
_BLOCK_ELEMENTS = 1 << 22

if TYPE_CHECKING:
    import torch


class QuantizeError(ServingUsageError):
    """The source cannot be quantized as asked (bad input: exit code 2)."""


class QuantizeReport(BaseModel):
    """What `quantize --json` prints as its last line."""

    scheme: QuantizedScheme
    group_size: int
    source: str
    destination: str
    seconds: float
    source_bytes: int
    destination_bytes: int
    quantized_tensors: int
    kept_tensors: int
    min_snr_db: float
    worst_tensor: str
    snr_db: dict[str, float]


# ---------------------------------------------------------------------------------------------
# Reading and writing safetensors shard by shard


def weight_files(model_dir: Path) -> list[Path]:
    index = model_dir / "model.safetensors.index.json"
    if index.is_file():
        weight_map: dict[str, str] = json.loads(index.read_text(encoding="utf-8"))["weight_map"]
        return [model_dir / name for name in dict.fromkeys(weight_map.values())]
    single = model_dir / "model.safetensors"
    if single.is_file():
        return [single]
    raise QuantizeError(f"{model_dir} has no model.safetensors or model.safetensors.index.json")


def iter_tensors(model_dir: Path) -> Iterator[tuple[str, torch.Tensor]]:
    """Each tensor of the checkpoint in file order, loaded one at a time."""
    from safetensors import safe_open

    for path in weight_files(model_dir):
        with safe_open(str(path), "pt") as weights:
            for name in weights.keys():  # noqa: SIM118 (safe_open has no __iter__)
                yield name, weights.get_tensor(name)


@dataclass
class ShardWriter:
    """Collects output tensors and writes a shard whenever `max_bytes` is reached."""

    directory: Path
    max_bytes: int = SHARD_BYTES
    _pending: dict[str, torch.Tensor] = field(default_factory=dict)
    _files: list[str] = field(default_factory=list)
    _weight_map: dict[str, str] = field(default_factory=dict)

    def add(self, name: str, tensor: torch.Tensor) -> None:
        pending_bytes = sum(t.nbytes for t in self._pending.values())
        if self._pending and pending_bytes + tensor.nbytes > self.max_bytes:
            self._flush()
        self._pending[name] = tensor.contiguous()

    def _flush(self) -> None:
        from safetensors.torch import save_file

        self._files.append(f"model-{len(self._files) + 1:05d}.safetensors")
        save_file(self._pending, str(self.directory / self._files[-1]), metadata={"format": "pt"})
        self._weight_map.update(dict.fromkeys(self._pending, self._files[-1]))
        self._pending.clear()

    def close(self) -> None:
        if self._pending or not self._files:
            self._flush()
        if len(self._files) == 1:
            (self.directory / self._files[0]).rename(self.directory / "model.safetensors")
            return
        index = {"metadata": {}, "weight_map": self._weight_map}
        (self.directory / "model.safetensors.index.json").write_text(
            json.dumps(index, indent=1) + "\n", encoding="utf-8"
        )


# ---------------------------------------------------------------------------------------------
# Quantizing one weight


@dataclass
class ErrorTally:
    signal: float = 0.0
    noise: float = 0.0

    def add(self, original: torch.Tensor, restored: torch.Tensor) -> None:
        self.signal += float(original.double().square().sum())
        self.noise += float((original - restored).double().square().sum())

    @property
    def snr_db(self) -> float:
        if self.noise == 0.0:
            return math.inf
        return 10.0 * math.log10(max(self.signal, 1e-30) / self.noise)


def _best_per_group(
    groups: torch.Tensor, candidates: Iterator[tuple[dict[str, torch.Tensor], torch.Tensor]]
) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
    """Per group, the candidate with the least squared error.

    `groups` is [rows, groups, g]; candidates give per-group parameters ([rows, groups]) or
    per-element values ([rows, groups, g]) and the restored groups.
    """
    import torch

    best: dict[str, torch.Tensor] = {}
    best_restored = torch.empty(0)
    best_error = torch.empty(0)
    for params, restored in candidates:
        error = (groups - restored).square().sum(-1)
        if not best:
            best, best_restored, best_error = params, restored, error
            continue
        better = error < best_error
        best_error = torch.where(better, error, best_error)
        best_restored = torch.where(better.unsqueeze(-1), restored, best_restored)
        for key, value in params.items():
            mask = better.unsqueeze(-1) if value.dim() == 3 else better
            best[key] = torch.where(mask, value, best[key])
    return best, best_restored


def int4_asymmetric(
    groups: torch.Tensor,
) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
    """Tinygemm form: values 0..15 with `(q - 8) * scale + zero`; scale and zero in bf16."""

    low = groups.amin(-1).clamp(max=0.0)
    high = groups.amax(-1).clamp(min=0.0)

    def candidates() -> Iterator[tuple[dict[str, torch.Tensor], torch.Tensor]]:
        for shrink in RANGE_SEARCH:
            scale = ((high - low) * shrink / 15).clamp(min=1e-8).bfloat16().float()
            zero = (low * shrink + 8 * scale).bfloat16().float()
            q = ((groups - zero.unsqueeze(-1)) / scale.unsqueeze(-1) + 8).round().clamp(0, 15)
            restored = (q - 8) * scale.unsqueeze(-1) + zero.unsqueeze(-1)
            yield {"q": q, "scale": scale, "zero": zero}, restored

    return _best_per_group(groups, candidates())


def int4_symmetric(groups: torch.Tensor) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
    """GPTQ form: values 0..15 with `(q - 8) * scale`; scale in fp16."""
    absmax = groups.abs().amax(-1)

    def candidates() -> Iterator[tuple[dict[str, torch.Tensor], torch.Tensor]]:
        for shrink in RANGE_SEARCH:
            scale = (absmax * shrink / 7.5).clamp(min=1e-8).half().float()
            q = (groups / scale.unsqueeze(-1)).round().clamp(-8, 7) + 8
            yield {"q": q, "scale": scale}, (q - 8) * scale.unsqueeze(-1)

    return _best_per_group(groups, candidates())


@dataclass(frozen=True)
class QuantizedWeight:
    tensors: dict[str, torch.Tensor]  # suffix -> tensor, replacing ".weight"
    snr_db: float


def _row_blocks(rows: int, columns: int) -> Iterator[tuple[int, int]]:
    step = max(1, _BLOCK_ELEMENTS // columns)
    for start in range(0, rows, step):
        yield start, min(rows, start + step)


def quantize_w4a16(weight: torch.Tensor, group_size: int) -> QuantizedWeight:
    import torch

    from serving.quantization.int4pack import check_shape, pack_portable

    rows, columns = weight.shape
    check_shape(rows, columns, group_size)
    packed = torch.empty(rows, columns // 2, dtype=torch.uint8)
    scales = torch.empty(rows, columns // group_size, dtype=torch.bfloat16)
    zeros = torch.empty_like(scales)
    tally = ErrorTally()
    for start, stop in _row_blocks(rows, columns):
        block = weight[start:stop].float()
        params, restored = int4_asymmetric(block.view(stop - start, -1, group_size))
        packed[start:stop] = pack_portable(params["q"].reshape(stop - start, columns))
        scales[start:stop] = params["scale"].bfloat16()
        zeros[start:stop] = params["zero"].bfloat16()
        tally.add(block, restored.reshape(block.shape))
    return QuantizedWeight({"qweight": packed, "scales": scales, "zeros": zeros}, tally.snr_db)


def quantize_gptq(weight: torch.Tensor, group_size: int) -> QuantizedWeight:
    import torch

    rows, columns = weight.shape
    if rows % 32 or columns % group_size or group_size % 8:
        raise QuantizeError(
            f"a {rows}x{columns} weight cannot be GPTQ int4 with groups of {group_size}"
        )
    qweight = torch.empty(columns // 8, rows, dtype=torch.int32)
    scales = torch.empty(columns // group_size, rows, dtype=torch.float16)
    tally = ErrorTally()
    shifts = torch.arange(0, 32, 4, dtype=torch.int64).view(1, 8, 1)
    for start, stop in _row_blocks(rows, columns):
        block = weight[start:stop].float()
        params, restored = int4_symmetric(block.view(stop - start, -1, group_size))
        # Eight values along the input dimension per int32, the first in the lowest bits.
        values = params["q"].reshape(stop - start, columns).t().to(torch.int64)
        words = (values.view(columns // 8, 8, -1) << shifts).sum(1)
        qweight[:, start:stop] = torch.where(words >= 2**31, words - 2**32, words).to(torch.int32)
        scales[:, start:stop] = params["scale"].t().half()
        tally.add(block, restored.reshape(block.shape))
    # GPTQ (v1 checkpoints) stores zero point minus one: 7 in every nibble for the implicit 8.
    qzeros = torch.full((columns // group_size, rows // 8), 0x77777777, dtype=torch.int32)
    g_idx = torch.arange(columns, dtype=torch.int32) // group_size
    tensors = {"qweight": qweight, "qzeros": qzeros, "scales": scales, "g_idx": g_idx}
    return QuantizedWeight(tensors, tally.snr_db)


def _int8_per_row(weight: torch.Tensor, scale_dtype: torch.dtype) -> QuantizedWeight:
    """Symmetric int8 with one scale per row, each scale rounded to `scale_dtype` before the
    row is quantized by it, so the stored scale is the one the values were made for."""
    import torch

    rows, columns = weight.shape
    quantized = torch.empty(rows, columns, dtype=torch.int8)
    scales = torch.empty(rows, 1, dtype=scale_dtype)
    tally = ErrorTally()
    for start, stop in _row_blocks(rows, columns):
        block = weight[start:stop].float()
        scale = (block.abs().amax(-1, keepdim=True) / 127).clamp(min=1e-8).to(scale_dtype).float()
        q = (block / scale).round().clamp(-127, 127)
        quantized[start:stop] = q.to(torch.int8)
        scales[start:stop] = scale
        tally.add(block, q * scale)
    return QuantizedWeight({"weight": quantized, "weight_scale": scales}, tally.snr_db)


def quantize_int8_channel(weight: torch.Tensor, group_size: int) -> QuantizedWeight:
    import torch

    return _int8_per_row(weight, torch.float32)


def quantize_int8_rows(weight: torch.Tensor, group_size: int) -> QuantizedWeight:
    """The vocabulary table's int8: bf16 scales, which the head's kernels (ours, and torch's
    int8 weight-only GEMM) take with bf16 activations without rounding them a second time."""
    import torch

    return _int8_per_row(weight, torch.bfloat16)


# ---------------------------------------------------------------------------------------------
# Whole checkpoints


@dataclass(frozen=True)
class SchemePlan:
    """Which tensors a scheme quantizes, how, and what its config.json says."""

    quantize: Callable[[torch.Tensor, int], QuantizedWeight]
    targets: Callable[[str, dict[str, Any]], bool]
    untie_head: bool
    # How the vocabulary tables (embedding, head) are quantized, where not like the linear layers.
    quantize_table: Callable[[torch.Tensor, int], QuantizedWeight] | None
    quantization_config: Callable[[int], dict[str, Any]]


def _w4a16_targets(name: str, config: dict[str, Any]) -> bool:
    return bool(LINEAR_WEIGHT.match(name)) or name in (EMBEDDING, LM_HEAD)


def _w4a8_targets(name: str, config: dict[str, Any]) -> bool:
    return bool(LINEAR_WEIGHT.match(name)) or name == LM_HEAD


def _w8a8_targets(name: str, config: dict[str, Any]) -> bool:
    return bool(LINEAR_WEIGHT.match(name))


PLANS: dict[QuantizedScheme, SchemePlan] = {
    "w4a16": SchemePlan(
        quantize=quantize_w4a16,
        targets=_w4a16_targets,
        untie_head=False,
        quantize_table=quantize_int8_rows,
        quantization_config=lambda group_size: {
            "quant_method": VLLM_METHODS["w4a16"],
            "bits": 4,
            "group_size": group_size,
            "zero_point": True,
            "path": "adaptive",
            "table_bits": 8,
        },
    ),
    "w4a8": SchemePlan(
        quantize=quantize_gptq,
        targets=_w4a8_targets,
        untie_head=True,
        quantize_table=None,
        quantization_config=lambda group_size: {
            "quant_method": VLLM_METHODS["w4a8"],
            "bits": 4,
            "group_size": group_size,
            "sym": True,
            "desc_act": False,
            "static_groups": False,
            "lm_head": True,
            "checkpoint_format": "gptq",
        },
    ),
    "w8a8": SchemePlan(
        quantize=quantize_int8_channel,
        targets=_w8a8_targets,
        untie_head=False,
        quantize_table=None,
        quantization_config=lambda group_size: {
            "quant_method": VLLM_METHODS["w8a8"],
            "format": "int-quantized",
            "quantization_status": "compressed",
            "config_groups": {
                "group_0": {
                    "targets": ["Linear"],
                    "weights": {
                        "num_bits": 8,
                        "type": "int",
                        "symmetric": True,
                        "strategy": "channel",
                        "dynamic": False,
                    },
                    "input_activations": {
                        "num_bits": 8,
                        "type": "int",
                        "symmetric": True,
                        "strategy": "token",
                        "dynamic": True,
                    },
                }
            },
            "ignore": ["lm_head", "re:.*g_proj$"],
        },
    ),
}


def _plan_with_table(scheme: QuantizedScheme, table_bits: int | None) -> SchemePlan:
    plan = PLANS[scheme]
    if table_bits is None or (scheme == "w4a16" and table_bits == 8):
        return plan
    if scheme != "w4a16" or table_bits != 4:
        raise QuantizeError("the table's bits are 4 or 8, and only W4A16 has a choice")
    return replace(
        plan,
        quantize_table=None,
        quantization_config=lambda size: {**plan.quantization_config(size), "table_bits": 4},
    )


def layout_tag(scheme: QuantizedScheme) -> str:
    """The scheme and a digest of the format its builds are written in, for naming build folders:
    a folder so named is never taken for a build in an older format, and neither is vLLM's compile
    cache, which keys on the model's path and method name but not on its quantization config."""
    layout = json.dumps(PLANS[scheme].quantization_config(DEFAULT_GROUP_SIZE), sort_keys=True)
    return f"{scheme}-{hashlib.sha256(layout.encode()).hexdigest()[:8]}"


def _copy_side_files(source: Path, destination: Path) -> None:
    """Tokenizer, chat template, generation config: everything that is not weights or config."""
    for path in source.iterdir():
        if path.is_file() and path.name != "config.json" and not path.name.startswith("model"):
            shutil.copy2(path, destination / path.name)


def _directory_bytes(directory: Path) -> int:
    return sum(path.stat().st_size for path in directory.iterdir() if path.is_file())


def quantize_checkpoint(
    source: Path,
    destination: Path,
    scheme: QuantizedScheme,
    group_size: int = DEFAULT_GROUP_SIZE,
    on_tensor: Callable[[str, float | None], None] | None = None,
    table_bits: int | None = None,
) -> QuantizeReport:
    """Write the `scheme` build of the bf16 checkpoint `source` into `destination` (new/empty).

    `on_tensor(name, snr_db)` is called after each tensor (snr_db None for kept tensors).
    `table_bits=4` gives W4A16 the int4 vocabulary table of its first format: a 4-bit table
    decodes faster where the vocabulary is large, at the cost of the error it puts on every logit.
    """
    config_path = source / "config.json"
    if not config_path.is_file():
        raise QuantizeError(f"{source} has no config.json: not a checkpoint directory")
    if destination.exists() and (not destination.is_dir() or any(destination.iterdir())):
        raise QuantizeError(f"{destination} exists and is not an empty directory")
    config: dict[str, Any] = json.loads(config_path.read_text(encoding="utf-8"))
    if "quantization_config" in config:
        raise QuantizeError(f"{source} is already quantized; start from the bf16 checkpoint")
    if group_size <= 0 or group_size % 8:
        raise QuantizeError(f"group size must be a positive multiple of 8, not {group_size}")
    plan = _plan_with_table(scheme, table_bits)
    started = time.monotonic()
    destination.mkdir(parents=True, exist_ok=True)
    writer = ShardWriter(destination)
    snr: dict[str, float] = {}
    kept = 0
    tied = bool(config.get("tie_word_embeddings", True))
    for name, tensor in iter_tensors(source):
        if name == LM_HEAD and tied:
            continue  # a stray copy of the tied table; vLLM would ignore it too
        quantize_as = [name] if plan.targets(name, config) else []
        if name == EMBEDDING and tied and plan.untie_head:
            writer.add(name, tensor)
            kept += 1
            quantize_as = [LM_HEAD]
        for target in quantize_as:
            quantize_tensor = plan.quantize
            if target in (EMBEDDING, LM_HEAD) and plan.quantize_table:
                quantize_tensor = plan.quantize_table
            try:
                result = quantize_tensor(tensor, group_size)
            except ValueError as exc:
                raise QuantizeError(f"{target}: {exc}") from exc
            prefix = target.removesuffix(".weight")
            for suffix, stored in result.tensors.items():
                writer.add(f"{prefix}.{suffix}", stored)
            snr[target] = round(result.snr_db, 2)
            if on_tensor:
                on_tensor(target, result.snr_db)
        if not quantize_as:
            writer.add(name, tensor)
            kept += 1
            if on_tensor:
                on_tensor(name, None)
    writer.close()
    if not snr:
        raise QuantizeError(f"{source} has no Spark linear weights to quantize")
    if plan.untie_head:
        config["tie_word_embeddings"] = False
    config["quantization_config"] = plan.quantization_config(group_size)
    (destination / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    _copy_side_files(source, destination)
    worst = min(snr, key=lambda name: snr[name])
    return QuantizeReport(
        scheme=scheme,
        group_size=group_size,
        source=str(source),
        destination=str(destination),
        seconds=round(time.monotonic() - started, 1),
        source_bytes=_directory_bytes(source),
        destination_bytes=_directory_bytes(destination),
        quantized_tensors=len(snr),
        kept_tensors=kept,
        min_snr_db=snr[worst],
        worst_tensor=worst,
        snr_db=snr,
    )
