"""`bench step`: model, device and our own time per decision, first and later steps."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agent import prompt
from agent.actions import tools_schema
from agent.cli import main
from agent.model_client import ClientSettings, chat_reply, chat_request
from evals.bench import step
from evals.scripted_model import ScriptedServer, call, error, index_of, tap

WIFI_PLAN = (call("open_app", name="Settings"), tap("Network & internet"), tap("Internet"))


def test_every_step_is_split_into_model_device_and_our_own_stages() -> None:
    with ScriptedServer([*WIFI_PLAN, *WIFI_PLAN]) as server:
        report = step.run_step_bench(
            ClientSettings(base_url=server.base_url), steps=3, modes=("off", "on")
        )
    assert (report.model, report.task, report.goal) == (
        "scripted-model",
        "SystemWifiTurnOn",
        "Turn on Wi-Fi.",
    )
    assert [(s.mode, s.episode, s.step, s.phase) for s in report.steps] == [
        ("off", 1, 1, "cold"),
        ("off", 1, 2, "later"),
        ("off", 1, 3, "later"),
        ("on", 1, 1, "cold"),
        ("on", 1, 2, "later"),
        ("on", 1, 3, "later"),
    ]
    assert [s.call for s in report.steps] == ["open_app", "tap", "tap"] * 2
    for timing in report.steps:
        assert timing.model_ms > 0 and timing.device_ms > 0 and timing.overhead_ms > 0
        assert timing.parse_ms > 0 and timing.render_ms > 0 and timing.record_ms > 0
        assert 0 < timing.overhead_pct < 100
        assert timing.prompt_tokens == 100  # what the server said it read
        assert timing.ttft_ms is None  # the scripted server does not stream
    assert not report.streamed and report.later_vs_first_ttft is None
    assert [(m.thinking, m.first.steps, m.later.steps if m.later else 0) for m in report.modes] == [
        ("off", 1, 2),
        ("on", 1, 2),
    ]
    percents = [s.overhead_pct for s in report.steps]
    assert report.overhead.max_pct == max(percents)
    assert report.overhead.met == (report.overhead.median_pct < 2.0)
    thinking = [r.thinking for r in server.chat_requests]
    assert thinking == [False] * 3 + [True] * 3


def test_the_benchmark_sends_the_agent_s_request_streamed_and_marked() -> None:
    settings = ClientSettings(base_url="", temperature=0.3, top_p=0.7, tool_choice="required")
    with ScriptedServer(WIFI_PLAN) as server:
        settings = settings.model_copy(update={"base_url": server.base_url})
        step.run_step_bench(settings, steps=1, modes=("on",))
    (request,) = server.chat_requests
    body = dict(request.body)
    assert body.pop("stream") is True and body.pop("stream_options") == {"include_usage": True}
    system, user = body["messages"]
    marker = system["content"].split("] ", 1)[0] + "] "
    unmarked = json.loads(json.dumps(body))
    unmarked["messages"][0]["content"] = system["content"].removeprefix(marker)
    first_tool = unmarked["tools"][0]["function"]
    first_tool["description"] = first_tool["description"].removeprefix(marker)
    agent_messages = [prompt.system_message(), user]
    assert unmarked == chat_request(
        settings, "scripted-model", agent_messages, tools_schema(), thinking=True
    )


def test_each_mode_starts_cold_and_its_episodes_share_the_system_prompt() -> None:
    plan = [*WIFI_PLAN[:2]] * 4
    with ScriptedServer(plan) as server:
        report = step.run_step_bench(
            ClientSettings(base_url=server.base_url),
            steps=4,
            episode_steps=2,
            modes=("off", "on"),
        )
    heads = [
        (
            r.body["messages"][0]["content"].split("]")[0],
            r.body["tools"][0]["function"]["description"].split("]")[0],
        )
        for r in server.chat_requests
    ]
    assert len(set(heads[:4])) == 1 and len(set(heads[4:])) == 1  # shared within a mode
    assert heads[0] != heads[4]  # a mode's first step finds nothing of the other's
    assert all(system == tool for system, tool in heads)  # system message and tools marked
    # the second episode plays the first's screens again: its later step repeats a request
    assert [(s.episode, s.step, s.phase) for s in report.steps[:4]] == [
        (1, 1, "cold"),
        (1, 2, "later"),
        (2, 1, "episode_start"),
        (2, 2, "repeat"),
    ]
    off = report.modes[0]
    assert off.episodes == 2 and off.episode_start is not None and off.episode_start.steps == 1
    assert off.later is not None and off.later.steps == 1  # the repeat is left out
    assert off.repeat is not None and off.repeat.steps == 1


def test_a_short_episode_is_followed_by_another_until_the_steps_are_collected() -> None:
    done = call("task_complete", success=False)  # a success claim there would be refused
    with ScriptedServer([WIFI_PLAN[0], done, WIFI_PLAN[0], done]) as server:
        report = step.run_step_bench(
            ClientSettings(base_url=server.base_url), steps=3, modes=("off",)
        )
    assert [(s.episode, s.step) for s in report.steps] == [(1, 1), (1, 2), (2, 1)]
    assert report.modes[0].episodes == 2
    assert report.modes[0].stop_reasons[0] != "model_error"
    assert len(server.chat_requests) == 3


def test_auto_thinks_only_after_a_wait_and_each_mode_reports_seconds_per_decision() -> None:
    wait = call("wait", seconds=1)
    plan = [wait, WIFI_PLAN[0], WIFI_PLAN[1]] * 3
    with ScriptedServer(plan) as server:
        report = step.run_step_bench(ClientSettings(base_url=server.base_url), steps=3)
    assert [m.thinking for m in report.modes] == ["off", "on", "auto"]
    thought = [r.thinking for r in server.chat_requests]
    assert thought == [False] * 3 + [True] * 3 + [False, True, False]
    assert [m.thinking_steps for m in report.modes] == [0, 3, 1]
    for mode in report.modes:
        steps = [s for s in report.steps if s.mode == mode.thinking]
        whole = [s.model_ms + s.device_ms + s.overhead_ms for s in steps]
        assert mode.seconds_per_decision == pytest.approx(sum(whole) / len(whole) / 1000, abs=1e-3)


def test_a_server_failure_stops_the_benchmark_with_its_reason() -> None:
    with (
        ScriptedServer([WIFI_PLAN[0], error(500)]) as server,
        pytest.raises(step.BenchStepError, match="HTTP 500"),
    ):
        step.run_step_bench(ClientSettings(base_url=server.base_url), steps=3)


# -- streaming -------------------------------------------------------------------------------


def _sse(chunk: dict[str, Any]) -> str:
    return f"data: {json.dumps(chunk)}"


def test_stream_chunks_fold_into_one_reply_and_the_first_token_is_timed() -> None:
    ticks = iter(range(100))
    stream = step._StreamedReply(clock=lambda: float(next(ticks)))
    lines = [
        ": keep-alive",
        _sse({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}),
        _sse({"choices": [{"index": 0, "delta": {"reasoning_content": "Wi-Fi is off"}}]}),
        _sse(
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [
                                {
                                    "index": 0,
                                    "id": "c1",
                                    "function": {"name": "tap", "arguments": ""},
                                }
                            ]
                        },
                    }
                ]
            }
        ),
        _sse(
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {
                            "tool_calls": [{"index": 0, "function": {"arguments": '{"index": 3}'}}]
                        },
                        "finish_reason": "tool_calls",
                    }
                ]
            }
        ),
        _sse({"choices": [], "usage": {"prompt_tokens": 812, "completion_tokens": 9}}),
        "data: [DONE]",
        _sse({"choices": [{"index": 0, "delta": {"content": "after the end"}}]}),
    ]
    fed = [stream.feed(line) for line in lines]
    assert fed == [True] * 6 + [False, False]  # nothing counts after [DONE]
    assert stream.first_token == 0.0  # the role chunk, which vLLM sends with the first token
    # read as the agent's model client reads a reply that was not streamed
    reply = chat_reply(json.dumps(stream.as_completion()), thinking=True)
    assert reply.reasoning == "Wi-Fi is off" and reply.content is None
    assert reply.tool_calls == [
        {"id": "c1", "type": "function", "function": {"name": "tap", "arguments": '{"index": 3}'}}
    ]
    assert reply.finish_reason == "tool_calls"
    assert (reply.prompt_tokens, reply.completion_tokens) == (812, 9)


class _CachingStreamServer:
    """Streams chat completions like vLLM (the role chunk comes with the first token) and, like
    a server with a prefix cache, makes that token wait in proportion to the prompt characters
    it has not seen at the start of an earlier prompt.

    A cold prompt (some thousands of characters) waits about half a second, so a later step's
    time to first token stays far below it even when a busy machine adds a tenth of a second
    to every request."""

    SECONDS_PER_CHAR = 1e-4

    def __init__(self, reply: Callable[[dict[str, Any]], tuple[str, dict[str, Any]]]) -> None:
        self.reply = reply
        self.prompts: list[str] = []
        self.lock = threading.Lock()
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def cached_chars(self, prompt: str) -> int:
        with self.lock:
            best = 0
            for earlier in self.prompts:
                shared = 0
                for a, b in zip(earlier, prompt, strict=False):
                    if a != b:
                        break
                    shared += 1
                best = max(best, shared)
            self.prompts.append(prompt)
        return best

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

            def do_GET(self) -> None:
                body = json.dumps({"object": "list", "data": [{"id": "streamer"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                # tools first, then the messages: the order of the Spark chat template
                prompt = json.dumps(request["tools"]) + json.dumps(request["messages"])
                cached = server.cached_chars(prompt)
                name, arguments = server.reply(request)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                time.sleep((len(prompt) - cached) * server.SECONDS_PER_CHAR)
                self._send({"choices": [{"index": 0, "delta": {"role": "assistant"}}]})
                fragment = {"index": 0, "id": "c1", "function": {"name": name, "arguments": ""}}
                self._send({"choices": [{"index": 0, "delta": {"tool_calls": [fragment]}}]})
                rest = {"index": 0, "function": {"arguments": json.dumps(arguments)}}
                self._send(
                    {
                        "choices": [
                            {
                                "index": 0,
                                "delta": {"tool_calls": [rest]},
                                "finish_reason": "tool_calls",
                            }
                        ]
                    }
                )
                usage = {
                    "prompt_tokens": len(prompt),
                    "completion_tokens": 5,
                    "prompt_tokens_details": {"cached_tokens": cached},
                }
                self._send({"choices": [], "usage": usage})
                self.wfile.write(b"data: [DONE]\n\n")

            def _send(self, chunk: dict[str, Any]) -> None:
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()

        return Handler

    @contextmanager
    def running(self) -> Iterator[_CachingStreamServer]:
        self.thread.start()
        try:
            yield self
        finally:
            self.httpd.shutdown()
            self.httpd.server_close()


def test_streamed_steps_show_later_prompts_cheaper_than_the_first() -> None:
    targets = iter([None, "Network & internet", "Internet", None, "Network & internet"] * 2)

    def reply(request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        target = next(targets)
        if target is None:
            return "open_app", {"name": "Settings"}
        return "tap", {"index": index_of(request, target)}

    with _CachingStreamServer(reply).running() as server:
        report = step.run_step_bench(
            ClientSettings(base_url=server.base_url), steps=5, episode_steps=3, modes=("off", "on")
        )
    assert report.streamed and report.model == "streamer"
    for timing in report.steps:
        assert timing.ttft_ms is not None and 0 < timing.ttft_ms <= timing.model_ms
    cold = [s for s in report.steps if s.phase == "cold"]
    warm = [s for s in report.steps if s.phase != "cold"]
    assert max(s.cached_tokens or 0 for s in cold) < min(s.cached_tokens or 0 for s in warm)
    assert report.later_vs_first_ttft is not None and report.later_vs_first_ttft < 0.8
    assert all(m.later_vs_first_ttft is not None for m in report.modes)
    assert report.episode_start_vs_first_ttft is not None
    assert report.episode_start_vs_first_ttft < 0.8
    for mode in report.modes:
        assert mode.later is not None and mode.later.ms_per_output_token is not None
        assert mode.call_decision_s is not None and mode.call_decision_s > 0


def _timing(
    phase: step.Phase, ttft_ms: float | None, ms_per_token: float | None
) -> step.StepTiming:
    return step.StepTiming(
        mode="off",
        thinking=False,
        episode=1,
        step=1 if phase == "cold" else 2,
        phase=phase,
        call="tap",
        prompt_tokens=1800,
        cached_tokens=None,
        completion_tokens=40,
        ttft_ms=ttft_ms,
        ms_per_output_token=ms_per_token,
        model_ms=3000.0,
        device_ms=5.0,
        overhead_ms=1.0,
        overhead_pct=0.03,
        parse_ms=0.1,
        render_ms=0.1,
        reply_parse_ms=0.1,
        guards_ms=0.1,
        record_ms=0.1,
        unattributed_ms=0.5,
    )


def test_a_fixed_length_decision_is_a_later_step_s_first_token_plus_the_call_s_tokens() -> None:
    """Random weights write replies of any length: the decision is reckoned for a call of a
    fixed length from the medians of the later steps (the cold step's long prompt is left out)."""
    steps = [
        _timing("cold", 3900.0, 70.0),
        _timing("later", 1000.0, 80.0),
        _timing("later", 1200.0, 70.0),
        _timing("later", 1400.0, 74.0),
    ]
    mode = step._mode_report("off", ["step_budget"], steps, call_tokens=24)
    assert mode.call_decision_s == round((1200.0 + 23 * 74.0) / 1000, 3)
    assert step._mode_report("off", [], steps, call_tokens=1).call_decision_s == 1.2
    unstreamed = [_timing("cold", None, None), _timing("later", None, None)]
    assert step._mode_report("off", [], unstreamed, call_tokens=24).call_decision_s is None


def test_the_time_per_output_token_leaves_out_the_first() -> None:
    reply = chat_reply(
        json.dumps(
            {"choices": [{"message": {}}], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}
        ),
        thinking=False,
    )
    decision = step.Decision(started=0.0, ended=2.4, first_token=2.0, reply=reply, cached_tokens=0)
    assert step._ms_per_output_token(decision) == pytest.approx(100.0)
    one = reply.model_copy(update={"completion_tokens": 1})
    assert step._ms_per_output_token(step.Decision(0.0, 2.4, 2.0, one, 0)) is None
    assert step._ms_per_output_token(step.Decision(0.0, 2.4, None, reply, 0)) is None


# -- the command -------------------------------------------------------------------------------


def test_bench_step_prints_json(capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer(WIFI_PLAN[:2]) as server:
        code = main(
            [
                "bench",
                "step",
                "--base-url",
                server.base_url,
                "--steps",
                "2",
                "--thinking",
                "off",
                "--json",
            ]
        )
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert code == 0
    assert [s["step"] for s in report["steps"]] == [1, 2]
    assert set(report["overhead"]) == {"median_pct", "max_pct", "target_pct", "met"}
    assert report["overhead"]["target_pct"] == 2.0
    assert "thinking off episode 1 step 2" in captured.err  # progress goes to stderr


def test_bench_step_records_every_request_it_sends_for_a_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    recording = tmp_path / "requests.jsonl"
    with ScriptedServer(WIFI_PLAN[:2]) as server:
        command = ["bench", "step", "--base-url", server.base_url, "--steps", "2"]
        assert main([*command, "--thinking", "off", "--record", str(recording)]) == 0
    lines = recording.read_text().splitlines()
    assert [json.loads(line) for line in lines] == [r.body for r in server.chat_requests]
    assert len(lines) == 2
    capsys.readouterr()
    unwritable = tmp_path / "missing" / "requests.jsonl"
    assert main(["bench", "step", "--record", str(unwritable)]) == 2
    assert capsys.readouterr().err.startswith(f"error: cannot write {unwritable}")


def test_bench_step_text_reports_the_target(capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer(WIFI_PLAN[:2]) as server:
        code = main(
            ["bench", "step", "--base-url", server.base_url, "--steps", "2", "--thinking", "off"]
        )
    out = capsys.readouterr().out
    assert code == 0
    assert "our overhead: median" in out and "(target < 2%:" in out
    assert "the server did not stream" in out


@pytest.mark.parametrize(
    ("arguments", "code", "message"),
    [
        (["--base-url", "http://127.0.0.1:9/v1"], 1, "no model server at http://127.0.0.1:9/v1"),
        (["--task", "no_such_task"], 2, "no simulator task 'no_such_task'"),
        (["--steps", "0"], 2, "--steps must be at least 1"),
    ],
)
def test_bench_step_failures_are_one_line(
    capsys: pytest.CaptureFixture[str], arguments: list[str], code: int, message: str
) -> None:
    assert main(["bench", "step", *arguments]) == code
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_bench_alone_lists_the_agent_s_and_the_server_s_benchmarks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench"]) == 2
    listed = capsys.readouterr().out
    assert all(name in listed for name in ("prompt", "step", "serving", "kernels"))
