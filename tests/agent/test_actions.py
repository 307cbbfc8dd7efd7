"""The tool models: the schema the model reads, and validation messages it gets back."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from agent.actions import (
    KEY_NAMES,
    TOOLS,
    ActionError,
    OpenApp,
    PressKey,
    Swipe,
    Tap,
    TaskComplete,
    TypeText,
    Wait,
    tool_name,
    tools_schema,
    validate_call,
)
from devices import KEYCODES


def _parameters(tool: str) -> dict:
    return next(
        t["function"]["parameters"] for t in tools_schema() if t["function"]["name"] == tool
    )


def test_schema_lists_the_contract_tools_in_order() -> None:
    names = [tool["function"]["name"] for tool in tools_schema()]
    assert names == [
        "tap",
        "long_press",
        "type_text",
        "swipe",
        "press_key",
        "open_app",
        "wait",
        "task_complete",
    ]
    for tool in tools_schema():
        assert tool["type"] == "function"
        assert tool["function"]["description"]
        assert tool["function"]["parameters"]["type"] == "object"


def test_schema_is_not_shared_with_callers() -> None:
    first = tools_schema()
    first[0]["function"]["name"] = "changed by a caller"
    assert tools_schema()[0]["function"]["name"] == "tap"


def test_schema_is_byte_identical_in_another_process() -> None:
    """The schema opens every prompt: the server's prefix cache needs the same bytes each run."""
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            "import json; from agent.actions import tools_schema; "
            "print(json.dumps(tools_schema()))",
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "54321"},
        timeout=60,
    )
    assert child.stdout.strip() == json.dumps(tools_schema())


def test_schema_stays_small_because_it_is_in_every_prompt() -> None:
    text = json.dumps(tools_schema(), separators=(",", ":"))
    assert '"title"' not in text
    assert "anyOf" not in text  # optional arguments are simply not required
    assert len(text) < 2800  # about 700 tokens


@pytest.mark.parametrize(
    ("tool", "required", "optional"),
    [
        ("tap", ["index"], []),
        ("long_press", ["index"], []),
        ("type_text", ["text"], ["index", "clear", "submit"]),
        ("swipe", ["direction"], ["index"]),
        ("press_key", ["key"], []),
        ("open_app", ["name"], []),
        ("wait", ["seconds"], []),
        ("task_complete", [], ["success", "answer"]),
    ],
)
def test_schema_arguments(tool: str, required: list[str], optional: list[str]) -> None:
    parameters = _parameters(tool)
    assert parameters.get("required", []) == required
    assert sorted(parameters["properties"]) == sorted(required + optional)
    assert parameters["additionalProperties"] is False


def test_schema_documents_swipe_direction_and_types() -> None:
    assert _parameters("swipe")["properties"]["direction"]["enum"] == [
        "up",
        "down",
        "left",
        "right",
    ]
    swipe = next(t for t in tools_schema() if t["function"]["name"] == "swipe")
    assert "up shows what is further down" in swipe["function"]["description"]
    assert _parameters("tap")["properties"]["index"] == {
        "description": "Element number N from the screen list.",
        "minimum": 1,
        "type": "integer",
    }
    assert _parameters("type_text")["properties"]["index"]["type"] == "integer"
    assert _parameters("wait")["properties"]["seconds"]["maximum"] == 10


def test_valid_calls_give_their_actions() -> None:
    assert validate_call("tap", {"index": 3}) == Tap(index=3)
    assert validate_call("type_text", {"text": "hi", "submit": True}) == TypeText(
        text="hi", index=None, clear=False, submit=True
    )
    assert validate_call("swipe", {"direction": "up", "index": 2}) == Swipe(direction="up", index=2)
    assert validate_call("open_app", {"name": "Clock"}) == OpenApp(name="Clock")
    assert validate_call("wait", {"seconds": 2}) == Wait(seconds=2.0)
    assert validate_call("task_complete", {}) == TaskComplete(success=True, answer=None)


def test_every_keycode_name_is_a_key() -> None:
    assert sorted(KEY_NAMES) == sorted(KEYCODES)
    for key in KEYCODES:
        assert validate_call("press_key", {"key": key}) == PressKey(key=key)


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("press_key", {"key": "bak"}, "press_key: key 'bak' is not one of back, home, enter, "),
        ("press_key", {"key": "bak"}, "(did you mean 'back'?)"),
        ("tap", {}, "tap: missing argument 'index'"),
        ("tap", {"index": "3"}, "tap: index must be an integer, got '3'"),
        ("tap", {"index": 0}, "tap: index must be >= 1, got 0"),
        ("tap", {"index": 3, "x": 5}, "tap: unknown argument 'x'; arguments are index"),
        (
            "swipe",
            {"direction": "top"},
            "swipe: direction 'top' is not one of up, down, left or right",
        ),
        ("wait", {"seconds": 30}, "wait: seconds must be <= 10, got 30"),
        ("wait", {"seconds": 0}, "wait: seconds must be > 0, got 0"),
        ("open_app", {"name": ""}, "open_app: name must not be empty"),
        ("task_complete", {"success": "yes"}, "task_complete: success must be true or false"),
        ("type_text", {"text": 5}, "type_text: text must be a string, got 5"),
        ("scroll", {}, "unknown tool 'scroll'; tools are tap, long_press, type_text, swipe"),
    ],
)
def test_validation_errors_name_the_argument_and_what_is_allowed(
    tool: str, arguments: dict, message: str
) -> None:
    with pytest.raises(ActionError) as error:
        validate_call(tool, arguments)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_validation_is_strict_about_types() -> None:
    with pytest.raises(ActionError, match="index must be an integer, got True"):
        validate_call("tap", {"index": True})


def test_tool_name_names_every_action_including_open_app() -> None:
    for tool, model in TOOLS.items():
        assert tool_name(model) == tool
    assert tool_name(OpenApp(name="Clock")) == "open_app"
    assert tool_name(Tap(index=1)) == Tap.name == "tap"


def test_actions_are_immutable() -> None:
    action = Tap(index=1)
    with pytest.raises(ValueError, match="frozen"):
        action.index = 2  # type: ignore[misc]
