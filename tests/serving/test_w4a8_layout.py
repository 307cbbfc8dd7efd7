"""W4A8 weights are converted for vLLM's AMX kernel a block at a time, into the very tensors
vLLM's own whole-matrix conversion makes, without its multi-GiB temporaries."""

from __future__ import annotations

import types

import pytest
import torch

from serving.quantization import w4a8_layout
from serving.quantization.w4a8_layout import (
    AWQ_ORDER,
    awq_packed_weight,
    awq_packed_zeros,
    convert_in_blocks,
    symmetric_zeros,
)


def _random_words(rows: int, columns: int, seed: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randint(
        -(2**31), 2**31 - 1, (rows, columns), dtype=torch.int32, generator=generator
    )


def _gptq_values(qweight: torch.Tensor) -> torch.Tensor:
    """[in, out] int4 values of GPTQ words packed along the input rows (nibble r: row 8p + r)."""
    nibbles = [(qweight >> (4 * r)) & 0xF for r in range(8)]
    return torch.stack(nibbles, dim=1).reshape(-1, qweight.shape[1])


def _awq_words(values: torch.Tensor) -> torch.Tensor:
    """Values packed along the columns, nibble i of word j holding column 8j + AWQ_ORDER[i]."""
    rows, columns = values.shape
    words = torch.zeros(rows, columns // 8, dtype=torch.int64)
    for position, column in enumerate(AWQ_ORDER):
        words |= values[:, column::8].long() << (4 * position)
    return ((words + 2**31) % 2**32 - 2**31).int()  # the 32 bits, read as int32


def test_awq_words_hold_every_gptq_value_in_the_kernel_s_order() -> None:
    qweight = _random_words(64, 96, seed=1)  # 512 inputs, 96 outputs
    assert torch.equal(awq_packed_weight(qweight), _awq_words(_gptq_values(qweight)))
    qzeros = _random_words(4, 12, seed=2)  # 4 groups, 96 outputs packed along the columns
    zero_values = torch.stack([(qzeros >> (4 * i)) & 0xF for i in range(8)], dim=2).reshape(4, 96)
    assert torch.equal(awq_packed_zeros(qzeros), _awq_words(zero_values))
    eights = torch.full((4, 96), 8, dtype=torch.int32)
    assert torch.equal(symmetric_zeros(4, 96), _awq_words(eights))


def test_no_block_hands_the_packing_op_more_than_its_share_of_the_matrix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The packing op's temporaries grow with what it is given: the 1.7B output head
    (2048 x 131072) must go through in many blocks, each a whole number of 32-column tiles."""
    monkeypatch.setattr(w4a8_layout, "BLOCK_WEIGHTS", 256 * 64)
    given: list[tuple[int, int]] = []

    def record(
        weight: torch.Tensor, zeros: torch.Tensor, scales: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        given.append((weight.shape[0], weight.shape[1] * 8))
        return weight, zeros, scales  # stands in for the op: one row per input, per block

    qweight, scales = _random_words(32, 320, seed=3), torch.ones(2, 320).bfloat16()
    weight, zeros, _ = convert_in_blocks(qweight, scales, None, record)
    assert given == [(256, 64)] * 5
    assert all(columns % 32 == 0 and rows * columns <= 256 * 64 for rows, columns in given)
    assert weight.shape == (5 * 256, 8) and zeros.shape == (5 * 2, 8)


def _vllm_ops() -> types.ModuleType:
    ops = pytest.importorskip("vllm._custom_ops")
    if not hasattr(torch.ops._C, "convert_weight_packed_scale_zp"):
        pytest.skip("this vLLM build has no CPU packing op")
    return ops


@pytest.mark.parametrize("symmetric", [True, False], ids=["symmetric", "zero points"])
def test_blocks_through_vllm_s_packing_op_join_into_its_whole_matrix_result(
    monkeypatch: pytest.MonkeyPatch, symmetric: bool
) -> None:
    ops = _vllm_ops()
    monkeypatch.setattr(w4a8_layout, "BLOCK_WEIGHTS", 512 * 96)  # three blocks of 96 columns

    def pack(
        weight: torch.Tensor, zeros: torch.Tensor, scales: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        packed: tuple[torch.Tensor, torch.Tensor, torch.Tensor] = (
            ops.convert_weight_packed_scale_zp(weight, zeros, scales, ops.CPUQuantAlgo.AWQ)
        )
        return packed

    qweight = _random_words(64, 288, seed=4)  # 512 inputs, 288 outputs
    qzeros = None if symmetric else _random_words(4, 36, seed=5)
    scales = torch.rand(4, 288, generator=torch.Generator().manual_seed(6)).bfloat16()
    zeros = symmetric_zeros(4, 288) if qzeros is None else awq_packed_zeros(qzeros)
    whole = pack(awq_packed_weight(qweight), zeros, scales)
    blocks = convert_in_blocks(qweight, scales, qzeros, pack)
    assert all(torch.equal(a, b) for a, b in zip(whole, blocks, strict=True))


def test_the_plugin_s_conversion_gives_a_layer_the_tensors_vllm_s_own_gives_it() -> None:
    _vllm_ops()
    from vllm.model_executor.kernels.linear.mixed_precision.cpu import CPUWNA16LinearKernel
    from vllm.scalar_type import scalar_types

    from serving.vllm_plugin import w4a8

    kernel = types.SimpleNamespace(
        w_q_name="qweight",
        w_s_name="scales",
        w_zp_name="qzeros",
        config=types.SimpleNamespace(zero_points=False, weight_type=scalar_types.uint4b8),
    )

    def layer() -> torch.nn.Module:
        module = torch.nn.Module()
        module.qweight = torch.nn.Parameter(_random_words(64, 256, seed=7), requires_grad=False)
        scales = torch.rand(4, 256, generator=torch.Generator().manual_seed(8)).bfloat16()
        module.scales = torch.nn.Parameter(scales, requires_grad=False)
        # the kernel finds no zero points (symmetric) and no bias
        module.register_parameter("qzeros", None)
        module.register_parameter("bias", None)
        return module

    theirs, ours = layer(), layer()
    CPUWNA16LinearKernel._process_gptq_weights_w4a8(kernel, theirs)  # type: ignore[arg-type]
    w4a8._process_gptq_weights_w4a8(kernel, ours)  # type: ignore[arg-type]
    for name in ("qweight", "scales", "qzeros"):
        assert torch.equal(getattr(theirs, name).data, getattr(ours, name).data), name
