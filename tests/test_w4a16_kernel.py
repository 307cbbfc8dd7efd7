"""The W4A16 kernel path in plain torch: packing, dequantizing from torch's layout, the op."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from serving.quantization import int4pack  # noqa: E402

GROUP = 64


def _random_int4(rows: int, columns: int, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(0, 16, (rows, columns), dtype=torch.uint8, generator=generator)


def _scales_zeros(rows: int, columns: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(1)
    scales = (torch.rand(rows, columns // GROUP, generator=generator) * 0.02).bfloat16()
    zeros = (torch.randn(rows, columns // GROUP, generator=generator) * 0.02).bfloat16()
    return scales, zeros


def _torch_layout_reference(values: torch.Tensor, layout: int4pack.PackLayout) -> torch.Tensor:
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
        int4pack.PackLayout(block_rows=64, half_split=True),
        int4pack.PackLayout(block_rows=32, half_split=True),
        int4pack.PackLayout(block_rows=32, half_split=False),
    ],
)
def test_every_known_layout_unpacks_to_the_original_rows(layout: int4pack.PackLayout) -> None:
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
    }


def test_dequantizing_from_torchs_layout_gives_the_checkpoints_weight(weight: dict) -> None:
    restored = int4pack.dequantize_transposed(
        weight["packed"], weight["scale_zero"], GROUP, torch.float32
    )
    assert torch.equal(restored.t(), weight["reference"])


@pytest.mark.parametrize("rows", [1, 3, 8, 63, 64, 300])
@pytest.mark.parametrize("path", ["adaptive", "tinygemm"])
def test_linear_matches_the_dequantized_reference_on_both_paths(
    weight: dict, rows: int, path: str
) -> None:
    x = torch.randn(rows, 512, generator=torch.Generator().manual_seed(rows)).bfloat16()
    out = torch.ops.phone_agent.w4a16_linear(x, weight["packed"], weight["scale_zero"], GROUP, path)
    expected = x.float() @ weight["reference"].t()
    assert out.dtype == torch.bfloat16 and out.shape == (rows, 384)
    relative = (out.float() - expected).norm() / expected.norm()
    assert relative < 1e-2  # bf16 output rounding


def test_the_adaptive_path_dequantizes_from_the_measured_row_count(
    weight: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    dequantize = int4pack.dequantized_matmul

    def counting(x: torch.Tensor, *args: object) -> torch.Tensor:
        calls.append(x.shape[0])
        return dequantize(x, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(int4pack, "dequantized_matmul", counting)
    threshold = int4pack.few_row_kernel().prefill_min_rows
    for rows in (threshold - 1, threshold):
        x = torch.randn(rows, 512).bfloat16()
        torch.ops.phone_agent.w4a16_linear(
            x, weight["packed"], weight["scale_zero"], GROUP, "adaptive"
        )
    assert calls == [threshold]


def test_embedding_lookup_reads_rows_from_the_packed_table(weight: dict) -> None:
    ids = torch.tensor([[0, 1, 31, 32], [63, 64, 200, 383]])
    rows = int4pack.gather_rows(weight["packed"], weight["scale_zero"], GROUP, ids, torch.float32)
    assert rows.shape == (2, 4, 512)
    expected = weight["reference"][ids]
    assert torch.allclose(rows, expected, atol=1e-6)


def test_shapes_the_kernel_cannot_take_are_refused() -> None:
    with pytest.raises(ValueError, match="multiple of 64"):
        int4pack.check_shape(96, 512, GROUP)
    with pytest.raises(ValueError, match="group size"):
        int4pack.check_shape(128, 500, GROUP)


def test_fp16_activations_keep_torchs_kernel_and_its_own_threshold() -> None:
    kernel = int4pack.few_row_kernel(torch.float16)
    assert kernel.name.startswith("tinygemm (")
    assert kernel.multiply is int4pack.tinygemm_mm
    assert kernel.prefill_min_rows == int4pack.TINYGEMM_PREFILL_MIN_ROWS
