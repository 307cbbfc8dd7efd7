"""Our AVX2 int4 kernel (`int4_avx2.cpp`), compiled on first use and loaded as a torch op.

It is compiled on the machine that runs it (torch's extension builder, into our cache folder,
keyed on torch's version, so later processes only load it), because it is only worth having
where torch's own int4 kernel is weak: AVX2 CPUs without AVX-512, whose torch build packs int4
weights in blocks of 32 rows, the only layout the kernel reads. Anywhere else, or when no C++
compiler is at hand, `load()` says why and the caller keeps torch's kernel.
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

import torch

from serving.checkpoint import user_cache_dir
from serving.quantization import int4pack
from serving.quantization.probe import probe_hardware

SOURCE = Path(__file__).with_name("int4_avx2.cpp")
LIBRARY_NAME = "phone_agent_int4_avx2"
# The scale tables it reads: those of bf16 and fp32 activations (fp16 stays on torch's kernel).
SCALE_DTYPES = (torch.bfloat16, torch.float32)
_COMPILE_FLAGS = ["-O3", "-mavx2", "-mfma", "-fopenmp"]
# The largest integer the kernel rounds activations to (`kActivationLevels` in the source): its
# high byte must fit a signed byte.
ACTIVATION_LEVELS = 32639
# A build takes about 20 s on two cores. torch's builder waits forever on the lock file of a
# build that was killed (Ctrl-C on a first `serve`); a lock this old is such a leftover.
_STALE_LOCK_S = 600

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class KernelStatus:
    """Whether the op is loaded in this process, and if not, why."""

    available: bool
    reason: str


def unsupported_reason(cpu_flags: set[str], layout: int4pack.PackLayout) -> str | None:
    """Why this machine should keep torch's kernel, or None when ours applies."""
    missing = sorted({"avx2", "fma"} - cpu_flags)
    if missing:
        return f"the CPU lacks {', '.join(missing)}"
    if layout != int4pack.AVX2_LAYOUT:
        return (
            f"torch packs int4 rows in blocks of {layout.block_rows} here (its AVX-512 build, "
            "whose own kernel is fast); ours reads the AVX2 layout"
        )
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


def build_directory() -> Path:
    """Where the library is built: a library built against another torch must never load."""
    return user_cache_dir() / "kernels" / f"{LIBRARY_NAME}-torch-{torch.__version__}"


def _clear_stale_lock(lock: Path) -> None:
    try:
        if time.time() - lock.stat().st_mtime > _STALE_LOCK_S:
            lock.unlink(missing_ok=True)
    except FileNotFoundError:
        pass


@functools.cache
def load() -> KernelStatus:
    """Build (first time on this machine) and load the kernel; never raises."""
    reason = unsupported_reason(set(probe_hardware().cpu_flags), int4pack.native_layout())
    if reason is not None:
        return KernelStatus(False, reason)
    from torch.utils import cpp_extension

    directory = build_directory()
    ninja = _ninja()
    if ninja is not None and shutil.which("ninja") is None:
        os.environ["PATH"] = f"{ninja.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        _clear_stale_lock(directory / "lock")
        cpp_extension.load(
            name=LIBRARY_NAME,
            sources=[str(SOURCE)],
            extra_cflags=_COMPILE_FLAGS,
            extra_ldflags=["-fopenmp"],
            build_directory=str(directory),
            is_python_module=False,
        )
    except (OSError, RuntimeError, ImportError) as error:
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        log.warning("int4 AVX2 kernel not built (%s); using torch's int4 kernel", first_line)
        return KernelStatus(False, f"building it failed: {first_line}")
    return KernelStatus(True, "built for this AVX2 CPU")


def rounded_activations(x: torch.Tensor, group_size: int) -> torch.Tensor:
    """x as the kernel multiplies it: per group of columns, the nearest multiple of
    max|x_group| / ACTIVATION_LEVELS (in x's dtype; for error bounds and reference forwards)."""
    grouped = x.reshape(*x.shape[:-1], -1, group_size)
    step = grouped.abs().amax(-1, keepdim=True) / ACTIVATION_LEVELS
    safe_step = torch.where(step > 0, step, torch.ones_like(step))
    return (torch.round(grouped / safe_step) * step).reshape(x.shape)


def int4_mm(
    x: torch.Tensor, packed: torch.Tensor, scale_zero: torch.Tensor, group_size: int
) -> torch.Tensor:
    """x [M, K] times the packed weight, as `_weight_int4pack_mm_for_cpu` computes it.

    The activations are rounded to 16-bit integers with one scale per group of the weight
    (at most ACTIVATION_LEVELS: finer than their own bf16) and split into two bytes, which lets
    the kernel multiply 16 rows' nibbles of two columns by them per instruction.
    """
    out: torch.Tensor = torch.ops.phone_agent_avx2.int4_mm(x, packed, scale_zero, group_size)
    return out
