"""Our int8 kernel for the W4A16 vocabulary table: torch's int8 GEMM's answers, where it runs.

It is built into the same library as the int4 kernel, for each instruction set this CPU runs;
`test_kernel_paths.py` runs this file again under the lower ones (AVX2 on an AVX-512 machine,
and torch's portable code, where the head stays on torch's kernel).
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from serving.quantization import cpu_kernels  # noqa: E402

MACHINE_VARIANTS, UNSUPPORTED = cpu_kernels.machine_variants()
ROWS, COLUMNS = 320, 512
# bf16 keeps 8 significant bits: rounding to it moves a value by up to 2^-8 of itself.
BF16_UNIT_ROUNDOFF = 2.0**-8


@pytest.fixture(scope="module", params=[None] if UNSUPPORTED else MACHINE_VARIANTS or [None])
def variant(request: pytest.FixtureRequest) -> cpu_kernels.Variant:
    if request.param is None:
        pytest.skip(f"our int8 kernel does not run here: {cpu_kernels.load().reason}")
    loaded = cpu_kernels.load_variant(request.param)
    if not loaded.available or loaded.variant is None:
        pytest.skip(f"our int8 kernel does not run here: {loaded.reason}")
    return loaded.variant


def _table(rows: int, columns: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    weight = torch.randint(-128, 128, (rows, columns), dtype=torch.int8, generator=generator)
    scales = (torch.rand(rows, generator=generator) * 0.01 + 0.001).bfloat16()
    return weight, scales


def _exact(x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    return (x.double() @ weight.double().T) * scales.double()


def _bound(x: torch.Tensor, weight: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    """What rounding x to 16-bit integers may cost (each element off by half a step of its
    row's largest value over 32767), plus rounding the result to bf16."""
    step = x.double().abs().amax(-1, keepdim=True) / 32767
    activations = (step / 2) * (weight.double().abs().sum(-1) * scales.double())
    return activations + _exact(x, weight, scales).abs() * BF16_UNIT_ROUNDOFF + 1e-30


@pytest.mark.parametrize("rows", [1, 2, 3, 4, 5, 9])
def test_it_computes_the_product_to_within_its_rounding(variant, rows: int) -> None:
    weight, scales = _table(ROWS, COLUMNS, seed=rows)
    x = torch.randn(rows, COLUMNS, generator=torch.Generator().manual_seed(100 + rows)).bfloat16()
    out = cpu_kernels.int8_mm(x, weight, scales, variant)
    assert out.dtype == torch.bfloat16 and out.shape == (rows, ROWS)
    error = (out.double() - _exact(x, weight, scales)).abs()
    assert bool((error <= _bound(x, weight, scales)).all()), float(error.max())


def test_it_agrees_with_torchs_int8_gemm(variant) -> None:
    weight, scales = _table(ROWS, COLUMNS, seed=3)
    x = torch.randn(3, COLUMNS, generator=torch.Generator().manual_seed(4)).bfloat16()
    ours = cpu_kernels.int8_mm(x, weight, scales, variant).double()
    torchs = torch._weight_int8pack_mm(x, weight, scales).double()
    # Each is rounded to bf16 once, from sums that differ far less: mostly the same bits.
    difference = (ours - torchs).abs()
    assert bool((difference <= _bound(x, weight, scales) + torchs.abs() * BF16_UNIT_ROUNDOFF).all())
    assert float((ours == torchs).double().mean()) > 0.9


def test_long_rows_widen_their_sums_before_they_can_overflow(variant) -> None:
    # Every product at its largest, 16384 columns: 2^31 / (128 * 32767) is 512 products, so a
    # lane that summed them all in 32 bits would wrap.
    columns = 16384
    weight = torch.full((64, columns), -128, dtype=torch.int8)
    scales = torch.ones(64, dtype=torch.float32)
    x = torch.full((1, columns), -1.0, dtype=torch.float32)
    out = cpu_kernels.int8_mm(x, weight, scales, variant)
    assert out.tolist() == [pytest.approx([128.0 * columns] * 64, rel=1e-6)]


def test_fp32_activations_and_scales_stay_fp32(variant) -> None:
    weight, scales = _table(ROWS, COLUMNS, seed=5)
    x = torch.randn(2, COLUMNS, generator=torch.Generator().manual_seed(6))
    out = cpu_kernels.int8_mm(x, weight, scales.float(), variant)
    assert out.dtype == torch.float32
    error = (out.double() - _exact(x, weight, scales)).abs()
    step = x.double().abs().amax(-1, keepdim=True) / 32767
    bound = (step / 2) * (weight.double().abs().sum(-1) * scales.double()) * 1.001 + 1e-4
    assert bool((error <= bound).all()), float(error.max())


def test_a_row_of_zeros_gives_exact_zeros(variant) -> None:
    weight, scales = _table(ROWS, COLUMNS, seed=7)
    x = torch.zeros(2, COLUMNS, dtype=torch.bfloat16)
    x[1, 5] = 1.0
    out = cpu_kernels.int8_mm(x, weight, scales, variant)
    assert torch.equal(out[0], torch.zeros(ROWS, dtype=torch.bfloat16))
    assert out[1].float().tolist() == pytest.approx(
        (weight[:, 5].float() * scales.float()).tolist(), rel=BF16_UNIT_ROUNDOFF
    )


def test_shapes_it_cannot_multiply_are_refused_with_the_reason(variant) -> None:
    weight, scales = _table(ROWS, COLUMNS, seed=8)
    with pytest.raises(RuntimeError, match="columns"):
        cpu_kernels.int8_mm(torch.randn(1, COLUMNS - 32), weight, scales, variant)
    with pytest.raises(RuntimeError, match="multiple of"):
        cpu_kernels.int8_mm(torch.randn(1, 40), weight[:, :40], scales, variant)
    with pytest.raises(RuntimeError, match="one scale per weight row"):
        cpu_kernels.int8_mm(torch.randn(1, COLUMNS), weight, scales[:-1], variant)


def test_the_head_runs_on_our_build_where_it_loads_and_on_torchs_elsewhere() -> None:
    loaded = cpu_kernels.load()
    chosen = cpu_kernels.int8_table_kernel(COLUMNS)
    assert chosen == loaded
    odd_width = cpu_kernels.int8_table_kernel(COLUMNS + 16)
    assert not odd_width.available and odd_width.variant is None
    reason = loaded.reason if not loaded.available else "not a multiple of 32"
    assert reason in odd_width.reason

    # Whichever it picked, the head gives torch's int8 GEMM's answer to within rounding.
    weight, scales = _table(ROWS, COLUMNS, seed=9)
    x = torch.randn(2, COLUMNS, generator=torch.Generator().manual_seed(10)).bfloat16()
    for variant in (None, chosen.variant):
        out = cpu_kernels.int8_table_mm(x, weight, scales, variant).double()
        error = (out - _exact(x, weight, scales)).abs()
        assert bool((error <= _bound(x, weight, scales)).all()), (variant, float(error.max()))
