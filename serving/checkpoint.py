"""Random-weight Spark2_5 checkpoints: the real config field set, tensor names, tokenizer, template.

`tiny` is small enough to serve in tests; `1.7b` has the real shapes for benchmarks. The
tokenizer is a byte-level BPE trained here, on text that ships with Python, with Spark's
special tokens; the chat template implements Spark's turn format.
"""

from __future__ import annotations

import json
import os
import sysconfig
from collections.abc import Iterable, Iterator
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from serving import spark_format
from serving.atomic import build_atomically

if TYPE_CHECKING:
    import torch

Shape = Literal["tiny", "1.7b"]
CHAT_TEMPLATE_FILE = "chat_template.jinja"
# Enough text for a stable BPE; shipped with every CPython, so training needs no network.
_TOKENIZER_CORPUS_MODULES = ("argparse.py", "textwrap.py", "json/decoder.py", "string.py")
_SHARD_BYTES = 1 << 30
# Bump when the tiny checkpoint's content changes, so caches built by older code are not reused.
TINY_REVISION = 2


class RopeParameters(BaseModel):
    rope_type: Literal["default"] = "default"
    rope_theta: float
    partial_rotary_factor: float


class SparkConfig(BaseModel):
    """config.json of a Spark2_5 checkpoint (the fields of the published configs)."""

    model_config = ConfigDict(extra="allow")

    architectures: list[str] = ["Spark2_5ForCausalLM"]
    model_type: Literal["spark2_5"] = "spark2_5"
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    layer_types: list[Literal["sliding_attention", "full_attention"]]
    sliding_window: int
    rope_parameters: dict[str, RopeParameters]
    vocab_size: int
    max_position_embeddings: int = 1_048_576
    tie_word_embeddings: bool = True
    hidden_act: Literal["gelu"] = "gelu"
    headwise_attn_output_gate: bool = True
    gate_attn_act_mode: Literal["sigmoid"] = "sigmoid"
    attention_bias: bool = False
    mlp_bias: bool = False
    attention_dropout: float = 0.0
    rms_norm_eps: float = 1e-6
    initializer_range: float = 0.02
    bos_token_id: int = 0
    eos_token_id: int = 1
    pad_token_id: int = 2
    dtype: str = "bfloat16"
    use_cache: bool = True
    transformers_version: str = "4.57.1"

    @property
    def full_layers(self) -> int:
        return self.layer_types.count("full_attention")

    @property
    def sliding_layers(self) -> int:
        return self.layer_types.count("sliding_attention")

    @classmethod
    def load(cls, model_dir: Path) -> SparkConfig:
        return cls.model_validate_json((model_dir / "config.json").read_text(encoding="utf-8"))


class ShapeSpec(BaseModel):
    hidden_size: int
    intermediate_size: int
    num_hidden_layers: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    sliding_window: int
    vocab_size: int
    tokenizer_vocab: int = Field(description="tokens the trained BPE gets (<= vocab_size)")


SHAPES: dict[Shape, ShapeSpec] = {
    # head_dim 64: the CPU attention kernel accepts only some head sizes (32, 64, 80, ... 256).
    "tiny": ShapeSpec(
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=4,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=64,
        sliding_window=32,
        vocab_size=1024,
        tokenizer_vocab=1024,
    ),
    "1.7b": ShapeSpec(
        hidden_size=2048,
        intermediate_size=6656,
        num_hidden_layers=28,
        num_attention_heads=8,
        num_key_value_heads=2,
        head_dim=256,
        sliding_window=512,
        vocab_size=131072,
        tokenizer_vocab=4096,
    ),
}


def spark_config(shape: Shape) -> SparkConfig:
    return config_for(SHAPES[shape])


def config_for(spec: ShapeSpec) -> SparkConfig:
    """The Spark2_5 config of a shape: Spark's layer layout, RoPE and every other field."""
    layers = spec.num_hidden_layers
    return SparkConfig(
        hidden_size=spec.hidden_size,
        intermediate_size=spec.intermediate_size,
        num_hidden_layers=layers,
        num_attention_heads=spec.num_attention_heads,
        num_key_value_heads=spec.num_key_value_heads,
        head_dim=spec.head_dim,
        # Three sliding-window layers, then one full-attention layer, repeating.
        layer_types=[
            "full_attention" if (i + 1) % 4 == 0 else "sliding_attention" for i in range(layers)
        ],
        sliding_window=spec.sliding_window,
        rope_parameters={
            "full_attention": RopeParameters(rope_theta=5_000_000.0, partial_rotary_factor=0.25),
            "sliding_attention": RopeParameters(rope_theta=10_000.0, partial_rotary_factor=1.0),
        },
        vocab_size=spec.vocab_size,
    )


def tensor_shapes(config: SparkConfig) -> Iterator[tuple[str, tuple[int, ...]]]:
    """Every tensor of the checkpoint, in the official plugin's naming, in file order."""
    hidden, heads, kv_heads = (
        config.hidden_size,
        config.num_attention_heads,
        config.num_key_value_heads,
    )
    yield "model.embedding.weight", (config.vocab_size, hidden)
    for i in range(config.num_hidden_layers):
        prefix = f"model.layers.{i}"
        yield f"{prefix}.input_layernorm.weight", (hidden,)
        yield (
            f"{prefix}.self_attn.q_k_v_proj.weight",
            ((heads + 2 * kv_heads) * config.head_dim, hidden),
        )
        yield f"{prefix}.self_attn.g_proj.weight", (heads, hidden)
        yield f"{prefix}.self_attn.out_proj.weight", (hidden, heads * config.head_dim)
        yield f"{prefix}.post_attention_layernorm.weight", (hidden,)
        yield f"{prefix}.mlp.gate_proj.weight", (config.intermediate_size, hidden)
        yield f"{prefix}.mlp.up_proj.weight", (config.intermediate_size, hidden)
        yield f"{prefix}.mlp.down_proj.weight", (hidden, config.intermediate_size)
    if not config.tie_word_embeddings:
        yield "lm_head.weight", (config.vocab_size, hidden)
    yield "model.norm.weight", (hidden,)


def write_random_weights(model_dir: Path, config: SparkConfig, seed: int) -> None:
    """Random bf16 weights of `config`'s shapes."""
    import torch

    generator = torch.Generator().manual_seed(seed)

    def tensors() -> Iterator[tuple[str, torch.Tensor]]:
        for name, shape in tensor_shapes(config):
            if name.endswith("norm.weight"):
                # Not all ones: a reference that got the norm's weight convention wrong shows it.
                tensor = 1.0 + 0.1 * torch.randn(shape, generator=generator)
            else:
                tensor = config.initializer_range * torch.randn(shape, generator=generator)
            yield name, tensor.to(torch.bfloat16)

    write_weights(model_dir, tensors())


def write_weights(
    model_dir: Path,
    tensors: Iterable[tuple[str, torch.Tensor]],
    shard_bytes: int = _SHARD_BYTES,
) -> None:
    """safetensors shards of at most `shard_bytes`, so only one shard is ever held in memory;
    a single shard is `model.safetensors`, several get an index."""
    from safetensors.torch import save_file

    weight_map: dict[str, str] = {}
    shard: dict[str, torch.Tensor] = {}
    shard_files: list[str] = []

    def flush() -> None:
        shard_files.append(f"model-{len(shard_files) + 1:05d}.safetensors")
        save_file(shard, str(model_dir / shard_files[-1]), metadata={"format": "pt"})
        weight_map.update(dict.fromkeys(shard, shard_files[-1]))
        shard.clear()

    for name, tensor in tensors:
        if shard and sum(t.nbytes for t in shard.values()) + tensor.nbytes > shard_bytes:
            flush()
        shard[name] = tensor
    flush()
    if len(shard_files) == 1:
        (model_dir / shard_files[0]).rename(model_dir / "model.safetensors")
        return
    index = {"metadata": {}, "weight_map": weight_map}
    (model_dir / "model.safetensors.index.json").write_text(json.dumps(index, indent=1) + "\n")


# Words never carry the space before them and numbers split into digits, so a value the model
# copies from the goal or the screen into a call is the same tokens in both places ("Alice" after
# a space, after a quote or first in an argument; "2045" inside any number). A policy this small
# learns to copy tokens; it cannot learn a second spelling of every name.
_PRE_TOKEN_PATTERN = r"[\p{L}\p{M}]+|\p{N}|[^\s\p{L}\p{M}\p{N}]+|\s+"


def _tokenizer_corpus() -> Iterator[str]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for module in _TOKENIZER_CORPUS_MODULES:
        yield (stdlib / module).read_text(encoding="utf-8")
    yield chat_template_text()


def write_tokenizer(model_dir: Path, vocab_size: int, corpus: Iterable[str] | None = None) -> None:
    """A byte-level BPE with Spark's special and markup tokens, trained on `corpus` (default:
    Python's own sources and the chat template)."""
    from tokenizers import (
        AddedToken,
        Regex,
        Tokenizer,
        decoders,
        models,
        pre_tokenizers,
        trainers,
    )
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE(unk_token=spark_format.UNK, byte_fallback=False))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(_PRE_TOKEN_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size - len(spark_format.MARKUP_TOKENS),
        special_tokens=list(spark_format.SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(corpus or _tokenizer_corpus(), trainer=trainer)
    # Markup comes last (as in Spark's vocabulary) and is not special: it stays visible in
    # decoded text, where the tool parser and the grammar look for it.
    tokenizer.add_tokens([AddedToken(token, special=False) for token in spark_format.MARKUP_TOKENS])
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token=spark_format.BOS,
        eos_token=spark_format.EOS,
        pad_token=spark_format.PAD,
        unk_token=spark_format.UNK,
        model_max_length=1_048_576,
    )
    fast.save_pretrained(str(model_dir))


def chat_template_text() -> str:
    return resources.files("serving").joinpath(CHAT_TEMPLATE_FILE).read_text(encoding="utf-8")


def make_checkpoint(model_dir: Path, shape: Shape = "tiny", seed: int = 0) -> Path:
    """Write a complete random checkpoint into `model_dir` (created; must be empty or absent)."""
    if model_dir.exists() and any(model_dir.iterdir()):
        raise FileExistsError(f"{model_dir} is not empty")
    model_dir.mkdir(parents=True, exist_ok=True)
    config = spark_config(shape)
    write_tokenizer(model_dir, SHAPES[shape].tokenizer_vocab)
    write_model_files(model_dir, config)
    write_random_weights(model_dir, config, seed)
    return model_dir


def write_model_files(model_dir: Path, config: SparkConfig) -> None:
    """Everything of a checkpoint but its weights and tokenizer: config, generation defaults
    (the model card's sampling) and the chat template."""
    (model_dir / "config.json").write_text(config.model_dump_json(indent=2) + "\n")
    generation = {
        "bos_token_id": 0,
        "eos_token_id": 1,
        "pad_token_id": 2,
        "temperature": 1.0,
        "top_p": 0.95,
    }
    (model_dir / "generation_config.json").write_text(json.dumps(generation, indent=2) + "\n")
    (model_dir / CHAT_TEMPLATE_FILE).write_text(chat_template_text(), encoding="utf-8")


def bundled_checkpoint(name: str) -> Path | None:
    """A trained checkpoint that ships with the project (`fixtures/models/NAME`), if any."""
    if not name or "/" in name or name.startswith("."):
        return None
    directory = Path(str(resources.files("fixtures").joinpath("models", name)))
    return directory if (directory / "config.json").is_file() else None


def user_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "phone-agent"


def cached_tiny_checkpoint() -> Path:
    """The tiny checkpoint `serve --model tiny` uses: built once, then reused.

    Built in a sibling directory and renamed into place, so an interrupted build never leaves
    a half-written checkpoint behind that later runs would trust.
    """
    target = user_cache_dir() / "models" / f"spark-tiny-r{TINY_REVISION}"
    if (target / "config.json").is_file():
        return target
    with build_atomically(target) as building:
        make_checkpoint(building, "tiny", seed=0)
    return target
