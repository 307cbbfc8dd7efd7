"""The tools the model may call: pydantic models, their OpenAI `tools` schema and validation.

Each model's docstring and field descriptions are what the model reads about the tool, in every
prompt: they stay short. Element indices are the `[N]` numbers of the screen list.

Validation is strict (no silent type conversion): `agent.toolparse` repairs and reports what a
model got slightly wrong before a call reaches `validate_call`.
"""

from __future__ import annotations

import difflib
import json
from functools import cache
from typing import Any, ClassVar, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import ErrorDetails, PydanticCustomError

from devices import KEYCODES

# Keys the schema names, most useful first; every name of KEYCODES is accepted.
COMMON_KEYS: tuple[str, ...] = ("back", "home", "enter", "delete", "recent_apps")
KEY_NAMES: tuple[str, ...] = (*COMMON_KEYS, *(key for key in KEYCODES if key not in COMMON_KEYS))

MAX_WAIT_SECONDS = 10.0


class BaseAction(BaseModel):
    """Base of every tool; `name` (a class attribute) is the tool's name in calls.

    OpenApp's argument is also called `name` (the tool contract says `open_app(name)`), which
    hides the class attribute on that one model: use `tool_name()` to name any action.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: ClassVar[str]


class Tap(BaseAction):
    """Tap an element."""

    name: ClassVar[str] = "tap"
    index: int = Field(ge=1, description="Element number N from the screen list.")


class LongPress(BaseAction):
    """Touch and hold an element (menus, selection)."""

    name: ClassVar[str] = "long_press"
    index: int = Field(ge=1, description="Element number N from the screen list.")


class TypeText(BaseAction):
    """Type text into a text field."""

    name: ClassVar[str] = "type_text"
    text: str = Field(description="The text to type.")
    index: int | None = Field(
        default=None, ge=1, description="Field to type into; default: the focused field."
    )
    clear: bool = Field(default=False, description="Erase the field first.")
    submit: bool = Field(default=False, description="Press enter afterwards.")


class Swipe(BaseAction):
    """Swipe to scroll. direction is the way the content moves: up shows what is further down."""

    name: ClassVar[str] = "swipe"
    direction: Literal["up", "down", "left", "right"]
    index: int | None = Field(
        default=None, ge=1, description="Scrollable element; default: the whole screen."
    )


class PressKey(BaseAction):
    """Press a device key."""

    name: ClassVar[str] = "press_key"
    key: str = Field(description=f"Key name: {', '.join(COMMON_KEYS)}, ...")

    @field_validator("key")
    @classmethod
    def _known_key(cls, key: str) -> str:
        if key not in KEYCODES:
            raise PydanticCustomError(
                "unknown_key", "{key} is not one of {keys}{hint}", _key_context(key)
            )
        return key


class OpenApp(BaseAction):
    """Open an app."""

    # The contract names the argument `name`; it replaces the tool-name class attribute here.
    name: str = Field(min_length=1, description="App label or package, e.g. Settings.")  # type: ignore[misc]


class Wait(BaseAction):
    """Wait for the screen to settle."""

    name: ClassVar[str] = "wait"
    seconds: float = Field(gt=0, le=MAX_WAIT_SECONDS, description="At most 10.")


class TaskComplete(BaseAction):
    """End the task. success=false if it cannot be done."""

    name: ClassVar[str] = "task_complete"
    success: bool = True
    answer: str | None = Field(default=None, description="Answer, if the task asked a question.")


# Every action the model can ask for, as one closed type: code that handles actions matches on
# it and ends in `assert_never`, so the type checker rejects a tool left unhandled.
Action: TypeAlias = Tap | LongPress | TypeText | Swipe | PressKey | OpenApp | Wait | TaskComplete

TOOLS: dict[str, type[Action]] = {
    "tap": Tap,
    "long_press": LongPress,
    "type_text": TypeText,
    "swipe": Swipe,
    "press_key": PressKey,
    "open_app": OpenApp,
    "wait": Wait,
    "task_complete": TaskComplete,
}

_TOOL_NAMES: dict[type[Action], str] = {model: tool for tool, model in TOOLS.items()}


def tool_name(action: Action | type[Action]) -> str:
    """The tool name of an action or action class (works for OpenApp too, see BaseAction)."""
    return _TOOL_NAMES[action if isinstance(action, type) else type(action)]


class ActionError(ValueError):
    """A call that cannot be executed; the one-line message names the argument and what is allowed.

    The message is meant to be sent back to the model as the tool's result.
    """


def validate_call(name: str, arguments: dict[str, Any]) -> Action:
    """The action for a call whose arguments already have the schema's types (strict)."""
    model = TOOLS.get(name)
    if model is None:
        raise ActionError(f"unknown tool {name!r}; tools are {', '.join(TOOLS)}")
    if not isinstance(arguments, dict):
        raise ActionError(f"{name}: arguments must be a JSON object")
    try:
        return model.model_validate(arguments)
    except ValidationError as exc:
        problems = "; ".join(_describe_error(model, error) for error in exc.errors())
        raise ActionError(f"{name}: {problems}") from None


@cache
def _tools_schema_json() -> str:
    tools = [
        {
            "type": "function",
            "function": {
                "name": tool,
                "description": model.__doc__,
                "parameters": _parameters_schema(model),
            },
        }
        for tool, model in TOOLS.items()
    ]
    return json.dumps(tools, ensure_ascii=False, separators=(",", ":"))


def tools_schema() -> list[dict[str, Any]]:
    """The OpenAI `tools` list, a fresh copy each call, identical byte for byte every time.

    Identical bytes keep a server's prefix cache valid across steps and runs.
    """
    tools: list[dict[str, Any]] = json.loads(_tools_schema_json())
    return tools


def parameter_schemas() -> dict[str, dict[str, Any]]:
    """Tool name -> its JSON-schema `parameters` object (as in `tools_schema()`)."""
    return {tool["function"]["name"]: tool["function"]["parameters"] for tool in tools_schema()}


def _parameters_schema(model: type[Action]) -> dict[str, Any]:
    schema: dict[str, Any] = _compact_schema(model.model_json_schema())
    del schema["description"]  # the docstring, already the tool's description
    return schema


def _compact_schema(node: Any) -> Any:
    """Pydantic's schema without what costs tokens and tells the model nothing.

    Drops titles and `default: null`, and turns `anyOf: [X, null]` (an optional argument) into X:
    leaving an argument out already means "not given".
    """
    if isinstance(node, list):
        return [_compact_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    compact = {
        key: _compact_schema(value)
        for key, value in node.items()
        if key != "title" and not (key == "default" and value is None)
    }
    variants = compact.get("anyOf")
    if isinstance(variants, list):
        non_null = [variant for variant in variants if variant != {"type": "null"}]
        if len(non_null) == 1 and len(non_null) < len(variants):
            del compact["anyOf"]
            compact = {**non_null[0], **compact}
    return compact


def _key_context(key: str) -> dict[str, str]:
    close = difflib.get_close_matches(key.lower(), KEY_NAMES, n=1)
    return {
        "key": repr(key),
        "keys": ", ".join(KEY_NAMES),
        "hint": f" (did you mean {close[0]!r}?)" if close else "",
    }


_TYPE_WORDS = {
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "bool_type": "true or false",
    "string_type": "a string",
}


def _describe_error(model: type[Action], error: ErrorDetails) -> str:
    """One pydantic error as '<argument> <what is wrong and what is allowed>'."""
    argument = ".".join(str(part) for part in error["loc"]) or "arguments"
    kind = error["type"]
    value = error.get("input")
    context = error.get("ctx", {})
    if kind == "missing":
        field = model.model_fields.get(argument)
        described = f" ({field.description})" if field is not None and field.description else ""
        return f"missing argument {argument!r}{described}"
    if kind == "extra_forbidden":
        allowed = ", ".join(model.model_fields)
        return f"unknown argument {argument!r}; arguments are {allowed}"
    if kind in _TYPE_WORDS:
        return f"{argument} must be {_TYPE_WORDS[kind]}, got {value!r}"
    if kind == "literal_error":
        allowed = str(context.get("expected", "")).replace("'", "")
        return f"{argument} {value!r} is not one of {allowed}"
    bounds = {
        "greater_than": ">",
        "greater_than_equal": ">=",
        "less_than": "<",
        "less_than_equal": "<=",
    }
    if kind in bounds:
        limit = next(iter(context.values()), "")
        if isinstance(limit, int | float):
            limit = f"{limit:g}"  # 10, not 10.0
        return f"{argument} must be {bounds[kind]} {limit}, got {value!r}"
    if kind == "string_too_short":
        return f"{argument} must not be empty"
    return f"{argument} {error['msg']}"
