"""Our vLLM plugin's fixes, each checked where it acts (vLLM imported, no engine started)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("vllm")
pytest.importorskip("vllm_spark2_5_plugin")

from vllm import ModelRegistry
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
from vllm.model_executor.layers.quantization.utils.gptq_utils import (
    is_layer_gptq_quantized,
)
from vllm.tool_parsers.abstract_tool_parser import ToolParserManager
from vllm_spark2_5_plugin.spark2_5 import (
    Spark2_5ForCausalLM as OfficialSpark2_5ForCausalLM,
)

import serving.vllm_plugin
from serving.vllm_plugin import register
from serving.vllm_plugin.model import Spark2_5ForCausalLM
from serving.vllm_plugin.tool_parser import SparkToolParser
from tests.support.paths import REPO_ROOT

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "tap",
            "parameters": {"type": "object", "properties": {"index": {"type": "integer"}}},
        },
    }
]


@pytest.fixture(scope="module", autouse=True)
def registered() -> None:
    register()


def spark_parser() -> SparkToolParser:
    return SparkToolParser(tokenizer=None, tools=list(request().tools or []))


def request(**fields: object) -> ChatCompletionRequest:
    return ChatCompletionRequest.model_validate(
        {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": TOOLS, **fields}
    )


def test_architecture_resolves_to_the_corrected_model() -> None:
    model_class = ModelRegistry.models["Spark2_5ForCausalLM"].load_model_cls()
    assert model_class is Spark2_5ForCausalLM
    assert issubclass(model_class, OfficialSpark2_5ForCausalLM)


def test_spark25_parser_imports_on_this_vllm() -> None:
    # The official parser imports modules that vLLM 0.32 moved; ours must resolve and load.
    assert ToolParserManager.get_tool_parser("spark25") is SparkToolParser


def test_required_tool_choice_gets_a_grammar() -> None:
    parser = spark_parser()
    assert parser.get_structural_tag(request(tool_choice="required")) is not None
    named = {"type": "function", "function": {"name": "tap"}}
    assert parser.get_structural_tag(request(tool_choice=named)) is not None


def test_parser_keeps_unknown_calls_and_types_known_ones() -> None:
    parser = spark_parser()
    text = (
        "<tool_call>launch_app<arg_key>name</arg_key><arg_value>Settings</arg_value></tool_call>"
        "<tool_call>tap<arg_key>index</arg_key><arg_value>4</arg_value></tool_call>"
    )
    result = parser.extract_tool_calls(text, request())
    assert [(c.function.name, c.function.arguments) for c in result.tool_calls] == [
        ("tap", '{"index": 4}')
    ]
    assert result.content is not None and result.content.startswith("<tool_call>launch_app")


def test_streamed_unclosed_call_is_returned_at_the_end() -> None:
    parser = spark_parser()
    text = "Let me tap.<tool_call>tap<arg_key>index</arg_key><arg_value>4"
    content = []
    for start in range(0, len(text), 5):
        delta = parser.extract_tool_calls_streaming(
            "", "", text[start : start + 5], [], [], [], None
        )
        if delta is not None:
            assert not delta.tool_calls
            content.append(delta.content or "")
    final = parser.finish_streaming()
    assert final is not None
    assert "".join(content) + (final.content or "") == text


def test_streamed_call_is_emitted_once_complete() -> None:
    parser = spark_parser()
    chunks = ["<tool_", "call>tap<arg_key>index</arg", "_key><arg_value>7</arg_value></tool_call>"]
    deltas = [parser.extract_tool_calls_streaming("", "", c, [], [], [], None) for c in chunks]
    assert deltas[0] is None and deltas[1] is None
    assert deltas[2] is not None and deltas[2].tool_calls[0].function is not None
    assert deltas[2].tool_calls[0].function.name == "tap"
    assert deltas[2].tool_calls[0].function.arguments == '{"index": 7}'


def test_fused_qkv_counts_as_quantized_for_gptq() -> None:
    # A GPTQ export of Spark lists the fused module it quantized, as stored in the checkpoint.
    quantized = ["self_attn.q_k_v_proj", "self_attn.out_proj", "mlp.gate_proj", "mlp.up_proj"]
    prefix = "model.layers.0.self_attn.q_k_v_proj"
    assert is_layer_gptq_quantized(prefix, quantized, Spark2_5ForCausalLM.packed_modules_mapping)
    assert not is_layer_gptq_quantized(
        prefix, quantized, OfficialSpark2_5ForCausalLM.packed_modules_mapping
    )


def test_register_requests_amx_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []

    def record_request() -> bool:
        calls.append("amx")
        return True

    monkeypatch.setattr(serving.vllm_plugin, "request_amx_tiles", record_request)
    register()
    assert calls == ["amx"]


def _cpu_has_amx() -> bool:
    try:
        return "amx_tile" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


@pytest.mark.slow  # imports vLLM in a fresh process
@pytest.mark.skipif(not _cpu_has_amx(), reason="this CPU has no AMX tiles")
def test_plugin_load_grants_amx_tiles_to_the_process() -> None:
    probe = (
        "from serving.vllm_plugin import register; from serving.vllm_plugin.amx import "
        "amx_tiles_permitted as ok; before = ok(); register(); print(before, ok())"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO_ROOT, check=True
    )
    assert result.stdout.split()[-2:] == ["False", "True"]
