"""GPTQ 4-bit weights in the layout of vLLM's AMX W4A8 kernel, a block of columns at a time.

vLLM's CPU kernel for GPTQ (`CPUWNA16LinearKernel`, W4A8 on AMX) converts each layer's weights
after loading: it unpacks the int4 values into one int32 each, reorders the nibbles of every
eight output columns (0, 2, 4, 6, 1, 3, 5, 7: the AWQ order its packing op expects), packs them
again along the output columns, and hands the whole matrix to its packing op
(`convert_weight_packed_scale_zp`), whose own temporaries come to about 14 bytes per weight.
For the 1.7B output head (2048 x 131072) that is 3 GiB of unpacked copies, then 3.5 GiB inside
the op: W4A8's load peaked at 1.4 times bf16's memory.

The packing op lays out each tile of 32 output columns on its own, so the matrix can go through
it a block of columns at a time and the blocks be joined: the same tensors come out, byte for
byte. Within a block the AWQ words come from shifting and masking the packed GPTQ words
directly. Temporaries then stay near `BLOCK_WEIGHTS` weights' worth whatever the layer.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

BITS = 4
VALUES_PER_WORD = 32 // BITS
# Position i of an AWQ-packed word holds the value of column AWQ_ORDER[i] of its eight.
AWQ_ORDER = (0, 2, 4, 6, 1, 3, 5, 7)
# Output columns the packing op lays out together; a block is a whole number of them.
TILE_COLUMNS = 32
# Weights converted at once (about 60 MiB of the packing op's temporaries).
BLOCK_WEIGHTS = 1 << 22
# Every nibble 8: the implicit zero point of symmetric GPTQ, in a packed word.
SYMMETRIC_ZEROS_WORD = -0x77777778  # 0x88888888 as int32

Tensors = tuple[torch.Tensor, torch.Tensor, torch.Tensor]
# vLLM's packing op: (AWQ-ordered weight, AWQ-ordered zeros, scales) -> its three tensors.
Convert = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], Tensors]


def _pack_awq(values: torch.Tensor) -> torch.Tensor:
    """[rows, columns] int4 values (in int32) packed along the columns in AWQ order."""
    by_eight = values.reshape(values.shape[0], -1, VALUES_PER_WORD)
    packed = torch.zeros(by_eight.shape[:2], dtype=torch.int32)
    for position, column in enumerate(AWQ_ORDER):
        packed |= by_eight[:, :, column] << (BITS * position)
    return packed


def awq_packed_weight(qweight: torch.Tensor) -> torch.Tensor:
    """GPTQ's [in / 8, out] int32 (packed along the input rows) as [in, out / 8] int32 packed
    along the output columns in AWQ order: the words vLLM's W4A8 path builds."""
    packed_rows, columns = qweight.shape
    result = torch.empty(
        packed_rows, VALUES_PER_WORD, columns // VALUES_PER_WORD, dtype=torch.int32
    )
    for row in range(VALUES_PER_WORD):
        result[:, row] = _pack_awq((qweight >> (BITS * row)) & 0xF)
    # row 8p + r of the matrix is [p, r]
    return result.view(packed_rows * VALUES_PER_WORD, columns // VALUES_PER_WORD)


def awq_packed_zeros(qzeros: torch.Tensor) -> torch.Tensor:
    """GPTQ's [groups, out / 8] zero points (packed along the columns) in AWQ order."""
    groups, words = qzeros.shape
    values = torch.empty(groups, words * VALUES_PER_WORD, dtype=torch.int32)
    for position in range(VALUES_PER_WORD):
        values[:, position::VALUES_PER_WORD] = (qzeros >> (BITS * position)) & 0xF
    return _pack_awq(values)


def symmetric_zeros(groups: int, columns: int) -> torch.Tensor:
    """Packed zero points of 8 for every group and column (the same in either order)."""
    return torch.full((groups, columns // VALUES_PER_WORD), SYMMETRIC_ZEROS_WORD, dtype=torch.int32)


def convert_in_blocks(
    qweight: torch.Tensor, scales: torch.Tensor, qzeros: torch.Tensor | None, convert: Convert
) -> Tensors:
    """The packing op's three tensors for a GPTQ layer (`qzeros` None: symmetric), made a
    block of output columns at a time and joined along the tiles."""
    groups, columns = scales.shape
    inputs = qweight.shape[0] * VALUES_PER_WORD
    block = max(TILE_COLUMNS, BLOCK_WEIGHTS // inputs // TILE_COLUMNS * TILE_COLUMNS)
    parts: list[Tensors] = []
    for start in range(0, columns, block):
        stop = min(columns, start + block)
        words = slice(start // VALUES_PER_WORD, stop // VALUES_PER_WORD)
        zeros = (
            symmetric_zeros(groups, stop - start)
            if qzeros is None
            else awq_packed_zeros(qzeros[:, words])
        )
        parts.append(
            convert(
                awq_packed_weight(qweight[:, start:stop]),
                zeros,
                scales[:, start:stop].contiguous(),
            )
        )
    weight, zeros, blocked_scales = (torch.cat([part[i] for part in parts]) for i in range(3))
    return weight, zeros, blocked_scales
