"""The reference forward pass itself: the conventions it states are the ones it computes."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

import torch

from serving.checkpoint import SparkConfig, spark_config, tensor_shapes
from serving.reference_forward import spark_logits


def random_weights(config: SparkConfig, seed: int = 0) -> dict[str, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return {
        name: (1.0 if name.endswith("norm.weight") else 0.0)
        + 0.2 * torch.randn(shape, generator=generator)
        for name, shape in tensor_shapes(config)
    }


@pytest.fixture(scope="module")
def config() -> SparkConfig:
    return spark_config("tiny")


def test_logits_depend_only_on_earlier_tokens(config: SparkConfig) -> None:
    weights = random_weights(config)
    tokens = list(range(10, 50))
    changed = tokens[:30] + [7] * 10
    before, after = spark_logits(config, weights, tokens), spark_logits(config, weights, changed)
    torch.testing.assert_close(before[:30], after[:30])
    assert not torch.allclose(before[30:], after[30:])


def test_sliding_layers_see_exactly_window_tokens(config: SparkConfig) -> None:
    window = config.sliding_window
    # One layer: with more, earlier tokens reach further through the layers in between.
    sliding_only = config.model_copy(
        update={"num_hidden_layers": 1, "layer_types": ["sliding_attention"]}
    )
    weights = random_weights(sliding_only)
    tokens = list(range(100, 100 + window + 1))
    last = len(tokens) - 1
    # The token `window` positions back is out of the last token's view ...
    edited_far = [5, *tokens[1:]]
    far = spark_logits(sliding_only, weights, edited_far)
    torch.testing.assert_close(far[last], spark_logits(sliding_only, weights, tokens)[last])
    # ... the one `window - 1` back (window tokens counting the current one) is in it.
    edited_near = [tokens[0], 5, *tokens[2:]]
    near = spark_logits(sliding_only, weights, edited_near)
    assert not torch.allclose(near[last], spark_logits(sliding_only, weights, tokens)[last])
