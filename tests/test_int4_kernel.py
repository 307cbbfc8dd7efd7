"""Our int4 kernel: same answers as torch's kernel on the same packed weights, and where it
refuses to run.

The kernel tests build it for the layout torch packs in here (AVX2 or AVX-512; about 20 s the
first time on a machine, cached after) and skip, with the reason, on a machine where it does not
apply. `test_kernel_paths.py` runs them again under the other instruction sets this CPU has.
"""

from __future__ import annotations

import os
import time

import pytest

torch = pytest.importorskip("torch")

from serving.quantization import int4_kernel, int4pack  # noqa: E402
from tests.int4_bounds import UNIT_ROUNDOFF, term_sizes, weight_parts  # noqa: E402

GROUP = 64
ROWS, COLUMNS = 192, 512


@pytest.fixture(scope="module")
def kernel() -> int4_kernel.KernelStatus:
    loaded = int4_kernel.load()
    if not loaded.available:
        pytest.skip(f"our int4 kernel does not run here: {loaded.reason}")
    return loaded


@pytest.fixture(scope="module")
def weight() -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(11)
    values = torch.randint(0, 16, (ROWS, COLUMNS), dtype=torch.uint8, generator=generator)
    scales = (torch.rand(ROWS, COLUMNS // GROUP, generator=generator) * 0.02).bfloat16()
    zeros = (torch.randn(ROWS, COLUMNS // GROUP, generator=generator) * 0.02).bfloat16()
    portable = int4pack.pack_portable(values)
    return {
        "packed": int4pack.repack_rows_(portable.clone()),
        "scale_zero": int4pack.scales_and_zeros(scales, zeros),
        "reference": int4pack.dequantize_portable(portable, scales, zeros, GROUP).double(),
        "terms": term_sizes(values, scales, zeros, GROUP),
        "parts": weight_parts(values, scales, zeros, GROUP),
    }


def _relative_error(out: torch.Tensor, expected: torch.Tensor) -> float:
    return float((out.double() - expected).norm() / expected.norm())


@pytest.mark.parametrize("rows", [1, 2, 3, 4, 5, 9])
def test_it_computes_what_torchs_kernel_computes(kernel, weight, rows: int) -> None:
    x = torch.randn(rows, COLUMNS, generator=torch.Generator().manual_seed(rows)).bfloat16()
    ours = int4_kernel.int4_mm(x, weight["packed"], weight["scale_zero"], GROUP)
    tinygemm = int4pack.tinygemm_mm(x, weight["packed"], weight["scale_zero"], GROUP)
    expected = x.double() @ weight["reference"].t()
    assert ours.dtype == torch.bfloat16 and ours.shape == (rows, ROWS)
    # Both round their fp32 result to bf16 once; neither may be off by more than that.
    assert _relative_error(ours, expected) < 4e-3
    assert _relative_error(ours, expected) <= 1.5 * _relative_error(tinygemm, expected) + 1e-4


def test_rounding_activations_to_16_bits_costs_less_than_their_bf16_rounding(
    kernel, weight
) -> None:
    """In fp32 the kernel's only own error is the per-group 16-bit rounding of x, even with an
    outlier a thousand times larger than the rest of its group: it computes, to fp32 accuracy,
    rounded x times q * scale plus x itself times the offsets (zero - 8 * scale)."""
    x = torch.randn(3, COLUMNS, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    x[:, ::GROUP] *= 1000.0
    expected = x @ weight["reference"].t()
    ours = int4_kernel.int4_mm(x.float(), weight["packed"], weight["scale_zero"], GROUP)
    scaled, offsets = weight["parts"]
    rounded = int4_kernel.rounded_activations(x.float().double(), GROUP)
    its_own_rounding = rounded @ scaled.t() + x.float().double() @ offsets.t()
    bf16_input = x.bfloat16().double() @ weight["reference"].t()
    assert ours.dtype == torch.float32
    assert _relative_error(ours, its_own_rounding) < 1e-6
    assert _relative_error(ours, expected) < _relative_error(bf16_input, expected) / 10


def test_zero_activations_give_exact_zeros(kernel, weight) -> None:
    x = torch.zeros(2, COLUMNS, dtype=torch.bfloat16)
    out = int4_kernel.int4_mm(x, weight["packed"], weight["scale_zero"], GROUP)
    assert torch.equal(out, torch.zeros(2, ROWS, dtype=torch.bfloat16))


def test_mismatched_shapes_are_refused_with_the_reason(kernel, weight) -> None:
    with pytest.raises(RuntimeError, match="columns, x has 256"):
        int4_kernel.int4_mm(
            torch.zeros(1, 256).bfloat16(), weight["packed"], weight["scale_zero"], GROUP
        )
    with pytest.raises(RuntimeError, match=r"scale_zero must be \[K / group_size, N, 2\]"):
        int4_kernel.int4_mm(
            torch.zeros(1, COLUMNS).bfloat16(), weight["packed"], weight["scale_zero"], GROUP * 2
        )


def test_it_is_kept_off_where_torchs_kernel_is_the_right_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    avx2 = {"avx2", "fma"}
    avx512 = avx2 | {"avx512f", "avx512bw"}
    buildable = (
        None,
        "no C++ compiler on PATH to build it",
        "no ninja to build it (pip install ninja)",
    )
    assert int4_kernel.unsupported_reason(avx2, int4pack.AVX2_LAYOUT) in buildable
    assert int4_kernel.unsupported_reason(avx512, int4pack.AVX512_LAYOUT) in buildable
    assert int4_kernel.unsupported_reason({"sse4_2"}, int4pack.AVX2_LAYOUT) == (
        "the CPU lacks avx2, fma"
    )
    # torch packs for AVX-512 only where it runs its AVX-512 code, but a CPU without AVX512BW
    # (AVX512F alone, Knights Landing) must not get the build that needs it.
    assert int4_kernel.unsupported_reason(avx2 | {"avx512f"}, int4pack.AVX512_LAYOUT) == (
        "the CPU lacks avx512bw"
    )
    portable = int4pack.PackLayout(block_rows=32, half_split=False)
    assert "its portable build" in str(int4_kernel.unsupported_reason(avx512, portable))
    monkeypatch.setattr(int4_kernel.shutil, "which", lambda name: None)
    assert int4_kernel.unsupported_reason(avx2, int4pack.AVX2_LAYOUT) == (
        "no C++ compiler on PATH to build it"
    )


def test_the_ninja_of_a_virtualenv_that_is_not_activated_is_found(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setattr(int4_kernel.shutil, "which", lambda name: None)
    monkeypatch.setattr(int4_kernel.sys, "executable", str(tmp_path / "python"))
    assert int4_kernel._ninja() is None
    (tmp_path / "ninja").touch()
    assert int4_kernel._ninja() == tmp_path / "ninja"


def test_fp32_scales_serve_fp32_activations(kernel, weight) -> None:
    x = torch.randn(2, COLUMNS, generator=torch.Generator().manual_seed(8))
    scale_zero = weight["scale_zero"].float()
    ours = int4_kernel.int4_mm(x, weight["packed"], scale_zero, GROUP)
    expected = x.double() @ weight["reference"].t()
    assert ours.dtype == torch.float32
    assert _relative_error(ours, expected) < 1e-4


def test_a_lock_left_by_a_killed_build_is_cleared_and_a_live_one_kept(tmp_path) -> None:
    stale, live = tmp_path / "stale", tmp_path / "live"
    stale.touch()
    live.touch()
    old = time.time() - int4_kernel._STALE_LOCK_S - 60
    os.utime(stale, (old, old))
    int4_kernel._clear_stale_lock(stale)
    int4_kernel._clear_stale_lock(live)
    int4_kernel._clear_stale_lock(tmp_path / "absent")
    assert not stale.exists() and live.exists()


def test_the_library_is_built_per_instruction_set_and_torch_version() -> None:
    names = {int4_kernel.build_directory(variant).name for variant in ("avx2", "avx512")}
    assert len(names) == 2
    assert all(name.endswith(f"-torch-{torch.__version__}") for name in names)


def test_its_only_rounding_is_the_documented_one(kernel, weight) -> None:
    """x is rounded (`rounded_activations`) where it multiplies q * scale, and kept exact in
    the zero-point term (a group's sum of x); what is left is fp32 arithmetic."""
    x = torch.randn(3, COLUMNS, generator=torch.Generator().manual_seed(5), dtype=torch.float64)
    x[:, 7::GROUP] *= 300.0
    ours = int4_kernel.int4_mm(x.float(), weight["packed"], weight["scale_zero"].float(), GROUP)
    x32 = x.float().double()
    rounded = int4_kernel.rounded_activations(x.float(), GROUP).double()
    scaled, offsets = weight["parts"]
    expected = rounded @ scaled.t() + x32 @ offsets.t()
    magnitude = x32.abs() @ weight["terms"].t()
    # per group: its integer sum converted and scaled (3 roundings), the offset times the
    # group's fp32 sum of x (GROUP additions, 1 product), two fused adds; then the groups
    u32 = UNIT_ROUNDOFF[torch.float32]
    bound = (6 + GROUP + COLUMNS // GROUP) * u32 * magnitude
    assert bool(((ours.double() - expected).abs() <= bound).all())
    unrounded = x32 @ (scaled + offsets).t()
    assert not torch.allclose(ours.double(), unrounded, rtol=0, atol=1e-7)  # it did round


@pytest.mark.parametrize(
    "pairs", [torch.bfloat16, torch.float32], ids=["bf16-scales", "fp32-scales"]
)
def test_dequantized_rows_are_torchs_dequantization_rounded_once(kernel, weight, pairs) -> None:
    layout = int4pack.native_layout()
    block = layout.block_rows
    scale_zero = weight["scale_zero"].to(pairs)
    exact = int4pack.dequantize_transposed(
        weight["packed"][block : 3 * block],
        scale_zero[:, block : 3 * block],
        GROUP,
        torch.float32,
        layout,
    )
    ours = int4_kernel.dequantize_rows(
        weight["packed"], scale_zero, GROUP, block, 3 * block, torch.float32
    )
    assert torch.equal(ours, exact)
    assert torch.equal(ours, weight["reference"][block : 3 * block].t())
    in_bf16 = int4_kernel.dequantize_rows(
        weight["packed"], scale_zero, GROUP, block, 3 * block, torch.bfloat16
    )
    assert in_bf16.dtype == torch.bfloat16
    assert torch.equal(in_bf16, exact.bfloat16())


def test_dequantizing_part_of_a_block_is_refused_with_the_reason(kernel, weight) -> None:
    with pytest.raises(RuntimeError, match="must be whole blocks of"):
        int4_kernel.dequantize_rows(
            weight["packed"], weight["scale_zero"], GROUP, 0, 16, torch.float32
        )
