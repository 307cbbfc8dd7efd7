"""`bench kernels`: the W4A16 kernels side by side on the matrices of one token, and one decoded
token's matrices against what plain reads of memory reach.

Every int4 matrix a token passes through in the served model (fused q/k/v, attention output,
fused gate/up, down, the tied output head), with random weights in torch's packed layout, is
multiplied by each kernel at a few row counts: torch's `_weight_int4pack_mm_for_cpu`
(`tinygemm`), each build of ours this machine runs (`avx2`, `avx512`, `avx512_vnni`,
`avx512_bf16`, `amx`), the many-row path the plan takes (`prefill`: our panel products where
the AVX512-BF16 or AMX build runs, else dequantize + GEMM) and the same matrix in bf16
(`bf16`, what the bf16 build multiplies).
From PREFILL_ROWS rows on only `prefill` and `bf16` run, on the layers' matrices: the few-row
kernels are not meant for that many rows, and vLLM multiplies the head for the last position
of each sequence only. Each time is a median; the per-token figure adds the matrices up, each as
many times as the model has it. The kernels run interleaved, one call each in turn, so a change
in the machine's load touches them alike. The head is also timed as W4A16 builds now store it,
an int8 table (`int8_table_head`), on torch's int8 weight-only GEMM (`torch_int8`) and on each
build of our int8 kernel this machine runs. The per-token totals count the int4 head
(`quantize --table-bits 4`); `with_int8_table_ms` swaps in the int8 one, as the default build
runs it.

The decode step (`decode_step`) multiplies one token's matrices as the served model reads them:
every layer with weights of its own, so that they come from memory and not from a cache, and the
int8 head, on the kernels the plan picks, interleaved with plain reads of a 512 MiB buffer on
the same threads; it reports the bytes read per token over the time, beside what the plain reads
reached.
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable, Sequence

import torch
from pydantic import BaseModel

from serving.checkpoint import Shape, SparkConfig, spark_config
from serving.quantization import cpu_kernels, int4pack
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
PREFILL = "prefill"
BF16 = "bf16"
# From this many rows on, only the many-row path and bf16 are timed, on the layers' matrices.
PREFILL_ROWS = 16
# The plain reads' buffer: far larger than any cache.
READ_BYTES = 512 << 20


class KernelTiming(BaseModel):
    matrix: str
    activation_rows: int
    median_ms: dict[str, float]  # kernel -> median milliseconds of one call


class PerToken(BaseModel):
    activation_rows: int
    total_ms: dict[str, float]  # kernel -> the matrices timed at this count, added up
    speedup_over_tinygemm: dict[str, float]  # empty from PREFILL_ROWS rows on
    # Few-row kernel -> the same token with the head as W4A16 builds store it by default: the
    # int8 table on the matching int8 kernel (torch's beside tinygemm, our build beside ours).
    with_int8_table_ms: dict[str, float]
    # bf16 time over the plan's many-row path (above 1: W4A16 is faster), on the layers alone.
    prefill_over_bf16: float


class DecodeStep(BaseModel):
    """One decoded token's matrices with weights from memory, beside plain reads."""

    activation_rows: int
    kernel: str  # the few-row kernel and the head's, as the plan picks them
    layer_ms: float  # every layer's matrices, added up (median of the repeats)
    head_ms: float
    bytes_read: int  # the weights, scales and int8 head one token reads
    gb_per_s: float
    plain_read_gb_per_s: float  # reads of a READ_BYTES buffer on the same threads, interleaved
    fraction_of_plain_reads: float


class KernelBenchReport(BaseModel):
    shape: str
    group_size: int
    threads: int
    repeat: int
    our_kernel: str  # the instruction sets of the builds timed, or why none runs
    plan: str  # the W4A16 plan this machine serves with
    matrices: list[Matrix]
    timings: list[KernelTiming]
    per_token: list[PerToken]
    # The head as W4A16 builds store it by default: torch's kernel and our builds.
    int8_table_head: list[KernelTiming]
    decode_step: list[DecodeStep]


def token_matrices(config: SparkConfig) -> list[Matrix]:
    """The int4 matrices of one token, as vLLM runs them (q/k/v and gate/up each fused)."""
    return [*layer_matrices(config), head_matrix(config)]


def _kernels() -> tuple[dict[str, Kernel], str]:
    """The few-row kernels to time: torch's and every build of ours this CPU runs (the fastest
    first); and the many-row path as the plan runs it."""
    kernels: dict[str, Kernel] = {"tinygemm": int4pack.tinygemm_mm}
    builds = [(s.variant, s.label) for s in cpu_kernels.loadable_variants() if s.variant]
    for variant, _ in builds:
        kernels[variant] = functools.partial(cpu_kernels.int4_mm, variant=variant)
    plan = int4pack.machine_plan("adaptive", torch.bfloat16)
    # the plan's path at every row count
    kernels[PREFILL] = functools.partial(int4pack.linear, plan=_from_first_row(plan))
    availability = ", ".join(label for _, label in builds) or cpu_kernels.load().reason
    return kernels, availability


def _from_first_row(plan: int4pack.KernelPlan) -> int4pack.KernelPlan:
    return int4pack.KernelPlan(
        plan.layout, plan.few_rows, 0, plan.prefill_dtype, plan.reason, plan.panels
    )


def _table_kernels(
    weight: torch.Tensor, scales: torch.Tensor
) -> dict[str, Callable[[torch.Tensor], torch.Tensor]]:
    """The int8 head on torch's kernel and on every build of ours this CPU runs."""
    kernels: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
        TORCH_INT8: lambda x: cpu_kernels.int8_table_mm(x, weight, scales, None)
    }
    for status in cpu_kernels.loadable_variants():
        if status.variant is not None:
            kernels[TABLE_PREFIX + status.variant] = functools.partial(
                cpu_kernels.int8_mm, weight=weight, scales=scales, variant=status.variant
            )
    return kernels


def _interleaved_samples(
    calls: dict[str, Callable[[], object]], repeat: int
) -> dict[str, list[float]]:
    """Milliseconds of each call, `repeat` times, one call each in turn."""
    for call in calls.values():
        call()  # warm-up: first-touch of buffers, lazy initialisation
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(repeat):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            samples[name].append((time.perf_counter() - start) * 1000)
    return samples


def _interleaved_medians(calls: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    samples = _interleaved_samples(calls, repeat)
    return {name: statistics.median(values) for name, values in samples.items()}


def run_kernel_bench(
    shape: Shape,
    rows: Sequence[int],
    repeat: int,
    progress: Callable[[str], None] = lambda message: None,
    decode_step_rows: Sequence[int] = (1,),
) -> KernelBenchReport:
    config = spark_config(shape)
    matrices = token_matrices(config)
    head = head_matrix(config)
    kernels, availability = _kernels()
    generator = torch.Generator().manual_seed(0)
    timings: list[KernelTiming] = []
    table_timings: list[KernelTiming] = []
    few_rows = [count for count in rows if count < PREFILL_ROWS]
    for matrix in matrices:
        progress(f"{matrix.name} ({matrix.rows}x{matrix.columns})")
        packed, scale_zero = random_int4_weight(matrix, generator)
        bf16_weight = (
            torch.randn(matrix.rows, matrix.columns, generator=generator) * 0.02
        ).bfloat16()
        table = _table_kernels(*random_int8_table(matrix, generator)) if matrix == head else {}
        for count in rows if matrix != head else few_rows:
            x = torch.randn(count, matrix.columns, generator=generator).bfloat16()
            names = list(kernels) if count < PREFILL_ROWS else [PREFILL]
            calls: dict[str, Callable[[], object]] = {
                name: functools.partial(kernels[name], x, packed, scale_zero, GROUP_SIZE)
                for name in names
            }
            calls[BF16] = functools.partial(torch.nn.functional.linear, x, bf16_weight)
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
        del packed, scale_zero, bf16_weight, table
    plan = int4pack.machine_plan("adaptive", torch.bfloat16)
    return KernelBenchReport(
        shape=shape,
        group_size=GROUP_SIZE,
        threads=torch.get_num_threads(),
        repeat=repeat,
        our_kernel=availability,
        plan=plan.describe(),
        matrices=matrices,
        timings=timings,
        per_token=[_per_token(matrices, timings, table_timings, count) for count in rows],
        int8_table_head=table_timings,
        decode_step=[_decode_step(config, count, repeat, progress) for count in decode_step_rows],
    )


def _table_kernel_for(kernel: str) -> str:
    """The int8 head's kernel that a build with `kernel` under its layers runs."""
    return TORCH_INT8 if kernel == "tinygemm" else TABLE_PREFIX + kernel


def _per_token(
    matrices: Sequence[Matrix],
    timings: Sequence[KernelTiming],
    table_timings: Sequence[KernelTiming],
    count: int,
) -> PerToken:
    per_token = {matrix.name: matrix.per_token for matrix in matrices}
    at_count = [timing for timing in timings if timing.activation_rows == count]
    kernels = list(at_count[0].median_ms)
    totals = {
        kernel: sum(t.median_ms[kernel] * per_token[t.matrix] for t in at_count)
        for kernel in kernels
    }
    layer_names = {matrix.name for matrix in layer_matrices_of(matrices)}
    layers = [t for t in at_count if t.matrix in layer_names]
    prefill_over_bf16 = sum(t.median_ms[BF16] * per_token[t.matrix] for t in layers) / sum(
        t.median_ms[PREFILL] * per_token[t.matrix] for t in layers
    )
    if count >= PREFILL_ROWS:
        return PerToken(
            activation_rows=count,
            total_ms=totals,
            speedup_over_tinygemm={},
            with_int8_table_ms={},
            prefill_over_bf16=prefill_over_bf16,
        )
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
        prefill_over_bf16=prefill_over_bf16,
    )


def layer_matrices_of(matrices: Sequence[Matrix]) -> list[Matrix]:
    """The matrices every layer has (all but the head, which one token passes once)."""
    return [matrix for matrix in matrices if matrix.per_token > 1]


def _plain_reads(buffer: torch.Tensor, variant: cpu_kernels.Variant | None) -> int:
    if variant is None:  # no build of ours here: torch's own sum reads it too
        return int(buffer.view(torch.int64).sum())
    return cpu_kernels.sum_words(buffer, variant)


def _decode_step(
    config: SparkConfig, count: int, repeat: int, progress: Callable[[str], None]
) -> DecodeStep:
    """One token's matrices on the plan's kernels, every layer with weights of its own."""
    progress(f"decode step: {config.num_hidden_layers} layers, {count} row(s)")
    plan = int4pack.machine_plan("adaptive", torch.bfloat16)
    generator = torch.Generator().manual_seed(1)
    matrices = layer_matrices(config)
    layers = [
        [random_int4_weight(matrix, generator) for matrix in matrices]
        for _ in range(config.num_hidden_layers)
    ]
    head = head_matrix(config)
    table, table_scales = random_int8_table(head, generator)
    table_variant = cpu_kernels.int8_table_kernel(head.columns).variant
    x = {
        columns: torch.randn(count, columns, generator=generator).bfloat16()
        for columns in {matrix.columns for matrix in [*matrices, head]}
    }

    def layer_products() -> None:
        for layer in layers:
            for matrix, (packed, scale_zero) in zip(matrices, layer, strict=True):
                int4pack.linear(x[matrix.columns], packed, scale_zero, GROUP_SIZE, plan)

    def head_product() -> None:
        cpu_kernels.int8_table_mm(x[head.columns], table, table_scales, table_variant)

    buffer = torch.ones(READ_BYTES, dtype=torch.uint8)
    samples = _interleaved_samples(
        {
            "reads": functools.partial(_plain_reads, buffer, table_variant),
            "layers": layer_products,
            "head": head_product,
        },
        repeat,
    )
    layer_bytes = sum(
        packed.numel() + scale_zero.numel() * scale_zero.element_size()
        for layer in layers
        for packed, scale_zero in layer
    )
    head_bytes = table.numel() + table_scales.numel() * table_scales.element_size()
    layer_ms, head_ms = (statistics.median(samples[name]) for name in ("layers", "head"))
    gb_per_s = (layer_bytes + head_bytes) / (layer_ms + head_ms) / 1e6
    plain = READ_BYTES / statistics.median(samples["reads"]) / 1e6
    return DecodeStep(
        activation_rows=count,
        kernel=plan.few_rows if table_variant is None else f"{plan.few_rows}, int8 {table_variant}",
        layer_ms=layer_ms,
        head_ms=head_ms,
        bytes_read=layer_bytes + head_bytes,
        gb_per_s=gb_per_s,
        plain_read_gb_per_s=plain,
        fraction_of_plain_reads=gb_per_s / plain,
    )


def render_text(report: KernelBenchReport) -> str:
    lines = [
        f"W4A16 kernels on the {report.shape} shape: group {report.group_size}, "
        f"{report.threads} threads, median of {report.repeat}; our int4 kernel: "
        f"{report.our_kernel}",
        f"plan: {report.plan}",
        "",
    ]
    sizes = {m.name: f"{m.rows}x{m.columns} (x{m.per_token})" for m in report.matrices}
    for few in (True, False):
        timings = [t for t in report.timings if (t.activation_rows < PREFILL_ROWS) == few]
        if not timings:
            continue
        kernels = list(timings[0].median_ms)
        lines += [
            "| matrix | rows x columns | x rows | " + " | ".join(f"{k} ms" for k in kernels) + " |",
            "|---|---|---|" + "---|" * len(kernels),
        ]
        for timing in timings:
            cells = " | ".join(f"{timing.median_ms[k]:.2f}" for k in kernels)
            lines.append(
                f"| {timing.matrix} | {sizes[timing.matrix]} | {timing.activation_rows} | {cells} |"
            )
        lines.append("")
    lines += ["One token's matrices, added up (from 16 rows: the layers' alone):", ""]
    for total in report.per_token:
        cells = ", ".join(f"{k} {ms:.1f} ms" for k, ms in total.total_ms.items())
        lines.append(
            f"- {total.activation_rows} rows: {cells}; bf16 / W4A16 {PREFILL}: "
            f"{total.prefill_over_bf16:.2f}"
        )
        if total.speedup_over_tinygemm:
            ratios = ", ".join(f"{k} {r:.2f}x" for k, r in total.speedup_over_tinygemm.items())
            lines.append(f"  over tinygemm: {ratios}")
        if total.with_int8_table_ms:
            with_table = ", ".join(f"{k} {ms:.1f} ms" for k, ms in total.with_int8_table_ms.items())
            lines.append(f"  with the int8 table's head (the default build): {with_table}")
    if report.int8_table_head:
        lines += [
            "",
            "The head as W4A16 builds store it by default (an int8 table; the int4 head's times "
            "are in the table above):",
            "",
        ]
    for timing in report.int8_table_head:
        cells = ", ".join(f"{name} {ms:.2f} ms" for name, ms in timing.median_ms.items())
        lines.append(f"- {timing.activation_rows} rows: {cells}")
    if report.decode_step:
        lines += ["", "A decoded token's matrices, weights from memory (every layer its own):", ""]
    for step in report.decode_step:
        lines.append(
            f"- {step.activation_rows} row(s) on {step.kernel}: layers {step.layer_ms:.1f} ms + "
            f"head {step.head_ms:.1f} ms for {step.bytes_read / 1e6:.0f} MB = "
            f"{step.gb_per_s:.1f} GB/s; plain reads {step.plain_read_gb_per_s:.1f} GB/s "
            f"({step.fraction_of_plain_reads:.0%})"
        )
    return "\n".join(lines)
