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

from serving.quantization import cpu_kernels, int4_layout, int4pack  # noqa: E402
from tests.support.int4_bounds import UNIT_ROUNDOFF, term_sizes, weight_parts  # noqa: E402

GROUP = 64
ROWS, COLUMNS = 192, 512


# Every build this CPU runs (AVX-512 and AVX-512 VNNI on a VNNI CPU), each test run on each.
MACHINE_VARIANTS, UNSUPPORTED = cpu_kernels.machine_variants()


@pytest.fixture(scope="module", params=[None] if UNSUPPORTED else MACHINE_VARIANTS or [None])
def kernel(request: pytest.FixtureRequest) -> cpu_kernels.KernelStatus:
    if request.param is None:
        pytest.skip(f"our int4 kernel does not run here: {cpu_kernels.load().reason}")
    loaded = cpu_kernels.load_variant(request.param)
    if not loaded.available:
        pytest.skip(f"our int4 kernel does not run here: {loaded.reason}")
    return loaded


def _mm(
    kernel: cpu_kernels.KernelStatus,
    x: torch.Tensor,
    packed: torch.Tensor,
    scale_zero: torch.Tensor,
    group_size: int,
) -> torch.Tensor:
    assert kernel.variant is not None
    return cpu_kernels.int4_mm(x, packed, scale_zero, group_size, kernel.variant)


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
    ours = _mm(kernel, x, weight["packed"], weight["scale_zero"], GROUP)
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
    ours = _mm(kernel, x.float(), weight["packed"], weight["scale_zero"], GROUP)
    scaled, offsets = weight["parts"]
    rounded = cpu_kernels.rounded_activations(x.float().double(), GROUP)
    its_own_rounding = rounded @ scaled.t() + x.float().double() @ offsets.t()
    bf16_input = x.bfloat16().double() @ weight["reference"].t()
    assert ours.dtype == torch.float32
    assert _relative_error(ours, its_own_rounding) < 1e-6
    assert _relative_error(ours, expected) < _relative_error(bf16_input, expected) / 10


def test_zero_activations_give_exact_zeros(kernel, weight) -> None:
    x = torch.zeros(2, COLUMNS, dtype=torch.bfloat16)
    out = _mm(kernel, x, weight["packed"], weight["scale_zero"], GROUP)
    assert torch.equal(out, torch.zeros(2, ROWS, dtype=torch.bfloat16))


def test_mismatched_shapes_are_refused_with_the_reason(kernel, weight) -> None:
    with pytest.raises(RuntimeError, match="columns, x has 256"):
        _mm(kernel, torch.zeros(1, 256).bfloat16(), weight["packed"], weight["scale_zero"], GROUP)
    with pytest.raises(RuntimeError, match=r"scale_zero must be \[K / group_size, N, 2\]"):
        _mm(
            kernel,
            torch.zeros(1, COLUMNS).bfloat16(),
            weight["packed"],
            weight["scale_zero"],
            GROUP * 2,
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
    assert cpu_kernels.unsupported_reason(avx2, int4_layout.AVX2_LAYOUT) in buildable
    assert cpu_kernels.unsupported_reason(avx512, int4_layout.AVX512_LAYOUT) in buildable
    assert cpu_kernels.unsupported_reason({"sse4_2"}, int4_layout.AVX2_LAYOUT) == (
        "the CPU lacks avx2, fma"
    )
    # torch packs for AVX-512 only where it runs its AVX-512 code, but a CPU without AVX512BW
    # (AVX512F alone, Knights Landing) must not get the build that needs it.
    assert cpu_kernels.unsupported_reason(avx2 | {"avx512f"}, int4_layout.AVX512_LAYOUT) == (
        "the CPU lacks avx512bw"
    )
    portable = int4_layout.PackLayout(block_rows=32, half_split=False)
    assert "its portable build" in str(cpu_kernels.unsupported_reason(avx512, portable))
    monkeypatch.setattr(cpu_kernels.shutil, "which", lambda name: None)
    assert cpu_kernels.unsupported_reason(avx2, int4_layout.AVX2_LAYOUT) == (
        "no C++ compiler on PATH to build it"
    )


def test_the_ninja_of_a_virtualenv_that_is_not_activated_is_found(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setattr(cpu_kernels.shutil, "which", lambda name: None)
    monkeypatch.setattr(cpu_kernels.sys, "executable", str(tmp_path / "python"))
    assert cpu_kernels._ninja() is None
    (tmp_path / "ninja").touch()
    assert cpu_kernels._ninja() == tmp_path / "ninja"


def test_fp32_scales_serve_fp32_activations(kernel, weight) -> None:
    x = torch.randn(2, COLUMNS, generator=torch.Generator().manual_seed(8))
    scale_zero = weight["scale_zero"].float()
    ours = _mm(kernel, x, weight["packed"], scale_zero, GROUP)
    expected = x.double() @ weight["reference"].t()
    assert ours.dtype == torch.float32
    assert _relative_error(ours, expected) < 1e-4


def test_a_lock_left_by_a_killed_build_is_cleared_and_a_live_one_kept(tmp_path) -> None:
    stale, live = tmp_path / "stale", tmp_path / "live"
    stale.touch()
    live.touch()
    old = time.time() - cpu_kernels._STALE_LOCK_S - 60
    os.utime(stale, (old, old))
    cpu_kernels._clear_stale_lock(stale)
    cpu_kernels._clear_stale_lock(live)
    cpu_kernels._clear_stale_lock(tmp_path / "absent")
    assert not stale.exists() and live.exists()


def test_the_library_is_built_per_instruction_set_and_torch_version() -> None:
    variants = ("avx2", "avx512", "avx512_vnni", "avx512_bf16", "amx")
    names = {cpu_kernels.build_directory(variant).name for variant in variants}
    assert len(names) == 5
    assert all(name.endswith(f"-torch-{torch.__version__}") for name in names)


def test_its_only_rounding_is_the_documented_one(kernel, weight) -> None:
    """x is rounded (`rounded_activations`) where it multiplies q * scale, and kept exact in
    the zero-point term (a group's sum of x); what is left is fp32 arithmetic."""
    x = torch.randn(3, COLUMNS, generator=torch.Generator().manual_seed(5), dtype=torch.float64)
    x[:, 7::GROUP] *= 300.0
    ours = _mm(kernel, x.float(), weight["packed"], weight["scale_zero"].float(), GROUP)
    x32 = x.float().double()
    rounded = cpu_kernels.rounded_activations(x.float(), GROUP).double()
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
    layout = int4_layout.native_layout()
    block = layout.block_rows
    scale_zero = weight["scale_zero"].to(pairs)
    exact = int4pack.dequantize_transposed(
        weight["packed"][block : 3 * block],
        scale_zero[:, block : 3 * block],
        GROUP,
        torch.float32,
        layout,
    )
    ours = cpu_kernels.dequantize_rows(
        weight["packed"], scale_zero, GROUP, block, 3 * block, torch.float32, kernel.variant
    )
    assert torch.equal(ours, exact)
    assert torch.equal(ours, weight["reference"][block : 3 * block].t())
    in_bf16 = cpu_kernels.dequantize_rows(
        weight["packed"], scale_zero, GROUP, block, 3 * block, torch.bfloat16, kernel.variant
    )
    assert in_bf16.dtype == torch.bfloat16
    assert torch.equal(in_bf16, exact.bfloat16())


def test_dequantizing_part_of_a_block_is_refused_with_the_reason(kernel, weight) -> None:
    with pytest.raises(RuntimeError, match="must be whole blocks of"):
        cpu_kernels.dequantize_rows(
            weight["packed"], weight["scale_zero"], GROUP, 0, 16, torch.float32, kernel.variant
        )


def test_the_fastest_build_the_cpu_runs_comes_first() -> None:
    avx512 = {"avx2", "fma", "avx512f", "avx512bw"}
    vnni = avx512 | {"avx512_vnni", "avx512vbmi"}
    amx = vnni | {"avx512_bf16", "amx_tile", "amx_bf16"}
    layout = int4_layout.AVX512_LAYOUT
    bf16 = vnni | {"avx512_bf16"}
    assert cpu_kernels.variants_for(layout, amx) == ["amx", "avx512_bf16", "avx512_vnni", "avx512"]
    # AVX512-BF16 without AMX (AMD Zen 4): its panels multiplied by vector dot products.
    assert cpu_kernels.variants_for(layout, bf16) == ["avx512_bf16", "avx512_vnni", "avx512"]
    assert cpu_kernels.variants_for(layout, vnni) == ["avx512_vnni", "avx512"]
    assert cpu_kernels.variants_for(layout, avx512) == ["avx512"]
    # VNNI without VBMI (Cascade Lake) has no byte permute across the vector: AVX-512BW.
    assert cpu_kernels.variants_for(layout, avx512 | {"avx512_vnni"}) == ["avx512"]
    assert cpu_kernels.variants_for(int4_layout.AVX2_LAYOUT, vnni) == ["avx2"]
    portable = int4_layout.PackLayout(block_rows=32, half_split=False)
    assert cpu_kernels.variants_for(portable, vnni) == []


def _loaded_builds() -> list[cpu_kernels.KernelStatus]:
    builds = cpu_kernels.loadable_variants()
    if len(builds) < 2:
        pytest.skip(
            f"one build of our kernel or none runs here ({MACHINE_VARIANTS or UNSUPPORTED})"
        )
    return builds


@pytest.mark.parametrize("group", [GROUP, 18], ids=["group-64", "group-18"])
def test_every_build_for_one_layout_gives_the_same_bits(group: int) -> None:
    """The VNNI build sums the same integers in fewer instructions: its output is the AVX-512BW
    build's, bit for bit, for bf16 and fp32 activations; a group that is no multiple of 4 takes
    the two-column loop in both."""
    builds = _loaded_builds()
    generator = torch.Generator().manual_seed(group)
    rows, columns = 128, group * 4
    values = torch.randint(0, 16, (rows, columns), dtype=torch.uint8, generator=generator)
    scales = (torch.rand(rows, columns // group, generator=generator) * 0.02).bfloat16()
    zeros = (torch.randn(rows, columns // group, generator=generator) * 0.02).bfloat16()
    packed = int4pack.repack_rows_(int4pack.pack_portable(values))
    scale_zero = int4pack.scales_and_zeros(scales, zeros)
    for count in (1, 2, 3, 5):
        x = torch.randn(count, columns, generator=generator)
        for dtype in (torch.bfloat16, torch.float32):
            outs = [
                _mm(build, x.to(dtype), packed, scale_zero.to(dtype), group) for build in builds
            ]
            assert all(torch.equal(out, outs[0]) for out in outs[1:]), (count, dtype)
    reference = int4pack.dequantize_portable(int4pack.pack_portable(values), scales, zeros, group)
    x = torch.randn(2, columns, generator=generator)
    assert (
        _relative_error(
            _mm(builds[0], x, packed, scale_zero.float(), group),
            x.double() @ reference.double().t(),
        )
        < 1e-4
    )


# -- many rows on panels (the AVX512-BF16 and AMX builds) ----------------------------------------


@pytest.fixture(scope="module", params=["avx512_bf16", "amx"])
def panels(request: pytest.FixtureRequest) -> cpu_kernels.KernelStatus:
    """Each build with panel products that runs here: vector dot products, AMX tiles."""
    builds = [build for build in cpu_kernels.loadable_variants() if build.variant == request.param]
    if not builds:
        pytest.skip(f"no {request.param} build runs here ({MACHINE_VARIANTS or UNSUPPORTED})")
    return builds[0]


def _random_weight(rows: int, columns: int, group: int, seed: int) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    values = torch.randint(0, 16, (rows, columns), dtype=torch.uint8, generator=generator)
    scales = (torch.rand(rows, columns // group, generator=generator) * 0.02).bfloat16()
    zeros = (torch.randn(rows, columns // group, generator=generator) * 0.02).bfloat16()
    portable = int4pack.pack_portable(values)
    return {
        "packed": int4pack.repack_rows_(portable.clone()),
        "scale_zero": int4pack.scales_and_zeros(scales, zeros),
        "reference": int4pack.dequantize_portable(portable, scales, zeros, group),
    }


@pytest.mark.parametrize(
    ("rows", "columns", "group", "x_rows"),
    [
        (64, 256, 64, 1),  # one row of x (on tiles: one tile row, mostly padding)
        (192, 512, 64, 33),  # tiles: a whole pass of 32 rows and one more; vectors: 5 x 6 + 3
        (128, 2560, 128, 300),  # input columns in two segments, rows in two chunks (tiles)
        (192, 2592, 18, 40),  # groups that straddle a pair of tile rows' segment boundary
    ],
)
def test_panel_products_are_the_bf16_weights_summed_in_fp32(
    panels, rows: int, columns: int, group: int, x_rows: int
) -> None:
    """The panel path multiplies the weights the GEMM path would (fp32 dequantization rounded
    once to bf16) and sums in fp32: within K fp32 roundings of the exact product, then one
    rounding to bf16."""
    weight = _random_weight(rows, columns, group, seed=columns + x_rows)
    x = torch.randn(x_rows, columns, generator=torch.Generator().manual_seed(x_rows)).bfloat16()
    out = cpu_kernels.panel_mm(x, weight["packed"], weight["scale_zero"], group, panels.variant)
    bf16_weight = weight["reference"].bfloat16().double()
    exact = x.double() @ bf16_weight.t()
    u32, u16 = UNIT_ROUNDOFF[torch.float32], UNIT_ROUNDOFF[torch.bfloat16]
    bound = columns * u32 * (x.double().abs() @ bf16_weight.abs().t()) + u16 * exact.abs()
    assert out.dtype == torch.bfloat16 and out.shape == (x_rows, rows)
    assert bool(((out.double() - exact).abs() <= 1.01 * bound).all())
    # fp32 scales (fp32 activations' tables) give the same weights: they are bf16 values.
    fp32_scales = weight["scale_zero"].float()
    assert torch.equal(
        cpu_kernels.panel_mm(x, weight["packed"], fp32_scales, group, panels.variant), out
    )


def test_panel_products_of_every_row_do_not_depend_on_the_rows_beside_it(panels) -> None:
    """Rows are multiplied several at a time (32 on tiles, zeros past the last; 6 with vector
    products): a row's answer is the same alone or among 299 others."""
    weight = _random_weight(128, 512, 64, seed=3)
    x = torch.randn(300, 512, generator=torch.Generator().manual_seed(4)).bfloat16()
    together = cpu_kernels.panel_mm(x, weight["packed"], weight["scale_zero"], 64, panels.variant)
    for row in (0, 31, 32, 287, 299):
        alone = cpu_kernels.panel_mm(
            x[row : row + 1], weight["packed"], weight["scale_zero"], 64, panels.variant
        )
        assert torch.equal(alone[0], together[row])


def test_panel_products_refuse_what_they_cannot_take_with_the_reason(panels) -> None:
    weight = _random_weight(64, 256, 64, seed=5)
    packed, scale_zero = weight["packed"], weight["scale_zero"]
    with pytest.raises(RuntimeError, match="x must be bfloat16"):
        cpu_kernels.panel_mm(torch.zeros(2, 256), packed, scale_zero, 64, panels.variant)
    with pytest.raises(RuntimeError, match="columns, x has 128"):
        cpu_kernels.panel_mm(torch.zeros(2, 128).bfloat16(), packed, scale_zero, 64, panels.variant)
    narrow = _random_weight(64, 48, 16, seed=6)
    with pytest.raises(RuntimeError, match="columns must be a multiple of 32"):
        cpu_kernels.panel_mm(
            torch.zeros(2, 48).bfloat16(),
            narrow["packed"],
            narrow["scale_zero"],
            16,
            panels.variant,
        )
