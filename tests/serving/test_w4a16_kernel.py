"""The W4A16 kernel path in plain torch: packing, dequantizing from torch's layout, the op."""

from __future__ import annotations

import dataclasses

import pytest

torch = pytest.importorskip("torch")

from serving.quantization import cpu_kernels, int4_layout, int4pack  # noqa: E402
from tests.support.int4_bounds import UNIT_ROUNDOFF, term_sizes  # noqa: E402

GROUP = 64


def _random_int4(rows: int, columns: int, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(0, 16, (rows, columns), dtype=torch.uint8, generator=generator)


def _scales_zeros(rows: int, columns: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(1)
    scales = (torch.rand(rows, columns // GROUP, generator=generator) * 0.02).bfloat16()
    zeros = (torch.randn(rows, columns // GROUP, generator=generator) * 0.02).bfloat16()
    return scales, zeros


def _torch_layout_reference(values: torch.Tensor, layout: int4_layout.PackLayout) -> torch.Tensor:
    """Pack as the documented layout says, element by element (slow, obviously right)."""
    rows, columns = values.shape
    half = layout.block_rows // 2
    packed = torch.zeros(rows * columns // 2, dtype=torch.uint8)
    for row in range(rows):
        block, within = divmod(row, layout.block_rows)
        if layout.half_split:
            byte, shift = within % half, 4 * (within // half)
        else:
            byte, shift = within // 2, 4 * (within % 2)
        for column in range(columns):
            offset = block * columns * half + column * half + byte
            packed[offset] |= int(values[row, column]) << shift
    return packed.view(rows, columns // 2)


@pytest.mark.parametrize(
    "layout",
    [
        int4_layout.PackLayout(block_rows=64, half_split=True),
        int4_layout.PackLayout(block_rows=32, half_split=True),
        int4_layout.PackLayout(block_rows=32, half_split=False),
    ],
)
def test_every_known_layout_unpacks_to_the_original_rows(layout: int4_layout.PackLayout) -> None:
    values = _random_int4(128, 8)
    packed = _torch_layout_reference(values, layout)
    unpacked = layout.unpack_rows(packed, torch.empty(8, 128, dtype=torch.int32))
    assert torch.equal(unpacked.t(), values.to(torch.int32))


def test_row_block_repack_equals_torchs_own_packing_of_the_whole_matrix() -> None:
    values = _random_int4(int4pack._REPACK_ROWS + 128, 256)  # more than one block of rows
    repacked = int4pack.repack_rows_(int4pack.pack_portable(values))
    expected = torch.ops.aten._convert_weight_to_int4pack_for_cpu(values.to(torch.int32), 1)
    assert torch.equal(repacked, expected)


def test_portable_packing_round_trips() -> None:
    values = _random_int4(64, 256)
    assert torch.equal(int4pack.unpack_portable(int4pack.pack_portable(values)), values)


@pytest.fixture(scope="module")
def weight() -> dict[str, torch.Tensor]:
    rows, columns = 384, 512
    values = _random_int4(rows, columns)
    scales, zeros = _scales_zeros(rows, columns)
    portable = int4pack.pack_portable(values)
    reference = int4pack.dequantize_portable(portable, scales, zeros, GROUP)
    packed = int4pack.repack_rows_(portable.clone())
    return {
        "packed": packed,
        "scale_zero": int4pack.scales_and_zeros(scales, zeros),
        "reference": reference,
        "terms": term_sizes(values, scales, zeros, GROUP),
    }


def test_dequantizing_from_torchs_layout_gives_the_checkpoints_weight(weight: dict) -> None:
    restored = int4pack.dequantize_transposed(
        weight["packed"], weight["scale_zero"], GROUP, torch.float32, int4_layout.native_layout()
    )
    assert torch.equal(restored.t(), weight["reference"])


# -- each path against its own rounding ----------------------------------------------------------
#
# A path's error bound, element by element, from where it rounds (first order in the unit
# roundoffs u, `tests.support.int4_bounds`; S = |x| @ T^T with T the size of the weight's terms):
#   weights dequantized in fp32 ((q - 8) * scale + zero): 2 u32 S;
#   bf16 GEMM: W rounded to bf16, and x too unless it is bf16 already: u_bf16 S each;
#   our int4 kernel (AVX2 or AVX-512): x rounded to 16-bit integers, one scale per group g of
#     the weight, step max|x_g| / 32639 (ACTIVATION_LEVELS), so half a step times
#     sum_{k in g} T_ik per group;
#   fp32 accumulation of K products: K u32 S (the worst case, not the typical sqrt(K));
#   the result rounded to the activations' dtype (and to bf16 first on the bf16 GEMM): u |y|.
# torch's kernel (tinygemm) is assumed to dequantize and accumulate in fp32 like the others;
# the tests hold it to that.


def _plans_this_cpu_runs() -> list[int4pack.KernelPlan]:
    """Every few-row kernel and many-row path this machine can execute, forced one by one: each
    GEMM precision, and on the AVX512-BF16 and AMX builds their panel products too."""
    layout = int4_layout.native_layout()
    builds = [build for build in cpu_kernels.loadable_variants() if build.variant]
    plans = [
        int4pack.KernelPlan(layout, "tinygemm", 64, gemm, "forced by the test")
        for gemm in (torch.float32, torch.bfloat16)
    ]
    for build in builds:
        assert build.variant is not None
        plans += [
            int4pack.KernelPlan(
                layout, build.variant, int4pack.OUR_KERNEL_PREFILL_MIN_ROWS, gemm, "forced"
            )
            for gemm in (torch.float32, torch.bfloat16)
        ]
        if build.panels:
            plans.append(
                int4pack.KernelPlan(
                    layout,
                    build.variant,
                    int4pack.OUR_KERNEL_PANELS_PREFILL_MIN_ROWS[build.variant],
                    torch.bfloat16,
                    "forced",
                    panels=True,
                )
            )
    return plans


def _error_bound(
    plan: int4pack.KernelPlan, x: torch.Tensor, terms: torch.Tensor, expected: torch.Tensor
) -> torch.Tensor:
    """The largest error each output element may have on this plan's path (see above)."""
    u32 = UNIT_ROUNDOFF[torch.float32]
    rows, columns = x.shape
    magnitude = x.double().abs() @ terms.t()
    relative = 2 * u32 + columns * u32
    output = UNIT_ROUNDOFF[x.dtype] * expected.abs()
    if rows >= plan.prefill_min_rows:
        if plan.prefill_dtype == torch.bfloat16:
            u_bf16 = UNIT_ROUNDOFF[torch.bfloat16]
            relative += u_bf16 * (1 if x.dtype == torch.bfloat16 else 2)
            output = output + u_bf16 * expected.abs()
        return 1.01 * (relative * magnitude + output)
    bound = relative * magnitude + output
    if plan.few_rows != "tinygemm":
        group_max = x.double().abs().view(rows, -1, GROUP).amax(-1)
        half_step = (group_max / cpu_kernels.ACTIVATION_LEVELS / 2).repeat_interleave(GROUP, dim=1)
        bound = bound + half_step @ terms.t()
    return 1.01 * bound


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16], ids=["fp32", "bf16"])
@pytest.mark.parametrize("rows", [1, 3, 8, 63, 64, 300])
@pytest.mark.parametrize("plan", _plans_this_cpu_runs(), ids=lambda plan: plan.describe())
def test_every_path_this_cpu_runs_stays_within_its_own_rounding(
    weight: dict, plan: int4pack.KernelPlan, rows: int, dtype: torch.dtype
) -> None:
    x = torch.randn(rows, 512, generator=torch.Generator().manual_seed(rows)).to(dtype)
    scale_zero = weight["scale_zero"].to(dtype)
    reference = weight["reference"].double()
    out = int4pack.linear(x, weight["packed"], scale_zero, GROUP, plan)
    expected = x.double() @ reference.t()
    assert out.dtype == dtype and out.shape == (rows, 384)
    error = (out.double() - expected).abs()
    bound = _error_bound(plan, x, weight["terms"], expected)
    worst = int((error / bound).argmax())
    assert bool((error <= bound).all()), (
        f"error {error.flatten()[worst]:.3g} above its bound {bound.flatten()[worst]:.3g}"
    )


@pytest.mark.parametrize("plan", _plans_this_cpu_runs(), ids=lambda plan: plan.describe())
def test_the_plan_dequantizes_from_its_threshold(weight: dict, plan: int4pack.KernelPlan) -> None:
    """Below the threshold the few-row kernel's answer, from it dequantize + GEMM's (or the
    panel products'), bit for bit (this weight is one dequantizing step)."""
    packed, scale_zero = weight["packed"], weight["scale_zero"]
    plan = dataclasses.replace(plan, prefill_min_rows=8)
    few, many = (torch.randn(rows, 512).bfloat16() for rows in (7, 8))
    if plan.few_rows == "tinygemm":
        expected_few = int4pack.tinygemm_mm(few, packed, scale_zero, GROUP)
        dequantized = int4pack.dequantize_transposed(
            packed, scale_zero, GROUP, plan.prefill_dtype, plan.layout
        )
    else:
        expected_few = cpu_kernels.int4_mm(few, packed, scale_zero, GROUP, plan.few_rows)
        # our one-pass dequantizer rounds once where torch's ops round each step
        dequantized = cpu_kernels.dequantize_rows(
            packed, scale_zero, GROUP, 0, packed.shape[0], plan.prefill_dtype, plan.few_rows
        )
    if plan.panels:
        assert plan.few_rows != "tinygemm"
        expected_many = cpu_kernels.panel_mm(many, packed, scale_zero, GROUP, plan.few_rows)
    else:
        expected_many = torch.mm(many.to(plan.prefill_dtype), dequantized).to(many.dtype)
    assert torch.equal(int4pack.linear(few, packed, scale_zero, GROUP, plan), expected_few)
    assert torch.equal(int4pack.linear(many, packed, scale_zero, GROUP, plan), expected_many)


def test_embedding_lookup_reads_rows_from_the_packed_table(weight: dict) -> None:
    ids = torch.tensor([[0, 1, 31, 32], [63, 64, 200, 383]])
    rows = int4pack.gather_rows(
        weight["packed"],
        weight["scale_zero"],
        GROUP,
        ids,
        int4_layout.native_layout(),
        torch.float32,
    )
    assert rows.shape == (2, 4, 512)
    expected = weight["reference"][ids]
    assert torch.allclose(rows, expected, atol=1e-6)


def test_the_forward_traces_in_one_graph_with_the_plan_made_beforehand(weight: dict) -> None:
    """torch.compile (as vLLM runs it: one graph, no breaks) must find nothing to decide."""
    plan = int4pack.machine_plan("adaptive", torch.bfloat16)
    packed, scale_zero = weight["packed"], weight["scale_zero"]

    def forward(ids: torch.Tensor) -> torch.Tensor:
        hidden = int4pack.gather_rows(packed, scale_zero, GROUP, ids, plan.layout)
        return int4pack.linear(hidden[:, :512], packed, scale_zero, GROUP, plan)

    ids = torch.tensor([3, 40, 300])
    compiled = torch.compile(forward, fullgraph=True, backend="eager")
    assert torch.equal(compiled(ids), forward(ids))


def test_shapes_the_kernel_cannot_take_are_refused() -> None:
    with pytest.raises(ValueError, match="multiple of 64"):
        int4pack.check_shape(96, 512, GROUP)
    with pytest.raises(ValueError, match="group size"):
        int4pack.check_shape(128, 500, GROUP)


# -- the choice itself, for CPUs this one is not ---------------------------------------------------

AVX512_LAYOUT = int4_layout.AVX512_LAYOUT
BUILT = cpu_kernels.KernelStatus(True, "built for this AVX2 CPU", "avx2")
BUILT_AVX512 = cpu_kernels.KernelStatus(True, "built for this AVX-512 CPU", "avx512")
BUILT_VNNI = cpu_kernels.KernelStatus(True, "built for this AVX-512 VNNI CPU", "avx512_vnni")
BUILT_BF16 = cpu_kernels.KernelStatus(True, "built for this AVX-512 BF16 CPU", "avx512_bf16")
BUILT_AMX = cpu_kernels.KernelStatus(True, "built for this AMX CPU", "amx")
VNNI_FLAGS = {"avx512_vnni", "avx512vbmi"}
NO_COMPILER = cpu_kernels.KernelStatus(False, "no C++ compiler on PATH to build it")


@pytest.mark.parametrize(
    ("flags", "layout", "kernel", "activations", "expected"),
    [
        # AVX2 only (AMD Zen 1-3, Intel before Skylake-SP): ours, fp32 GEMM.
        (
            {"avx2", "fma"},
            int4_layout.AVX2_LAYOUT,
            BUILT,
            torch.bfloat16,
            ("avx2", 256, torch.float32),
        ),
        # AVX-512 with BF16, VNNI and VBMI (AMD Zen 4): ours for AVX-512 VNNI for few rows, and
        # from far fewer rows than on AVX2 our panel products, bf16 dot products.
        (
            {"avx2", "fma", "avx512f", "avx512bw", "avx512_bf16", *VNNI_FLAGS},
            AVX512_LAYOUT,
            BUILT_BF16,
            torch.bfloat16,
            ("avx512_bf16", 32, torch.bfloat16),
        ),
        # The same CPU where only the VNNI build could be built: the bf16 GEMM from 32 rows.
        (
            {"avx2", "fma", "avx512f", "avx512bw", "avx512_bf16", *VNNI_FLAGS},
            AVX512_LAYOUT,
            BUILT_VNNI,
            torch.bfloat16,
            ("avx512_vnni", 32, torch.bfloat16),
        ),
        # AVX-512 with BF16 but no VBMI (Intel Cooper Lake): the AVX-512BW build, the same GEMM.
        (
            {"avx2", "fma", "avx512f", "avx512bw", "avx512_bf16", "avx512_vnni"},
            AVX512_LAYOUT,
            BUILT_AVX512,
            torch.bfloat16,
            ("avx512", 32, torch.bfloat16),
        ),
        # AMX (Intel Sapphire Rapids and later): the VNNI kernel for few rows, panel products on
        # tiles from fewer rows still.
        (
            {"avx2", "fma", "avx512f", "avx512bw", "avx512_bf16", *VNNI_FLAGS, "amx_tile"},
            AVX512_LAYOUT,
            BUILT_AMX,
            torch.bfloat16,
            ("amx", int4pack.OUR_KERNEL_PANELS_PREFILL_MIN_ROWS["amx"], torch.bfloat16),
        ),
        # fp32 activations on the AMX build: no panels (they multiply bf16), the fp32 GEMM.
        (
            {"avx2", "fma", "avx512f", "avx512bw", "avx512_bf16", *VNNI_FLAGS, "amx_tile"},
            AVX512_LAYOUT,
            BUILT_AMX,
            torch.float32,
            ("amx", 256, torch.float32),
        ),
        # No compiler: torch's kernel, which turns to the GEMM at fewer rows.
        (
            {"avx2", "fma", "avx512f", "avx512bw", "avx512_bf16"},
            AVX512_LAYOUT,
            NO_COMPILER,
            torch.bfloat16,
            ("tinygemm", 64, torch.bfloat16),
        ),
        # fp32 activations never lose precision to a bf16 GEMM, even where it is native.
        (
            {"avx2", "fma", "avx512f", "avx512bw", "avx512_bf16"},
            AVX512_LAYOUT,
            BUILT_AVX512,
            torch.float32,
            ("avx512", 256, torch.float32),
        ),
        # fp16 scales: our kernel reads none, torch's serves.
        (
            {"avx2", "fma"},
            int4_layout.AVX2_LAYOUT,
            BUILT,
            torch.float16,
            ("tinygemm", 64, torch.float32),
        ),
    ],
    ids=[
        "avx2",
        "avx512-vnni-bf16",
        "avx512-vnni-bf16-without-its-build",
        "avx512-bf16",
        "amx",
        "fp32-on-amx",
        "no-compiler",
        "fp32-on-avx512",
        "fp16-on-avx2",
    ],
)
def test_the_plan_for_each_cpu_class(
    flags: set[str],
    layout: int4_layout.PackLayout,
    kernel: cpu_kernels.KernelStatus,
    activations: torch.dtype,
    expected: tuple[str, int, torch.dtype],
) -> None:
    plan = int4pack.choose_plan("adaptive", activations, flags, layout, kernel)
    assert (plan.few_rows, plan.prefill_min_rows, plan.prefill_dtype) == expected
    assert plan.panels == (kernel.panels and activations == torch.bfloat16)
    assert ("panel products" in plan.describe() or "tile products" in plan.describe()) == (
        plan.panels
    )
    assert plan.layout == layout
    if plan.few_rows == "tinygemm":
        assert plan.reason in (kernel.reason, f"our int4 kernel takes no {activations} scales")


def test_the_baseline_method_keeps_torchs_kernel_at_every_row_count() -> None:
    plan = int4pack.choose_plan(
        "tinygemm", torch.bfloat16, {"avx2", "fma"}, int4_layout.AVX2_LAYOUT, BUILT
    )
    assert plan.few_rows == "tinygemm"
    assert plan.prefill_min_rows == int4pack.NEVER_DEQUANTIZE
    assert "for every row count" in plan.describe()
