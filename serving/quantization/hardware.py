"""What this machine offers: the CPU flags, the cores in the process's affinity mask further
limited by a cgroup CPU quota, the memory available under a cgroup memory limit (v1 or v2, the
tightest limit along the hierarchy), and a CUDA GPU. Only the standard library and pydantic:
the CLI probes without torch.
"""

from __future__ import annotations

import math
import os
import platform
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

# The flags that decide a weight path, in /proc/cpuinfo spelling.
RELEVANT_FLAGS = (
    "amx_tile",
    "amx_bf16",
    "amx_int8",
    "avx512f",
    "avx512bw",
    "avx512_bf16",
    "avx512_vnni",
    "avx512vbmi",
    "avx_vnni",
    "avx2",
    "fma",
)
# The flags of CPUs that multiply bf16 in hardware; elsewhere bf16 products are emulated.
NATIVE_BF16_FLAGS = frozenset({"amx_bf16", "avx512_bf16"})
# cgroup v1 writes "no limit" as a page-rounded LONG_MAX.
_UNLIMITED_BYTES = 1 << 62


class HardwareProfile(BaseModel):
    architecture: str
    cpu_model: str
    cpu_flags: list[str]
    cores: int
    cores_online: int
    cpu_quota_cores: float | None
    memory_total_bytes: int
    memory_available_bytes: int
    cgroup_memory_limit_bytes: int | None
    gpu: str | None

    @property
    def has_amx(self) -> bool:
        return {"amx_tile", "amx_bf16"} <= set(self.cpu_flags)

    @property
    def is_x86(self) -> bool:
        return self.architecture in ("x86_64", "amd64", "AMD64")

    @property
    def is_arm(self) -> bool:
        return self.architecture in ("aarch64", "arm64")


def native_bf16(cpu_flags: Iterable[str]) -> bool:
    """Whether the CPU multiplies bf16 in hardware (AMX, AVX512-BF16)."""
    return not NATIVE_BF16_FLAGS.isdisjoint(cpu_flags)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _cpuinfo_field(cpuinfo: str, names: tuple[str, ...]) -> str:
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in names:
            return value.strip()
    return ""


def _meminfo_bytes(meminfo: str, field: str) -> int | None:
    for line in meminfo.splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    return None


@dataclass(frozen=True)
class CgroupPaths:
    """Directories of this process's cgroup, from the leaf up to the mount root, per version."""

    v2: list[Path]
    v1_memory: list[Path]
    v1_cpu: list[Path]


def _ancestors(mount: Path, mount_root: str, cgroup_path: str) -> list[Path]:
    # Inside a cgroup namespace the mount root is the process's own cgroup ("/"); outside, the
    # process's path is relative to the hierarchy's root, which the mount exposes below mount_root.
    relative = cgroup_path
    if mount_root != "/" and relative.startswith(mount_root):
        relative = relative[len(mount_root) :]
    parts = [part for part in relative.split("/") if part]
    paths = []
    for depth in range(len(parts), -1, -1):
        candidate = mount.joinpath(*parts[:depth])
        if candidate.is_dir():
            paths.append(candidate)
    return paths


def cgroup_paths(root: Path = Path("/")) -> CgroupPaths:
    membership = _read(root / "proc/self/cgroup") or ""
    mountinfo = _read(root / "proc/self/mountinfo") or ""
    mounts: dict[str, tuple[Path, str]] = {}
    for line in mountinfo.splitlines():
        pre, _, post = line.partition(" - ")
        fields, post_fields = pre.split(), post.split()
        if len(fields) < 5 or len(post_fields) < 3:
            continue
        fstype, options = post_fields[0], post_fields[2].split(",")
        mount_point = root / fields[4].lstrip("/")
        if fstype == "cgroup2":
            mounts.setdefault("v2", (mount_point, fields[3]))
        elif fstype == "cgroup":
            for controller in ("memory", "cpu"):
                if controller in options:
                    mounts.setdefault(controller, (mount_point, fields[3]))
    v2: list[Path] = []
    v1_memory: list[Path] = []
    v1_cpu: list[Path] = []
    for line in membership.splitlines():
        hierarchy, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        names = controllers.split(",")
        if hierarchy == "0" and controllers == "" and "v2" in mounts:
            v2 = _ancestors(*mounts["v2"], path)
        if "memory" in names and "memory" in mounts:
            v1_memory = _ancestors(*mounts["memory"], path)
        if "cpu" in names and "cpu" in mounts:
            v1_cpu = _ancestors(*mounts["cpu"], path)
    return CgroupPaths(v2=v2, v1_memory=v1_memory, v1_cpu=v1_cpu)


def _cpu_quota(paths: CgroupPaths) -> float | None:
    """The tightest CPU quota along the hierarchy, in cores; None when unlimited."""
    quotas: list[float] = []
    for directory in paths.v2:
        text = _read(directory / "cpu.max")
        if text and not text.startswith("max"):
            quota, period = text.split()[:2]
            quotas.append(int(quota) / int(period))
    for directory in paths.v1_cpu:
        quota_text = _read(directory / "cpu.cfs_quota_us")
        period_text = _read(directory / "cpu.cfs_period_us")
        if quota_text and period_text and int(quota_text) > 0:
            quotas.append(int(quota_text) / int(period_text))
    return min(quotas) if quotas else None


def _memory_limit(paths: CgroupPaths) -> tuple[int | None, int | None]:
    """(limit, bytes still available under it) for the tightest limit along the hierarchy."""
    best: tuple[int, int] | None = None
    for directory, limit_file, usage_file in [
        *((d, "memory.max", "memory.current") for d in paths.v2),
        *((d, "memory.limit_in_bytes", "memory.usage_in_bytes") for d in paths.v1_memory),
    ]:
        limit_text = _read(directory / limit_file)
        if not limit_text or limit_text.strip() == "max":
            continue
        limit = int(limit_text)
        if limit >= _UNLIMITED_BYTES:
            continue
        usage_text = _read(directory / usage_file)
        headroom = limit - int(usage_text) if usage_text else limit
        if best is None or headroom < best[1]:
            best = (limit, headroom)
    return (best[0], best[1]) if best else (None, None)


def _gpu(root: Path) -> str | None:
    """A CUDA GPU's name when the NVIDIA driver exposes one; None otherwise."""
    gpus = root / "proc/driver/nvidia/gpus"
    if not gpus.is_dir():
        return None
    for entry in sorted(gpus.iterdir()):
        info = _read(entry / "information") or ""
        name = _cpuinfo_field(info, ("Model",))
        if name:
            return name
    return None


def probe_hardware(
    root: Path = Path("/"),
    affinity: Callable[[], set[int]] | None = None,
    machine: str | None = None,
) -> HardwareProfile:
    """Probe the machine. `root`, `affinity` and `machine` exist so tests can fake a host."""
    cpuinfo = _read(root / "proc/cpuinfo") or ""
    flags_line = _cpuinfo_field(cpuinfo, ("flags", "Features"))
    present = set(flags_line.split())
    flags = [flag for flag in RELEVANT_FLAGS if flag in present]
    cpu_model = _cpuinfo_field(cpuinfo, ("model name", "CPU part", "Hardware")) or "unknown"
    cores_online = cpuinfo.count("processor\t:") or (os.cpu_count() or 1)
    allowed = len((affinity or (lambda: os.sched_getaffinity(0)))())
    paths = cgroup_paths(root)
    quota = _cpu_quota(paths)
    cores = allowed if quota is None else max(1, min(allowed, math.floor(quota)))
    meminfo = _read(root / "proc/meminfo") or ""
    total = _meminfo_bytes(meminfo, "MemTotal") or 0
    available = _meminfo_bytes(meminfo, "MemAvailable") or total
    limit, headroom = _memory_limit(paths)
    if limit is not None and headroom is not None:
        total = min(total, limit)
        available = min(available, max(0, headroom))
    return HardwareProfile(
        architecture=machine or platform.machine(),
        cpu_model=cpu_model,
        cpu_flags=flags,
        cores=cores,
        cores_online=cores_online,
        cpu_quota_cores=quota,
        memory_total_bytes=total,
        memory_available_bytes=available,
        cgroup_memory_limit_bytes=limit,
        gpu=_gpu(root),
    )
