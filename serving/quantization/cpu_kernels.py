"""Our CPU kernels, compiled on first use and loaded as torch ops: the int4 products of W4A16
layers (`int4_kernel.cpp`, and `int4_panels.cpp` for many rows on CPUs with bf16 arithmetic)
and the int8 product of its vocabulary table (`int8_kernel.cpp`).

It is compiled on the machine that runs it (torch's extension builder, into our cache folder,
keyed on torch's version and the instruction set, so later processes only load it), for the
layout torch packs int4 weights in there: blocks of 32 rows on AVX2 (built with AVX2), blocks of
64 rows where torch runs its AVX-512 code (built with AVX-512BW, or with AVX512-VNNI and VBMI
where the CPU has them: the same sums in fewer instructions; with AVX512-BF16 too, the same and
prefill on panels of bf16 weights dequantized into L2, multiplied on AMX tiles where the CPU has
AMX-BF16). `load()` gives the best build the
CPU runs; where torch packs otherwise (its portable build), the CPU lacks the instructions, or no
C++ compiler is at hand, it says why and the caller keeps torch's kernel. Each build registers
its ops under a namespace of its own, so every build a CPU runs can be loaded side by side
(`loadable_variants()`, for the tests and `bench kernels`).
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import torch

from serving.checkpoint import user_cache_dir
from serving.quantization.hardware import probe_hardware
from serving.quantization.int4_layout import PackLayout, native_layout

SOURCES = tuple(
    Path(__file__).with_name(name)
    for name in ("int4_kernel.cpp", "int4_panels.cpp", "int8_kernel.cpp")
)
LIBRARY_NAME = "phone_agent_int4"
# The scale tables it reads: those of bf16 and fp32 activations (fp16 stays on torch's kernel).
SCALE_DTYPES = (torch.bfloat16, torch.float32)

Variant = Literal["avx2", "avx512", "avx512_vnni", "avx512_bf16", "amx"]
# GCC's flag for each CPU flag (as /proc/cpuinfo names it) whose name is not `-m` + the flag.
_COMPILE_FLAG = {
    "avx512_vnni": "-mavx512vnni",
    "avx512_bf16": "-mavx512bf16",
    "amx_tile": "-mamx-tile",
    "amx_bf16": "-mamx-bf16",
}


@dataclass(frozen=True)
class _Build:
    """One instruction set the source compiles for: the layout it reads (blocks of
    `block_rows`, split in halves), what it needs."""

    block_rows: int
    cpu_flags: frozenset[str]
    compile_flags: tuple[str, ...]
    label: str

    def extended(self, cpu_flags: set[str], label: str, block_rows: int | None = None) -> _Build:
        """This build with more instructions, each compiled for by its GCC flag."""
        added = sorted(cpu_flags)
        return _Build(
            block_rows or self.block_rows,
            self.cpu_flags | frozenset(added),
            self.compile_flags + tuple(_COMPILE_FLAG.get(flag, f"-m{flag}") for flag in added),
            label,
        )

    @property
    def panels(self) -> bool:
        """Whether the build multiplies many rows on panels dequantized into L2 (`panel_mm`)."""
        return "avx512_bf16" in self.cpu_flags

    @property
    def tiles(self) -> bool:
        """Whether the build multiplies those panels on AMX tiles."""
        return "amx_tile" in self.cpu_flags


_AVX2 = _Build(32, frozenset({"avx2", "fma"}), ("-mavx2", "-mfma"), "AVX2")
_AVX512 = _AVX2.extended({"avx512f", "avx512bw"}, "AVX-512", block_rows=64)
_AVX512_VNNI = _AVX512.extended({"avx512_vnni", "avx512vbmi"}, "AVX-512 VNNI")
# The VNNI build's few-row kernel, and many rows on panels (`panel_mm`, int4_panels.cpp)
# multiplied by AVX512-BF16 dot products (AMD Zen 4) ...
_AVX512_BF16 = _AVX512_VNNI.extended({"avx512_bf16"}, "AVX-512 BF16")
_BUILDS: dict[Variant, _Build] = {
    "avx2": _AVX2,
    "avx512": _AVX512,
    "avx512_vnni": _AVX512_VNNI,
    "avx512_bf16": _AVX512_BF16,
    # ... or on AMX tiles (Intel Sapphire Rapids and later).
    "amx": _AVX512_BF16.extended({"amx_tile", "amx_bf16"}, "AMX"),
}
# The largest integer the kernel rounds activations to (`kActivationLevels` in the source): its
# high byte must fit a signed byte.
ACTIVATION_LEVELS = 32639
# The int8 product steps through 32 columns at a time on AVX-512, 16 on AVX2.
INT8_COLUMN_MULTIPLE = 32
# The largest integer the int8 product rounds activations to (`kActivationLevels` in its source).
INT8_ACTIVATION_LEVELS = 32767
# A build takes about 20 s on two cores. torch's builder waits forever on the lock file of a
# build that was killed (Ctrl-C on a first `serve`); a lock this old is such a leftover.
_STALE_LOCK_S = 600

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class KernelStatus:
    """Whether the op is loaded in this process, and if not, why."""

    available: bool
    reason: str
    variant: Variant | None = None  # the instruction set it was built for, when available

    @property
    def label(self) -> str:
        """The instruction set's name ("AVX2", "AVX-512"), for logs and tables."""
        return _BUILDS[self.variant].label if self.variant is not None else "none"

    @property
    def panels(self) -> bool:
        """Whether this build multiplies many rows on panels dequantized into L2."""
        return self.variant is not None and _BUILDS[self.variant].panels


def _reading(layout: PackLayout) -> list[Variant]:
    """The builds that read `layout`, the simplest first."""
    if not layout.half_split:
        return []
    return [name for name, build in _BUILDS.items() if build.block_rows == layout.block_rows]


def variants_for(layout: PackLayout, cpu_flags: set[str]) -> list[Variant]:
    """The builds that read `layout` and run on a CPU with `cpu_flags`, the fastest first."""
    return [name for name in reversed(_reading(layout)) if _BUILDS[name].cpu_flags <= cpu_flags]


def unsupported_reason(cpu_flags: set[str], layout: PackLayout) -> str | None:
    """Why this machine should keep torch's kernel, or None when ours applies."""
    reading = _reading(layout)
    if not reading:
        return (
            f"torch packs int4 rows in blocks of {layout.block_rows} "
            f"{'split in halves' if layout.half_split else 'in adjacent pairs'} here (its "
            "portable build); ours reads the AVX2 and AVX-512 layouts"
        )
    if not variants_for(layout, cpu_flags):
        # The simplest build for the layout names what is missing.
        missing = sorted(_BUILDS[reading[0]].cpu_flags - cpu_flags)
        return f"the CPU lacks {', '.join(missing)}"
    if shutil.which("c++") is None and shutil.which("g++") is None:
        return "no C++ compiler on PATH to build it"
    if _ninja() is None:
        return "no ninja to build it (pip install ninja)"
    return None


def _ninja() -> Path | None:
    """torch's builder runs `ninja` from PATH; the ninja wheel puts it beside the interpreter,
    which is not on PATH when the virtualenv is not activated."""
    on_path = shutil.which("ninja")
    if on_path is not None:
        return Path(on_path)
    beside = Path(sys.executable).with_name("ninja")
    return beside if beside.is_file() else None


def build_directory(variant: Variant) -> Path:
    """Where the library is built: one built for another torch or instruction set must never
    load."""
    return user_cache_dir() / "kernels" / f"{LIBRARY_NAME}-{variant}-torch-{torch.__version__}"


def _clear_stale_lock(lock: Path) -> None:
    try:
        if time.time() - lock.stat().st_mtime > _STALE_LOCK_S:
            lock.unlink(missing_ok=True)
    except FileNotFoundError:
        pass


@functools.cache
def machine_variants() -> tuple[list[Variant], str | None]:
    """The builds this CPU runs for the layout torch packs in here, the fastest first, and why
    none applies (None when one does); builds nothing."""
    layout = native_layout()
    flags = set(probe_hardware().cpu_flags)
    return variants_for(layout, flags), unsupported_reason(flags, layout)


@functools.cache
def load() -> KernelStatus:
    """Build (first time on this machine) and load the fastest build this CPU runs, the next
    where one fails (saying why in the reason); never raises."""
    variants, reason = machine_variants()
    if reason is not None or not variants:
        return KernelStatus(False, reason or "no build reads this layout")
    refused: list[str] = []
    for variant in variants:
        status = load_variant(variant)
        if status.available:
            if refused:
                reason = f"{status.reason}; {'; '.join(refused)}"
                return KernelStatus(True, reason, status.variant)
            return status
        refused.append(f"not the {_BUILDS[variant].label} build: {status.reason}")
    return KernelStatus(False, "; ".join(refused))


def loadable_variants() -> list[KernelStatus]:
    """Every build this CPU runs, loaded, the fastest first (none where `load()` says why not)."""
    variants, reason = machine_variants()
    if reason is not None:
        return []
    return [status for status in map(load_variant, variants) if status.available]


@functools.cache
def load_variant(variant: Variant) -> KernelStatus:
    """Build (first time on this machine) and load one build; never raises. The caller checks
    that the CPU runs it and that torch packs the layout it reads (`variants_for`)."""
    from torch.utils import cpp_extension

    build = _BUILDS[variant]
    directory = build_directory(variant)
    ninja = _ninja()
    if ninja is not None and shutil.which("ninja") is None:
        os.environ["PATH"] = f"{ninja.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        _clear_stale_lock(directory / "lock")
        cpp_extension.load(
            name=_namespace(variant),
            sources=[str(source) for source in SOURCES],
            extra_cflags=[
                "-O3",
                "-fopenmp",
                f"-DPHONE_AGENT_INT4_OPS={_namespace(variant)}",
                *build.compile_flags,
            ],
            extra_ldflags=["-fopenmp"],
            build_directory=str(directory),
            is_python_module=False,
        )
    except (OSError, RuntimeError, ImportError) as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        log.warning(
            "int4 %s kernel not built (%s); using torch's int4 kernel", build.label, first_line
        )
        return KernelStatus(False, f"building it failed: {first_line}")
    _register_fake_outputs(_namespace(variant))
    if build.tiles and not _ops(variant).tiles_permitted():
        return KernelStatus(False, "Linux refused this process the AMX tile registers")
    return KernelStatus(True, f"built for this {build.label} CPU", variant)


def _register_fake_outputs(namespace: str) -> None:
    """The output's shape for torch.compile, which traces the products without running them: M
    rows by the weight's N."""

    def fake(x: torch.Tensor, weight: torch.Tensor, *_: object) -> torch.Tensor:
        return x.new_empty(x.shape[0], weight.shape[0])

    for op in ("linear", "int8_mm"):
        torch.library.register_fake(f"{namespace}::{op}")(fake)


def _namespace(variant: Variant) -> str:
    return f"{LIBRARY_NAME}_{variant}"


def _ops(variant: Variant) -> Any:
    return getattr(torch.ops, _namespace(variant))


def _rounded_groups(x: torch.Tensor, group_size: int, levels: int) -> torch.Tensor:
    """Per group of columns, the nearest multiple of max|x_group| / levels (in x's dtype)."""
    grouped = x.reshape(*x.shape[:-1], -1, group_size)
    step = grouped.abs().amax(-1, keepdim=True) / levels
    safe_step = torch.where(step > 0, step, torch.ones_like(step))
    return (torch.round(grouped / safe_step) * step).reshape(x.shape)


def rounded_activations(x: torch.Tensor, group_size: int) -> torch.Tensor:
    """x as the int4 kernel multiplies it: per group of columns, the nearest multiple of
    max|x_group| / ACTIVATION_LEVELS (in x's dtype; for error bounds and reference forwards)."""
    return _rounded_groups(x, group_size, ACTIVATION_LEVELS)


def int4_mm(
    x: torch.Tensor,
    packed: torch.Tensor,
    scale_zero: torch.Tensor,
    group_size: int,
    variant: Variant,
) -> torch.Tensor:
    """x [M, K] times the packed weight, as `_weight_int4pack_mm_for_cpu` computes it, on the
    build `variant` (loaded).

    The activations are rounded to 16-bit integers with one scale per group of the weight
    (at most ACTIVATION_LEVELS: finer than their own bf16) and split into two bytes, which lets
    the kernel multiply half a block's rows of two columns (four on VNNI) per instruction.
    """
    out: torch.Tensor = _ops(variant).int4_mm(x, packed, scale_zero, group_size)
    return out


def linear(
    x: torch.Tensor,
    packed: torch.Tensor,
    scale_zero: torch.Tensor,
    group_size: int,
    prefill_min_rows: int,
    prefill_dtype: torch.dtype,
    panels: bool,
    variant: Variant,
) -> torch.Tensor:
    """x [M, K] times the packed weight in one op: `int4_mm` below `prefill_min_rows` rows; from
    there `panel_mm` where `panels` (the AVX512-BF16 and AMX builds), else `dequantize_rows` a
    step of output rows at a time and a `prefill_dtype` GEMM."""
    out: torch.Tensor = _ops(variant).linear(
        x, packed, scale_zero, group_size, prefill_min_rows, prefill_dtype, panels
    )
    return out


def panel_mm(
    x: torch.Tensor,
    packed: torch.Tensor,
    scale_zero: torch.Tensor,
    group_size: int,
    variant: Variant,
) -> torch.Tensor:
    """bf16 x [M, K] times the packed weight on panels (the AVX512-BF16 and AMX builds): each
    thread dequantizes 64 output rows at a time to bf16 into its L2 cache and multiplies x by
    them, with AVX512-BF16 dot products or, on the AMX build, on tiles while it dequantizes the
    next 64; the same weights as `dequantize_rows` in bf16, products summed in fp32, the result
    rounded to bf16 once."""
    out: torch.Tensor = _ops(variant).panel_mm(x, packed, scale_zero, group_size)
    return out


def dequantize_rows(
    packed: torch.Tensor,
    scale_zero: torch.Tensor,
    group_size: int,
    start: int,
    stop: int,
    dtype: torch.dtype,
    variant: Variant,
) -> torch.Tensor:
    """Rows [start, stop) (whole blocks of the layout) of the packed weight as [K, stop - start]
    in `dtype` (fp32 or bf16), in one pass over their bytes: in fp32 exactly what
    `int4pack.dequantize_transposed` gives for those rows; in bf16 that fp32 value rounded once
    (torch's tensor ops round each step to bf16)."""
    out: torch.Tensor = _ops(variant).dequantize_rows(
        packed, scale_zero, group_size, start, stop, dtype
    )
    return out


def sum_words(data: torch.Tensor, variant: Variant) -> int:
    """The sum of `data` (contiguous, whole 256-byte lines) as 64-bit words, read once with the
    few-row kernel's threads and chunks: the plain-read reference of `bench kernels`."""
    return int(_ops(variant).sum_words(data))


def rounded_rows(x: torch.Tensor) -> torch.Tensor:
    """x as the int8 kernel multiplies it: per row, the nearest multiple of
    max|x_row| / INT8_ACTIVATION_LEVELS (in x's dtype; for error bounds and reference forwards)."""
    return _rounded_groups(x, x.shape[-1], INT8_ACTIVATION_LEVELS)


def int8_mm(
    x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor, variant: Variant
) -> torch.Tensor:
    """x [M, K] times an int8 weight [N, K] with one scale per row ([N], bf16 or fp32), as
    `torch._weight_int8pack_mm` computes it, on the build `variant` (loaded). x is rounded to
    16-bit integers with one scale per row (finer than its bf16) and multiplied in integers;
    K must be a multiple of `INT8_COLUMN_MULTIPLE`."""
    out: torch.Tensor = _ops(variant).int8_mm(x, weight, scales)
    return out


@functools.cache
def int8_table_kernel(columns: int) -> KernelStatus:
    """Which kernel multiplies an int8 table of `columns` columns in this process: our build
    where `load()` gives one and the width is a multiple of INT8_COLUMN_MULTIPLE (available),
    torch's `_weight_int8pack_mm` otherwise (the reason says why)."""
    status = load()
    if not status.available:
        return status
    if columns % INT8_COLUMN_MULTIPLE:
        return KernelStatus(
            False, f"{columns} columns are not a multiple of {INT8_COLUMN_MULTIPLE}"
        )
    return status


def int8_table_mm(
    x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor, variant: Variant | None
) -> torch.Tensor:
    """x [M, K] times the int8 table on our build `variant`, or on torch's int8 GEMM for None
    (which takes the scales in x's dtype)."""
    if variant is None:
        return torch._weight_int8pack_mm(x, weight, scales)
    return int8_mm(x, weight, scales, variant)
