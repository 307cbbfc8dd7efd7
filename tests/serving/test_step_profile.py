"""Reading a served step's profile: every millisecond of a step in one part, weights' bytes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from agent.cli import main
from serving.bench import step_profile
from serving.bench.step_profile import (
    ATTENTION,
    KV_CACHE_WRITES,
    MATRIX_PRODUCTS,
    OTHER_MODEL_WORK,
    ProfileReport,
)

WORKER = 7


def _op(
    name: str, ts: float, dur: float, tid: int = WORKER, args: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "ph": "X",
        "cat": "cpu_op",
        "name": name,
        "ts": ts,
        "dur": dur,
        "tid": tid,
        "args": args,
    }


def _range(name: str, ts: float, dur: float) -> dict[str, Any]:
    return {**_op(name, ts, dur), "cat": "user_annotation"}


def _int4_linear(ts: float, dur: float, rows: int) -> dict[str, Any]:
    # [rows, 2048] activations; 13312 x 1024 packed bytes and 16 x 13312 x 2 bf16 scales
    return _op(
        "phone_agent_int4_amx::linear",
        ts,
        dur,
        args={
            "Input Dims": [[rows, 2048], [13312, 1024], [16, 13312, 2], [], []],
            "Input type": ["c10::BFloat16", "unsigned char", "c10::BFloat16", "Scalar", "Scalar"],
        },
    )


def _decode_step(start: float) -> list[dict[str, Any]]:
    """A 10 ms decode step: 6 ms of products (one in the graph, the head after it), 1.5 ms of
    attention (its kernel included), 0.5 ms of KV writes, 2 ms of everything else."""
    return [
        _range("execute_context_0(0)_generation_1(1)", start, 10_000),
        _range("## Call CompiledFxGraph None ##", start + 500, 7_000),
        _int4_linear(start + 600, 4_000, rows=1),
        _op("vllm::unified_kv_cache_update", start + 4_700, 500),
        _op("_C::cpu_attn_reshape_and_cache", start + 4_800, 200),
        _op("vllm::unified_attention_with_output", start + 5_300, 1_500),
        _op("_C::cpu_attention_with_kv_cache", start + 5_400, 1_000),
        _op("aten::slice", start + 6_500, 100),
        _op(
            "phone_agent_int4_amx::int8_mm",
            start + 7_600,
            2_000,
            args={
                "Input Dims": [[1, 2048], [131072, 2048], [131072]],
                "Input type": ["c10::BFloat16", "signed char", "c10::BFloat16"],
            },
        ),
    ]


def _trace() -> list[dict[str, Any]]:
    events = [
        _range("execute_context_1(600)_generation_0(0)", 0, 50_000),
        _int4_linear(1_000, 40_000, rows=600),
        *_decode_step(60_000),
        *_decode_step(71_000),  # 1 ms after the first decode step
        _op("_C::greedy_argmax", 70_200, 300),  # sampling, between two steps
        _range("execute_context_1(40)_generation_0(0)", 90_000, 5_000),
        *_decode_step(100_000),  # follows a prefill: its gap is not a decode gap
        _op("phone_agent_int4_amx::linear", 60_600, 9_000, tid=WORKER + 1),  # another thread
    ]
    return [{**e, "ph": "X"} for e in events] + [{"ph": "M", "name": "thread_name"}]


def test_every_millisecond_of_a_decode_step_lands_in_one_part() -> None:
    decode = step_profile.break_down(_trace())["decode"]
    assert decode.steps == 3 and decode.tokens_per_step == 1
    assert decode.median_step_ms == decode.mean_step_ms == 10.0
    assert decode.categories_ms == {
        MATRIX_PRODUCTS: 6.0,
        ATTENTION: 1.5,  # the attention kernel and its slicing count as attention
        KV_CACHE_WRITES: 0.5,
        OTHER_MODEL_WORK: 2.0,
    }
    assert sum(decode.categories_ms.values()) == pytest.approx(decode.mean_step_ms)
    assert decode.between_steps_ms == 1.0  # only the two steps that follow each other


def test_logits_computed_after_a_step_under_a_grammar_count_in_that_step() -> None:
    """The grammar head computes a step's logits once the bitmask has come: after the step's
    range, in a range of its own, which is the step's work and not the gap after it."""
    from serving.launcher import DEFERRED_LOGITS_SCOPE

    head_rows = {
        "Input Dims": [[1, 2048], [40, 2048], [40]],
        "Input type": ["c10::BFloat16", "signed char", "c10::BFloat16"],
    }
    events = []
    for start in (0, 12_000):
        events += [
            _range("execute_context_0(0)_generation_1(1)", start, 9_000),
            _int4_linear(start + 500, 6_000, rows=1),
            _range("gpu_model_runner: sample", start + 9_500, 1_000),
            _range(DEFERRED_LOGITS_SCOPE, start + 9_600, 400),
            _op("phone_agent_int4_amx::int8_mm", start + 9_700, 200, args=head_rows),
        ]
    decode = step_profile.break_down([{**e, "ph": "X"} for e in events])["decode"]
    assert decode.steps == 2 and decode.mean_step_ms == 9.4
    assert decode.categories_ms[MATRIX_PRODUCTS] == 6.2
    assert sum(decode.categories_ms.values()) == pytest.approx(decode.mean_step_ms)
    assert [p.op.split("::")[-1] for p in decode.matrix_products] == ["linear", "int8_mm"]
    assert decode.between_steps_ms == 2.6  # 3 ms from the first range's end, less the logits


def test_a_decode_step_reads_its_weights_at_the_rate_of_their_bytes_over_their_time() -> None:
    decode = step_profile.break_down(_trace())["decode"]
    layer, head = decode.matrix_products  # slowest first
    assert (layer.op, layer.weight_dims) == (
        "phone_agent_int4_amx::linear",
        [[13312, 1024], [16, 13312, 2]],
    )
    layer_bytes = 13312 * 1024 + 16 * 13312 * 2 * 2
    assert layer.weight_bytes_per_step == layer_bytes
    assert layer.calls_per_step == 1 and layer.ms_per_step == 4.0
    assert layer.gb_per_s == pytest.approx(layer_bytes / 4e-3 / 1e9, abs=0.01)
    head_bytes = 131072 * 2048 + 131072 * 2
    assert head.weight_bytes_per_step == head_bytes
    assert decode.weight_bytes_per_step == layer_bytes + head_bytes
    assert decode.matrix_gb_per_s == pytest.approx(
        (layer_bytes + head_bytes) / 6e-3 / 1e9, abs=0.01
    )


def test_prefill_steps_are_reported_apart_without_a_memory_rate() -> None:
    prefill = step_profile.break_down(_trace())["prefill"]
    assert prefill.steps == 2 and prefill.tokens_per_step == 320
    assert prefill.categories_ms[MATRIX_PRODUCTS] == 20.0  # 40 ms over two steps
    assert prefill.between_steps_ms is None
    assert prefill.matrix_gb_per_s is None
    assert all(p.gb_per_s is None for p in prefill.matrix_products)


def test_a_trace_without_steps_has_no_breakdown() -> None:
    assert step_profile.break_down([_op("aten::mm", 0, 10)]) == {}


def test_the_worker_trace_is_read_gzipped_and_the_api_servers_is_passed_over(
    tmp_path: Path,
) -> None:
    with gzip.open(tmp_path / "rank0.17.pt.trace.json.gz", "wt") as handle:
        json.dump({"traceEvents": _trace()}, handle)
    (tmp_path / "host_1.async_llm.18.pt.trace.json.gz").write_bytes(b"not the worker")
    trace = step_profile.worker_trace(tmp_path)
    assert trace.name == "rank0.17.pt.trace.json.gz"
    assert step_profile.break_down(step_profile.read_trace(trace))["decode"].steps == 3


def test_no_worker_trace_is_an_error_that_names_the_folder(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match=str(tmp_path)):
        step_profile.worker_trace(tmp_path)


def test_the_text_report_puts_each_part_beside_its_share_and_reads_beside_plain_reads() -> None:
    kinds = step_profile.break_down(_trace())
    report = ProfileReport(
        model="w4a16",
        weights="w4a16",
        compiled=True,
        cpus=2,
        requests=3,
        output_tokens=40,
        read_gb_per_s=24.0,
        decode=kinds["decode"],
        prefill=kinds["prefill"],
        trace="rank0.pt.trace.json.gz",
    )
    text = step_profile.render_text(report)
    assert "| matrix products | 6.00 | 60% |" in text
    assert "| between two steps (sampling, scheduling, the API server) | 1.00 | |" in text
    decode_rate = kinds["decode"].matrix_gb_per_s
    assert decode_rate is not None
    assert f"{decode_rate:.1f} GB/s in the products, {100 * decode_rate / 24:.0f}% of plain" in text


def test_bench_profile_refuses_a_bad_recording_before_serving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "requests.jsonl"
    path.write_text("not json\n")
    code = main(["bench", "profile", "--requests", str(path), "--work-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: --requests: ") and err.count("\n") == 1


@pytest.mark.slow
@pytest.mark.timeout(900)  # one server start, a recording and two replays
def test_bench_profile_accounts_for_the_served_policys_decode_steps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shipped policy served on our int4 kernel: every decode step is profiled, its parts
    add up to it, and its weight reads are the int4 layers' and the vocabulary table's."""
    pytest.importorskip("vllm")
    command = ["bench", "profile", "--model", "sim", "--weights", "w4a16", "--steps", "2"]
    options = ["--episode-steps", "2", "--max-tokens", "16", "--json"]
    assert main([*command, *options, "--work-dir", str(tmp_path)]) == 0
    report = json.loads(capsys.readouterr().out)
    decode, prefill = report["decode"], report["prefill"]
    assert report["requests"] == 2 and report["output_tokens"] > 2
    assert decode["steps"] >= report["output_tokens"] - report["requests"]
    parts = decode["categories_ms"]
    assert sum(parts.values()) == pytest.approx(decode["mean_step_ms"], rel=0.01)
    assert parts[MATRIX_PRODUCTS] > 0 and parts[ATTENTION] > 0
    ops = {p["op"].split("::")[-1] for p in decode["matrix_products"]}
    assert {"linear", "int8_mm"} <= ops
    assert decode["weight_bytes_per_step"] > 0 and decode["matrix_gb_per_s"] > 0
    assert prefill["steps"] >= 1 and prefill["matrix_gb_per_s"] is None
    assert report["read_gb_per_s"] > 0
    assert Path(report["trace"]).is_file()
