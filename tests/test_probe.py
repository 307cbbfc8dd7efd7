"""`phone-agent probe`: what the process may use (cgroups included) and the weight-path table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from serving.quantization.probe import (
    HardwareProfile,
    probe_hardware,
    select_weight_path,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
AMX_FLAGS = "fpu avx2 fma avx512f avx512_bf16 avx512_vnni amx_tile amx_bf16 amx_int8"


def fake_host(
    root: Path,
    flags: str = "fpu avx2 fma",
    cgroup: str = "0::/job\n",
    mounts: str = "30 20 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
    files: dict[str, str] | None = None,
) -> Path:
    cpu = f"processor\t: 0\nmodel name\t: Test CPU\nflags\t\t: {flags}\n\n"
    layout = {
        "proc/cpuinfo": cpu + cpu.replace(": 0", ": 1"),
        "proc/meminfo": "MemTotal:       16000000 kB\nMemAvailable:   12000000 kB\n",
        "proc/self/cgroup": cgroup,
        "proc/self/mountinfo": mounts,
        **(files or {}),
    }
    for relative, text in layout.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_plain_host_reports_flags_cores_and_memory(tmp_path: Path) -> None:
    hw = probe_hardware(fake_host(tmp_path), affinity=lambda: {0, 1}, machine="x86_64")
    assert hw.cpu_flags == ["avx2", "fma"] and not hw.has_amx
    assert hw.cores == 2 and hw.cores_online == 2 and hw.cpu_quota_cores is None
    assert hw.memory_total_bytes == 16000000 * 1024
    assert hw.memory_available_bytes == 12000000 * 1024 and hw.gpu is None


def test_cgroup_v2_quota_and_memory_limit_bind(tmp_path: Path) -> None:
    root = fake_host(
        tmp_path,
        files={
            "sys/fs/cgroup/job/cpu.max": "150000 100000\n",
            "sys/fs/cgroup/job/memory.max": str(4 * 2**30),
            "sys/fs/cgroup/job/memory.current": str(1 * 2**30),
        },
    )
    hw = probe_hardware(root, affinity=lambda: set(range(8)), machine="x86_64")
    assert hw.cpu_quota_cores == 1.5 and hw.cores == 1  # whole cores only
    assert hw.cgroup_memory_limit_bytes == 4 * 2**30
    assert hw.memory_total_bytes == 4 * 2**30 and hw.memory_available_bytes == 3 * 2**30


def test_cgroup_v1_limit_on_a_parent_applies(tmp_path: Path) -> None:
    mounts = (
        "32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
        "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
    )
    unlimited = "9223372036854771712\n"
    root = fake_host(
        tmp_path,
        cgroup="4:memory:/pool/job\n1:cpu:/pool/job\n",
        mounts=mounts,
        files={
            "sys/fs/cgroup/memory/pool/job/memory.limit_in_bytes": unlimited,
            "sys/fs/cgroup/memory/pool/job/memory.usage_in_bytes": "0\n",
            "sys/fs/cgroup/memory/pool/memory.limit_in_bytes": str(2 * 2**30),
            "sys/fs/cgroup/memory/pool/memory.usage_in_bytes": str(2**29),
            "sys/fs/cgroup/cpu/pool/job/cpu.cfs_quota_us": "-1\n",
            "sys/fs/cgroup/cpu/pool/job/cpu.cfs_period_us": "100000\n",
            "sys/fs/cgroup/cpu/pool/cpu.cfs_quota_us": "300000\n",
            "sys/fs/cgroup/cpu/pool/cpu.cfs_period_us": "100000\n",
        },
    )
    hw = probe_hardware(root, affinity=lambda: set(range(16)), machine="x86_64")
    assert hw.cores == 3 and hw.cgroup_memory_limit_bytes == 2 * 2**30
    assert hw.memory_available_bytes == 2 * 2**30 - 2**29


def _hardware(machine: str = "x86_64", flags: str = "avx2", gpu: str | None = None):
    return HardwareProfile(
        architecture=machine,
        cpu_model="test",
        cpu_flags=flags.split(),
        cores=2,
        cores_online=2,
        cpu_quota_cores=None,
        memory_total_bytes=2**34,
        memory_available_bytes=2**33,
        cgroup_memory_limit_bytes=None,
        gpu=gpu,
    )


@pytest.mark.parametrize(
    ("machine", "flags", "gpu", "priority", "scheme", "verified"),
    [
        ("x86_64", AMX_FLAGS, None, "fidelity", "w4a16", True),
        ("x86_64", AMX_FLAGS, None, "speed", "w4a8", True),
        ("x86_64", "avx2 fma", None, "speed", "w4a16", True),
        ("x86_64", "avx2 fma", None, "fidelity", "w4a16", True),
        ("aarch64", "", None, "speed", "w4a16", False),
        ("aarch64", "", None, "fidelity", "w4a16", False),
        ("x86_64", "avx2", "NVIDIA L4", "speed", "bf16", False),
    ],
)
def test_selection_table(machine, flags, gpu, priority, scheme, verified) -> None:
    choice = select_weight_path(_hardware(machine, flags, gpu), priority)
    assert (choice.scheme, choice.verified) == (scheme, verified)
    assert choice.rationale and choice.priority == priority
    assert choice.serve_args[:2] == ["--dtype", "bfloat16"]


def test_w4a16_choice_tells_serve_which_method_to_use() -> None:
    choice = select_weight_path(_hardware(flags=AMX_FLAGS))
    assert choice.priority == "fidelity"  # the default
    assert choice.serve_args[-2:] == ["--quantization", "phone_agent_w4a16"]


def test_cli_json_has_the_documented_shape() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "agent.cli", "probe", "--json", "--priority", "speed"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert set(report) == {"hardware", "choice"}
    assert set(report["choice"]) == {"priority", "scheme", "rationale", "verified", "serve_args"}
    assert report["choice"]["priority"] == "speed"
    assert report["hardware"]["cores"] >= 1


def test_cli_starts_without_torch() -> None:
    code = (
        "import sys; sys.modules['torch'] = None; sys.modules['vllm'] = None\n"
        "from agent.cli import main; sys.exit(main(['probe']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "choice:" in result.stdout
