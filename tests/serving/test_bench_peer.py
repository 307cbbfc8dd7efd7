"""The llama.cpp peer of `bench serving`: GGUF export and measurement in a child process.

The peer's packages are an optional extra that compiles llama.cpp, so CI does not have them:
what needs them skips with that reason; the failure path runs everywhere.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from serving.bench import llamacpp
from serving.bench.gguf_export import GgufExportError, gguf_tensor_name
from serving.checkpoint import make_checkpoint

needs_gguf = pytest.mark.skipif(
    importlib.util.find_spec("gguf") is None, reason="gguf not installed (the peer extra)"
)
needs_llama_cpp = pytest.mark.skipif(
    llamacpp.unavailable_reason() is not None,
    reason="llama-cpp-python not installed (the peer extra; compiling it takes minutes)",
)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_checkpoint(tmp_path_factory.mktemp("bf16") / "tiny", "tiny", seed=0)


def test_tensor_names_follow_llama_cpps_spark_loader() -> None:
    assert gguf_tensor_name("model.embedding.weight") == "token_embd.weight"
    assert gguf_tensor_name("model.layers.27.self_attn.q_k_v_proj.weight") == (
        "blk.27.attn_qkv.weight"
    )
    assert gguf_tensor_name("model.layers.0.self_attn.g_proj.weight") == "blk.0.attn_gate.weight"
    assert gguf_tensor_name("model.layers.3.mlp.down_proj.weight") == "blk.3.ffn_down.weight"
    with pytest.raises(GgufExportError, match="rotary_emb"):
        gguf_tensor_name("model.layers.0.self_attn.rotary_emb.inv_freq")


def test_a_file_llama_cpp_cannot_load_is_a_row_with_its_cause(tmp_path: Path, tiny: Path) -> None:
    (tmp_path / "model-F16.gguf").write_bytes(b"not a gguf file")
    (row,) = llamacpp.measure_peer(
        tiny, tmp_path, ["F16"], prefill_tokens=8, decode_tokens=4, runs=1, timeout_s=120
    )
    assert row.format == "F16" and row.paired_scheme == "bf16"
    assert row.error is not None and "measure-F16.log" in row.error
    assert row.decode_tokens_per_s is None and row.prefill_tokens_per_s is None


@needs_gguf
def test_the_gguf_carries_sparks_keys_vocabulary_and_every_tensor(
    tmp_path: Path, tiny: Path
) -> None:
    import gguf

    from serving.bench.gguf_export import export_gguf
    from serving.checkpoint import SparkConfig

    config = SparkConfig.load(tiny)
    reader = gguf.GGUFReader(str(export_gguf(tiny, tmp_path / "tiny.gguf")))

    def value(key: str) -> object:
        return reader.fields[key].contents()

    assert value("general.architecture") == "spark2_5"
    assert value("spark2_5.block_count") == config.num_hidden_layers
    assert value("spark2_5.attention.sliding_window_pattern") == [
        kind == "sliding_attention" for kind in config.layer_types
    ]
    assert value("spark2_5.rope.dimension_count") == config.head_dim // 4  # partial rotary
    assert value("spark2_5.rope.dimension_count_swa") == config.head_dim
    assert len(value("tokenizer.ggml.tokens")) == config.vocab_size  # type: ignore[arg-type]
    names = {tensor.name for tensor in reader.tensors}
    assert {"token_embd.weight", "output_norm.weight", "blk.3.attn_gate.weight"} <= names
    assert len(names) == 2 + 8 * config.num_hidden_layers
    qkv = next(t for t in reader.tensors if t.name == "blk.0.attn_qkv.weight")
    heads = config.num_attention_heads + 2 * config.num_key_value_heads
    assert list(qkv.shape) == [config.hidden_size, heads * config.head_dim]


@pytest.mark.slow
@needs_llama_cpp
def test_llama_cpp_measures_the_tiny_checkpoint_in_each_format(tmp_path: Path, tiny: Path) -> None:
    rows = llamacpp.measure_peer(
        tiny, tmp_path, ["F16", "Q8_0"], prefill_tokens=32, decode_tokens=8, runs=1
    )
    assert [row.error for row in rows] == [None, None]
    f16, q8 = rows
    assert q8.gguf_bytes is not None and f16.gguf_bytes is not None
    assert q8.gguf_bytes < f16.gguf_bytes
    for row in rows:
        assert row.decode_tokens_per_s and row.prefill_tokens_per_s and row.load_seconds is not None
        assert row.settled_rss_anon_bytes and row.peak_rss_anon_bytes
        assert row.peak_rss_anon_bytes >= row.settled_rss_anon_bytes
        assert row.extra_buffer_types is (not llamacpp.cpu_has_amx())
    again = llamacpp.measure_peer(
        tiny, tmp_path, ["Q8_0"], prefill_tokens=32, decode_tokens=8, runs=1
    )
    assert again[0].convert_seconds is None  # the GGUF of the first run is reused


def test_a_parameter_field_llama_cpp_does_not_have_is_refused_not_ignored() -> None:
    import ctypes

    class Params(ctypes.Structure):
        _fields_ = [("n_ctx", ctypes.c_uint32), ("load_mode", ctypes.c_int)]

    params = Params()
    llamacpp._set_fields(params, n_ctx=64, load_mode=0)
    assert (params.n_ctx, params.load_mode) == (64, 0)
    with pytest.raises(SystemExit, match="Params has no field use_mmap"):
        llamacpp._set_fields(params, use_mmap=False)
