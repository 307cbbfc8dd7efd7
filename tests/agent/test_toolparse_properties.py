"""Generated input for the reply parser: it never raises, and every valid call it is shown in
any supported form comes back as the same call."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent import toolparse
from agent.actions import KEY_NAMES, TOOLS, validate_call
from agent.toolparse import ParsedCall, parse_reply
from tests.support.work import lines_run

# A value in the compact form cannot contain the tags that delimit it, and one in a fenced block
# cannot contain a fence; "<", ">" and "`" are left out of generated text for every form alike.
_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="<>`"),
    max_size=30,
)
_INDEX = st.integers(min_value=1, max_value=400)
_SECONDS = st.floats(min_value=0, max_value=10, exclude_min=True) | st.integers(1, 10)


def _optional(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Absent (the `...` marker, dropped below), explicitly null, or a value."""
    return st.just(...) | st.none() | strategy


def _call(tool: str, /, **arguments: st.SearchStrategy[Any]) -> st.SearchStrategy[tuple]:
    return st.fixed_dictionaries(arguments).map(
        lambda drawn: (tool, {key: value for key, value in drawn.items() if value is not ...})
    )


VALID_CALLS = st.one_of(
    _call("tap", index=_INDEX),
    _call("long_press", index=_INDEX),
    _call(
        "type_text",
        text=_TEXT,
        index=_optional(_INDEX),
        clear=st.just(...) | st.booleans(),
        submit=st.just(...) | st.booleans(),
    ),
    _call(
        "swipe", direction=st.sampled_from(["up", "down", "left", "right"]), index=_optional(_INDEX)
    ),
    _call("press_key", key=st.sampled_from(KEY_NAMES)),
    _call("open_app", name=_TEXT.filter(bool)),
    _call("wait", seconds=_SECONDS),
    # The compact form writes a null answer as the text "null": an answer of "null" is left out.
    _call(
        "task_complete",
        success=st.just(...) | st.booleans(),
        answer=_optional(_TEXT.filter(lambda text: text.strip() != "null")),
    ),
)


def _compact_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)


def compact(name: str, arguments: dict[str, Any], closed: bool = True) -> str:
    pairs = "".join(
        f"<arg_key>{key}</arg_key><arg_value>{_compact_value(value)}</arg_value>"
        for key, value in arguments.items()
    )
    return f"<tool_call>{name}{pairs}" + ("</tool_call>" if closed else "")


def python_call(name: str, arguments: dict[str, Any]) -> str:
    return f"{name}(" + ", ".join(f"{key}={value!r}" for key, value in arguments.items()) + ")"


# form -> (renderer of (name, arguments) into (content, tool_calls), the source it must report)
Render = Callable[[str, dict[str, Any]], tuple[str, list[dict] | None]]
FORMS: dict[str, tuple[Render, str]] = {
    "tool_calls": (
        lambda n, a: (
            "",
            [{"id": "c0", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}],
        ),
        "tool_calls",
    ),
    "tool_calls_object_arguments": (
        lambda n, a: (
            "",
            [{"id": "c0", "type": "function", "function": {"name": n, "arguments": a}}],
        ),
        "tool_calls",
    ),
    "compact": (lambda n, a: (compact(n, a), None), "compact"),
    "compact_after_thinking": (
        lambda n, a: ("The screen shows what I need.</think>\n" + compact(n, a), None),
        "compact",
    ),
    "compact_unclosed": (lambda n, a: (compact(n, a, closed=False), None), "compact"),
    "tagged_json": (
        lambda n, a: (
            f"<tool_call>\n{json.dumps({'name': n, 'arguments': a})}\n</tool_call>",
            None,
        ),
        "tagged_json",
    ),
    "bracket_json_unterminated": (
        lambda n, a: (f"[{n}]\n" + json.dumps({"tool": n, "parameters": a})[:-1], None),
        "bracket_json",
    ),
    "json_name_arguments": (
        lambda n, a: ("Next step:\n" + json.dumps({"name": n, "arguments": a}), None),
        "json",
    ),
    "json_tool_parameters": (lambda n, a: (json.dumps({"tool": n, "parameters": a}), None), "json"),
    "json_flat_action": (lambda n, a: (json.dumps({"action": n, **a}), None), "json"),
    "json_arguments_string": (
        lambda n, a: (json.dumps({"name": n, "arguments": json.dumps(a)}), None),
        "json",
    ),
    "json_function_object": (
        lambda n, a: (json.dumps({"function": {"name": n, "arguments": json.dumps(a)}}), None),
        "json",
    ),
    "json_single_quotes": (lambda n, a: (repr({"name": n, "arguments": a}), None), "json"),
    "json_trailing_comma": (
        lambda n, a: (json.dumps({"name": n, "arguments": a})[:-1] + ",}", None),
        "json",
    ),
    "fenced_json": (
        lambda n, a: ("```json\n" + json.dumps({"name": n, "arguments": a}) + "\n```", None),
        "fenced_json",
    ),
    "python_call": (
        lambda n, a: ("I will do that now.\n" + python_call(n, a), None),
        "python_call",
    ),
}


@settings(max_examples=60, deadline=None)
@given(call=VALID_CALLS, form=st.sampled_from(sorted(FORMS)))
def test_a_valid_call_in_any_form_parses_back_to_itself(call: tuple, form: str) -> None:
    name, arguments = call
    validate_call(name, arguments)  # the generator makes valid calls only
    render, source = FORMS[form]
    content, tool_calls = render(name, arguments)
    parsed = parse_reply(content, None, tool_calls)
    assert (parsed.name, parsed.arguments, parsed.error) == (name, arguments, None)
    assert parsed.source == source
    assert parsed.dropped == []


def _check_invariants(parsed: ParsedCall) -> None:
    assert parsed.name is None or parsed.name in TOOLS
    if parsed.name is None:
        assert parsed.error
    elif parsed.error is None:
        validate_call(parsed.name, parsed.arguments)
    # What the CLI prints and trajectories record must be plain JSON.
    json.dumps(parsed.model_dump(), allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(content=st.none() | st.text(), reasoning=st.none() | st.text())
def test_arbitrary_text_never_raises(content: str | None, reasoning: str | None) -> None:
    _check_invariants(parse_reply(content, reasoning))


# fmt: off
JSONISH_TOKENS = [
    "{", "}", "[", "]", '"', "'", ":", ",", " ", "\n", "\\", "(", ")", "=", "#",
    "tap", "click", "press", "scroll", "type_text", "open_app", "index", "text", "key",
    '"name"', '"arguments"', '"tool"', '"parameters"', '"action"', '"function"',
    "true", "True", "null", "None", "3", "-1", "2.5", "1e999", "NaN", "```json", "```",
    "<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>",
    "<think>", "</think>", "<｜end▁of▁sentence｜>",
]
# fmt: on
JSONISH = st.lists(st.sampled_from(JSONISH_TOKENS), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(content=JSONISH, reasoning=st.none() | JSONISH)
def test_jsonish_text_never_raises(content: str, reasoning: str | None) -> None:
    _check_invariants(parse_reply(content, reasoning))


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10)
    | JSONISH,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)
TOOL_CALL_ENTRIES = (
    st.fixed_dictionaries(
        {
            "function": st.fixed_dictionaries(
                {"name": JSON_VALUES | st.sampled_from(sorted(TOOLS)), "arguments": JSON_VALUES}
            )
        }
    )
    | JSON_VALUES
)


@settings(max_examples=200, deadline=None)
@given(tool_calls=st.lists(TOOL_CALL_ENTRIES, max_size=3), content=st.none() | JSONISH)
def test_arbitrary_tool_calls_never_raise(tool_calls: list[Any], content: str | None) -> None:
    _check_invariants(parse_reply(content, None, tool_calls))


# --- work on long malformed replies -----------------------------------------------------------

# Each of these once made the parser quadratic or worse (issue: 4.4 MB of "<tool_call>", 5 MB of
# unclosed objects and 20,000 tagged calls ran for minutes).
PATHOLOGICAL_FRAGMENTS = [
    "<tool_call>",
    '{"a":',
    "<tool_call>tap<arg_key>index</arg_key><arg_value>3</arg_value></tool_call>",
    "{'a':[x]",
    "\"a\"{'a':3",
    "tap(",
    "<tool_call>{",
    "<tool_call>t<arg_key>",
    '{"name": "tap", "arguments": {"index": "(      x)"}}',
]
SMALL_TEXT_CHARS = 16_000
# Lines of Python the parser may run per character of a long reply, however malformed: about
# twice what the worst generated fragments need, and a fraction of what a quadratic scan costs.
MAX_LINES_PER_CHAR = 32


def _repeated(fragment: str, chars: int) -> str:
    return fragment * (chars // len(fragment) + 1)


def assert_linear_work(fragment: str) -> None:
    small, small_parsed = lines_run(parse_reply, _repeated(fragment, SMALL_TEXT_CHARS))
    large_text = _repeated(fragment, 4 * SMALL_TEXT_CHARS)
    large, large_parsed = lines_run(parse_reply, large_text)
    _check_invariants(small_parsed)
    _check_invariants(large_parsed)
    assert large <= 4.5 * small, f"4x the text cost {large / small:.1f}x the work"
    assert large <= MAX_LINES_PER_CHAR * len(large_text)


@pytest.mark.parametrize("fragment", PATHOLOGICAL_FRAGMENTS)
def test_work_on_known_pathological_replies_grows_linearly(fragment: str) -> None:
    assert_linear_work(fragment)


@settings(max_examples=20, deadline=None)
@given(fragment=st.lists(st.sampled_from(JSONISH_TOKENS), min_size=1, max_size=8).map("".join))
def test_work_on_generated_replies_grows_linearly(fragment: str) -> None:
    assert_linear_work(fragment)


class CountingPattern:
    """A compiled pattern that counts the characters its searches read."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.chars_read = 0

    def search(self, text: str, position: int = 0) -> re.Match[str] | None:
        match = self.pattern.search(text, position)
        self.chars_read += (match.end() if match else len(text)) - position
        return match


@pytest.mark.parametrize(
    "reply",
    [
        "<tool_call>" * 50_000,
        "<tool_call>tap<arg_key>index</arg_key><arg_value>3</arg_value></tool_call>" * 5_000,
        "<tool_call>tap" + "<arg_key>k</arg_key> <arg_value>v" * 20_000,
        "<tool_call>tap" + "<arg_key>" * 50_000 + "</arg_key><arg_value>1",
    ],
    ids=["unclosed tags", "many calls", "unclosed values", "unclosed keys"],
)
def test_tag_searches_read_the_reply_a_bounded_number_of_times(
    reply: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    patterns = {
        name: CountingPattern(getattr(toolparse, name))
        for name in (
            "_TOOL_CALL_OPEN",
            "_TOOL_CALL_CLOSE",
            "_ARGUMENT_KEY",
            "_ARGUMENT_KEY_END",
            "_ARGUMENT_VALUE_END",
        )
    }
    for name, pattern in patterns.items():
        monkeypatch.setattr(toolparse, name, pattern)
    _check_invariants(parse_reply(reply))
    for name, pattern in patterns.items():
        assert pattern.chars_read <= 2 * len(reply), name  # once over, and some matches twice
