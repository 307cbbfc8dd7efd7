"""The model client against scripted OpenAI-compatible servers."""

from __future__ import annotations

import socket

import pytest

from agent.actions import tools_schema
from agent.model_client import (
    ModelCallError,
    ModelServerUnavailable,
    summarize_reasoning,
)
from evals.scripted_model import (
    Scripted,
    ScriptedServer,
    call,
    decode,
    error,
    hang,
    render_chat,
    text,
)
from tests.support.model_client import client_for, request

COMPACT_TAP = "<tool_call>tap<arg_key>index</arg_key><arg_value>2</arg_value></tool_call>"
LONG_REASONING = "The goal is Wi-Fi. " * 30 + "So I should open Network and internet first"


def test_chat_request_carries_tools_thinking_and_sampling() -> None:
    with ScriptedServer([call("tap", index=2)]) as server:
        reply = client_for(server.base_url).decide(request())
    assert reply.tool_calls[0]["function"] == {"name": "tap", "arguments": '{"index": 2}'}
    assert (reply.path, reply.attempts, reply.thinking) == ("chat", 1, True)
    body = server.chat_requests[0].body
    assert body["model"] == "scripted-model"  # discovered through /v1/models
    assert body["tools"] == tools_schema()
    assert body["tool_choice"] == "auto"
    assert body["chat_template_kwargs"] == {"enable_thinking": True}
    assert (body["temperature"], body["top_p"]) == (1.0, 0.95)
    assert body["max_tokens"] == 512  # the default think budget


def test_thinking_off_and_required_tool_choice() -> None:
    with ScriptedServer([call("tap", index=2)]) as server:
        client_for(server.base_url, thinking=False, tool_choice="required").decide(request())
    body = server.chat_requests[0].body
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["tool_choice"] == "required"
    assert body["max_tokens"] == 256


def test_request_can_force_thinking_for_one_step() -> None:
    with ScriptedServer([call("tap", index=2)]) as server:
        client_for(server.base_url, thinking=False).decide(request(thinking=True))
    assert server.chat_requests[0].thinking is True


def test_reasoning_content_is_returned() -> None:
    with ScriptedServer(
        [Scripted(reasoning="Wi-Fi is under Network.", calls=[("tap", {"index": 2})])]
    ) as s:
        reply = client_for(s.base_url).decide(request())
    assert reply.reasoning == "Wi-Fi is under Network."
    assert reply.prompt_tokens == 100


def test_no_server_gives_one_clear_line() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    sleeps: list[float] = []
    with pytest.raises(ModelServerUnavailable) as caught:
        client_for(url, sleeps).model_name()
    assert str(caught.value) == f"no model server at {url} — start one with `phone-agent serve`"
    assert sleeps == []  # at start-up, nobody listening is reported at once
    with pytest.raises(ModelServerUnavailable):
        client_for(url, sleeps, retries=2, model="m").decide(request())
    assert sleeps == [0.001, 0.002]  # mid-run: bounded retries with exponential backoff


def test_server_errors_are_retried() -> None:
    with ScriptedServer([error(500), error(503), call("tap", index=2)], model="m") as server:
        reply = client_for(server.base_url, model="m").decide(request())
    assert reply.attempts == 3
    assert len(server.chat_requests) == 3


def test_persistent_server_errors_end_in_one_message() -> None:
    failed = pytest.raises(ModelCallError, match=r"failed 3 times \(last: HTTP 500\)")
    with ScriptedServer([error(500)] * 3, model="m") as server, failed:
        client_for(server.base_url, model="m", retries=2).decide(request())


def test_client_errors_are_not_retried() -> None:
    refused = pytest.raises(ModelCallError, match="HTTP 400")
    with ScriptedServer([error(400), call("tap", index=2)], model="m") as server, refused:
        client_for(server.base_url, model="m").decide(request())
    assert len(server.chat_requests) == 1


def test_a_hanging_server_times_out() -> None:
    with ScriptedServer([hang(5)], model="m") as server:
        client = client_for(server.base_url, model="m", retries=0, timeout_s=0.2)
        with pytest.raises(ModelCallError, match=r"no answer within 0.2 s"):
            client.decide(request())


def test_unclosed_thinking_is_closed_and_continued() -> None:
    cut = Scripted(reasoning=LONG_REASONING, finish_reason="length")
    with ScriptedServer([cut], [text(COMPACT_TAP)]) as server:
        reply = client_for(server.base_url, think_budget=64).decide(request())
    assert reply.path == "continuation"
    assert reply.content == COMPACT_TAP
    assert reply.reasoning == LONG_REASONING
    assert "64-token budget" in reply.notes[0]
    assert server.chat_requests[0].body["max_tokens"] == 64
    completion = server.requests_to("/v1/completions")[0].body
    chat_prompt = render_chat({**server.chat_requests[0].body, "add_generation_prompt": True})
    # the server's own rendering of the same conversation, then the cut reasoning, closed
    assert decode(completion["prompt"]) == chat_prompt + LONG_REASONING + "</think>"
    assert completion["skip_special_tokens"] is False


def test_unclosed_thinking_in_content_without_a_reasoning_parser() -> None:
    cut = Scripted(content=LONG_REASONING, finish_reason="length")
    with ScriptedServer([cut], [text(COMPACT_TAP)]) as server:
        reply = client_for(server.base_url).decide(request())
    assert reply.path == "continuation"
    assert decode(server.requests_to("/v1/completions")[0].body["prompt"]).endswith(
        LONG_REASONING + "</think>"
    )


def test_without_tokenize_the_step_is_asked_again_with_thinking_off() -> None:
    cut = Scripted(reasoning=LONG_REASONING, finish_reason="length")
    with ScriptedServer([cut, call("tap", index=2)], tokenize=False) as server:
        reply = client_for(server.base_url).decide(request())
    assert reply.path == "thinking_off"
    assert reply.tool_calls
    first, second = server.chat_requests
    assert (first.thinking, second.thinking) == (True, False)
    assert second.body["messages"][0] == first.body["messages"][0]  # prefix unchanged
    summary = second.user_text.removeprefix(first.user_text)
    assert summary.startswith("\n\nYour reasoning for this step was cut off here: ")
    assert summary.endswith("So I should open Network and internet first")
    assert "\n" not in summary.strip()


def test_a_continuation_without_a_call_falls_back_to_thinking_off() -> None:
    cut = Scripted(reasoning=LONG_REASONING, finish_reason="length")
    with ScriptedServer([cut, call("tap", index=2)], [text("hmm, let me think more")]) as server:
        reply = client_for(server.base_url).decide(request())
    assert reply.path == "thinking_off"
    assert len(server.requests_to("/v1/completions")) == 1


def test_a_reply_cut_after_closing_thinking_is_left_to_the_parser() -> None:
    cut = Scripted(reasoning="short", content='[tap]\n{"index": 2', finish_reason="length")
    with ScriptedServer([cut]) as server:
        reply = client_for(server.base_url).decide(request())
    assert reply.path == "chat"
    assert not server.requests_to("/v1/completions")


def test_summary_is_one_line_ending_where_the_reasoning_stopped() -> None:
    summary = summarize_reasoning("First idea.\n" * 50 + "Then tap the switch.", max_chars=60)
    assert summary.endswith("Then tap the switch.")
    assert len(summary) <= 60 and "\n" not in summary
    assert summarize_reasoning("x" * 300, max_chars=50) == "…" + "x" * 49
