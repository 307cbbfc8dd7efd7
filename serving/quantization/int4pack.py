"""Four-bit weights in torch's CPU int4 layout: repacking, the linear op, the embedding lookup.

Decode runs on our int4 kernel (`cpu_kernels`, AVX2 or AVX-512) where it applies, else on torch's
`_weight_int4pack_mm_for_cpu` (tinygemm); both read the same packed tensor. Their cost grows
with the number of rows they multiply, so from the plan's `prefill_min_rows` rows the weight is
dequantized from that same packed tensor, a block of output rows at a time, and multiplied by
the ordinary GEMM, or, on our builds for CPUs with bf16 arithmetic, on panels: each thread
dequantizes 64 rows at a time into its L2 cache and multiplies them there (AVX512-BF16 dot
products, or AMX tiles): no second copy of the weights is kept, and the transient block stays
at most a few MB. Which kernel, which threshold, which GEMM precision and which packed
layout are decided once per process when the weights load (`KernelPlan`), never in a forward.

Where torch's packing puts each row depends on its build (`int4_layout`); the dequantizer reads
the bytes where the kernel reads them.

Tinygemm's dequantization is `(q - 8) * scale + zero` per group of `group_size` input columns,
with `scale` and `zero` stored together as a [K / group_size, N, 2] tensor. Checkpoints keep the
portable form: row-major bytes with the even column in the low nibble, and `scales`/`zeros` as
[N, K / group_size]; `repack_rows_` converts in place, one block of rows at a time.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

import torch

from serving.quantization import cpu_kernels
from serving.quantization.hardware import native_bf16, probe_hardware
from serving.quantization.int4_layout import ROW_ALIGNMENT, PackLayout, native_layout

TINYGEMM_ZERO_POINT = 8
# Rows converted per step while repacking: bounds the int32 expansion to 64 MiB at K = 2048.
_REPACK_ROWS = 8192
# Output rows dequantized per step on the prefill path (about 16 MiB of fp32 at K = 2048).
DEQUANTIZE_STEP_ROWS = 2048


def check_shape(rows: int, columns: int, group_size: int) -> None:
    if rows % ROW_ALIGNMENT or columns % group_size or group_size % 2:
        raise ValueError(
            f"a {rows}x{columns} weight cannot use int4 groups of {group_size}: rows must be a "
            f"multiple of {ROW_ALIGNMENT} and columns a multiple of the (even) group size"
        )


# ---------------------------------------------------------------------------------------------
# Portable form (checkpoints)


def pack_portable(values: torch.Tensor) -> torch.Tensor:
    """int4 values [N, K] (0..15) to bytes [N, K/2], even column in the low nibble."""
    as_bytes = values.to(torch.uint8)
    return as_bytes[:, 0::2] | (as_bytes[:, 1::2] << 4)


def unpack_portable(packed: torch.Tensor) -> torch.Tensor:
    """Inverse of `pack_portable`: bytes [N, K/2] to values [N, K] as uint8."""
    values = torch.empty(packed.shape[0], packed.shape[1] * 2, dtype=torch.uint8)
    values[:, 0::2] = packed & 15
    values[:, 1::2] = packed >> 4
    return values


def repack_rows_(portable: torch.Tensor) -> torch.Tensor:
    """Convert portable bytes [N, K/2] to torch's layout, in place, a block of rows at a time.

    torch packs each block of rows into the same span of bytes the rows occupied, so converting
    row blocks one after the other never needs more than one block's int32 expansion.
    """
    rows = portable.shape[0]
    for start in range(0, rows, _REPACK_ROWS):
        stop = min(rows, start + _REPACK_ROWS)
        values = unpack_portable(portable[start:stop]).to(torch.int32)
        portable[start:stop] = torch.ops.aten._convert_weight_to_int4pack_for_cpu(values, 1)
    return portable


def scales_and_zeros(
    scales: torch.Tensor, zeros: torch.Tensor, dtype: torch.dtype = torch.bfloat16
) -> torch.Tensor:
    """Checkpoint [N, G] scales and zeros to tinygemm's [G, N, 2] (in the activations' dtype)."""
    return torch.stack([scales.t(), zeros.t()], dim=-1).to(dtype).contiguous()


# ---------------------------------------------------------------------------------------------
# Compute


def dequantize_transposed(
    packed: torch.Tensor,
    scale_zero: torch.Tensor,
    group_size: int,
    dtype: torch.dtype,
    layout: PackLayout,
) -> torch.Tensor:
    """The weight as [K, N] in `dtype`, read from torch's packed layout (for tests and blocks)."""
    rows, half_k = packed.shape
    out = layout.unpack_rows(packed, torch.empty(half_k * 2, rows, dtype=dtype))
    grouped = out.view(-1, group_size, rows)
    scale = scale_zero[:, :, 0].to(dtype)
    offset = scale_zero[:, :, 1].to(dtype) - TINYGEMM_ZERO_POINT * scale
    grouped.mul_(scale.unsqueeze(1)).add_(offset.unsqueeze(1))
    return out


# Rows from which dequantize + GEMM beats each few-row kernel, whose cost is linear in rows.
# Measured on 2-core AVX2 hosts. tinygemm at 6656x2048: 31 / 112 / 742 ms at 32 / 64 / 512 rows
# against 244 / 64 / 234 ms for dequantize + fp32 GEMM (a shared host). Our kernel at
# 13312x2048 (the fused gate/up shape): 69 / 137 / 273 / 547 ms at 64 / 128 / 256 / 512 rows
# against 129 / 173 / 273 / 473 ms (torch's dequantization then). With bf16 hardware (a 2-core
# Intel Xeon with AMX, one-pass dequantization), one token's layer matrices per row of x: ours
# 30.6 / 34.9 / 37.7 ms at 16 / 32 / 64 rows against 62.8 / 28.3 / 20.4 ms for dequantize + bf16
# GEMM. On AMX tiles (one core of a Sapphire Rapids host, a layer's matrices, bf16): 10.2 / 10.2
# / 10.9 / 11.7 ms at 4 / 8 / 12 / 16 rows against 5.8 / 8.8 / 12.1 / 15.5 ms for our few-row
# kernel, whose weights come from memory at a token's first rows (the tiles' cost is mostly
# dequantizing).
TINYGEMM_PREFILL_MIN_ROWS = 64
OUR_KERNEL_PREFILL_MIN_ROWS = 256
OUR_KERNEL_BF16_PREFILL_MIN_ROWS = 32
# AVX512-BF16 dot products on panels (a 2-core Zen 4, a layer's matrices, bf16): 2.9 / 3.9 / 5.7
# / 9.4 ms at 4 / 8 / 16 / 32 rows against 1.2 / 2.4 / 4.6 / 9.1 ms for our few-row kernel.
OUR_KERNEL_PANELS_PREFILL_MIN_ROWS: dict[cpu_kernels.Variant, int] = {"amx": 12, "avx512_bf16": 32}
# The baseline path: torch's kernel at every row count, never dequantize.
NEVER_DEQUANTIZE = 2**62

FewRowKernelName = Literal["avx2", "avx512", "avx512_vnni", "avx512_bf16", "amx", "tinygemm"]
# `adaptive`: the fastest kernel for each row count on this machine; `tinygemm`: torch's kernel
# for every row count, the baseline `adaptive` is measured against.
KernelPath = Literal["adaptive", "tinygemm"]


@dataclass(frozen=True)
class KernelPlan:
    """Every CPU-dependent choice of the W4A16 path, made once when the weights load.

    A forward pass only reads a plan. torch.compile traces the forward: a decision taken there
    is either frozen into the graph for the machine that traced it, or, where it builds a
    probe (a packing round-trip, a random generator), stops the trace altogether.
    """

    layout: PackLayout
    few_rows: FewRowKernelName  # the kernel below `prefill_min_rows` rows
    prefill_min_rows: int  # from here on: dequantize + GEMM in `prefill_dtype`
    prefill_dtype: torch.dtype
    reason: str  # why this few-row kernel, for the server's log
    # From `prefill_min_rows` on: our panel products (weights dequantized into L2 as they go;
    # AVX512-BF16 and AMX builds) instead of dequantize + GEMM.
    panels: bool = False

    def describe(self) -> str:
        kernel = {
            "avx2": "our AVX2 kernel",
            "avx512": "our AVX-512 kernel",
            "avx512_vnni": "our AVX-512 VNNI kernel",
            "avx512_bf16": "our AVX-512 VNNI kernel (AVX-512 BF16 build)",
            "amx": "our AVX-512 VNNI kernel (AMX build)",
            "tinygemm": "torch's int4 kernel (tinygemm)",
        }[self.few_rows]
        if self.prefill_min_rows >= NEVER_DEQUANTIZE:
            return f"W4A16 on {kernel} for every row count ({self.reason})"
        if self.panels:
            on = "AMX tile" if self.few_rows == "amx" else "AVX512-BF16 panel"
            many = f"our {on} products"
        else:
            many = f"dequantize + {str(self.prefill_dtype).removeprefix('torch.')} GEMM"
        return (
            f"W4A16 on {kernel} below {self.prefill_min_rows} rows ({self.reason}), "
            f"{many} from there"
        )


def choose_plan(
    path: KernelPath,
    activations: torch.dtype,
    cpu_flags: set[str],
    layout: PackLayout,
    ours: cpu_kernels.KernelStatus,
) -> KernelPlan:
    """The plan for activations of `activations` on a machine described by the other arguments.

    Prefill multiplies in bf16 only when the activations are bf16 and the CPU has bf16
    arithmetic: without it the GEMM converts on the fly and runs several times slower than
    fp32 (measured on AVX2: 1.8 s against 0.25 s for 512x2048 by 2048x6656), and fp32 or fp16
    activations must not lose precision to a faster format.
    """
    prefill = (
        torch.bfloat16
        if activations == torch.bfloat16 and native_bf16(cpu_flags)
        else torch.float32
    )
    if path == "tinygemm":
        return KernelPlan(layout, "tinygemm", NEVER_DEQUANTIZE, prefill, "the baseline method")
    if not ours.available or ours.variant is None:
        return KernelPlan(layout, "tinygemm", TINYGEMM_PREFILL_MIN_ROWS, prefill, ours.reason)
    if activations not in cpu_kernels.SCALE_DTYPES:
        reason = f"our int4 kernel takes no {activations} scales"
        return KernelPlan(layout, "tinygemm", TINYGEMM_PREFILL_MIN_ROWS, prefill, reason)
    if ours.panels and prefill == torch.bfloat16:
        threshold = OUR_KERNEL_PANELS_PREFILL_MIN_ROWS[ours.variant]
        return KernelPlan(layout, ours.variant, threshold, prefill, ours.reason, True)
    threshold = (
        OUR_KERNEL_BF16_PREFILL_MIN_ROWS
        if prefill == torch.bfloat16
        else OUR_KERNEL_PREFILL_MIN_ROWS
    )
    return KernelPlan(layout, ours.variant, threshold, prefill, ours.reason)


@functools.cache
def machine_plan(path: KernelPath, activations: torch.dtype) -> KernelPlan:
    """`choose_plan` for this process's CPU and torch build (probes run once per process)."""
    flags = set(probe_hardware().cpu_flags)
    return choose_plan(path, activations, flags, native_layout(), cpu_kernels.load())


def dequantized_matmul(
    x: torch.Tensor,
    packed: torch.Tensor,
    scale_zero: torch.Tensor,
    group_size: int,
    layout: PackLayout,
    compute: torch.dtype,
) -> torch.Tensor:
    """x @ W.T for many rows where our kernel does not run: dequantize a block of output rows
    at a time with torch's tensor ops, then GEMM. Our kernel's `linear` does the same with its
    one-pass dequantizer (torch's ops take longer than the GEMM itself on CPUs with bf16
    hardware)."""
    rows = packed.shape[0]
    x_compute = x.to(compute)
    out = torch.empty(x.shape[0], rows, dtype=x.dtype)
    for start in range(0, rows, DEQUANTIZE_STEP_ROWS):
        stop = min(rows, start + DEQUANTIZE_STEP_ROWS)
        weight_t = dequantize_transposed(
            packed[start:stop], scale_zero[:, start:stop], group_size, compute, layout
        )
        out[:, start:stop] = torch.mm(x_compute, weight_t)
    return out


def tinygemm_mm(
    x: torch.Tensor, packed: torch.Tensor, scale_zero: torch.Tensor, group_size: int
) -> torch.Tensor:
    return torch.ops.aten._weight_int4pack_mm_for_cpu(
        x.contiguous(), packed, group_size, scale_zero
    )


@torch.library.custom_op("phone_agent::w4a16_linear_tinygemm", mutates_args=())
def w4a16_linear_tinygemm(
    x: torch.Tensor,
    packed: torch.Tensor,
    scale_zero: torch.Tensor,
    group_size: int,
    prefill_min_rows: int,
    block_rows: int,
    half_split: bool,
    prefill_dtype: torch.dtype,
) -> torch.Tensor:
    """x [M, K] times the int4 weight where our kernel does not run: torch's int4 kernel below
    `prefill_min_rows` rows, dequantize (torch's tensor ops) + GEMM from there.

    A custom op, so that torch.compile keeps the row-count branch at run time instead of
    specialising the graph on the row count it was traced with. It takes the plan as plain
    arguments, so the graph carries them as constants and nothing here asks the machine
    anything. Our kernel's builds have the same branch as an op of their own (`linear`).
    """
    if x.shape[0] >= prefill_min_rows:
        layout = PackLayout(block_rows, half_split)
        return dequantized_matmul(x, packed, scale_zero, group_size, layout, prefill_dtype)
    return tinygemm_mm(x, packed, scale_zero, group_size)


@w4a16_linear_tinygemm.register_fake
def _(x: torch.Tensor, packed: torch.Tensor, *_scales_and_plan: object) -> torch.Tensor:
    # The output's shape is M rows by the weight's N; scales and plan never change it, so they
    # are taken as they come rather than spelled out again.
    return x.new_empty(x.shape[0], packed.shape[0])


def linear(
    x: torch.Tensor,
    packed: torch.Tensor,
    scale_zero: torch.Tensor,
    group_size: int,
    plan: KernelPlan,
) -> torch.Tensor:
    """x [M, K] times the int4 weight on the kernels the plan names for M rows."""
    if plan.few_rows != "tinygemm":
        return cpu_kernels.linear(
            x,
            packed,
            scale_zero,
            group_size,
            plan.prefill_min_rows,
            plan.prefill_dtype,
            plan.panels,
            plan.few_rows,
        )
    result: torch.Tensor = torch.ops.phone_agent.w4a16_linear_tinygemm(
        x,
        packed,
        scale_zero,
        group_size,
        plan.prefill_min_rows,
        plan.layout.block_rows,
        plan.layout.half_split,
        plan.prefill_dtype,
    )
    return result


def gather_rows(
    packed: torch.Tensor,
    scale_zero: torch.Tensor,
    group_size: int,
    row_ids: torch.Tensor,
    layout: PackLayout,
    dtype: torch.dtype = torch.bfloat16,
) -> torch.Tensor:
    """Rows `row_ids` of the int4 weight, dequantized: the embedding lookup of a tied table.

    Traced by torch.compile: `layout` comes from the plan made at load, never from a probe here.
    """
    rows, half_k = packed.shape
    k = half_k * 2
    flat_ids = row_ids.reshape(-1)
    block, column, shift = layout.byte_and_shift(flat_ids)
    blocks = packed.view(rows // layout.block_rows, k, layout.block_rows // 2)
    values = (blocks[block, :, column] >> shift.unsqueeze(1).to(torch.uint8)) & 15
    scale = scale_zero[:, flat_ids, 0].t().to(torch.float32).unsqueeze(-1)
    zero = scale_zero[:, flat_ids, 1].t().to(torch.float32).unsqueeze(-1)
    grouped = values.view(-1, k // group_size, group_size).to(torch.float32)
    weights = (grouped - TINYGEMM_ZERO_POINT) * scale + zero
    return weights.view(*row_ids.shape, k).to(dtype)


def dequantize_portable(
    packed: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor, group_size: int
) -> torch.Tensor:
    """A checkpoint's int4 weight as fp32 [N, K]: `(q - 8) * scale + zero` per group."""
    values = unpack_portable(packed).to(torch.float32)
    grouped = values.view(values.shape[0], -1, group_size) - TINYGEMM_ZERO_POINT
    restored = grouped * scales.float().unsqueeze(-1) + zeros.float().unsqueeze(-1)
    return restored.view(values.shape)
