"""Where torch's CPU int4 packing puts each row, in the build of torch this process runs.

torch's packed layout depends on the instruction set its kernel was built for: rows are grouped
in blocks of 64 (AVX-512) or 32 (AVX2, portable build), each block stored as [K, rows/2] bytes,
with a byte holding either row j and row j + rows/2 (vectorised builds) or rows 2j and 2j + 1
(portable build). `native_layout()` recognises which one this process uses by packing a probe
matrix, so a dequantizer, and our kernels, read exactly the bytes torch's kernel reads.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import torch

# Every layout's row block divides this; weights must have a multiple of it as output rows.
ROW_ALIGNMENT = 64


@dataclass(frozen=True)
class PackLayout:
    """Where torch's int4 packing puts row r of a block of `block_rows` rows."""

    block_rows: int
    # True: byte j holds rows j (low nibble) and j + block_rows/2 (high nibble).
    # False: byte j holds rows 2j (low) and 2j + 1 (high).
    half_split: bool

    def unpack_rows(self, packed: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        """Nibbles of packed rows [n, K/2] into `out` [K, n] (the transposed weight)."""
        rows, half_k = packed.shape
        k = half_k * 2
        half = self.block_rows // 2
        blocks = packed.view(rows // self.block_rows, k, half).permute(1, 0, 2)
        shaped = out.view(
            k, rows // self.block_rows, *((2, half) if self.half_split else (half, 2))
        )
        low, high = (
            (shaped[:, :, 0], shaped[:, :, 1])
            if self.half_split
            else (
                shaped[..., 0],
                shaped[..., 1],
            )
        )
        low.copy_(blocks & 15)
        high.copy_(blocks >> 4)
        return out

    def byte_and_shift(self, rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """For weight rows: (block index, byte column within the block, nibble shift)."""
        half = self.block_rows // 2
        within = rows % self.block_rows
        if self.half_split:
            column, high = within % half, within // half
        else:
            column, high = within // 2, within % 2
        return rows // self.block_rows, column, high * 4


# torch's AVX2 and AVX-512 code: the layouts our own int4 kernel (`cpu_kernels`) reads.
AVX2_LAYOUT = PackLayout(block_rows=32, half_split=True)
AVX512_LAYOUT = PackLayout(block_rows=64, half_split=True)
_CANDIDATE_LAYOUTS = (
    AVX512_LAYOUT,
    AVX2_LAYOUT,
    PackLayout(block_rows=32, half_split=False),
)


@functools.cache
def native_layout() -> PackLayout:
    """The layout torch's int4 packing uses in this process, found by round-tripping a probe."""
    generator = torch.Generator().manual_seed(0)
    probe = torch.randint(0, 16, (ROW_ALIGNMENT * 2, 64), dtype=torch.int32, generator=generator)
    packed = torch.ops.aten._convert_weight_to_int4pack_for_cpu(probe, 1)
    for layout in _CANDIDATE_LAYOUTS:
        unpacked = layout.unpack_rows(packed, torch.empty(64, probe.shape[0], dtype=torch.int32))
        if torch.equal(unpacked.t(), probe):
            return layout
    raise RuntimeError("torch's int4 packing uses a layout this version does not know")
