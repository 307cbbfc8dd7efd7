"""`make-tiny`: Spark's config fields, tensor naming, special tokens and chat format."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from safetensors import safe_open
from transformers import AutoTokenizer, PreTrainedTokenizerBase

from serving.checkpoint import SparkConfig, make_checkpoint, spark_config, tensor_shapes
from serving.spark_format import BOS, EOS

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "tap",
            "description": "Tap an element",
            "parameters": {"type": "object", "properties": {"index": {"type": "integer"}}},
        },
    }
]


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_checkpoint(tmp_path_factory.mktemp("ckpt") / "tiny", "tiny", seed=0)


@pytest.fixture(scope="module")
def tokenizer(tiny_dir: Path) -> PreTrainedTokenizerBase:
    return AutoTokenizer.from_pretrained(str(tiny_dir))


def render(tokenizer: PreTrainedTokenizerBase, messages: list[dict[str, Any]], **kw: Any) -> str:
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True, **kw)
    assert isinstance(text, str)
    return text


def test_config_has_the_hybrid_layout_and_per_type_rope(tiny_dir: Path) -> None:
    raw = json.loads((tiny_dir / "config.json").read_text())
    config = SparkConfig.model_validate(raw)
    assert raw["model_type"] == "spark2_5" and raw["architectures"] == ["Spark2_5ForCausalLM"]
    assert config.layer_types == ["sliding_attention"] * 3 + ["full_attention"]
    assert raw["rope_parameters"]["full_attention"]["partial_rotary_factor"] == 0.25
    assert raw["rope_parameters"]["full_attention"]["rope_theta"] == 5_000_000
    assert raw["rope_parameters"]["sliding_attention"]["partial_rotary_factor"] == 1.0
    assert raw["tie_word_embeddings"] is True and raw["headwise_attn_output_gate"] is True
    assert raw["max_position_embeddings"] == 1_048_576 and raw["hidden_act"] == "gelu"


def test_real_shape_matches_the_published_model() -> None:
    config = spark_config("1.7b")
    assert config.layer_types.count("sliding_attention") == 21 and config.full_layers == 7
    parameters = 0
    for _, shape in tensor_shapes(config):
        count = 1
        for dim in shape:
            count *= dim
        parameters += count
    assert parameters == 1_707_657_216  # the 1.7B's count, tied embedding included once


def test_tensors_use_the_official_naming_and_shapes(tiny_dir: Path) -> None:
    config = SparkConfig.load(tiny_dir)
    with safe_open(str(tiny_dir / "model.safetensors"), "pt") as weights:
        stored = {name: tuple(weights.get_slice(name).get_shape()) for name in weights.keys()}  # noqa: SIM118
    assert stored == dict(tensor_shapes(config))
    assert stored["model.layers.0.self_attn.q_k_v_proj.weight"] == ((2 + 2 * 1) * 64, 128)
    assert stored["model.layers.0.self_attn.g_proj.weight"] == (2, 128)
    assert "lm_head.weight" not in stored


def test_same_seed_same_weights(tmp_path: Path, tiny_dir: Path) -> None:
    again = make_checkpoint(tmp_path / "again", "tiny", seed=0)
    assert (again / "model.safetensors").read_bytes() == (
        tiny_dir / "model.safetensors"
    ).read_bytes()


def test_special_tokens_keep_sparks_ids(tokenizer: PreTrainedTokenizerBase) -> None:
    assert (tokenizer.bos_token_id, tokenizer.eos_token_id, tokenizer.pad_token_id) == (0, 1, 2)
    assert tokenizer.convert_tokens_to_ids(["<think>", "</think>"]) == [3, 4]
    markup = "<tool_call>tap<arg_key>index</arg_key><arg_value>3</arg_value></tool_call>"
    ids = tokenizer.encode(markup, add_special_tokens=False)
    assert tokenizer.convert_ids_to_tokens(ids)[0] == "<tool_call>"
    # Markup is not special: it survives skip_special_tokens, so parsers can see it.
    assert tokenizer.decode(ids, skip_special_tokens=True) == markup


def test_template_opens_or_closes_thinking(tokenizer: PreTrainedTokenizerBase) -> None:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Turn on Wi-Fi"}]
    thinking = render(tokenizer, messages)
    direct = render(tokenizer, messages, enable_thinking=False)
    assert thinking.endswith(f"{EOS}{BOS}<|Bot|><think>")
    assert direct.endswith(f"{EOS}{BOS}<|Bot|></think>")
    assert thinking.startswith(f"{BOS}<|System|>\nyou are a helpful assistant.{EOS}")
    assert f"{BOS}<|User|>Turn on Wi-Fi{EOS}" in thinking


def test_template_renders_tools_calls_and_merged_results(
    tokenizer: PreTrainedTokenizerBase,
) -> None:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "Operate the phone."},
        {"role": "user", "content": "Turn on Wi-Fi"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"type": "function", "function": {"name": "tap", "arguments": {"index": 3}}}
            ],
        },
        {"role": "tool", "content": "tapped"},
        {"role": "tool", "content": "screen changed"},
    ]
    text = render(tokenizer, messages, tools=TOOLS)
    system = text[: text.index(EOS)]
    assert "<tools>" in system and '"name": "tap"' in system
    assert system.endswith("\n\nOperate the phone.")
    assert (
        f"{BOS}<|Bot|></think><tool_call>tap<arg_key>index</arg_key>"
        f"<arg_value>3</arg_value></tool_call>{EOS}" in text
    )
    assert (
        f"{BOS}<|Tool|><tool_response>tapped</tool_response>"
        f"<tool_response>screen changed</tool_response>{EOS}" in text
    )


def test_make_tiny_command_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    result = subprocess.run(
        [sys.executable, "-m", "agent.cli", "make-tiny", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.strip().startswith("error:") and len(result.stderr.splitlines()) == 1
    assert (tmp_path / "keep.txt").read_text() == "mine"
