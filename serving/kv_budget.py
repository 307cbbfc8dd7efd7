"""KV-cache size for Spark's hybrid layout, so the CPU backend reserves what is needed, not 90%.

Full-attention layers keep every token of a sequence. Sliding-window layers keep only the window
plus the tokens of one scheduled batch (vLLM frees out-of-window blocks only after a step
settles). Every layer pays in whole blocks. vLLM's CPU backend sizes its cache from
`--kv-cache-memory-bytes` unless `VLLM_CPU_KVCACHE_SPACE` (whole GiB) is set, which overrides it;
the launcher therefore passes the bytes and clears that variable.
"""

from __future__ import annotations

from dataclasses import dataclass

from serving.checkpoint import SparkConfig

# Tokens per KV block, passed to vLLM (its CPU backend's default is 128; its attention kernels
# take any multiple of 32). A prefix is reused from the cache up to the last whole block it
# shares, so an agent's next step recomputes on average half a block of what it shares with the
# one before: 16 tokens in blocks of 32 against 64 in blocks of 128.
CPU_BLOCK_SIZE = 32
_DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "float32": 4}


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True)
class KVBudget:
    bytes_per_token_per_layer: int
    full_tokens_per_sequence: int
    sliding_tokens_per_sequence: int
    sequences: int
    total_bytes: int

    def describe(self) -> str:
        return (
            f"{self.total_bytes / 2**20:.0f} MiB KV cache for {self.sequences} sequence(s): "
            f"{self.full_tokens_per_sequence} tokens on full layers, "
            f"{self.sliding_tokens_per_sequence} on sliding ones"
        )


def kv_cache_budget(
    config: SparkConfig,
    max_model_len: int,
    max_num_seqs: int,
    max_num_batched_tokens: int,
    kv_dtype: str = "bfloat16",
    block_size: int = CPU_BLOCK_SIZE,
) -> KVBudget:
    """Bytes of KV cache that admit `max_num_seqs` sequences of `max_model_len` tokens each."""
    per_token_layer = 2 * config.num_key_value_heads * config.head_dim * _DTYPE_BYTES[kv_dtype]
    full_tokens = _ceil_div(max_model_len, block_size) * block_size
    sliding_span = min(config.sliding_window + max_num_batched_tokens, max_model_len)
    # One more block: the window rarely starts on a block boundary.
    sliding_tokens = (_ceil_div(sliding_span, block_size) + 1) * block_size
    per_sequence = per_token_layer * (
        config.full_layers * full_tokens + config.sliding_layers * sliding_tokens
    )
    # One spare block per layer: vLLM keeps a null block aside in its pool.
    spare = per_token_layer * block_size * config.num_hidden_layers
    return KVBudget(
        bytes_per_token_per_layer=per_token_layer,
        full_tokens_per_sequence=full_tokens,
        sliding_tokens_per_sequence=sliding_tokens,
        sequences=max_num_seqs,
        total_bytes=per_sequence * max_num_seqs + spare,
    )
