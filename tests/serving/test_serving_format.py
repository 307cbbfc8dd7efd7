"""Spark's compact tool-call syntax: parsing, typing, streaming, and nothing ever lost."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from serving.spark_format import (
    StreamingCallSplitter,
    convert_value,
    parse_call_block,
    split_tool_calls,
)

TOOLS = {
    "tap": {"type": "object", "properties": {"index": {"type": "integer"}}},
    "type_text": {
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "submit": {"type": "boolean"},
            "index": {"type": "integer"},
        },
    },
    "wait": {"type": "object", "properties": {"seconds": {"type": "number"}}},
    "press_key": {"type": "object", "properties": {"key": {"type": "string"}}},
}


def call(tool: str, **arguments: str) -> str:
    pairs = "".join(
        f"<arg_key>{key}</arg_key><arg_value>{value}</arg_value>"
        for key, value in arguments.items()
    )
    return f"<tool_call>{tool}{pairs}</tool_call>"


def test_a_compact_call_becomes_typed_arguments() -> None:
    calls, content = split_tool_calls(
        "Tapping Wi-Fi." + call("type_text", text="007", submit="true", index="4"), TOOLS
    )
    assert content == "Tapping Wi-Fi."
    assert [(c.name, c.arguments) for c in calls] == [
        ("type_text", {"text": "007", "submit": True, "index": 4})
    ]


def test_calls_without_arguments_and_several_calls_in_a_row() -> None:
    calls, content = split_tool_calls(call("wait", seconds="1.5") + "\n" + call("tap"), TOOLS)
    assert [(c.name, c.arguments) for c in calls] == [("wait", {"seconds": 1.5}), ("tap", {})]
    assert content == "\n"


def test_unknown_tool_stays_in_the_content_verbatim() -> None:
    text = "ok " + call("launch_app", name="Settings") + " then " + call("tap", index="2")
    calls, content = split_tool_calls(text, TOOLS)
    assert [c.name for c in calls] == ["tap"]
    assert content == "ok " + call("launch_app", name="Settings") + " then "


def test_unclosed_call_stays_in_the_content() -> None:
    text = "<tool_call>tap<arg_key>index</arg_key><arg_value>3"
    assert split_tool_calls(text, TOOLS) == ([], text)


def test_values_that_do_not_convert_keep_their_text() -> None:
    assert convert_value("three", "integer") == "three"
    assert convert_value("yes", "boolean") == "yes"
    assert convert_value('["a", "b"]', "array") == ["a", "b"]
    assert convert_value("null", "integer") is None
    assert convert_value(" 12 ", "string") == " 12 "
    assert convert_value("2.0", "number") == 2.0
    assert convert_value("2", "number") == 2


def test_without_a_tool_list_any_named_call_parses() -> None:
    parsed = parse_call_block(call("anything", k="v"), {})
    assert parsed is not None
    assert (parsed.name, parsed.arguments) == ("anything", {"k": "v"})
    assert parse_call_block("<tool_call><arg_key>k</arg_key></tool_call>", {}) is None


# Text built from the pieces a model emits, so calls, near-calls and broken calls all occur.
_PIECES = st.sampled_from(
    [
        "<tool_call>",
        "</tool_call>",
        "<arg_key>",
        "</arg_key>",
        "<arg_value>",
        "</arg_value>",
        "tap",
        "index",
        "3",
        "launch_app",
        " ",
        "\n",
        "<tool_",
        "</think>",
        "Wi-Fi",
    ]
)
_MODEL_TEXT = st.lists(_PIECES | st.text(max_size=4), max_size=30).map("".join)


@given(_MODEL_TEXT)
def test_text_without_parsed_calls_comes_back_unchanged(text: str) -> None:
    calls, content = split_tool_calls(text, TOOLS)
    if not calls:
        assert content == text


@given(_MODEL_TEXT, st.lists(st.integers(min_value=1, max_value=7), min_size=1))
def test_streaming_in_any_chunks_equals_parsing_at_once(text: str, sizes: list[int]) -> None:
    splitter = StreamingCallSplitter(TOOLS)
    streamed_calls, streamed_content = [], []
    position, turn = 0, 0
    while position < len(text):
        size = sizes[turn % len(sizes)]
        calls, content = splitter.feed(text[position : position + size])
        streamed_calls += calls
        streamed_content.append(content)
        position, turn = position + size, turn + 1
    streamed_content.append(splitter.finish())
    calls, content = split_tool_calls(text, TOOLS)
    assert streamed_calls == calls
    assert "".join(streamed_content) == content


_SAFE_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_characters="<>"), max_size=12)


@given(st.sampled_from(["press_key", "type_text"]), _SAFE_TEXT)
def test_string_arguments_round_trip(name: str, value: str) -> None:
    key = "key" if name == "press_key" else "text"
    calls, content = split_tool_calls(call(name, **{key: value}), TOOLS)
    assert content == ""
    assert calls[0].arguments == {key: value}
    assert json.loads(calls[0].arguments_json()) == {key: value}
