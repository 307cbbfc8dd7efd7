"""`bench speculative`: recorded requests replayed greedily on servers that decode in different
ways (every logit, the grammar's logits, drafts), compared token by token with the first, and
timed on the same outputs."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agent.cli import main
from serving.bench import speculative
from serving.bench.speculative import ReplayedReply, ServerRun

RECORDED: dict[str, Any] = {
    "model": "recorded",
    "messages": [
        {"role": "system", "content": "You operate a phone."},
        {"role": "user", "content": "Goal: turn on Wi-Fi"},
    ],
    "tools": [{"type": "function", "function": {"name": "tap", "description": "Tap."}}],
    "tool_choice": "required",
    "temperature": 1.0,
    "top_p": 0.95,
    "max_tokens": 256,
    "chat_template_kwargs": {"enable_thinking": False},
}


def _reply(run: int, request: int, tokens: list[int], ttft: float, total: float) -> ReplayedReply:
    return ReplayedReply(
        run=run,
        request=request,
        prompt_tokens=1900,
        cached_tokens=1700,
        token_ids=tokens,
        text="",
        finish_reason="length",
        ttft_ms=ttft,
        total_ms=total,
        ms_per_output_token=(total - ttft) / (len(tokens) - 1),
    )


def test_identical_replies_are_exact_and_their_times_compared() -> None:
    tokens = list(range(25))
    plain = ServerRun(
        label="plain",
        serve_args=[],
        replies=[_reply(1, 0, tokens, 3000, 5400), _reply(1, 1, tokens, 1000, 3400)],
    )
    fast = ServerRun(
        label="speculative",
        serve_args=["--speculative-config", "{}"],
        replies=[_reply(1, 0, tokens, 3000, 4200), _reply(1, 1, tokens, 1000, 2200)],
    )
    report = speculative.compare("m", 2, 1, [plain, fast], call_tokens=24)
    assert report.exact and (report.compared, report.identical) == (2, 2)
    # later requests only (the first of a run is cold): 1000 ms + 23 x 100 ms, then x 50 ms
    assert [side.call_decision_s for side in report.medians] == [3.3, 2.15]
    assert [side.later_total_speedup for side in report.medians] == [1.0, round(3400 / 2200, 3)]
    assert report.medians[1].call_decision_speedup == round(3.3 / 2.15, 3)
    text = speculative.render_text(report)
    assert "2 of 2 replies identical token by token (50 tokens): identical" in text
    assert "| speculative | --speculative-config {} |" in text and "| 1.53x |" in text


def test_every_side_is_compared_with_the_first() -> None:
    tokens = list(range(25))
    sides = [
        ServerRun(label=label, serve_args=[], replies=[_reply(1, 0, tokens, 3000, 5400)])
        for label in ("all-logits", "plain")
    ]
    differs = [*tokens[:3], 99, *tokens[4:]]
    sides.append(
        ServerRun(label="speculative", serve_args=[], replies=[_reply(1, 0, differs, 9, 10)])
    )
    report = speculative.compare("m", 1, 1, sides)
    assert (report.compared, report.identical, report.exact) == (2, 1, False)
    (difference,) = report.differences
    assert (difference.side, difference.position, difference.other[0]) == ("speculative", 3, 99)
    assert "speculative, run 1 request 1: first differs at token 3" in (
        speculative.render_text(report)
    )


def test_a_request_that_repeats_an_earlier_one_is_compared_but_not_timed() -> None:
    """An agent on random weights plays its second episode as it played the first; a repeated
    request finds its whole prompt cached, which an agent's next step never does."""
    first = {"messages": [{"role": "user", "content": "Screen: Wi-Fi off"}]}
    later = {"messages": [{"role": "user", "content": "1. tap -> ok\nScreen: Wi-Fi on"}]}
    assert speculative.repeated_requests([first, later, first, later]) == [2, 3]
    tokens = list(range(25))
    plain = ServerRun(
        label="plain",
        serve_args=[],
        replies=[
            _reply(1, 0, tokens, 3000, 5400),
            _reply(1, 1, tokens, 1000, 3400),
            _reply(1, 2, tokens, 100, 2500),
            _reply(1, 3, tokens, 200, 2600),
        ],
    )
    report = speculative.compare("m", 4, 1, [plain, plain], call_tokens=24, repeated=[2, 3])
    assert report.exact and report.compared == 4
    assert report.medians[0].later_requests == 1
    assert report.medians[0].call_decision_s == 3.3  # request 1 alone
    assert "requests 3, 4 repeat earlier ones" in speculative.render_text(report)


def test_the_cores_other_processes_take_are_measured_apart_from_ours() -> None:
    """Over 2 s the machine was busy for 3 core-seconds, 1 of them the server's and ours: the
    rest of the machine took one core."""
    import os

    tick = os.sysconf("SC_CLK_TCK")
    machine = iter([10 * tick, 13 * tick])
    ours = iter([5 * tick, 6 * tick])
    clock = iter([100.0, 102.0])
    with speculative.ForeignCores(
        lambda: [1, 2],
        machine_ticks=lambda: next(machine),
        process_ticks=lambda pids: next(ours),
        clock=lambda: next(clock),
    ) as foreign:
        pass
    assert foreign.cores == 1.0
    with speculative.ForeignCores(lambda: [os.getpid()]) as real:  # reads this machine's /proc
        sum(range(10_000))
    assert real.cores is not None and real.cores >= 0


def test_one_differing_token_or_a_missing_reply_is_not_exact() -> None:
    plain = ServerRun(label="plain", serve_args=[], replies=[_reply(1, 0, [5, 6, 7, 8], 1, 4)])
    differs = ServerRun(
        label="speculative", serve_args=[], replies=[_reply(1, 0, [5, 6, 9, 8], 1, 4)]
    )
    report = speculative.compare("m", 1, 1, [plain, differs])
    assert not report.exact
    (difference,) = report.differences
    assert (difference.position, difference.first, difference.other) == (2, [7, 8], [9, 8])
    assert "NOT identical" in speculative.render_text(report)
    shorter = ServerRun(label="speculative", serve_args=[], replies=[_reply(1, 0, [5, 6], 1, 4)])
    assert speculative.compare("m", 1, 1, [plain, shorter]).differences[0].position == 2
    missing = ServerRun(label="speculative", serve_args=[], error="the server exited")
    assert not speculative.compare("m", 1, 1, [plain, missing]).exact


class _TokenStream:
    """Streams chat completions whose chunks carry generated token ids, as vLLM does with
    `return_token_ids`; records the bodies it was sent."""

    def __init__(self, chunks: list[list[int]]) -> None:
        self.chunks = chunks
        self.bodies: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.bodies.append(body)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for tokens in server.chunks:
                    choice = {"index": 0, "delta": {"content": "x"}, "token_ids": tokens}
                    self.wfile.write(f"data: {json.dumps({'choices': [choice]})}\n\n".encode())
                usage = {
                    "prompt_tokens": 40,
                    "completion_tokens": 5,
                    "prompt_tokens_details": {"cached_tokens": 32},
                }
                self.wfile.write(
                    f"data: {json.dumps({'choices': [], 'usage': usage})}\n\n".encode()
                )
                self.wfile.write(b"data: [DONE]\n\n")

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)

    @contextmanager
    def running(self) -> Iterator[str]:
        thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        finally:
            self.httpd.shutdown()
            self.httpd.server_close()


def test_a_replay_is_greedy_capped_and_cold_per_run_and_keeps_every_token() -> None:
    stream = _TokenStream([[11], [12, 13, 14], [15]])  # one chunk drafted three tokens
    with stream.running() as base_url:
        replies = [
            reply
            for run in (1, 2)
            for reply in speculative.replay(base_url, "served", [RECORDED], run, max_tokens=64)
        ]
    assert [r.token_ids for r in replies] == [[11, 12, 13, 14, 15]] * 2
    assert [(r.run, r.request, r.cached_tokens) for r in replies] == [(1, 0, 32), (2, 0, 32)]
    assert all(r.ttft_ms <= r.total_ms and r.ms_per_output_token is not None for r in replies)
    first, second = stream.bodies
    assert (first["temperature"], first["top_p"], first["max_tokens"]) == (0, 1, 64)
    assert first["stream"] and first["return_token_ids"] and first["model"] == "served"
    assert first["tool_choice"] == "required" and first["chat_template_kwargs"] == {
        "enable_thinking": False
    }
    # each run's prompt starts with its own marker, in the tools (rendered first) and system
    assert first["messages"][0]["content"] == "[replay 1] You operate a phone."
    assert second["messages"][0]["content"] == "[replay 2] You operate a phone."
    assert second["tools"][0]["function"]["description"] == "[replay 2] Tap."
    assert RECORDED["messages"][0]["content"] == "You operate a phone."  # recording untouched


def test_a_recording_is_read_back_and_a_bad_one_named_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "requests.jsonl"
    with speculative.RequestRecorder(path) as record:
        record(RECORDED)
        record({**RECORDED, "max_tokens": 8})
    assert [b["max_tokens"] for b in speculative.read_requests(path)] == [256, 8]
    path.write_text('{"messages": []}\n{"prompt": "no messages"}\n')
    with pytest.raises(ValueError, match=r"requests.jsonl:2: not a chat request"):
        speculative.read_requests(path)
    path.write_text("")
    with pytest.raises(ValueError, match="holds no requests"):
        speculative.read_requests(path)


def test_bench_speculative_refuses_a_bad_recording_before_serving(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "requests.jsonl"
    path.write_text("not json\n")
    code = main(["bench", "speculative", "--requests", str(path), "--work-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: --requests: ") and "requests.jsonl:1: not JSON" in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("sides", ["plain", "plain,plain", "plain,fast"])
def test_bench_speculative_refuses_sides_it_cannot_compare(
    sides: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "speculative", "--sides", sides]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "argument --sides" in err and err.count("\n") == 1


@pytest.mark.slow
def test_fewer_logits_and_drafts_leave_every_token_of_the_trained_policy_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shipped simulator policy in its W4A16 build, served computing every logit, then only
    the logits its tool-call grammar allows, then with drafts from that grammar and the prompt,
    answers the agent's recorded requests with the same tokens on all three."""
    pytest.importorskip("vllm")
    command = ["bench", "speculative", "--model", "sim", "--weights", "w4a16", "--steps", "3"]
    options = ["--episode-steps", "3", "--runs", "1", "--max-tokens", "24", "--json"]
    sides = ["--sides", "all-logits,plain,speculative"]
    assert main([*command, *sides, *options, "--work-dir", str(tmp_path)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [side["error"] for side in report["sides"]] == [None, None, None]
    assert report["compared"] == 6 and report["exact"], report["differences"]
    all_logits, plain, drafting = report["sides"]
    assert all_logits["serve_args"] == ["--additional-config", '{"all_logits": true}']
    assert plain["serve_args"] == [] and drafting["serve_args"][0] == "--speculative-config"
    # the plain side's steps under the grammar computed only the allowed tokens' logits
    plain_log = (tmp_path / "logs" / "speculative-plain.log").read_text(errors="replace")
    assert "grammar head: first restricted step" in plain_log
