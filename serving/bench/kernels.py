"""`bench kernels`: the W4A16 kernels side by side on the matrices of one decoded token.

Every int4 matrix a token passes through in the served model (fused q/k/v, attention output,
fused gate/up, down, the tied output head), with random weights in torch's packed layout, is
multiplied by each kernel at a few row counts: torch's `_weight_int4pack_mm_for_cpu`
(`tinygemm`), each build of ours this machine runs (`avx2`, `avx512`, `avx512_vnni`) and
dequantize + GEMM (`dequantize`, the prefill path, with our dequantizer where our kernel runs).
Each time is a median; the per-token figure adds the matrices up, each as many times as the
model has it. The kernels run interleaved, one call each in turn, so a change in the machine's
load touches them alike. The head is also timed as W4A16 builds now store it, an int8 table
(`int8_table_head`), on torch's int8 weight-only GEMM (`torch_int8`) and on each build of our
int8 kernel this machine runs, interleaved with the int4 kernels on it. The per-token totals
count the int4 head (`quantize --table-bits 4`); `with_int8_table_ms` swaps in the int8 one, as
the default build runs it.
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable, Sequence

import torch
from pydantic import BaseModel

from serving.checkpoint import Shape, SparkConfig, spark_config
from serving.quantization import int4_kernel, int4pack
from serving.quantization.measure import (
    GROUP_SIZE,
    head_matrix,
    layer_matrices,
    random_int4_weight,
    random_int8_table,
)
from serving.quantization.timings import Matrix

Kernel = Callable[[torch.Tensor, torch.Tensor, torch.Tensor, int], torch.Tensor]
TORCH_INT8 = "torch_int8"
TABLE_PREFIX = "int8 "  # our builds' names in the int8 head's timings, apart from the int4 ones


class KernelTiming(BaseModel):
    matrix: str
    activation_rows: int
    median_ms: dict[str, float]  # kernel -> median milliseconds of one call


class PerToken(BaseModel):
    activation_rows: int
    total_ms: dict[str, float]  # kernel -> the matrices of one token, added up
    speedup_over_tinygemm: dict[str, float]
    # Few-row kernel -> the same token with the head as W4A16 builds store it by default: the
    # int8 table on the matching int8 kernel (torch's beside tinygemm, our build beside ours).
    with_int8_table_ms: dict[str, float]


class KernelBenchReport(BaseModel):
    shape: str
    group_size: int
    threads: int
    repeat: int
    our_kernel: str  # the instruction sets of the builds timed, or why none runs
    matrices: list[Matrix]
    timings: list[KernelTiming]
    per_token: list[PerToken]
    # The head as W4A16 builds store it by default: torch's kernel and our builds.
    int8_table_head: list[KernelTiming]


def token_matrices(config: SparkConfig) -> list[Matrix]:
    """The int4 matrices of one token, as vLLM runs them (q/k/v and gate/up each fused)."""
    return [*layer_matrices(config), head_matrix(config)]


def _kernels() -> tuple[dict[str, Kernel], str]:
    """The kernels to time: torch's, every build of ours this CPU runs (the fastest first),
    and the prefill path as the plan runs it."""
    kernels: dict[str, Kernel] = {"tinygemm": int4pack.tinygemm_mm}
    builds = [(s.variant, s.label) for s in int4_kernel.loadable_variants() if s.variant]
    for variant, _ in builds:
        kernels[variant] = functools.partial(int4_kernel.int4_mm, variant=variant)
    plan = int4pack.machine_plan("adaptive", torch.bfloat16)
    if not builds:
        kernels["dequantize"] = functools.partial(
            int4pack.dequantized_matmul, layout=plan.layout, compute=plan.prefill_dtype
        )
        return kernels, int4_kernel.load().reason
    kernels["dequantize"] = functools.partial(
        int4_kernel.linear,
        prefill_min_rows=0,  # the prefill path at every row count
        prefill_dtype=plan.prefill_dtype,
        tiles=plan.tiles,
        variant=builds[0][0],
    )
    return kernels, ", ".join(label for _, label in builds)


def _table_kernels(
    weight: torch.Tensor, scales: torch.Tensor
) -> dict[str, Callable[[torch.Tensor], torch.Tensor]]:
    """The int8 head on torch's kernel and on every build of ours this CPU runs."""
    kernels: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
        TORCH_INT8: lambda x: int4_kernel.int8_table_mm(x, weight, scales, None)
    }
    for status in int4_kernel.loadable_variants():
        if status.variant is not None:
            kernels[TABLE_PREFIX + status.variant] = functools.partial(
                int4_kernel.int8_mm, weight=weight, scales=scales, variant=status.variant
            )
    return kernels


def _interleaved_medians(calls: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    for call in calls.values():
        call()  # warm-up: first-touch of buffers, lazy initialisation
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeat):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            samples[name].append((time.perf_counter() - start) * 1000)
    return {name: statistics.median(values) for name, values in samples.items()}


def run_kernel_bench(
    shape: Shape,
    rows: Sequence[int],
    repeat: int,
    progress: Callable[[str], None] = lambda message: None,
) -> KernelBenchReport:
    config = spark_config(shape)
    matrices = token_matrices(config)
    head = head_matrix(config)
    kernels, availability = _kernels()
    generator = torch.Generator().manual_seed(0)
    timings: list[KernelTiming] = []
    table_timings: list[KernelTiming] = []
    for matrix in matrices:
        progress(f"{matrix.name} ({matrix.rows}x{matrix.columns})")
        packed, scale_zero = random_int4_weight(matrix, generator)
        table = _table_kernels(*random_int8_table(matrix, generator)) if matrix == head else {}
        for count in rows:
            x = torch.randn(count, matrix.columns, generator=generator).bfloat16()
            calls: dict[str, Callable[[], object]] = {
                name: functools.partial(kernel, x, packed, scale_zero, GROUP_SIZE)
                for name, kernel in kernels.items()
            }
            calls.update({name: functools.partial(kernel, x) for name, kernel in table.items()})
            medians = _interleaved_medians(calls, repeat)
            if table:
                table_ms = {name: medians.pop(name) for name in table}
                table_timings.append(
                    KernelTiming(matrix=matrix.name, activation_rows=count, median_ms=table_ms)
                )
            timings.append(
                KernelTiming(matrix=matrix.name, activation_rows=count, median_ms=medians)
            )
    return KernelBenchReport(
        shape=shape,
        group_size=GROUP_SIZE,
        threads=torch.get_num_threads(),
        repeat=repeat,
        our_kernel=availability,
        matrices=matrices,
        timings=timings,
        per_token=[
            _per_token(matrices, timings, table_timings, count, list(kernels)) for count in rows
        ],
        int8_table_head=table_timings,
    )


def _table_kernel_for(kernel: str) -> str:
    """The int8 head's kernel that a build with `kernel` under its layers runs."""
    return TORCH_INT8 if kernel == "tinygemm" else TABLE_PREFIX + kernel


def _per_token(
    matrices: Sequence[Matrix],
    timings: Sequence[KernelTiming],
    table_timings: Sequence[KernelTiming],
    count: int,
    kernels: list[str],
) -> PerToken:
    per_token = {matrix.name: matrix.per_token for matrix in matrices}
    at_count = [timing for timing in timings if timing.activation_rows == count]
    totals = {
        kernel: sum(t.median_ms[kernel] * per_token[t.matrix] for t in at_count)
        for kernel in kernels
    }
    int8 = next(t for t in table_timings if t.activation_rows == count)
    int4_head = next(t.median_ms for t in at_count if t.matrix == int8.matrix)
    return PerToken(
        activation_rows=count,
        total_ms=totals,
        speedup_over_tinygemm={
            kernel: totals["tinygemm"] / total
            for kernel, total in totals.items()
            if kernel != "tinygemm"
        },
        with_int8_table_ms={
            kernel: totals[kernel] - int4_head[kernel] + int8.median_ms[_table_kernel_for(kernel)]
            for kernel in kernels
            if _table_kernel_for(kernel) in int8.median_ms
        },
    )


def render_text(report: KernelBenchReport) -> str:
    kernels = list(report.per_token[0].total_ms) if report.per_token else []
    lines = [
        f"W4A16 kernels on the {report.shape} shape: group {report.group_size}, "
        f"{report.threads} threads, median of {report.repeat}; our int4 kernel: "
        f"{report.our_kernel}",
        "",
        "| matrix | rows x columns | x rows | " + " | ".join(f"{k} ms" for k in kernels) + " |",
        "|---|---|---|" + "---|" * len(kernels),
    ]
    sizes = {m.name: f"{m.rows}x{m.columns} (x{m.per_token})" for m in report.matrices}
    for timing in report.timings:
        cells = " | ".join(f"{timing.median_ms[k]:.2f}" for k in kernels)
        lines.append(
            f"| {timing.matrix} | {sizes[timing.matrix]} | {timing.activation_rows} | {cells} |"
        )
    lines += ["", "One token's matrices, added up:", ""]
    for total in report.per_token:
        cells = ", ".join(f"{k} {ms:.1f} ms" for k, ms in total.total_ms.items())
        ratios = ", ".join(f"{k} {r:.2f}x" for k, r in total.speedup_over_tinygemm.items())
        lines.append(f"- {total.activation_rows} rows: {cells} (over tinygemm: {ratios})")
        with_table = ", ".join(f"{k} {ms:.1f} ms" for k, ms in total.with_int8_table_ms.items())
        lines.append(f"  with the int8 table's head (the default build): {with_table}")
    lines += [
        "",
        "The head as W4A16 builds store it by default (an int8 table; the int4 head's times are "
        "in the table above):",
        "",
    ]
    for timing in report.int8_table_head:
        cells = ", ".join(f"{name} {ms:.2f} ms" for name, ms in timing.median_ms.items())
        lines.append(f"- {timing.activation_rows} rows: {cells}")
    return "\n".join(lines)
