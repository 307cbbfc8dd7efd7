"""`bench kernels`: the matrices of a token, every kernel timed on each, the per-token sums."""

from __future__ import annotations

import json
import os

import pytest

pytest.importorskip("torch")

from serving.bench import kernels
from serving.checkpoint import spark_config
from serving.quantization import int4_kernel
from tests.cli_process import run_cli


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
    report = kernels.run_kernel_bench("tiny", [1, 3], repeat=1)
    builds = int4_kernel.loadable_variants()
    expected = ["tinygemm", *(build.variant for build in builds), "dequantize"]
    if builds:
        assert report.our_kernel == ", ".join(build.label for build in builds)
    else:
        assert report.our_kernel == int4_kernel.load().reason
    assert [(t.matrix, t.activation_rows) for t in report.timings] == [
        (m.name, rows) for m in report.matrices for rows in (1, 3)
    ]
    assert all(list(t.median_ms) == expected for t in report.timings)
    assert all(ms > 0 for t in report.timings for ms in t.median_ms.values())

    per_token = {m.name: m.per_token for m in report.matrices}
    for total in report.per_token:
        at_rows = [t for t in report.timings if t.activation_rows == total.activation_rows]
        for kernel in expected:
            added = sum(t.median_ms[kernel] * per_token[t.matrix] for t in at_rows)
            assert total.total_ms[kernel] == pytest.approx(added)
        assert list(total.speedup_over_tinygemm) == expected[1:]
        assert total.speedup_over_tinygemm[expected[-1]] == pytest.approx(
            total.total_ms["tinygemm"] / total.total_ms[expected[-1]]
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
    for total, table in zip(report.per_token, report.int8_table_head, strict=True):
        head = next(
            t.median_ms
            for t in report.timings
            if t.matrix == "output_head" and t.activation_rows == total.activation_rows
        )
        assert list(total.with_int8_table_ms) == expected[:-1]  # no int8 twin for `dequantize`
        for kernel, ms in total.with_int8_table_ms.items():
            twin = kernels.TORCH_INT8 if kernel == "tinygemm" else f"int8 {kernel}"
            assert ms == pytest.approx(
                total.total_ms[kernel] - head[kernel] + table.median_ms[twin]
            )
    text = kernels.render_text(report)
    assert "| gate_up_proj | 512x128 (x4) | 3 |" in text
    assert "3 rows: tinygemm" in text
    assert "an int8 table" in text and "3 rows: torch_int8 " in text
    assert "with the int8 table's head (the default build): tinygemm " in text


def test_the_command_prints_json_and_refuses_bad_counts_in_one_line() -> None:
    env = dict(os.environ)
    done = run_cli(
        "bench", "kernels", "--shape", "tiny", "--rows", "2", "--repeat", "1", "--json", env=env
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["shape"] == "tiny" and [p["activation_rows"] for p in report["per_token"]] == [2]

    for bad in (["--rows", "0"], ["--repeat", "0"]):
        refused = run_cli("bench", "kernels", "--shape", "tiny", *bad, env=env)
        assert refused.returncode == 2
        assert "Traceback" not in refused.stderr
        assert "error: " in refused.stderr.strip().splitlines()[-1], refused.stderr
        assert "at least 1" in refused.stderr
