"""`serve --weights`: which build is served, and the one-time quantization into the cache."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="quantizing needs torch (make serving-stack)")

from serving.checkpoint import make_checkpoint
from serving.launcher import ResolvedModel
from serving.weights import plan_weights


@pytest.fixture
def tiny(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ResolvedModel:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = make_checkpoint(tmp_path / "tiny", "tiny", seed=0)
    return ResolvedModel(path, "tiny", "local")


def test_a_bf16_checkpoint_is_quantized_once_and_reused(tiny: ResolvedModel) -> None:
    stages: list[str] = []
    first = plan_weights(tiny, "w4a16", "auto", stages.append)
    config = json.loads((first.model.path / "config.json").read_text())
    assert first.model.path != tiny.path and first.model.served_name == "tiny"
    assert config["quantization_config"]["quant_method"] == "phone_agent_w4a16"
    assert first.vllm_args == ("--dtype", "bfloat16", "--quantization", "phone_agent_w4a16")
    assert stages == ["convert"]
    built = (first.model.path / "config.json").stat().st_mtime_ns
    again = plan_weights(tiny, "w4a16", "auto", stages.append)
    assert again.model.path == first.model.path
    assert (again.model.path / "config.json").stat().st_mtime_ns == built  # not rebuilt


def test_weights_copied_over_in_place_are_quantized_afresh(tiny: ResolvedModel) -> None:
    first = plan_weights(tiny, "w4a16", "auto", lambda stage: None).model.path
    retrained = make_checkpoint(tiny.path.parent / "retrained", "tiny", seed=1)
    shard = next(tiny.path.glob("*.safetensors"))
    shard.write_bytes(next(retrained.glob("*.safetensors")).read_bytes())  # same file, new bytes
    second = plan_weights(tiny, "w4a16", "auto", lambda stage: None).model.path
    assert second != first
    assert (
        next(second.glob("*.safetensors")).read_bytes()
        != next(first.glob("*.safetensors")).read_bytes()
    )


def test_a_build_in_an_older_format_is_made_again(
    tiny: ResolvedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    from serving.quantization import quantize

    current = plan_weights(tiny, "w4a16", "auto", lambda stage: None).model.path
    plan = quantize.PLANS["w4a16"]
    older = dataclasses.replace(
        plan,
        quantization_config=lambda group_size: {
            **plan.quantization_config(group_size),
            "table_bits": 4,
        },
    )
    monkeypatch.setitem(quantize.PLANS, "w4a16", older)
    rebuilt = plan_weights(tiny, "w4a16", "auto", lambda stage: None).model.path
    assert rebuilt != current
    assert (
        json.loads((rebuilt / "config.json").read_text())["quantization_config"]["table_bits"] == 4
    )


def test_bf16_serves_the_checkpoint_itself_and_an_explicit_dtype_wins(
    tiny: ResolvedModel,
) -> None:
    plan = plan_weights(tiny, "bf16", "float32", lambda stage: None)
    assert plan.model == tiny and plan.scheme == "bf16" and plan.vllm_args == ()


def test_a_quantized_checkpoint_is_served_as_it_is(tiny: ResolvedModel) -> None:
    quantized = plan_weights(tiny, "w8a8", "auto", lambda stage: None).model
    plan = plan_weights(quantized, "w4a16", "auto", lambda stage: None)
    assert plan.model == quantized and plan.scheme == "compressed-tensors"
    assert "already quantized" in plan.reason


def test_auto_follows_the_probe(tiny: ResolvedModel, monkeypatch: pytest.MonkeyPatch) -> None:
    from serving.quantization import probe as probe_module

    report = probe_module.probe()
    monkeypatch.setattr("serving.weights.probe", lambda: report)
    plan = plan_weights(tiny, "auto", "auto", lambda stage: None)
    assert plan.scheme == report.choice.scheme
    assert plan.reason.startswith(f"probe, priority {report.choice.priority}")
