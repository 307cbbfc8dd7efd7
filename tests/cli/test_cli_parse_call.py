"""`phone-agent parse-call`: inputs it accepts, what it prints, its exit codes."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent.cli import main
from tests.support.paths import REPO_ROOT

REPLIES_DIR = REPO_ROOT / "fixtures" / "replies"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any, str]:
    code = main(["parse-call", *args])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out.strip() else None, err


def run_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, text: str, *args: str
) -> tuple[int, Any, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
    return run(capsys, *args)


def test_a_recorded_chat_completion_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, printed, err = run(capsys, str(REPLIES_DIR / "bracket_json_unterminated.json"))
    assert code == 0 and err == ""
    assert printed == {
        "name": "tap",
        "arguments": {"index": 1},
        "source": "bracket_json",
        "repairs": ["closed 1 brace"],
    }


def test_dropped_calls_are_printed_only_when_there_are_some(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, printed, _ = run(capsys, str(REPLIES_DIR / "structured_several_calls.json"))
    assert code == 0
    assert printed["dropped"] == [{"name": "wait", "arguments": {"seconds": 2}}]
    _, printed, _ = run(capsys, str(REPLIES_DIR / "structured_tool_call.json"))
    assert set(printed) == {"name", "arguments", "source", "repairs"}


@pytest.mark.parametrize("args", [(), ("-",)])
def test_plain_text_on_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]
) -> None:
    code, printed, _ = run_stdin(
        capsys, monkeypatch, "Opening it.\nopen_app(name='Clock')\n", *args
    )
    assert code == 0
    assert (printed["name"], printed["arguments"], printed["source"]) == (
        "open_app",
        {"name": "Clock"},
        "python_call",
    )


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (
            {
                "role": "assistant",
                "content": None,
                "reasoning_content": "Go back.",
                "tool_calls": [
                    {
                        "id": "1",
                        "type": "function",
                        "function": {"name": "press_key", "arguments": '{"key": "back"}'},
                    }
                ],
            },
            ("press_key", {"key": "back"}, "tool_calls"),
        ),
        (
            {
                "content": "",
                "reasoning": "Home.</think><tool_call>press_key<arg_key>key</arg_key>"
                "<arg_value>home</arg_value></tool_call>",
            },
            ("press_key", {"key": "home"}, "compact"),
        ),
        (
            {
                "choices": [
                    {
                        "index": 0,
                        "text": "<tool_call>wait<arg_key>seconds</arg_key>"
                        "<arg_value>3</arg_value></tool_call>",
                    }
                ]
            },
            ("wait", {"seconds": 3.0}, "compact"),
        ),
        (
            {"content": [{"type": "text", "text": "tap("}, {"type": "text", "text": "index=2)"}]},
            ("tap", {"index": 2}, "python_call"),
        ),
        # A bare JSON call is a reply's text, not a message.
        ({"name": "tap", "arguments": {"index": 4}}, ("tap", {"index": 4}, "json")),
    ],
)
def test_json_message_shapes(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    document: dict[str, Any],
    expected: tuple[str, dict[str, Any], str],
) -> None:
    code, printed, _ = run_stdin(capsys, monkeypatch, json.dumps(document))
    assert code == 0
    assert (printed["name"], printed["arguments"], printed["source"]) == expected


def test_broken_json_is_read_as_a_reply(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, printed, _ = run_stdin(capsys, monkeypatch, '{"name": "tap", "arguments": {"index": 2')
    assert code == 0
    assert (printed["name"], printed["repairs"]) == ("tap", ["closed 2 braces"])


def test_no_call_prints_the_reason_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, printed, err = run(capsys, str(REPLIES_DIR / "thinking_cap.json"))
    assert code == 1 and err == ""
    assert printed == {
        "name": None,
        "error": "thinking did not finish: the reply ends inside its reasoning with no call",
    }


def test_an_invalid_call_prints_it_with_the_error_and_exits_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, printed, _ = run(capsys, str(REPLIES_DIR / "invalid_key.json"))
    assert code == 1
    assert (printed["name"], printed["arguments"]) == ("press_key", {"key": "bak"})
    assert printed["error"].startswith("press_key: key 'bak' is not one of back, home, enter")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"choices": []}', "error: invalid input: 'choices' must be a non-empty list of objects"),
        ('{"content": 5}', "error: invalid input: 'content' must be a string or null"),
        ('{"content": "", "tool_calls": {}}', "error: invalid input: 'tool_calls' must be a list"),
        ('{"content": [{"type": "image_url"}]}', "error: invalid input: content parts must be"),
    ],
)
def test_malformed_messages_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    code, printed, err = run_stdin(capsys, monkeypatch, text)
    assert (code, printed) == (2, None)
    assert err.startswith(message) and err.count("\n") == 1


def test_unreadable_files_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, printed, err = run(capsys, str(tmp_path / "missing.json"))
    assert (code, printed) == (2, None)
    assert err == f"error: cannot read {tmp_path / 'missing.json'}: No such file or directory\n"
    binary = tmp_path / "reply.bin"
    binary.write_bytes(b"\xff\xfe\x00tap")
    code, printed, err = run(capsys, str(binary))
    assert (code, printed, err) == (2, None, f"error: {binary}: not UTF-8 text\n")


def test_console_script_parses_a_file() -> None:
    script = Path(sys.executable).with_name("phone-agent")
    if not script.exists():
        pytest.skip("the phone-agent console script is not installed in this environment")
    result = subprocess.run(
        [str(script), "parse-call", str(REPLIES_DIR / "compact_alias_click.json")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "name": "tap",
        "arguments": {"index": 7},
        "source": "compact",
        "repairs": ["alias click->tap", "argument element->index", "coerced index '#7'->7"],
    }


def test_megabytes_of_unclosed_objects_are_a_reply_without_a_call(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Too deep for a JSON reader (it once stopped the command with a recursion error), and
    with no call in it."""
    code, printed, err = run_stdin(capsys, monkeypatch, '{"a":' * 1_000_000)
    assert code == 1 and err == ""
    assert printed["name"] is None and printed["error"].startswith("no tool call in the reply")
