"""The grammar head: a step under a tool call's grammar computes only the logits of the tokens
the grammar allows, and the sampler sees what it would have seen with every logit computed."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
pytest.importorskip("vllm")

from serving.quantization import cpu_kernels  # noqa: E402
from serving.quantization.vllm_method import Int8TableMethod  # noqa: E402
from serving.vllm_plugin.grammar_head import allowed_tokens, restricted_rows  # noqa: E402

VOCABULARY = 1000  # not a multiple of 32: the bitmask's last word has bits past the vocabulary


def _bitmask(rows: list[set[int]], vocabulary: int = VOCABULARY) -> np.ndarray:
    """xgrammar's layout: bit b of 32-bit word w allows token 32w + b."""
    mask = np.zeros((len(rows), (vocabulary + 31) // 32), dtype=np.int32)
    for row, tokens in zip(mask, rows, strict=True):
        for token in tokens:
            row.view(np.uint32)[token // 32] |= np.uint32(1 << (token % 32))
    return mask


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sets(st.integers(0, VOCABULARY - 1), max_size=40), min_size=1, max_size=5))
def test_the_allowed_tokens_are_those_any_row_allows(rows: list[set[int]]) -> None:
    assert allowed_tokens(_bitmask(rows), VOCABULARY).tolist() == sorted(set().union(*rows))


def test_bits_past_the_vocabulary_allow_nothing() -> None:
    mask = np.full((1, (VOCABULARY + 31) // 32), -1, dtype=np.int32)  # xgrammar's "anything"
    assert allowed_tokens(mask, VOCABULARY).tolist() == list(range(VOCABULARY))


def _grammar(ids: list[str], rows: list[set[int]]) -> SimpleNamespace:
    return SimpleNamespace(structured_output_request_ids=ids, grammar_bitmask=_bitmask(rows))


def test_a_step_whose_every_row_has_a_grammar_needs_only_what_they_allow() -> None:
    # request "a" checks two drafts: three rows; "b" one row
    grammar = _grammar(["b", "a"], [{7}, {1, 2}, {3}, {2, 900}])
    tokens = restricted_rows(grammar, ["a", "b"], 4, VOCABULARY)
    assert tokens is not None and tokens.tolist() == [1, 2, 3, 7, 900]


def test_every_logit_is_computed_where_a_row_is_free_or_allows_much() -> None:
    narrow = [{1}, {2}]
    assert restricted_rows(None, ["a"], 1, VOCABULARY) is None  # no request has a grammar
    # "c" has no grammar: its row needs every logit
    assert restricted_rows(_grammar(["a", "b"], narrow), ["a", "b", "c"], 3, VOCABULARY) is None
    # a row the bitmask does not cover (a request still prefilling)
    assert restricted_rows(_grammar(["a", "b"], narrow), ["a", "b"], 3, VOCABULARY) is None
    wide = [set(range(0, VOCABULARY, 7))]  # 143 of 1000: more than an eighth
    assert restricted_rows(_grammar(["a"], wide), ["a"], 1, VOCABULARY) is None
    eighth = [set(range(0, VOCABULARY, 8))]  # 125 of 1000
    assert restricted_rows(_grammar(["a"], eighth), ["a"], 1, VOCABULARY) is not None


def test_a_subset_of_the_table_gives_its_rows_logits_bit_for_bit() -> None:
    variant = cpu_kernels.int8_table_kernel(512).variant
    if variant is None:
        pytest.skip(f"our int8 kernel does not run here: {cpu_kernels.load().reason}")
    generator = torch.Generator().manual_seed(0)
    layer = torch.nn.Module()
    weight = torch.randint(-128, 128, (4096, 512), dtype=torch.int8, generator=generator)
    scales = (torch.rand(4096, generator=generator) * 0.01 + 0.001).bfloat16()
    layer.register_parameter("weight", torch.nn.Parameter(weight, requires_grad=False))
    layer.register_parameter("weight_scale", torch.nn.Parameter(scales, requires_grad=False))
    method = Int8TableMethod()
    method.variant = variant
    token_ids = torch.tensor([0, 5, 6, 1000, 2047, 4095])
    for rows in (1, 2, 5):  # one position, and a position with drafts to check
        x = torch.randn(rows, 512, generator=generator).bfloat16()
        everything = method.apply(layer, x)
        assert torch.equal(method.apply_rows(layer, x, token_ids), everything[:, token_ids])
