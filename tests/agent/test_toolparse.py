"""The reply parser on realistic replies: each form, each failure mode, each repair reported."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent.toolparse import ParsedCall, parse_reply
from tests.support.paths import REPO_ROOT

REPLIES_DIR = REPO_ROOT / "fixtures" / "replies"


def parse_fixture(name: str) -> ParsedCall:
    message = json.loads((REPLIES_DIR / f"{name}.json").read_text())["choices"][0]["message"]
    return parse_reply(message["content"], message["reasoning_content"], message["tool_calls"])


# fixture -> (name, arguments, source, repairs, error fragment or None)
EXPECTED: dict[str, tuple[str | None, dict[str, Any], str, list[str], str | None]] = {
    "structured_tool_call": ("tap", {"index": 3}, "tool_calls", [], None),
    "structured_alias_and_string_index": (
        "type_text",
        {"index": 2, "text": "Alice"},
        "tool_calls",
        [
            "alias input_text->type_text",
            "argument element_id->index",
            "argument content->text",
            "coerced index '2'->2",
        ],
        None,
    ),
    "structured_broken_arguments": (
        "swipe",
        {"direction": "up"},
        "tool_calls",
        [
            "arguments: single quotes->double quotes",
            "arguments: removed trailing comma",
            "arguments: closed 1 brace",
        ],
        None,
    ),
    "structured_back_as_tool": (
        "press_key",
        {"key": "back"},
        "tool_calls",
        ["alias back->press_key(key='back')"],
        None,
    ),
    "structured_several_calls": ("open_app", {"name": "Clock"}, "tool_calls", [], None),
    "compact_in_content": ("tap", {"index": 3}, "compact", [], None),
    "compact_after_think_in_reasoning": ("open_app", {"name": "Clock"}, "compact", [], None),
    "compact_unclosed": (
        "type_text",
        {"text": "Meeting at 10", "submit": True},
        "compact",
        [
            "closed unterminated <tool_call>",
            "closed unterminated <arg_value> of text",
            "closed unterminated <arg_value> of submit",
        ],
        None,
    ),
    "compact_alias_click": (
        "tap",
        {"index": 7},
        "compact",
        ["alias click->tap", "argument element->index", "coerced index '#7'->7"],
        None,
    ),
    "bracket_json_unterminated": ("tap", {"index": 1}, "bracket_json", ["closed 1 brace"], None),
    "bare_json_name_arguments": ("swipe", {"direction": "up"}, "json", [], None),
    "bare_json_arguments_string": (
        "press_key",
        {"key": "back"},
        "json",
        ["coerced key 'BACK'->'back'"],
        None,
    ),
    "fenced_json_single_quotes": (
        "open_app",
        {"name": "Settings"},
        "fenced_json",
        ["single quotes->double quotes", "removed trailing comma", "argument app_name->name"],
        None,
    ),
    "python_call": ("tap", {"index": 4}, "python_call", ["argument 4->index"], None),
    "scroll_alias": (
        "swipe",
        {"direction": "up"},
        "json",
        ["alias scroll->swipe", "scroll down->swipe up (a swipe names the content's way)"],
        None,
    ),
    "status_complete": (
        "task_complete",
        {"success": True},
        "json",
        [
            "alias status->task_complete",
            "argument goal_status->success",
            "coerced success 'complete'->True",
        ],
        None,
    ),
    "tagged_json": ("wait", {"seconds": 2.0}, "tagged_json", ["coerced seconds '2'->2.0"], None),
    "task_complete_answer": (
        "task_complete",
        {"answer": "The alarm is set for 7:00 AM"},
        "python_call",
        ["alias answer->task_complete", "argument 'The alarm is set for 7:00 AM'->answer"],
        None,
    ),
    "unclosed_thinking_ending_in_call": (
        "tap",
        {"index": 3},
        "compact",
        ["took the call that ends the unfinished thinking"],
        None,
    ),
    "invalid_key": ("press_key", {"key": "bak"}, "compact", [], "press_key: key 'bak' is not one"),
    "unknown_tool": (None, {"city": "Paris"}, "compact", [], "unknown tool 'get_weather'"),
    "prose_only": (None, {}, "none", [], "no tool call in the reply: 'Wi-Fi is now turned on"),
    "thinking_cap": (None, {}, "none", [], "thinking did not finish"),
    "call_only_in_closed_thinking": (
        None,
        {},
        "none",
        [],
        "(a call mentioned while thinking is not taken)",
    ),
}


def test_every_recorded_reply_has_an_expectation() -> None:
    assert sorted(path.stem for path in REPLIES_DIR.glob("*.json")) == sorted(EXPECTED)


@pytest.mark.parametrize("fixture", sorted(EXPECTED))
def test_recorded_replies(fixture: str) -> None:
    name, arguments, source, repairs, error = EXPECTED[fixture]
    parsed = parse_fixture(fixture)
    assert (parsed.name, parsed.arguments, parsed.source, parsed.repairs) == (
        name,
        arguments,
        source,
        repairs,
    )
    if error is None:
        assert parsed.error is None
    else:
        assert parsed.error is not None and error in parsed.error


def test_several_calls_take_the_first_and_report_the_rest() -> None:
    parsed = parse_fixture("structured_several_calls")
    assert parsed.dropped == [{"name": "wait", "arguments": {"seconds": 2}}]
    compact = (
        "<tool_call>tap<arg_key>index</arg_key><arg_value>3</arg_value></tool_call>"
        "<tool_call>type_text<arg_key>text</arg_key><arg_value>hi</arg_value></tool_call>"
    )
    parsed = parse_reply(compact)
    assert (parsed.name, parsed.arguments) == ("tap", {"index": 3})
    assert parsed.dropped == [{"name": "type_text", "arguments": {"text": "hi"}}]


def test_json_list_of_calls_takes_the_first() -> None:
    parsed = parse_reply(
        '[{"name": "tap", "arguments": {"index": 2}}, {"name": "wait", '
        '"arguments": {"seconds": 1}}]'
    )
    assert (parsed.name, parsed.arguments, parsed.source) == ("tap", {"index": 2}, "json")
    assert parsed.dropped == [{"name": "wait", "arguments": {"seconds": 1}}]


def test_a_more_trusted_form_wins_over_an_earlier_less_trusted_one() -> None:
    parsed = parse_reply(
        "Maybe tap(2)? No:\n<tool_call>tap<arg_key>index</arg_key><arg_value>5</arg_value>"
        "</tool_call>"
    )
    assert (parsed.name, parsed.arguments, parsed.source) == ("tap", {"index": 5}, "compact")
    assert parsed.dropped == [{"name": "tap", "arguments": {"index": 2}}]


def test_a_server_parsed_call_also_left_in_the_content_is_not_a_second_call() -> None:
    parsed = parse_reply(
        "<tool_call>tap<arg_key>index</arg_key><arg_value>3</arg_value></tool_call>",
        None,
        [{"id": "c", "type": "function", "function": {"name": "tap", "arguments": '{"index": 3}'}}],
    )
    assert (parsed.name, parsed.source, parsed.dropped) == ("tap", "tool_calls", [])


def test_an_unknown_tool_before_a_known_one_is_dropped() -> None:
    parsed = parse_reply(
        "<tool_call>scroll_to_end</tool_call>"
        "<tool_call>tap<arg_key>index</arg_key><arg_value>9</arg_value></tool_call>"
    )
    assert (parsed.name, parsed.arguments) == ("tap", {"index": 9})
    assert parsed.dropped == [{"name": None, "arguments": {}}]


class TestThinking:
    def test_a_call_in_closed_thinking_is_not_a_decision(self) -> None:
        parsed = parse_reply("I think tap(3) is right, or tap(4).</think>Done thinking.")
        assert parsed.name is None
        assert parsed.error == (
            "no tool call in the reply: 'Done thinking.' (a call mentioned while thinking is not "
            "taken)"
        )

    def test_explicit_think_block_in_content_is_skipped(self) -> None:
        parsed = parse_reply("<think>tap(1)? no, tap(2)</think>\ntap(index=2)")
        assert (parsed.name, parsed.arguments, parsed.dropped) == ("tap", {"index": 2}, [])

    def test_closed_thinking_with_nothing_after_it(self) -> None:
        parsed = parse_reply("Wi-Fi is [3].</think>")
        assert parsed.error == "no tool call after the thinking"

    def test_length_cap_inside_an_unclosed_think_block_in_content(self) -> None:
        parsed = parse_reply("<think>The switch is [3], so tap(3) might")
        assert parsed.name is None
        assert parsed.error is not None and parsed.error.startswith("thinking did not finish")

    def test_a_call_inside_unfinished_thinking_that_is_not_last_is_not_taken(self) -> None:
        reasoning = (
            "<tool_call>tap<arg_key>index</arg_key><arg_value>3</arg_value></tool_call> would "
            "toggle it, but first let me check whether"
        )
        assert parse_reply(None, reasoning).name is None

    def test_reasoning_tail_after_think_close_is_searched(self) -> None:
        parsed = parse_reply("", 'Need to go home.</think>\n[press_key]\n{"key": "home"}')
        assert (parsed.name, parsed.arguments, parsed.source) == (
            "press_key",
            {"key": "home"},
            "bracket_json",
        )

    def test_chat_template_control_tokens_are_ignored(self) -> None:
        parsed = parse_reply(
            "<tool_call>wait<arg_key>seconds</arg_key><arg_value>1</arg_value></tool_call>"
            "<｜end▁of▁sentence｜>"
        )
        assert (parsed.name, parsed.arguments, parsed.repairs) == ("wait", {"seconds": 1.0}, [])


# tool -> valid arguments it is called with under an alias (less what the alias implies)
ALIAS_TEST_ARGUMENTS: dict[str, dict[str, Any]] = {
    "tap": {"index": 1},
    "long_press": {"index": 1},
    "type_text": {"text": "x"},
    "open_app": {"name": "Clock"},
    "task_complete": {},
    "swipe": {},
    "press_key": {},
}


@pytest.mark.parametrize(
    ("written", "tool", "implied"),
    [
        ("click", "tap", {}),
        ("tap_element", "tap", {}),
        ("long_click", "long_press", {}),
        ("input_text", "type_text", {}),
        ("enter_text", "type_text", {}),
        ("launch_app", "open_app", {}),
        ("start_app", "open_app", {}),
        ("finish", "task_complete", {}),
        ("done", "task_complete", {}),
        ("give_up", "task_complete", {"success": False}),
        ("swipe_up", "swipe", {"direction": "up"}),
        ("scroll_down", "swipe", {"direction": "up"}),
        ("scroll_right", "swipe", {"direction": "left"}),
        ("home", "press_key", {"key": "home"}),
        ("recents", "press_key", {"key": "recent_apps"}),
    ],
)
def test_tool_aliases_are_mapped_and_reported(
    written: str, tool: str, implied: dict[str, Any]
) -> None:
    arguments = ALIAS_TEST_ARGUMENTS[tool]
    parsed = parse_reply(json.dumps({"name": written, "arguments": arguments}))
    assert (parsed.name, parsed.arguments, parsed.error) == (tool, {**arguments, **implied}, None)
    assert parsed.repairs[0].startswith(f"alias {written}->{tool}")


@pytest.mark.parametrize(
    ("written", "repair"),
    [
        ("Tap", "name 'Tap'->tap"),
        ("functions.tap", "name 'functions.tap'->tap"),
        ("longPress", "name 'longPress'->long_press"),
    ],
)
def test_tool_names_are_normalised_and_reported(written: str, repair: str) -> None:
    parsed = parse_reply(json.dumps({"name": written, "arguments": {"index": 2}}))
    assert parsed.name is not None and parsed.error is None
    assert parsed.repairs == [repair]


@pytest.mark.parametrize(
    ("reply", "tool", "arguments"),
    [
        ('press(key="BACK")', "press_key", {"key": "back"}),
        ("press(index=4)", "tap", {"index": 4}),
        ('press("enter")', "press_key", {"key": "enter"}),
        ("press(2)", "tap", {"index": 2}),
    ],
)
def test_press_is_a_tap_or_a_key_by_what_it_is_given(
    reply: str, tool: str, arguments: dict[str, Any]
) -> None:
    parsed = parse_reply(reply)
    assert (parsed.name, parsed.arguments, parsed.error) == (tool, arguments, None)
    assert f"alias press->{tool}" in parsed.repairs


@pytest.mark.parametrize(
    ("written", "value", "repair"),
    [
        ("3", 3, "coerced index '3'->3"),
        ("#3", 3, "coerced index '#3'->3"),
        ("[3]", 3, "coerced index '[3]'->3"),
        ([3], 3, "coerced index [3]->3"),
        (3.0, 3, "coerced index 3.0->3"),
    ],
)
def test_index_values_are_coerced_and_reported(written: Any, value: int, repair: str) -> None:
    parsed = parse_reply(json.dumps({"name": "tap", "arguments": {"index": written}}))
    assert (parsed.arguments, parsed.repairs, parsed.error) == ({"index": value}, [repair], None)


@pytest.mark.parametrize(
    ("arguments", "expected", "repair"),
    [
        (
            {"text": "a", "submit": "true"},
            {"text": "a", "submit": True},
            "coerced submit 'true'->True",
        ),
        ({"text": "a", "clear": "yes"}, {"text": "a", "clear": True}, "coerced clear 'yes'->True"),
        ({"text": 1234}, {"text": "1234"}, "coerced text 1234->'1234'"),
        ({"value": "hi"}, {"text": "hi"}, "argument value->text"),
        ({"text": "hi", "id": 2}, {"text": "hi", "index": 2}, "argument id->index"),
    ],
)
def test_type_text_argument_repairs(
    arguments: dict[str, Any], expected: dict[str, Any], repair: str
) -> None:
    parsed = parse_reply(json.dumps({"tool": "type_text", "parameters": arguments}))
    assert (parsed.arguments, parsed.error) == (expected, None)
    assert repair in parsed.repairs


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"key": 4}, "back"),
        ({"key": "KEYCODE_HOME"}, "home"),
        ({"key": "Backspace"}, "delete"),
        ({"keycode": "66"}, "enter"),
        ({"key": "volume up"}, "volume_up"),
    ],
)
def test_key_names_are_normalised(arguments: dict[str, Any], expected: str) -> None:
    parsed = parse_reply(json.dumps({"name": "press_key", "arguments": arguments}))
    assert (parsed.arguments, parsed.error) == ({"key": expected}, None)
    assert parsed.repairs


def test_app_and_status_argument_aliases() -> None:
    parsed = parse_reply('{"name": "launch_app", "arguments": {"app_name": "Clock"}}')
    assert (parsed.name, parsed.arguments) == ("open_app", {"name": "Clock"})
    assert parsed.repairs == ["alias launch_app->open_app", "argument app_name->name"]
    parsed = parse_reply('{"name": "finish", "arguments": {"status": "infeasible"}}')
    assert (parsed.name, parsed.arguments) == ("task_complete", {"success": False})
    assert "coerced success 'infeasible'->False" in parsed.repairs


def test_wait_in_milliseconds_becomes_seconds() -> None:
    parsed = parse_reply('{"name": "wait", "arguments": {"ms": 1500}}')
    assert (parsed.arguments, parsed.repairs) == ({"seconds": 1.5}, ["ms=1500->seconds=1.5"])


def test_unknown_arguments_are_dropped_and_reported() -> None:
    parsed = parse_reply('{"name": "tap", "arguments": {"index": 5, "reason": "open Wi-Fi"}}')
    assert (parsed.arguments, parsed.repairs, parsed.error) == (
        {"index": 5},
        ["dropped argument 'reason'"],
        None,
    )


def test_arguments_encoded_twice_are_decoded_and_reported() -> None:
    twice = json.dumps(json.dumps({"index": 6}))
    parsed = parse_reply(
        None,
        None,
        [{"id": "c", "type": "function", "function": {"name": "tap", "arguments": twice}}],
    )
    assert (parsed.arguments, parsed.repairs) == (
        {"index": 6},
        ["decoded arguments encoded twice as JSON text"],
    )


def test_structured_arguments_that_are_not_json_keep_the_name() -> None:
    tool_calls = [{"id": "c", "type": "function", "function": {"name": "tap", "arguments": "{:}"}}]
    parsed = parse_reply(None, None, tool_calls)
    assert parsed.name == "tap"
    assert parsed.error is not None and parsed.error.startswith("arguments are not valid JSON")


def test_invalid_arguments_keep_name_and_arguments_with_the_message() -> None:
    parsed = parse_reply('swipe(direction="diagonal")')
    assert (parsed.name, parsed.arguments) == ("swipe", {"direction": "diagonal"})
    assert parsed.error == "swipe: direction 'diagonal' is not one of up, down, left or right"


@pytest.mark.parametrize(
    "reply",
    [
        "I printed(3) pages and opened (the) app.",
        "Use print('tap') to debug.",
        'The element [3] switch "Wi-Fi" off is what I need.',
        '{"index": 3}',
    ],
)
def test_prose_and_non_calls_give_no_call(reply: str) -> None:
    parsed = parse_reply(reply)
    assert parsed.name is None
    assert parsed.error is not None and parsed.error.startswith("no tool call in the reply")


def test_python_call_with_json_literals_and_an_unclosed_parenthesis() -> None:
    parsed = parse_reply('type_text(text="hello", submit=true')
    assert (parsed.name, parsed.arguments) == ("type_text", {"text": "hello", "submit": True})
    assert parsed.repairs == ["closed unterminated parenthesis"]


def test_unquoted_keys_and_python_literals_in_json() -> None:
    parsed = parse_reply("{name: 'type_text', arguments: {text: 'hi', clear: True}}")
    assert (parsed.name, parsed.arguments) == ("type_text", {"text": "hi", "clear": True})
    assert parsed.repairs == [
        "quoted bare keys",
        "single quotes->double quotes",
        "True/False/None->true/false/null",
    ]


def test_unterminated_json_followed_by_prose() -> None:
    parsed = parse_reply('{"name": "tap", "arguments": {"index": 8\nThat should open it.')
    assert (parsed.name, parsed.arguments) == ("tap", {"index": 8})
    assert parsed.repairs == ["closed 2 braces"]


def test_empty_reply() -> None:
    assert parse_reply(None, None, None).error == "empty reply: no tool call"
    assert parse_reply("  ", "", []).error == "empty reply: no tool call"
