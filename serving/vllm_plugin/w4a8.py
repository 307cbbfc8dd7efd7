"""vLLM's W4A8 conversion of GPTQ weights, done a block of output columns at a time.

`serving.quantization.w4a8_layout` says what vLLM's own conversion costs (about 6.5 GiB of
temporaries for the 1.7B output head) and makes the same tensors in blocks. This replaces the
conversion method of vLLM's CPU GPTQ kernel with one built on it; the converted weights are
identical, byte for byte.
"""

from __future__ import annotations

import torch
from vllm import _custom_ops as ops
from vllm.model_executor.kernels.linear.mixed_precision.cpu import CPUWNA16LinearKernel

from serving.quantization.w4a8_layout import Tensors, convert_in_blocks


def _pack(weight: torch.Tensor, zeros: torch.Tensor, scales: torch.Tensor) -> Tensors:
    packed: Tensors = ops.convert_weight_packed_scale_zp(
        weight, zeros, scales, ops.CPUQuantAlgo.AWQ
    )
    return packed


def _process_gptq_weights_w4a8(self: CPUWNA16LinearKernel, layer: torch.nn.Module) -> None:
    packed_weight = getattr(layer, self.w_q_name)
    scales = getattr(layer, self.w_s_name)
    assert self.w_zp_name is not None  # the kernel always names its zero points
    qzeros = getattr(layer, self.w_zp_name).data if self.config.zero_points else None
    weight, zeros, blocked_scales = convert_in_blocks(
        packed_weight.data, scales.data, qzeros, _pack
    )
    if layer.bias is not None:
        layer.bias.data = layer.bias.float()
    packed_weight.data = weight
    scales.data = blocked_scales
    # symmetric weights have no zero points of their own, and the kernel needs them: all 8
    setattr(layer, self.w_zp_name, torch.nn.Parameter(zeros, requires_grad=False))


def convert_gptq_in_blocks() -> None:
    """From now on in this process, vLLM converts GPTQ weights for W4A8 in blocks."""
    CPUWNA16LinearKernel._process_gptq_weights_w4a8 = _process_gptq_weights_w4a8  # type: ignore[method-assign]
