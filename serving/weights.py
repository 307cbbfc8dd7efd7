"""Which weights `phone-agent serve` runs: the probe's choice (fidelity first) unless told.

A checkpoint that is already quantized is served as it is. A bf16 checkpoint is quantized once
into the cache for any other scheme, so `serve` with the default `--weights auto` gives the
build the probe picks for this machine (W4A16 unless asked for speed on an AMX CPU) without a
separate `quantize` step; the second start reuses the cached build.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from serving.atomic import build_atomically
from serving.checkpoint import user_cache_dir
from serving.launcher import ResolvedModel
from serving.quantization.probe import probe
from serving.quantization.quantize import layout_tag, quantize_checkpoint
from serving.schemes import QuantizedScheme, Scheme, serve_args


@dataclass(frozen=True)
class WeightPlan:
    model: ResolvedModel
    scheme: str  # what is served: a scheme name, or the checkpoint's own quantization
    vllm_args: tuple[str, ...]
    reason: str


def plan_weights(
    model: ResolvedModel,
    requested: str,
    dtype: str,
    on_stage: Callable[[str], None],
) -> WeightPlan:
    """The checkpoint to serve for `--weights requested`, quantizing into the cache if needed."""
    own = _own_quantization(model.path)
    if own is not None:
        return WeightPlan(model, own, (), f"the checkpoint is already quantized ({own})")
    if requested == "auto":
        choice = probe().choice
        scheme: Scheme = choice.scheme
        reason = f"probe, priority {choice.priority}: {choice.rationale}"
    else:
        scheme = requested  # type: ignore[assignment]  # argparse restricts it to the schemes
        reason = "--weights"
    args = _scheme_args(scheme, dtype)
    if scheme == "bf16":
        return WeightPlan(model, scheme, args, reason)
    on_stage("convert")
    path = _cached_build(model.path, scheme)
    return WeightPlan(ResolvedModel(path, model.served_name, model.source), scheme, args, reason)


def _own_quantization(path: Path) -> str | None:
    config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    quantization = config.get("quantization_config")
    return str(quantization.get("quant_method")) if isinstance(quantization, dict) else None


def _scheme_args(scheme: Scheme, dtype: str) -> tuple[str, ...]:
    """The scheme's vLLM options; an explicit --dtype from the user wins over the scheme's."""
    args = serve_args(scheme)
    if dtype != "auto" and "--dtype" in args:
        at = args.index("--dtype")
        del args[at : at + 2]
    return tuple(args)


def _cached_build(source: Path, scheme: QuantizedScheme) -> Path:
    """The `scheme` build of `source`, made once; a half-written build is never trusted."""

    # The newest of the folder and its files: weights copied over the old ones in place leave
    # the folder's own time as it was, and must not be served from the old build.
    stamp = max(path.stat().st_mtime_ns for path in (source, *source.iterdir()))
    target = user_cache_dir() / "quantized" / f"{source.name}-{stamp}-{layout_tag(scheme)}"
    if (target / "config.json").is_file():
        return target
    with build_atomically(target) as building:
        quantize_checkpoint(source, building, scheme)
    return target
