"""Our Spark checkpoints as GGUF files, for the llama.cpp peer of `bench serving`.

PyPI's `gguf` package knows nothing of Spark, so the architecture's keys and tensor names are
written here explicitly, as llama.cpp's `spark2_5` loader reads them. The matrices go out as
F16 (numpy has no bf16; random N(0, 0.02) weights lose nothing); llama.cpp's own quantizer makes
Q8_0 and Q4_K_M from that file.

The tokenizer is our byte-level BPE, padded with unused placeholder tokens up to the model's
vocabulary size (llama.cpp sizes the embedding from the token list).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from serving.checkpoint import SparkConfig

if TYPE_CHECKING:
    import numpy

ARCHITECTURE = "spark2_5"
_LAYER_TENSORS = {
    "input_layernorm.weight": "attn_norm.weight",
    "self_attn.q_k_v_proj.weight": "attn_qkv.weight",
    "self_attn.g_proj.weight": "attn_gate.weight",
    "self_attn.out_proj.weight": "attn_output.weight",
    "post_attention_layernorm.weight": "ffn_norm.weight",
    "mlp.gate_proj.weight": "ffn_gate.weight",
    "mlp.up_proj.weight": "ffn_up.weight",
    "mlp.down_proj.weight": "ffn_down.weight",
}
_GLOBAL_TENSORS = {
    "model.embedding.weight": "token_embd.weight",
    "model.norm.weight": "output_norm.weight",
    "lm_head.weight": "output.weight",
}
# gguf's TokenType values (llama.cpp's LLAMA_TOKEN_TYPE_*).
_NORMAL, _CONTROL, _UNUSED = 1, 3, 5


class GgufExportError(ValueError):
    """The checkpoint cannot be written as GGUF (a tensor llama.cpp would not know)."""


def gguf_tensor_name(name: str) -> str:
    """`model.layers.3.mlp.up_proj.weight` -> `blk.3.ffn_up.weight`."""
    if name in _GLOBAL_TENSORS:
        return _GLOBAL_TENSORS[name]
    parts = name.split(".", 3)
    if len(parts) == 4 and parts[:2] == ["model", "layers"] and parts[3] in _LAYER_TENSORS:
        return f"blk.{int(parts[2])}.{_LAYER_TENSORS[parts[3]]}"
    raise GgufExportError(f"no GGUF name for tensor {name!r}")


def _gguf_tensors(model_dir: Path) -> Iterator[tuple[str, numpy.ndarray]]:
    """Matrices as F16; vectors (the norms) as F32, the only type llama.cpp multiplies them in."""
    import torch
    from safetensors import safe_open

    for shard in sorted(model_dir.glob("*.safetensors")):
        with safe_open(str(shard), framework="pt") as tensors:
            for name in tensors.keys():  # noqa: SIM118 (safe_open is not a mapping)
                tensor = tensors.get_tensor(name)
                dtype = torch.float16 if tensor.dim() > 1 else torch.float32
                yield name, tensor.to(dtype).numpy()


def _vocabulary(model_dir: Path, size: int) -> tuple[list[str], list[int], list[str]]:
    """Tokens (padded to `size`), their types and the BPE merges, from tokenizer.json."""
    tokenizer = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
    by_id = {index: token for token, index in tokenizer["model"]["vocab"].items()}
    control = set()
    for added in tokenizer.get("added_tokens", []):
        by_id[added["id"]] = added["content"]
        if added.get("special"):
            control.add(added["id"])
    if max(by_id) >= size:
        raise GgufExportError(f"the tokenizer has ids up to {max(by_id)}, the model {size} rows")
    tokens = [by_id.get(index, f"[PAD{index}]") for index in range(size)]
    types = [
        _CONTROL if index in control else _NORMAL if index in by_id else _UNUSED
        for index in range(size)
    ]
    merges = [
        merge if isinstance(merge, str) else " ".join(merge)
        for merge in tokenizer["model"].get("merges", [])
    ]
    return tokens, types, merges


def export_gguf(model_dir: Path, target: Path) -> Path:
    """Write `model_dir` (a bf16 Spark checkpoint) as one F16 GGUF file at `target`."""
    import gguf

    config = SparkConfig.load(model_dir)
    prefix = ARCHITECTURE
    full = config.rope_parameters["full_attention"]
    sliding = config.rope_parameters["sliding_attention"]
    writer = gguf.GGUFWriter(str(target), ARCHITECTURE)
    writer.add_name(model_dir.name)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    for key, value in {
        "context_length": config.max_position_embeddings,
        "embedding_length": config.hidden_size,
        "block_count": config.num_hidden_layers,
        "feed_forward_length": config.intermediate_size,
        "attention.head_count": config.num_attention_heads,
        "attention.head_count_kv": config.num_key_value_heads,
        "attention.key_length": config.head_dim,
        "attention.value_length": config.head_dim,
        "attention.sliding_window": config.sliding_window,
        "rope.dimension_count": round(config.head_dim * full.partial_rotary_factor),
        "rope.dimension_count_swa": round(config.head_dim * sliding.partial_rotary_factor),
        "vocab_size": config.vocab_size,
    }.items():
        writer.add_uint32(f"{prefix}.{key}", value)
    writer.add_float32(f"{prefix}.attention.layer_norm_rms_epsilon", config.rms_norm_eps)
    writer.add_float32(f"{prefix}.rope.freq_base", full.rope_theta)
    writer.add_float32(f"{prefix}.rope.freq_base_swa", sliding.rope_theta)
    writer.add_array(
        f"{prefix}.attention.sliding_window_pattern",
        [kind == "sliding_attention" for kind in config.layer_types],
    )
    tokens, types, merges = _vocabulary(model_dir, config.vocab_size)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre(ARCHITECTURE)
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    writer.add_bos_token_id(config.bos_token_id)
    writer.add_eos_token_id(config.eos_token_id)
    writer.add_pad_token_id(config.pad_token_id)
    writer.add_add_bos_token(False)
    for name, array in _gguf_tensors(model_dir):
        writer.add_tensor(gguf_tensor_name(name), array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return target
