"""`phone-agent parse-call [FILE|-]`: the tool call one raw model reply holds, as JSON.

Input: the reply's text, or a JSON object, either an OpenAI chat message (`content`,
`reasoning_content` or `reasoning`, `tool_calls`) or a whole chat completion response
(`{"choices": [{"message": ...}]}`; a completion's `{"text": ...}` choice also works).
JSON that is neither (such as a bare `{"name": "tap", ...}`) is a reply's text.

Output: `{"name", "arguments", "source", "repairs"}` and `dropped` when other calls were not
taken, exit 0. A call that fails validation adds `error` and exits 1; no call at all prints
`{"name": null, "error": ...}` and exits 1. Unreadable or malformed input, or more than
16 MiB of it, exits 2.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from agent.commands.reading import STDIN, read_input
from devices.errors import UsageError

# Keys of an OpenAI chat message; a JSON object with other keys is a reply's text.
_MESSAGE_KEYS = frozenset(
    {"role", "content", "reasoning_content", "reasoning", "tool_calls", "refusal",
     "function_call", "audio", "annotations"}
)  # fmt: skip
_REPLY_KEYS = frozenset({"content", "reasoning_content", "reasoning", "tool_calls"})
# A reply is at most a few hundred kilobytes; a whole chat completion with log-probabilities of
# every token stays well below this too.
MAX_INPUT_BYTES = 16 * 2**20


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "parse-call",
        help="parse one raw model reply into a tool call (JSON)",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "file",
        nargs="?",
        default="-",
        metavar="FILE",
        help="the reply: text, a chat message or a chat completion as JSON ('-' or none: stdin)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from agent.toolparse import parse_reply

    content, reasoning, tool_calls = reply_fields(_read(args.file))
    parsed = parse_reply(content, reasoning, tool_calls)
    if parsed.name is None:
        _print({"name": None, "error": parsed.error})
        return 1
    result: dict[str, Any] = parsed.model_dump(include={"name", "arguments", "source", "repairs"})
    if parsed.dropped:
        result["dropped"] = parsed.dropped
    if parsed.error is not None:
        result["error"] = parsed.error
    _print(result)
    return 0 if parsed.error is None else 1


def reply_fields(text: str) -> tuple[str | None, str | None, list[Any] | None]:
    """(content, reasoning, tool_calls) of the input, as described in the module docstring."""
    stripped = text.strip()
    if not stripped.startswith("{"):
        return text, None, None
    try:
        document = json.loads(stripped)
    except (ValueError, RecursionError):
        return text, None, None  # broken (or absurdly nested) JSON is a reply's text
    if not isinstance(document, dict):
        return text, None, None
    if "choices" in document:
        return _message_fields(_first_message(document["choices"]))
    keys = set(document)
    if keys & _REPLY_KEYS and keys <= _MESSAGE_KEYS:
        return _message_fields(document)
    return text, None, None


def _first_message(choices: Any) -> dict[str, Any]:
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise UsageError("invalid input: 'choices' must be a non-empty list of objects")
    choice = choices[0]
    if isinstance(choice.get("message"), dict):
        message: dict[str, Any] = choice["message"]
        return message
    if isinstance(choice.get("text"), str):
        return {"content": choice["text"]}
    raise UsageError("invalid input: the first choice has no 'message' object or 'text'")


def _message_fields(message: dict[str, Any]) -> tuple[str | None, str | None, list[Any] | None]:
    content = message.get("content")
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        texts = [part.get("text") if isinstance(part, dict) else None for part in content]
        if not all(isinstance(text, str) for text in texts):
            raise UsageError("invalid input: content parts must be objects with a 'text' string")
        content = "".join(str(text) for text in texts)
    reasoning = message.get("reasoning_content", message.get("reasoning"))
    tool_calls = message.get("tool_calls")
    if content is not None and not isinstance(content, str):
        raise UsageError("invalid input: 'content' must be a string or null")
    if reasoning is not None and not isinstance(reasoning, str):
        raise UsageError("invalid input: 'reasoning_content' must be a string or null")
    if tool_calls is not None and not isinstance(tool_calls, list):
        raise UsageError("invalid input: 'tool_calls' must be a list or null")
    return content, reasoning, tool_calls


def _read(file: str) -> str:
    data = read_input(file, MAX_INPUT_BYTES, "a model reply")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{'stdin' if file == STDIN else file}: not UTF-8 text") from None


def _print(result: dict[str, Any]) -> None:
    print(json.dumps(result, ensure_ascii=False))
