"""How large the rounding of each W4A16 path may be: the model the kernel tests hold them to.

Error bounds are first order in the unit roundoff u of each format (u32 = 2^-24, u_bf16 = 2^-8)
and are taken over the size of the terms a kernel really adds. Every kernel evaluates
w = (q - 8) * scale + zero in two parts, q * scale and zero - 8 * scale (folded into the sums
separately, or added first), so a rounding in them is relative to |q * scale| +
|zero - 8 * scale|, not to |w|, which can be far smaller after cancellation.
"""

from __future__ import annotations

import torch

UNIT_ROUNDOFF = {torch.float32: 2.0**-24, torch.bfloat16: 2.0**-8}


def weight_parts(
    values: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor, group_size: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """(q * scale, zero - 8 * scale) per weight element, each [N, K] in float64."""
    scale = scales.double().repeat_interleave(group_size, dim=1)
    zero = zeros.double().repeat_interleave(group_size, dim=1)
    return values.double() * scale, zero - 8 * scale


def term_sizes(
    values: torch.Tensor, scales: torch.Tensor, zeros: torch.Tensor, group_size: int
) -> torch.Tensor:
    """|q * scale| + |zero - 8 * scale| per weight element, [N, K] in float64."""
    scaled, offsets = weight_parts(values, scales, zeros, group_size)
    return scaled.abs() + offsets.abs()
