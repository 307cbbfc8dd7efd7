"""Tolerant parsing of one raw model reply into one tool call, reporting every repair.

A reply is an OpenAI chat message: `content`, `reasoning_content` and `tool_calls`. Calls are
looked for in order of trust, and the most trusted form found wins:

1. `tool_calls`: the server's own parse (`arguments` a JSON string or an object, maybe broken);
2. a tagged call: Spark's compact form `<tool_call>NAME<arg_key>k</arg_key><arg_value>v
   </arg_value></tool_call>` (also unclosed), or JSON inside `<tool_call>` tags;
3. `[name]` followed by JSON, possibly unterminated;
4. JSON in a code fence, then bare JSON naming a tool (`name`/`arguments`, `tool`/`parameters`,
   `action`/flat arguments, `function`/...), with single quotes, trailing commas or missing
   closing braces repaired;
5. a Python-style call such as `tap(index=4)` or `tap(4)`.

Several calls: the first of the most trusted form is taken, the others are listed in `dropped`.

Thinking. Text before `</think>`, inside `<think>...</think>`, and a `reasoning_content` without
`</think>` is reasoning. A call written while reasoning is a thought, not a decision, so reasoning
is not searched: only the text after it is. One exception: when the reply ends inside its
reasoning (no `</think>`, nothing after it) and the very last thing written is a complete tagged
call, the model stopped right after emitting its call syntax, which it does only to act; that
call is taken and the repair says so. A reply cut by the token limit in the middle of its
reasoning gives no call and the error "thinking did not finish". Without the tags, plain text
cannot be told apart from reasoning and is searched as an answer.

Repairs. `source` says which form the call came in; `repairs` lists each change made to what the
model wrote (syntax fixed, tool or argument renamed, value converted, argument dropped). Decoding
the compact form's text values by the schema ("3" for an integer argument) is that format's
definition, not a repair. A call whose arguments still fail validation keeps its name and
arguments, with the validation message in `error`, so it can be sent back to the model.

Work. A reply can be anything a server sends, so parsing costs time linear in its length on any
input: each search moves forward through the text, and the tolerant readers (JSON repair,
Python-style arguments) may look at each character only a few times over (`_Budget`); what lies
past a spent budget is not read. Nesting deeper than any call (`_MAX_NESTING`) is not a call.
"""

from __future__ import annotations

import ast
import heapq
import itertools
import json
import math
import re
import string
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

from agent.actions import KEY_NAMES, TOOLS, ActionError, parameter_schemas, validate_call
from devices import KEYCODES


class ParsedCall(BaseModel):
    """The one call taken from a reply; `name` is None when there is none (see `error`)."""

    name: str | None
    arguments: dict[str, Any]
    source: str
    repairs: list[str]
    error: str | None = None
    dropped: list[dict[str, Any]] = Field(default_factory=list)


# Trust of each form, most trusted first.
SOURCES: tuple[str, ...] = (
    "tool_calls",
    "compact",
    "tagged_json",
    "bracket_json",
    "fenced_json",
    "json",
    "python_call",
)
_RANK = {source: rank for rank, source in enumerate(SOURCES)}
_RANK["tagged_json"] = _RANK["compact"]  # both are the model's own call tags

_SNIPPET_CHARS = 80


# --- tools and arguments: aliases -------------------------------------------------------------


@dataclass(frozen=True)
class _Alias:
    tool: str
    implied: dict[str, Any] = field(default_factory=dict)
    positional: tuple[str, ...] | None = None  # parameter order for positional arguments
    scroll: bool = False  # direction names the way the view moves: the opposite of a swipe's


def _words(names: str) -> frozenset[str]:
    return frozenset(names.split())


def _aliases(tool: str, names: str, **implied: Any) -> dict[str, _Alias]:
    return {name: _Alias(tool, implied) for name in names.split()}


_TOOL_ALIASES: dict[str, _Alias] = {
    **_aliases(
        "tap",
        "click tap_element click_element touch tap_on click_on select tap_button click_button"
        " press_element tap_index",
    ),
    **_aliases(
        "long_press",
        "long_click longpress long_tap press_and_hold hold long_press_element long_click_element",
    ),
    **_aliases(
        "type_text",
        "type input_text enter_text input write set_text fill type_into send_keys text_input"
        " write_text fill_text",
    ),
    **_aliases("swipe", "fling swipe_screen"),
    "scroll": _Alias("swipe", scroll=True),
    "scroll_screen": _Alias("swipe", scroll=True),
    **_aliases("swipe", "swipe_up scroll_down", direction="up"),
    **_aliases("swipe", "swipe_down scroll_up", direction="down"),
    **_aliases("swipe", "swipe_left scroll_right", direction="left"),
    **_aliases("swipe", "swipe_right scroll_left", direction="right"),
    **_aliases(
        "press_key", "key keyevent key_event press_keycode press_button send_key press_key_event"
    ),
    **_aliases("press_key", "back go_back press_back navigate_back", key="back"),
    **_aliases("press_key", "home go_home press_home navigate_home", key="home"),
    **_aliases("press_key", "enter press_enter", key="enter"),
    **_aliases("press_key", "recent_apps recents app_switch overview", key="recent_apps"),
    **_aliases(
        "open_app",
        "launch_app start_app open launch open_application launch_application run_app start app",
    ),
    **_aliases("wait", "sleep pause delay wait_for"),
    **_aliases(
        "task_complete",
        "finish done complete stop end task_done finish_task complete_task end_task terminate"
        " exit status report task_completed",
    ),
    "answer": _Alias("task_complete", positional=("answer",)),
    **_aliases(
        "task_complete", "infeasible give_up fail abort task_failed impossible", success=False
    ),
}

# `press` is a tap of an element or a key press, depending on what it is given.
_PRESS = "press"

_INDEX_ALIASES = "element element_id id idx element_index target node item number num"
_INDEX_ALIASES += " element_number elem i n"
_ARGUMENT_ALIASES: dict[str, dict[str, frozenset[str]]] = {
    tool: {argument: _words(names) for argument, names in aliases.items()}
    for tool, aliases in {
        "tap": {"index": _INDEX_ALIASES},
        "long_press": {"index": _INDEX_ALIASES},
        "type_text": {
            "text": "content value input string message input_text keys txt query data",
            "index": _INDEX_ALIASES,
            "clear": "clear_first replace overwrite clear_text",
            "submit": "enter press_enter submit_after",
        },
        "swipe": {
            "direction": "dir way scroll_direction swipe_direction",
            "index": _INDEX_ALIASES,
        },
        "press_key": {"key": "keycode key_code button key_name name code"},
        "open_app": {
            "name": "app package app_name package_name application app_label label title target"
        },
        "wait": {"seconds": "duration time secs sec s second delay timeout"},
        "task_complete": {
            "success": "status goal_status successful succeeded completed",
            "answer": "text message response reason summary content output result final_answer",
        },
    }.items()
}
_MILLISECOND_ARGUMENTS = _words("ms milliseconds duration_ms time_ms delay_ms")
_KEY_ARGUMENTS = frozenset({"key", *_ARGUMENT_ALIASES["press_key"]["key"]})

_KEY_SYNONYMS = {
    "backspace": "delete",
    "del": "delete",
    "return": "enter",
    "esc": "escape",
    "recent": "recent_apps",
    "recents": "recent_apps",
    "recent_app": "recent_apps",
    "overview": "recent_apps",
    "go_back": "back",
    "back_button": "back",
    "go_home": "home",
    "home_button": "home",
}
_KEY_BY_CODE: dict[int, str] = {}
for _key in KEY_NAMES:
    _KEY_BY_CODE.setdefault(KEYCODES[_key], _key)

_TRUE_WORDS = _words(
    "true yes 1 on complete completed success successful succeeded done finished feasible"
)
_FALSE_WORDS = _words(
    "false no 0 off infeasible failed failure fail impossible incomplete unsuccessful not_feasible"
)
_INVERSE = {"up": "down", "down": "up", "left": "right", "right": "left"}

_PARAMETERS = parameter_schemas()

# JSON objects naming a tool: keys that may hold the name, and keys that may hold the arguments.
_NAME_KEYS = (
    "name",
    "tool",
    "tool_name",
    "function",
    "function_name",
    "action",
    "action_type",
    "command",
)
_ARGUMENTS_KEYS = ("arguments", "parameters", "args", "params", "input", "kwargs")


# --- what was found in a reply ----------------------------------------------------------------


@dataclass(frozen=True)
class _Found:
    """A call as written, before names and values are resolved."""

    name: Any
    arguments: Any  # an object, JSON text, a scalar or None, as written
    source: str
    place: tuple[int, int, int]  # (text number, start, end); tool_calls use text -1
    repairs: tuple[str, ...] = ()
    positional: tuple[Any, ...] = ()
    textual: bool = False  # values are text to decode by the schema (the compact form)

    def overlaps(self, other: _Found) -> bool:
        return (
            self.place[0] == other.place[0]
            and self.place[1] < other.place[2]
            and other.place[1] < self.place[2]
        )


@dataclass
class _Call:
    name: str | None
    arguments: dict[str, Any]
    source: str
    repairs: list[str]
    error: str | None


def parse_reply(
    content: str | None, reasoning: str | None = None, tool_calls: list[dict] | None = None
) -> ParsedCall:
    """The one call in a model reply, how it was recovered, or why there is none."""
    reply = _Reply.split(content, reasoning)
    structured = [_resolve(found) for found in _from_tool_calls(tool_calls)]
    already_structured = {_identity(call) for call in structured}
    textual = [
        call
        for call in map(_resolve, _scan_texts(reply.decisions))
        if _identity(call) not in already_structured
    ]
    calls = structured + textual
    if not calls and reply.unfinished:
        last = _call_ending(reply.thinking)
        if last is not None:
            calls = [_resolve(last)]
            calls[0].repairs.append("took the call that ends the unfinished thinking")
    if not calls:
        return ParsedCall(
            name=None, arguments={}, source="none", repairs=[], error=reply.why_no_call()
        )
    chosen = next((call for call in calls if call.name is not None), calls[0])
    dropped = [
        {"name": call.name, "arguments": call.arguments} for call in calls if call is not chosen
    ]
    return ParsedCall(
        name=chosen.name,
        arguments=chosen.arguments,
        source=chosen.source,
        repairs=chosen.repairs,
        error=chosen.error,
        dropped=dropped,
    )


def thinking_of(content: str | None, reasoning: str | None = None) -> str:
    """The reasoning of a reply, wherever the server put it (tags in `content` or
    `reasoning_content`)."""
    return _Reply.split(content, reasoning).thinking


def _identity(call: _Call) -> str:
    """Equal for calls with the same name and arguments (hashable, so that comparing every
    call with every other never costs quadratic time)."""
    return json.dumps([call.name, call.arguments], sort_keys=True, default=repr)


# --- separating reasoning from the answer -----------------------------------------------------

_SPECIAL_TOKEN = re.compile(r"<｜[^｜\n]{1,64}｜>|<\|[A-Za-z_]{1,32}\|>")
_THINK_TAG = re.compile(r"</?think>")


@dataclass
class _Reply:
    decisions: list[str]  # text where a call is a decision
    thinking: str
    unfinished: bool  # the reply ends inside its reasoning

    @classmethod
    def split(cls, content: str | None, reasoning: str | None) -> _Reply:
        # Chat-template control tokens (kept when a server does not skip special tokens) are
        # never part of a call.
        content = _SPECIAL_TOKEN.sub("", content or "")
        reasoning = _SPECIAL_TOKEN.sub("", reasoning or "")
        answer, thinking, unfinished = _split_thinking(content)
        decisions = [answer]
        before, closed, after = reasoning.rpartition("</think>")
        if closed:
            reasoning_answer, more_thinking, still_open = _split_thinking(after)
            decisions.append(reasoning_answer)
            thinking += before + more_thinking
            unfinished |= still_open
        else:
            thinking += reasoning
            unfinished |= bool(reasoning.strip()) and not answer.strip()
        return cls(decisions, thinking, unfinished)

    def why_no_call(self) -> str:
        answer = " ".join(" ".join(self.decisions).split())
        if self.unfinished and not answer:
            return "thinking did not finish: the reply ends inside its reasoning with no call"
        mentioned = any(True for _ in _scan_texts([self.thinking]))
        note = " (a call mentioned while thinking is not taken)" if mentioned else ""
        if answer:
            return f"no tool call in the reply: {_shorten(answer)!r}{note}"
        if self.thinking.strip():
            return f"no tool call after the thinking{note}"
        return "empty reply: no tool call"


def _split_thinking(text: str) -> tuple[str, str, bool]:
    """(answer, reasoning, ends inside reasoning) of a text that may hold think tags.

    Text before a `</think>` that has no `<think>` is reasoning too: the chat template opens the
    think block in the prompt, so the reply starts inside it.
    """
    answer: list[str] = []
    thinking: list[str] = []
    position = 0
    for tag in _THINK_TAG.finditer(text):
        if tag.start() < position:
            continue
        if tag.group() == "</think>":
            thinking.append(text[position : tag.start()])
            position = tag.end()
            continue
        answer.append(text[position : tag.start()])
        end = text.find("</think>", tag.end())
        if end < 0:
            thinking.append(text[tag.end() :])
            return "".join(answer), "".join(thinking), True
        thinking.append(text[tag.end() : end])
        position = end + len("</think>")
    answer.append(text[position:])
    return "".join(answer), "".join(thinking), False


# --- finding calls in text --------------------------------------------------------------------


def _scan_texts(texts: list[str]) -> Iterator[_Found]:
    """Calls in these texts, most trusted form first, without two readings of the same text."""
    found = [
        call
        for number, text in enumerate(texts)
        for finder in (_tagged_calls, _bracket_calls, _fenced_calls, _json_calls, _python_calls)
        for call in finder(text, number)
    ]
    found.sort(key=lambda call: (_RANK[call.source], call.place))
    taken: list[_Found] = []  # in text order, no two overlapping
    for _, same_rank in itertools.groupby(found, key=lambda call: _RANK[call.source]):
        kept = _clear_of(taken, same_rank)
        yield from kept
        taken = list(heapq.merge(taken, kept, key=lambda call: call.place))


def _clear_of(taken: list[_Found], candidates: Iterator[_Found]) -> list[_Found]:
    """The candidates (in text order) that overlap neither a taken call nor a candidate kept
    before them. One pass over both: a taken call that ends before a candidate starts cannot
    overlap any later candidate."""
    kept: list[_Found] = []
    next_taken = 0
    for call in candidates:
        while next_taken < len(taken) and _ends_before(taken[next_taken], call):
            next_taken += 1
        if next_taken < len(taken) and taken[next_taken].overlaps(call):
            continue
        if kept and kept[-1].overlaps(call):
            continue
        kept.append(call)
    return kept


def _ends_before(first: _Found, second: _Found) -> bool:
    return (first.place[0], first.place[2]) <= (second.place[0], second.place[1])


def _from_tool_calls(tool_calls: Any) -> Iterator[_Found]:
    if not isinstance(tool_calls, list):
        return
    for number, entry in enumerate(tool_calls):
        function = entry.get("function") if isinstance(entry, dict) else None
        if not isinstance(function, dict):
            function = entry if isinstance(entry, dict) else {}
        arguments = function.get("arguments", function.get("parameters"))
        yield _Found(function.get("name"), arguments, "tool_calls", (-1, number, number + 1))


class _Ahead:
    """The first match of a pattern at or after a position, asked for at positions that never
    go back: a match still ahead is reused, so each stretch of text is searched once."""

    def __init__(self, pattern: re.Pattern[str], text: str) -> None:
        self._pattern = pattern
        self._text = text
        self._match = pattern.search(text)

    def at_or_after(self, position: int) -> re.Match[str] | None:
        if self._match is not None and self._match.start() < position:
            self._match = self._pattern.search(self._text, position)
        return self._match


_TOOL_CALL_OPEN = re.compile("<tool_call>")
_TOOL_CALL_CLOSE = re.compile("</tool_call>")
_CALL_NAME = re.compile(r"[A-Za-z_][\w.\-]*")
_ARGUMENT_KEY = re.compile("<arg_key>")
_ARGUMENT_KEY_END = re.compile(r"</arg_key>\s*<arg_value>")
_ARGUMENT_VALUE_END = re.compile("</arg_value>|<arg_key>")


def _tagged_calls(text: str, number: int) -> Iterator[_Found]:
    openings = _Ahead(_TOOL_CALL_OPEN, text)
    closings = _Ahead(_TOOL_CALL_CLOSE, text)
    budget = _Budget(text)
    opening = openings.at_or_after(0)
    while opening is not None:
        following = openings.at_or_after(opening.end())
        close = closings.at_or_after(opening.end())
        repairs: list[str] = []
        if close is not None and (following is None or close.start() < following.start()):
            body, end = text[opening.end() : close.start()], close.end()
        else:
            end = following.start() if following is not None else len(text)
            body = text[opening.end() : end]
            repairs.append("closed unterminated <tool_call>")
        call = _tagged_body(body, repairs, (number, opening.start(), end), budget)
        if call is not None:
            yield call
        opening = following


def _tagged_body(
    body: str, repairs: list[str], place: tuple[int, int, int], budget: _Budget
) -> _Found | None:
    stripped = body.strip()
    if stripped.startswith("{"):
        parsed = None if budget.spent() else _json_value_at(stripped, 0, budget)
        if parsed is None or not isinstance(parsed[0], dict):
            return None
        named = _named_object(parsed[0])
        if named is None:
            return None
        return _Found(named[0], named[1], "tagged_json", place, (*repairs, *parsed[2]))
    head, _, tail = body.partition("<arg_key>")
    name = head.strip()
    if not _CALL_NAME.fullmatch(name):
        return None  # not a call name: other forms may still read what the tags hold
    arguments: dict[str, str] = {}
    for key, value, closed in _argument_pairs("<arg_key>" + tail if tail else ""):
        if not closed:
            value = value.rstrip()
            repairs.append(f"closed unterminated <arg_value> of {key}")
        arguments[key] = value
    return _Found(name, arguments, "compact", place, tuple(repairs), textual=True)


def _argument_pairs(text: str) -> Iterator[tuple[str, str, bool]]:
    """(key, value, closed) of each `<arg_key>k</arg_key><arg_value>v</arg_value>`; an unclosed
    value ends where the next key begins, or at the end of the text."""
    keys = _Ahead(_ARGUMENT_KEY, text)
    key_ends = _Ahead(_ARGUMENT_KEY_END, text)
    value_ends = _Ahead(_ARGUMENT_VALUE_END, text)
    position = 0
    while (key := keys.at_or_after(position)) is not None:
        key_end = key_ends.at_or_after(key.end())
        if key_end is None:
            return
        value_end = value_ends.at_or_after(key_end.end())
        closed = value_end is not None and value_end.group() == "</arg_value>"
        if value_end is None:
            position = len(text)
        else:
            position = value_end.end() if closed else value_end.start()
        value_stop = len(text) if value_end is None else value_end.start()
        yield text[key.end() : key_end.start()].strip(), text[key_end.end() : value_stop], closed


def _call_ending(thinking: str) -> _Found | None:
    """The tagged call that is the very last thing in an unfinished reasoning, if any."""
    calls = list(_tagged_calls(thinking, 0))
    if calls and not thinking[calls[-1].place[2] :].strip():
        return calls[-1]
    return None


_BRACKET_NAME = re.compile(r"\[\s*([A-Za-z_][\w.\-]*)\s*\]\s*(?=\{)")


def _bracket_calls(text: str, number: int) -> Iterator[_Found]:
    budget = _Budget(text)
    for label in _BRACKET_NAME.finditer(text):
        if budget.spent():
            return
        parsed = _json_value_at(text, label.end(), budget)
        if parsed is None or not isinstance(parsed[0], dict):
            continue
        value, end, repairs = parsed
        named = _named_object(value)
        name, arguments = named if named is not None else (label.group(1), value)
        yield _Found(name, arguments, "bracket_json", (number, label.start(), end), repairs)


_FENCE = re.compile(r"```[^\n`]*\n?(.*?)(```|\Z)", re.DOTALL)


def _fenced_calls(text: str, number: int) -> Iterator[_Found]:
    for fence in _FENCE.finditer(text):
        closing = () if fence.group(2) else ("closed unterminated code fence",)
        for call in _json_calls(fence.group(1), number):
            offset = fence.start(1)
            yield _Found(
                call.name,
                call.arguments,
                "fenced_json",
                (number, call.place[1] + offset, call.place[2] + offset),
                (*closing, *call.repairs),
            )


def _json_calls(text: str, number: int) -> Iterator[_Found]:
    budget = _Budget(text)
    position = text.find("{")
    while position >= 0 and not budget.spent():
        parsed = _json_value_at(text, position, budget)
        if parsed is not None and isinstance(parsed[0], dict):
            named = _named_object(parsed[0])
            if named is not None:
                yield _Found(named[0], named[1], "json", (number, position, parsed[1]), parsed[2])
                position = text.find("{", parsed[1])
                continue
        position = text.find("{", position + 1)


def _named_object(value: dict[str, Any]) -> tuple[str, Any] | None:
    """(name, arguments) of a JSON object that names a tool, in any of the common shapes."""
    function = value.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):
        return _named_object(function)
    arguments_key = next((key for key in _ARGUMENTS_KEYS if key in value), None)
    # Flat objects put the tool under `action` and the like: {"action": "open_app", "name":
    # "Clock"}; there `name` is an argument, so it is the last place to look for the tool.
    keys = _NAME_KEYS if arguments_key is not None else (*_NAME_KEYS[1:], _NAME_KEYS[0])
    present = [key for key in keys if isinstance(value.get(key), str) and key != arguments_key]
    if not present:
        return None
    name_key = next((key for key in present if _lookup_tool(value[key]) is not None), present[0])
    if arguments_key is not None:
        return value[name_key], value[arguments_key]
    return value[name_key], {key: item for key, item in value.items() if key != name_key}


_PYTHON_CALL = re.compile(r"(?<![\w.])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\(")
_LITERAL_NAMES = {"true": True, "false": False, "null": None, "none": None}


def _python_calls(text: str, number: int) -> Iterator[_Found]:
    budget = _Budget(text)
    for match in _PYTHON_CALL.finditer(text):
        if budget.spent():
            return
        if _lookup_tool(match.group(1)) is None and _normal(match.group(1)) != _PRESS:
            continue  # prose such as "print(...)" or "(see above)" is not a call
        end, ending = _closing_parenthesis(text, match.end())
        budget.spend(end - match.start())
        if ending == "too deep":
            continue
        closed = ending == "closed"
        source = text[match.start() : end] + ("" if closed else ")")
        parsed = _python_arguments(source)
        if parsed is None:
            continue
        keywords, positional = parsed
        repairs = () if closed else ("closed unterminated parenthesis",)
        yield _Found(
            match.group(1),
            keywords,
            "python_call",
            (number, match.start(), end),
            repairs,
            positional=positional,
        )


def _closing_parenthesis(
    text: str, start: int
) -> tuple[int, Literal["closed", "unclosed", "too deep"]]:
    """Where a parenthesised argument list opened just before `start` ends, and how: closed,
    cut off by the end of the text, or given up where it nests deeper than a call does."""
    depth = 1
    position = start
    while position < len(text):
        char = text[position]
        if char in "\"'":
            position = _read_string(text, position)[1]
            continue
        if char in "([{":
            depth += 1
            if depth > _MAX_NESTING:
                return position, "too deep"
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return position + 1, "closed"
        position += 1
    return len(text), "unclosed"


def _python_arguments(source: str) -> tuple[dict[str, Any], tuple[Any, ...]] | None:
    try:
        node = ast.parse(source.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if not isinstance(node, ast.Call):
        return None
    try:
        positional = tuple(_python_literal(argument) for argument in node.args)
        keywords = {
            keyword.arg: _python_literal(keyword.value)
            for keyword in node.keywords
            if keyword.arg is not None
        }
        # Only what JSON can hold (no sets, bytes, complex or infinite numbers).
        keywords, positional = json.loads(json.dumps([keywords, positional], allow_nan=False))
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None
    if len(positional) == 1 and isinstance(positional[0], dict) and not keywords:
        return positional[0], ()  # tap({"index": 3})
    return keywords, tuple(positional)


def _python_literal(node: ast.expr) -> Any:
    if isinstance(node, ast.Name) and node.id.lower() in _LITERAL_NAMES:
        return _LITERAL_NAMES[node.id.lower()]
    return ast.literal_eval(node)


# --- tolerant JSON ----------------------------------------------------------------------------

# No call nests deeper than this (`{"function": {"arguments": {"text": ...}}}` is 3 levels).
_MAX_NESTING = 16
# How often the tolerant readers of one text may look at each of its characters, with a floor
# for short texts and a least cost per attempt (an attempt that reads nothing still costs work).
_READS_PER_CHAR = 2
_STRICT_WINDOW = 4096
_MIN_READS = 1 << 16
_ATTEMPT_READS = 256


class _Budget:
    """What the tolerant readers of one text may still read: linear in its length, so malformed
    text that makes every brace or name a candidate cannot make parsing quadratic."""

    def __init__(self, text: str) -> None:
        self._left = _READS_PER_CHAR * len(text) + _MIN_READS

    def spend(self, chars: int) -> None:
        self._left -= max(chars, _ATTEMPT_READS)

    def spent(self) -> bool:
        return self._left <= 0


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"{text} is too large")
    return number


# Python's json reads NaN, Infinity and 1e999, which cannot be written back as JSON.
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)
_NUMBER = re.compile(r"-?(?:\d+(?:\.\d+)?)(?:[eE][-+]?\d+)?")
_WORD = re.compile(r"[^\W\d]\w*")  # a letter or underscore, then word characters
_CLOSERS = {"{": "}", "[": "]"}
_PYTHON_WORDS = {"True": "true", "False": "false", "None": "null"}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}
_COLON_NEXT = re.compile(r"\s*:")
_SURROGATE = re.compile("[\ud800-\udfff]")
_ENCODE_STRING = json.JSONEncoder(ensure_ascii=False).encode
_PLAIN_RUN = {quote: re.compile(f"[^{quote}\\\\]+") for quote in "\"'"}  # no quote, no escape


def _json_value_at(
    text: str, start: int, budget: _Budget | None = None
) -> tuple[Any, int, tuple[str, ...]] | None:
    """(value, end, repairs) of the JSON-ish object or array that begins at `start`; what it
    reads is charged to `budget`.

    Strict JSON is tried on a window of the text: a JSONDecodeError counts the lines from the
    start of the string it was given, which on the whole text would cost its length on every
    failed attempt. A value that does not end inside the window goes to the tolerant reader,
    which reads valid JSON the same way.
    """
    window = text[start : start + _STRICT_WINDOW]
    try:
        value, end = _DECODER.raw_decode(window)
    except json.JSONDecodeError as exc:
        read = exc.pos
    except (ValueError, RecursionError):
        read = len(window)  # how far it got is not known: charge the most it could read
    else:
        if budget is not None:
            budget.spend(end)
        return value, start + end, ()
    rewritten, end, repairs = _rewrite_json(text, start)
    if budget is not None:
        budget.spend(read + end - start)
    if rewritten is None:
        return None
    try:
        return _DECODER.decode(rewritten), end, repairs
    except (ValueError, RecursionError):
        return None


def _rewrite_json(text: str, start: int) -> tuple[str | None, int, tuple[str, ...]]:
    """Strict JSON for the value at `start`: quotes, literals, commas and closers fixed.

    Stops at the end of the value, or where the text stops looking like JSON (prose after an
    unterminated object), and closes whatever is still open there. The text is None when the
    value nests deeper than a call can (`end` is then where reading stopped).
    """
    out: list[str] = []
    open_stack: list[str] = []
    repairs: dict[str, None] = {}  # ordered set
    position = start
    while position < len(text):
        char = text[position]
        if char in "\"'":
            literal, position, closed = _read_string(text, position)
            out.append(_ENCODE_STRING(literal))
            if char == "'":
                repairs["single quotes->double quotes"] = None
            if not closed:
                repairs["closed unterminated string"] = None
            continue
        if char in _CLOSERS:
            open_stack.append(char)
            if len(open_stack) > _MAX_NESTING:
                return None, position, ()
        elif char in "}]":
            if not open_stack or _CLOSERS[open_stack[-1]] != char:
                break
            if _drop_trailing_comma(out):
                repairs["removed trailing comma"] = None
            open_stack.pop()
            out.append(char)
            position += 1
            if not open_stack:
                break
            continue
        elif (word := _WORD.match(text, position)) is not None:
            if word.group() in ("true", "false", "null"):
                out.append(word.group())
            elif word.group() in _PYTHON_WORDS:
                out.append(_PYTHON_WORDS[word.group()])
                repairs["True/False/None->true/false/null"] = None
            elif _COLON_NEXT.match(text, word.end()):
                out.append(json.dumps(word.group()))
                repairs["quoted bare keys"] = None
            else:
                break  # prose: the value ended before it
            position = word.end()
            continue
        elif char in "-0123456789":
            number = _NUMBER.match(text, position)
            if number is None:
                break
            out.append(number.group())
            position = number.end()
            continue
        elif char not in ",: \t\r\n":
            break
        out.append(char)
        position += 1
    if open_stack:
        if _drop_trailing_comma(out):
            repairs["removed trailing comma"] = None
        if "".join(out).rstrip().endswith(":"):
            out.append("null")
            repairs["missing value->null"] = None
        braces, brackets = open_stack.count("{"), open_stack.count("[")
        if braces:
            repairs[f"closed {braces} brace{'s' if braces > 1 else ''}"] = None
        if brackets:
            repairs[f"closed {brackets} bracket{'s' if brackets > 1 else ''}"] = None
        out.extend(_CLOSERS[opener] for opener in reversed(open_stack))
    return "".join(out), position, tuple(repairs)


def _read_string(text: str, start: int) -> tuple[str, int, bool]:
    """(value, end, closed) of the quoted string at `start`, either quote, with its escapes."""
    quote = text[start]
    plain = _PLAIN_RUN[quote]
    chars: list[str] = []
    position = start + 1
    while position < len(text):
        if (run := plain.match(text, position)) is not None:
            chars.append(run.group())
            position = run.end()
            continue
        char = text[position]
        if char == quote:
            return _join_surrogates(chars), position + 1, True
        if char == "\\" and position + 1 < len(text):
            escaped = text[position + 1]
            width = {"x": 2, "u": 4, "U": 8}.get(escaped, 0)
            digits = text[position + 2 : position + 2 + width]
            if (
                width
                and len(digits) == width
                and all(c in string.hexdigits for c in digits)
                and int(digits, 16) <= sys.maxunicode
            ):
                chars.append(chr(int(digits, 16)))
                position += 2 + width
                continue
            chars.append(_ESCAPES.get(escaped, escaped))
            position += 2
            continue
        chars.append(char)
        position += 1
    return _join_surrogates(chars), len(text), False


def _join_surrogates(chars: list[str]) -> str:
    """The text with escaped UTF-16 surrogate pairs ("\\ud83d\\ude00") made one character."""
    joined = "".join(chars)
    if _SURROGATE.search(joined) is None:
        return joined
    return joined.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _drop_trailing_comma(out: list[str]) -> bool:
    while out and out[-1].isspace():
        out.pop()
    if out and out[-1] == ",":
        out.pop()
        return True
    return False


# --- from a found call to ours ----------------------------------------------------------------


class _BadArguments(ValueError):
    pass


def _resolve(found: _Found) -> _Call:
    repairs = list(found.repairs)
    try:
        keywords, positional = _decode_arguments(found.arguments, repairs)
    except _BadArguments as exc:
        alias = _choose_tool(found.name, {}, (), repairs)
        return _Call(alias.tool if alias else None, {}, found.source, repairs, str(exc))
    positional = positional or found.positional
    alias = _choose_tool(found.name, keywords, positional, repairs)
    if alias is None:
        return _Call(None, keywords, found.source, repairs, _unknown_tool(found.name))
    tool = alias.tool
    arguments = _place_positional(tool, alias, keywords, positional, repairs)
    arguments = _rename_arguments(tool, arguments, repairs)
    for argument, value in alias.implied.items():
        arguments.setdefault(argument, value)
    if alias.scroll and isinstance(arguments.get("direction"), str):
        scrolled = arguments["direction"].strip().lower()
        if scrolled in _INVERSE:
            arguments["direction"] = _INVERSE[scrolled]
            repairs.append(
                f"scroll {scrolled}->swipe {_INVERSE[scrolled]} (a swipe names the content's way)"
            )
    arguments = {
        argument: _convert(tool, argument, value, found.textual, repairs)
        for argument, value in arguments.items()
    }
    try:
        validate_call(tool, arguments)
    except ActionError as exc:
        return _Call(tool, arguments, found.source, repairs, str(exc))
    return _Call(tool, arguments, found.source, repairs, None)


def _unknown_tool(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        return "a tool call without a tool name"
    return f"unknown tool {name.strip()!r}; tools are {', '.join(TOOLS)}"


def _decode_arguments(raw: Any, repairs: list[str]) -> tuple[dict[str, Any], tuple[Any, ...]]:
    """(keyword arguments, positional arguments) of arguments as written.

    Text is JSON: an object, or a list of positional values. Any other value, such as the
    "hello" of `{"name": "type_text", "arguments": "hello"}`, is one positional argument.
    """
    if isinstance(raw, str) and raw.strip().startswith('"'):
        try:
            inner = _DECODER.decode(raw.strip())
        except (ValueError, RecursionError):
            inner = None
        if isinstance(inner, str) and inner.strip()[:1] in ("{", "["):
            raw = inner
            repairs.append("decoded arguments encoded twice as JSON text")
    if isinstance(raw, str):
        text = raw.strip()
        if not text:
            return {}, ()
        if text[0] not in "{[":
            return {}, (raw,)
        parsed = _json_value_at(text, 0)
        if parsed is None:
            raise _BadArguments(f"arguments are not valid JSON: {_shorten(text)!r}")
        raw = parsed[0]
        repairs.extend(f"arguments: {repair}" for repair in parsed[2])
        if text[parsed[1] :].strip():
            repairs.append("arguments: dropped text after the JSON")
    if raw is None:
        return {}, ()
    if isinstance(raw, dict):
        return {str(key): value for key, value in raw.items()}, ()
    if isinstance(raw, list):
        return {}, tuple(raw)
    return {}, (raw,)


def _shorten(text: str) -> str:
    return text if len(text) <= _SNIPPET_CHARS else text[:_SNIPPET_CHARS] + "..."


def _normal(name: str) -> str:
    """snake_case of a name as written: 'functions.Tap', 'longPress', 'type-text'."""
    name = name.strip().strip("`'\"").rsplit(".", 1)[-1]
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return re.sub(r"[\s\-]+", "_", name).lower()


def _lookup_tool(name: Any) -> _Alias | None:
    if not isinstance(name, str):
        return None
    normal = _normal(name)
    if normal in TOOLS:
        return _Alias(normal)
    return _TOOL_ALIASES.get(normal)


def _choose_tool(
    name: Any, keywords: dict[str, Any], positional: tuple[Any, ...], repairs: list[str]
) -> _Alias | None:
    if not isinstance(name, str):
        return None
    alias = _lookup_tool(name)
    if alias is None and _normal(name) == _PRESS:
        key_given = any(_normal(key) in _KEY_ARGUMENTS for key in keywords)
        key_given |= bool(positional) and isinstance(positional[0], str)
        alias = _Alias("press_key" if key_given else "tap")
    if alias is None:
        return None
    written = name.strip()
    if written == alias.tool and not alias.implied:
        return alias
    if _normal(written) == alias.tool:
        repairs.append(f"name {written!r}->{alias.tool}")
    else:
        implied = ", ".join(f"{key}={value!r}" for key, value in alias.implied.items())
        repairs.append(f"alias {written}->{alias.tool}" + (f"({implied})" if implied else ""))
    return alias


def _place_positional(
    tool: str,
    alias: _Alias,
    keywords: dict[str, Any],
    positional: tuple[Any, ...],
    repairs: list[str],
) -> dict[str, Any]:
    arguments = dict(keywords)
    order = alias.positional or tuple(
        name for name in TOOLS[tool].model_fields if name not in alias.implied
    )
    for index, value in enumerate(positional):
        if index >= len(order) or order[index] in arguments:
            repairs.append(f"dropped extra argument {value!r}")
            continue
        arguments[order[index]] = value
        repairs.append(f"argument {value!r}->{order[index]}")
    return arguments


def _rename_arguments(tool: str, arguments: dict[str, Any], repairs: list[str]) -> dict[str, Any]:
    fields = TOOLS[tool].model_fields
    aliases = _ARGUMENT_ALIASES.get(tool, {})
    renamed: dict[str, Any] = {key: value for key, value in arguments.items() if key in fields}
    for key, value in arguments.items():
        if key in fields:
            continue
        normal = _normal(key)
        target = normal if normal in fields else None
        target = target or next((name for name, names in aliases.items() if normal in names), None)
        if tool == "wait" and normal in _MILLISECOND_ARGUMENTS and "seconds" not in renamed:
            seconds = _number(value)
            if seconds is not None:
                renamed["seconds"] = seconds / 1000
                repairs.append(f"{key}={value!r}->seconds={seconds / 1000!r}")
                continue
        if target is None or target in renamed:
            repairs.append(f"dropped argument {key!r}")
            continue
        renamed[target] = value
        repairs.append(f"argument {key}->{target}")
    return renamed


# --- converting values by the schema ----------------------------------------------------------

_INTEGER_TEXT = re.compile(r"[-+]?\d+")
# "#3", "[3]", "( 3 )"; the "#" takes its own spaces, as two `\s*` in a row would try every
# split of a long blank run.
_INDEX_TEXT = re.compile(r"[\[(]?\s*(?:#\s*)?(\d+)\s*[\])]?")
_SECONDS_TEXT = re.compile(r"(\d+(?:\.\d+)?)\s*(?:s|sec|secs|seconds?)?", re.IGNORECASE)


def _convert(tool: str, argument: str, value: Any, textual: bool, repairs: list[str]) -> Any:
    """The value with the argument's schema type, or unchanged where no reading is sure."""
    schema = _PARAMETERS[tool]["properties"][argument]
    optional = TOOLS[tool].model_fields[argument].default is None
    if textual and isinstance(value, str):
        decoded = _decode_text(value, schema, optional)
        if decoded is not _UNDECODED:
            return decoded
    if optional and value is None:
        return None
    converted = _coerce(argument, schema, value)
    if converted is not _UNDECODED and (converted != value or type(converted) is not type(value)):
        repairs.append(f"coerced {argument} {value!r}->{converted!r}")
        return converted
    return value


_UNDECODED: Any = object()


def _decode_text(text: str, schema: dict[str, Any], optional: bool) -> Any:
    """A compact-form value read by its declared type, as the format defines it."""
    kind = schema.get("type")
    if optional and text.strip() == "null":
        return None
    if kind == "integer" and _INTEGER_TEXT.fullmatch(text.strip()):
        return int(text)
    if kind == "number" and _NUMBER.fullmatch(text.strip()):
        return float(text)
    if kind == "boolean" and text.strip() in ("true", "false"):
        return text.strip() == "true"
    if kind == "string":
        return text
    return _UNDECODED


def _coerce(argument: str, schema: dict[str, Any], value: Any) -> Any:
    kind = schema.get("type")
    if argument == "key":
        return _key_name(value)
    if "enum" in schema:
        if isinstance(value, str) and value.strip().lower() in schema["enum"]:
            return value.strip().lower()
        return _UNDECODED
    if kind == "integer":
        return _integer(value)
    if kind == "number":
        if isinstance(value, int | float) and not isinstance(value, bool):
            return value  # an integer is a number already
        seconds = _number(value)
        return _UNDECODED if seconds is None else seconds
    if kind == "boolean":
        return _boolean(value)
    if kind == "string" and isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return _UNDECODED


def _integer(value: Any) -> Any:
    if isinstance(value, bool):
        return _UNDECODED
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        match = _INDEX_TEXT.fullmatch(value.strip())
        if match:
            return int(match.group(1))
        number = _number(value)
        if number is not None and number.is_integer():
            return int(number)
    if isinstance(value, list) and len(value) == 1:
        return _integer(value[0])
    return value if isinstance(value, int) else _UNDECODED


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        match = _SECONDS_TEXT.fullmatch(value.strip())
        if match:
            return float(match.group(1))
    return None


def _boolean(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = _normal(value)
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
    return _UNDECODED


def _key_name(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return _KEY_BY_CODE.get(value, _UNDECODED)
    if not isinstance(value, str):
        return _UNDECODED
    if value.strip().isdigit():
        return _KEY_BY_CODE.get(int(value.strip()), _UNDECODED)
    name = _normal(value)
    name = name.removeprefix("keycode_")
    name = _KEY_SYNONYMS.get(name, name)
    return name if name in KEYCODES else _UNDECODED
