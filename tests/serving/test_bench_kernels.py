"""`bench kernels`: the matrices of a token, every kernel timed on each, the per-token sums."""

from __future__ import annotations

import json
import os

import pytest

torch = pytest.importorskip("torch")

from serving.bench import kernels  # noqa: E402
from serving.checkpoint import spark_config  # noqa: E402
from serving.quantization import cpu_kernels, int4pack  # noqa: E402
from tests.support.cli_process import run_cli  # noqa: E402


def test_a_token_of_the_real_shape_passes_through_every_int4_matrix_of_the_model() -> None:
    matrices = {m.name: m for m in kernels.token_matrices(spark_config("1.7b"))}
    assert {name: (m.rows, m.columns, m.per_token) for name, m in matrices.items()} == {
        "q_k_v_proj": (3072, 2048, 28),
        "out_proj": (2048, 2048, 28),
        "gate_up_proj": (13312, 2048, 28),
        "down_proj": (2048, 6656, 28),
        "output_head": (131072, 2048, 1),
    }
    weights = sum(m.rows * m.columns * m.per_token for m in matrices.values())
    assert 1.6e9 < weights < 1.8e9  # a 1.7B model, its embedding counted once as the head


def test_every_kernel_is_timed_on_every_matrix_and_the_token_adds_them_up() -> None:
    report = kernels.run_kernel_bench("tiny", [1, 3, 16], repeat=1, decode_step_rows=[])
    builds = cpu_kernels.loadable_variants()
    expected = ["tinygemm", *(build.variant for build in builds), "prefill", "bf16"]
    if builds:
        assert report.our_kernel == ", ".join(build.label for build in builds)
    else:
        assert report.our_kernel == cpu_kernels.load().reason
    assert report.plan == int4pack.machine_plan("adaptive", torch.bfloat16).describe()
    # Few rows: every kernel on every matrix. Prefill rows: the layers alone, W4A16 and bf16.
    layers = [m.name for m in report.matrices if m.name != "output_head"]
    assert [(t.matrix, t.activation_rows) for t in report.timings] == [
        (m.name, rows)
        for m in report.matrices
        for rows in (1, 3, 16)
        if rows < 16 or m.name in layers
    ]
    for timing in report.timings:
        names = expected if timing.activation_rows < 16 else ["prefill", "bf16"]
        assert list(timing.median_ms) == names
        assert all(ms > 0 for ms in timing.median_ms.values())

    per_token = {m.name: m.per_token for m in report.matrices}
    for total in report.per_token:
        at_rows = [t for t in report.timings if t.activation_rows == total.activation_rows]
        for kernel in at_rows[0].median_ms:
            added = sum(t.median_ms[kernel] * per_token[t.matrix] for t in at_rows)
            assert total.total_ms[kernel] == pytest.approx(added)
        in_layers = [t for t in at_rows if t.matrix in layers]
        assert total.prefill_over_bf16 == pytest.approx(
            sum(t.median_ms["bf16"] * per_token[t.matrix] for t in in_layers)
            / sum(t.median_ms["prefill"] * per_token[t.matrix] for t in in_layers)
        )
        if total.activation_rows >= 16:
            assert not total.speedup_over_tinygemm and not total.with_int8_table_ms
            continue
        assert list(total.speedup_over_tinygemm) == expected[1:]
        assert total.speedup_over_tinygemm["bf16"] == pytest.approx(
            total.total_ms["tinygemm"] / total.total_ms["bf16"]
        )
    # The head as builds store it by default: timed beside the int4 kernels, kept out of the sums.
    assert [(t.matrix, t.activation_rows) for t in report.int8_table_head] == [
        ("output_head", 1),
        ("output_head", 3),
    ]
    table_kernels = [kernels.TORCH_INT8, *(f"int8 {build.variant}" for build in builds)]
    assert all(list(t.median_ms) == table_kernels for t in report.int8_table_head)
    assert all(ms > 0 for t in report.int8_table_head for ms in t.median_ms.values())
    # The default build's token: the same matrices with the int8 head on the matching kernel.
    few = [total for total in report.per_token if total.activation_rows < 16]
    for total, table in zip(few, report.int8_table_head, strict=True):
        head = next(
            t.median_ms
            for t in report.timings
            if t.matrix == "output_head" and t.activation_rows == total.activation_rows
        )
        # no int8 twin for the many-row path or bf16
        assert list(total.with_int8_table_ms) == expected[:-2]
        for kernel, ms in total.with_int8_table_ms.items():
            twin = kernels.TORCH_INT8 if kernel == "tinygemm" else f"int8 {kernel}"
            assert ms == pytest.approx(
                total.total_ms[kernel] - head[kernel] + table.median_ms[twin]
            )
    text = kernels.render_text(report)
    assert "| gate_up_proj | 512x128 (x4) | 3 |" in text
    assert "| gate_up_proj | 512x128 (x4) | 16 |" in text
    assert "3 rows: tinygemm" in text and "16 rows: prefill" in text
    assert "bf16 / W4A16 prefill: " in text
    assert "an int8 table" in text and "3 rows: torch_int8 " in text
    assert "with the int8 table's head (the default build): tinygemm " in text


def test_the_decode_step_reads_every_layer_from_memory_beside_plain_reads() -> None:
    config = spark_config("tiny")
    report = kernels.run_kernel_bench("tiny", [1], repeat=2, decode_step_rows=[1, 2])
    assert [step.activation_rows for step in report.decode_step] == [1, 2]
    layer_bytes = sum(
        m.rows * m.columns // 2 + (m.columns // kernels.GROUP_SIZE) * m.rows * 2 * 2
        for m in report.matrices
        if m.name != "output_head"
    )
    head = config.vocab_size * config.hidden_size + config.vocab_size * 2
    for step in report.decode_step:
        assert step.bytes_read == layer_bytes * config.num_hidden_layers + head
        assert step.gb_per_s == pytest.approx(
            step.bytes_read / (step.layer_ms + step.head_ms) / 1e6
        )
        assert step.fraction_of_plain_reads == pytest.approx(
            step.gb_per_s / step.plain_read_gb_per_s
        )
        assert step.plain_read_gb_per_s > 0
    assert "A decoded token's matrices, weights from memory" in kernels.render_text(report)


def test_the_command_prints_json_and_refuses_bad_counts_in_one_line() -> None:
    env = dict(os.environ)
    done = run_cli(
        "bench",
        "kernels",
        "--shape",
        "tiny",
        "--rows",
        "2",
        "--repeat",
        "1",
        "--no-step",
        "--json",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["shape"] == "tiny" and [p["activation_rows"] for p in report["per_token"]] == [2]

    for bad in (["--rows", "0"], ["--repeat", "0"], ["--step-rows", "0"]):
        refused = run_cli("bench", "kernels", "--shape", "tiny", *bad, env=env)
        assert refused.returncode == 2
        assert "Traceback" not in refused.stderr
        assert "error: " in refused.stderr.strip().splitlines()[-1], refused.stderr
        assert "at least 1" in refused.stderr
