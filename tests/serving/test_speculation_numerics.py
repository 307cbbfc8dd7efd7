"""A pass that checks speculative drafts runs the model over several positions at once; each
position must get what decoding it alone gets, bit for bit, or greedy decoding with speculation
could pick another token. So every kernel a decode step runs gives a row the same result
whatever rows come with it, up to one plus the tokens drafted: the attention (vLLM's CPU
attention keeps that only with its KV split off, as the launcher serves it), and the W4A16
layers and vocabulary table on this machine's kernel plan."""

from __future__ import annotations

import pytest
import torch

from serving import launcher

ops = pytest.importorskip("vllm._custom_ops")

HEADS, KV_HEADS, HEAD_DIM, BLOCK = 8, 2, 256, 128  # Spark 1.7B's attention
CONTEXT = 600


def _attend(query: torch.Tensor, context: int, kv: torch.Tensor, split: bool) -> torch.Tensor:
    """The last `len(query)` positions of a `context`-token sequence attend causally."""
    key_cache, value_cache = kv.chunk(2, dim=2)
    starts = torch.tensor([0, query.shape[0]], dtype=torch.int32)
    lengths = torch.tensor([context], dtype=torch.int32)
    isa = "amx" if torch.cpu._is_amx_tile_supported() else "vec"
    metadata = ops.cpu_attn_get_scheduler_metadata(
        1, HEADS, KV_HEADS, HEAD_DIM, lengths, torch.bfloat16, starts, True, -1, isa, split
    )
    blocks = torch.arange(kv.shape[0], dtype=torch.int32).unsqueeze(0)
    out = torch.empty_like(query)
    ops.cpu_attention_with_kv_cache(
        query,
        key_cache,
        value_cache,
        out,
        starts,
        lengths,
        HEAD_DIM**-0.5,
        True,
        None,
        -1,
        blocks,
        0.0,
        metadata,
        None,
    )
    return out


def test_drafts_checked_together_attend_as_each_decoded_alone() -> None:
    if not hasattr(torch.ops._C, "cpu_attention_with_kv_cache"):
        pytest.skip("this vLLM build has no CPU attention")
    from serving.vllm_plugin.amx import request_amx_tiles

    request_amx_tiles()
    generator = torch.Generator().manual_seed(0)
    kv = torch.randn(CONTEXT // BLOCK + 1, KV_HEADS, 2 * BLOCK, HEAD_DIM, generator=generator)
    kv = kv.bfloat16()
    queries = torch.randn(5, HEADS, HEAD_DIM, generator=generator).bfloat16()
    split = launcher.server_environment({}, {0, 1})["VLLM_CPU_ATTN_SPLIT_KV"] != "0"
    together = _attend(queries, CONTEXT, kv, split)
    alone = torch.cat([_attend(queries[i : i + 1], CONTEXT - 4 + i, kv, split) for i in range(5)])
    assert torch.equal(together, alone)


ROWS = 1 + launcher.DEFAULT_SPECULATIVE_TOKENS


def _rows_alone_equal_rows_together(multiply: object, columns: int) -> bool:
    assert callable(multiply)
    x = torch.randn(ROWS, columns, generator=torch.Generator().manual_seed(1)).bfloat16()
    together = multiply(x)
    alone = torch.cat([multiply(x[i : i + 1]) for i in range(ROWS)])
    return torch.equal(together, alone)


def test_w4a16_layers_and_table_give_a_row_the_same_result_beside_others() -> None:
    from serving.quantization import cpu_kernels, int4pack
    from serving.quantization.measure import GROUP_SIZE, random_int4_weight, random_int8_table
    from serving.quantization.timings import Matrix

    generator = torch.Generator().manual_seed(0)
    layer = Matrix(name="gate_up_proj", rows=1024, columns=512, per_token=1)
    packed, scales_zeros = random_int4_weight(layer, generator)
    plan = int4pack.machine_plan("adaptive", torch.bfloat16)
    assert _rows_alone_equal_rows_together(
        lambda x: int4pack.linear(x, packed, scales_zeros, GROUP_SIZE, plan), layer.columns
    )
    head = Matrix(name="output_head", rows=4096, columns=512, per_token=1)
    table, row_scales = random_int8_table(head, generator)
    variant = cpu_kernels.int8_table_kernel(head.columns).variant
    assert _rows_alone_equal_rows_together(
        lambda x: cpu_kernels.int8_table_mm(x, table, row_scales, variant), head.columns
    )
