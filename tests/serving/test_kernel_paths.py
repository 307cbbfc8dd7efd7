"""The int4 kernel tests again under each instruction set below this CPU's best.

torch picks its CPU code (and with it the int4 packing layout) once per process, from
`ATEN_CPU_CAPABILITY` where it is set. A user whose CPU is of a lower class than this one meets
those layouts and our build for them, so each is run here in its own pytest process: AVX2 (our
AVX2 build) on an AVX-512 machine, and torch's portable code (torch's kernel alone, ours kept
off) everywhere.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support.paths import REPO_ROOT

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.slow  # runs the kernel test files again in a fresh process per capability

KERNEL_TESTS = [
    "tests/serving/test_int4_kernel.py",
    "tests/serving/test_int8_kernel.py",
    "tests/serving/test_w4a16_kernel.py",
]
# torch's capabilities, lowest first, as `ATEN_CPU_CAPABILITY` and `get_cpu_capability` spell them.
CAPABILITIES = ["default", "avx2", "avx512"]


def _lower_capabilities() -> list[str]:
    native = torch.backends.cpu.get_cpu_capability().lower()
    if native not in CAPABILITIES:
        return []
    return CAPABILITIES[: CAPABILITIES.index(native)]


def _run_kernel_tests(capability: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", *KERNEL_TESTS],
        capture_output=True,
        text=True,
        env={**os.environ, "ATEN_CPU_CAPABILITY": capability},
        cwd=REPO_ROOT,
        timeout=600,
        check=False,
    )


@pytest.mark.parametrize("capability", _lower_capabilities() or ["none"])
def test_the_kernel_tests_pass_under_each_lower_instruction_set(capability: str) -> None:
    if capability == "none":
        native = torch.backends.cpu.get_cpu_capability()
        pytest.skip(f"torch runs no capability below {native} here")
    result = _run_kernel_tests(capability)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    summary = result.stdout.strip().splitlines()[-1]
    assert " passed" in summary
    if capability == "default":
        # torch's portable packing: our kernel reads neither of its layouts and says so.
        assert "its portable build" in result.stdout
    else:
        # our AVX2 build ran: none of its tests skipped for want of it.
        assert "our int4 kernel does not run here" not in result.stdout
