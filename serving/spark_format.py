"""Spark-X2.5's text format: its special tokens and its compact tool-call syntax.

A call looks like `<tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>`.
Parsing lives here, free of vLLM, so the server-side parser and the tests share one definition.
Unlike the official parser, nothing the model wrote is dropped: a block naming an unknown tool,
an unclosed block or a block without a name stays in the content, byte for byte, so the agent's
own repair can still read it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

BOS = "<｜start▁of▁sentence｜>"
EOS = "<｜end▁of▁sentence｜>"
PAD = "<｜▁pad▁｜>"
UNK = "<｜▁unk▁｜>"
THINK_START = "<think>"
THINK_END = "</think>"
ROLE_TOKENS = ("<|System|>", "<|User|>", "<|Tool|>", "<|Developer|>", "<|Bot|>")
TOOL_CALL_START = "<tool_call>"
TOOL_CALL_END = "</tool_call>"
ARG_KEY_START, ARG_KEY_END = "<arg_key>", "</arg_key>"
ARG_VALUE_START, ARG_VALUE_END = "<arg_value>", "</arg_value>"
MARKUP_TOKENS = (
    TOOL_CALL_START,
    TOOL_CALL_END,
    "<tool_response>",
    "</tool_response>",
    ARG_KEY_START,
    ARG_KEY_END,
    ARG_VALUE_START,
    ARG_VALUE_END,
    "<tools>",
    "</tools>",
)
# Spark's ids 0-4 are BOS, EOS, pad, <think>, </think>; the tiny tokenizer keeps that order.
SPECIAL_TOKENS = (BOS, EOS, PAD, THINK_START, THINK_END, UNK, *ROLE_TOKENS)

_ARG_PAIR = re.compile(
    re.escape(ARG_KEY_START)
    + r"(.*?)"
    + re.escape(ARG_KEY_END)
    + r"\s*"
    + re.escape(ARG_VALUE_START)
    + r"(.*?)"
    + re.escape(ARG_VALUE_END),
    re.DOTALL,
)


@dataclass(frozen=True)
class ParsedCall:
    name: str
    arguments: dict[str, Any]

    def arguments_json(self) -> str:
        return json.dumps(self.arguments, ensure_ascii=False)


def convert_value(raw: str, schema_type: str | None) -> Any:
    """The typed value of one `<arg_value>`, guided by the parameter's JSON-Schema type.

    Strings stay verbatim; anything that does not convert stays the raw string, because a wrong
    type is the agent's to repair and a lost value is not.
    """
    if schema_type in (None, "string"):
        return raw
    text = raw.strip()
    if text == "null":
        return None
    if schema_type == "integer":
        try:
            return int(text)
        except ValueError:
            pass
    elif schema_type == "number":
        try:
            number = float(text)
        except ValueError:
            pass
        else:
            return int(number) if number.is_integer() and "." not in text else number
    elif schema_type == "boolean":
        if text.lower() in ("true", "1"):
            return True
        if text.lower() in ("false", "0"):
            return False
    try:
        return json.loads(text)
    except ValueError:
        return raw


def parse_call_block(block: str, tools: Mapping[str, Mapping[str, Any]]) -> ParsedCall | None:
    """One complete `<tool_call>...</tool_call>` block, or None when it names no known tool.

    `tools` maps each offered tool's name to its JSON-Schema `parameters`. With no tools
    offered, any name is accepted (the caller asked for parsing without a schema).
    """
    body = block.removeprefix(TOOL_CALL_START).removesuffix(TOOL_CALL_END)
    first_key = body.find(ARG_KEY_START)
    name = (body if first_key < 0 else body[:first_key]).strip()
    if not name or (tools and name not in tools):
        return None
    properties = tools.get(name, {}).get("properties", {}) if tools else {}
    arguments: dict[str, Any] = {}
    for key, raw_value in _ARG_PAIR.findall(body[max(first_key, 0) :]):
        key = key.strip()
        if key:
            declared = properties.get(key, {})
            schema_type = declared.get("type") if isinstance(declared, Mapping) else None
            arguments[key] = convert_value(
                raw_value, schema_type if isinstance(schema_type, str) else None
            )
    return ParsedCall(name=name, arguments=arguments)


def split_tool_calls(
    text: str, tools: Mapping[str, Mapping[str, Any]]
) -> tuple[list[ParsedCall], str]:
    """The calls in `text` and everything else, in order, as content.

    Blocks that do not parse (unknown tool, no name, no closing tag) are part of the content.
    """
    calls: list[ParsedCall] = []
    content: list[str] = []
    cursor = 0
    while True:
        start = text.find(TOOL_CALL_START, cursor)
        end = -1 if start < 0 else text.find(TOOL_CALL_END, start + len(TOOL_CALL_START))
        if end < 0:
            content.append(text[cursor:])
            return calls, "".join(content)
        end += len(TOOL_CALL_END)
        content.append(text[cursor:start])
        parsed = parse_call_block(text[start:end], tools)
        if parsed is None:
            content.append(text[start:end])
        else:
            calls.append(parsed)
        cursor = end


def partial_prefix_length(text: str, marker: str) -> int:
    """How many trailing characters of `text` could be the start of `marker`."""
    for size in range(min(len(marker) - 1, len(text)), 0, -1):
        if text.endswith(marker[:size]):
            return size
    return 0


class StreamingCallSplitter:
    """Incremental `split_tool_calls`: feed text deltas, get content and completed calls.

    Text that might still become a call is held back; `finish()` releases whatever is left,
    including an unclosed block, as content.
    """

    def __init__(self, tools: Mapping[str, Mapping[str, Any]]) -> None:
        self._tools = tools
        self._pending = ""

    def feed(self, delta: str) -> tuple[list[ParsedCall], str]:
        self._pending += delta
        calls: list[ParsedCall] = []
        content: list[str] = []
        while self._pending:
            start = self._pending.find(TOOL_CALL_START)
            if start < 0:
                keep = partial_prefix_length(self._pending, TOOL_CALL_START)
                content.append(self._pending[: len(self._pending) - keep])
                self._pending = self._pending[len(self._pending) - keep :]
                break
            content.append(self._pending[:start])
            self._pending = self._pending[start:]
            end = self._pending.find(TOOL_CALL_END, len(TOOL_CALL_START))
            if end < 0:
                break
            end += len(TOOL_CALL_END)
            block, self._pending = self._pending[:end], self._pending[end:]
            parsed = parse_call_block(block, self._tools)
            if parsed is None:
                content.append(block)
            else:
                calls.append(parsed)
        return calls, "".join(content)

    def finish(self) -> str:
        rest, self._pending = self._pending, ""
        return rest
