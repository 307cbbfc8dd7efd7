"""Whatever a model server sends back, a run ends with a stop reason and a complete trajectory.
A server that drips its answer a byte at a time, never letting a read time out, is cut off at
the decision's deadline.

Each reply here is served over loopback HTTP to the agent's own OpenAI client: bodies that are
not JSON or not a chat completion, lone surrogates, connections closed mid-body and servers
that stall. Broken replies are retried a bounded number of times, then the run stops with
`model_error`; `phone-agent run` exits 1 with its summary, not with an internal error.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from agent.cli import main
from agent.model_client import ClientSettings, DecisionTimeout, ModelCallError, ModelClient
from agent.trajectory import EndRecord, EpisodeRecord, StepRecord, read_trajectory
from evals.scripted_model import (
    Scripted,
    ScriptedServer,
    body_of,
    call,
    cut_off,
    drip,
    hang,
    hang_up,
    tap,
    text,
)
from simulator import Simulator
from tests.support.loop_harness import run_scripted
from tests.support.model_client import client_for, request

TURN_ON_WIFI = "Turn on Wi-Fi"
TO_WIFI = (call("open_app", name="Settings"), tap("Network & internet"), tap("Internet"))
# The read timeout of the cases that stall: short, so three attempts cost about a second. A
# server that answers at once is given far longer, so a busy machine never turns its reply into
# a timeout and the case tests what it names.
STALL_TIMEOUT_S = 0.3
ANSWER_TIMEOUT_S = 30.0


def chat_body(message: object) -> str:
    """A chat completion whose only choice carries `message` (any JSON value)."""
    choice = {"index": 0, "message": message, "finish_reason": "stop"}
    return json.dumps({"id": "x", "object": "chat.completion", "choices": [choice]})


# (what the server does, what the run's end detail says about the last attempt)
HOSTILE: dict[str, tuple[Scripted, str]] = {
    "html error page": (
        body_of("<html><body>502 Bad Gateway</body></html>", content_type="text/html"),
        "unusable reply: not JSON",
    ),
    "json text that is not json": (body_of("{'choices': []}"), "unusable reply: not JSON"),
    "null": (body_of("null"), "the body should be an object, not null"),
    "a list": (body_of("[1,2]"), "the body should be an object, not [1, 2]"),
    "a string": (body_of('"ok"'), 'the body should be an object, not "ok"'),
    "no choices": (body_of("{}"), "choices field required"),
    "empty choices": (body_of('{"choices": []}'), "choices list should have at least 1 item"),
    "message null": (body_of(chat_body(None)), "choices.0.message should be an object, not null"),
    "content a number": (body_of(chat_body({"content": 5})), "choices.0.message.content"),
    "tool call a number": (
        body_of(chat_body({"content": None, "tool_calls": [1]})),
        "choices.0.message.tool_calls.0 should be an object, not 1",
    ),
    "invalid utf-8": (body_of(b"\xff\xfe\x00{"), "unusable reply: not JSON"),
    "nested too deeply": (body_of("[" * 200_000), "unusable reply: JSON nested too deeply"),
    "closed mid-body": (cut_off(call("tap", index=2), 30), "the connection broke off"),
    "closed without an answer": (hang_up(), "the connection broke off"),
    "stalls mid-body": (
        cut_off(call("tap", index=2), 30, stall_s=5),
        f"no answer within {STALL_TIMEOUT_S:g} s",
    ),
    "never answers": (hang(5), f"no answer within {STALL_TIMEOUT_S:g} s"),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_a_broken_reply_is_retried_then_stops_with_model_error(tmp_path: Path, case: str) -> None:
    broken, last_error = HOSTILE[case]
    episode = run_scripted(
        TURN_ON_WIFI,
        Simulator(state={"wifi": False}),
        lambda body: broken,
        tmp_path / "run.jsonl",
        retries=2,
        timeout_s=STALL_TIMEOUT_S if "no answer within" in last_error else ANSWER_TIMEOUT_S,
    )
    # run_scripted has checked the file: an episode line, a step line per step, an end line
    assert (episode.result.stop_reason, episode.end.stop_reason) == ("model_error", "model_error")
    assert episode.result.steps == 0
    assert len(episode.server.chat_requests) == 3  # the first attempt and two retries, no more
    assert "failed 3 times" in episode.end.detail
    assert last_error in episode.end.detail


def test_broken_replies_between_good_ones_are_retried_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    device = Simulator(state={"wifi": False})
    episode = run_scripted(
        TURN_ON_WIFI,
        device,
        [
            body_of("null"),
            TO_WIFI[0],
            body_of(chat_body(None)),
            hang_up(),
            TO_WIFI[1],
            TO_WIFI[2],
            cut_off(call("tap", index=2), 10),
            tap("Wi-Fi"),
        ],
        tmp_path / "run.jsonl",
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 4)
    assert [step.reply.attempts for step in episode.steps] == [2, 3, 1, 2]
    assert device.state["wifi"] is True


def test_lone_surrogates_are_replaced_and_the_run_goes_on(tmp_path: Path) -> None:
    """JSON may escape a lone surrogate (`"\\ud800"`), in a message or inside a call's
    arguments; it becomes U+FFFD, so the trajectory and the device can take the text."""
    device = Simulator(state={"wifi": False})
    episode = run_scripted(
        TURN_ON_WIFI,
        device,
        [
            body_of(chat_body({"content": "Settings \ud800 next", "reasoning": "hm\udfff"})),
            Scripted(reasoning="tap \ud83d it", calls=[("open_app", {"name": "Settings"})]),
            call("type_text", text="Wi\udc80Fi"),  # the arguments string escapes it
            *TO_WIFI[1:],
            tap("Wi-Fi"),
        ],
        tmp_path / "run.jsonl",
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 6)
    first, second, third = episode.steps[:3]
    assert first.reply.content == "Settings \ufffd next"
    assert first.reply.reasoning == "hm\ufffd"
    assert first.guard.notes[0].kind == "bad_call"  # no call in it: back to the model
    assert second.reply.reasoning == "tap \ufffd it"
    assert third.call.arguments == {"text": "Wi\ufffdFi"}
    assert device.state["wifi"] is True


def test_a_broken_model_list_is_one_clear_error() -> None:
    with ScriptedServer([], models=body_of('{"data": null}')) as server:
        client = client_for(server.base_url, retries=1)
        with pytest.raises(ModelCallError, match=r"failed 2 times \(last: unusable reply: data"):
            client.model_name()


def test_the_continuation_path_survives_broken_tokenize_and_completion_bodies(
    tmp_path: Path,
) -> None:
    """A reply cut inside its thinking is continued through /tokenize and /v1/completions;
    broken answers there fall back to asking again with thinking off."""
    cut = Scripted(
        reasoning="The Wi-Fi switch is on the Internet page. " * 10, finish_reason="length"
    )
    device = Simulator(state={"wifi": False})
    episode = run_scripted(
        TURN_ON_WIFI,
        device,
        [*TO_WIFI, cut, tap("Wi-Fi")],
        tmp_path / "run.jsonl",
        completions=lambda body: body_of("null"),
        think_budget=64,
        retries=0,
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 4)
    assert episode.steps[-1].reply.path == "thinking_off"


def test_run_command_ends_with_model_error_and_a_complete_trajectory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    slept: list[float] = []

    class BackoffRecordingClient(ModelClient):
        def __init__(self, settings: ClientSettings, **_: object) -> None:
            super().__init__(settings, sleep=slept.append)

    monkeypatch.setattr("agent.model_client.ModelClient", BackoffRecordingClient)
    trajectory = tmp_path / "run.jsonl"
    script = [TO_WIFI[0], *[body_of(chat_body(None))] * 4]  # the client tries 4 times
    with ScriptedServer(script) as server:
        code = main(
            [
                "run",
                TURN_ON_WIFI,
                "--base-url",
                server.base_url,
                "--trajectory",
                str(trajectory),
                "--timeout",
                "5",
                "--json",
            ]
        )
    captured = capsys.readouterr()
    assert code == 1  # any stop other than `completed`
    assert "error:" not in captured.err
    assert slept == [1.0, 2.0, 4.0]  # the default backoff between the four attempts
    summary = json.loads(captured.out.strip().splitlines()[-1])
    assert (summary["stop_reason"], summary["steps"]) == ("model_error", 1)
    records = read_trajectory(trajectory)
    assert [type(record) for record in records] == [EpisodeRecord, StepRecord, EndRecord]
    end = records[-1]
    assert isinstance(end, EndRecord) and end.stop_reason == "model_error"
    assert "choices.0.message should be an object, not null" in end.detail


def test_no_step_is_lost_when_text_replies_hold_surrogates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The live view prints the model's thinking and the trajectory stores it: neither may
    fail on text that cannot be written as UTF-8."""
    trajectory = tmp_path / "run.jsonl"
    noisy = Scripted(reasoning="Wi-Fi \ud800 first", calls=[("open_app", {"name": "Settings"})])
    script = [noisy, *TO_WIFI[1:], text("\udc80"), tap("Wi-Fi")]
    with ScriptedServer(script) as server:
        code = main(
            [
                "run",
                TURN_ON_WIFI,
                "--sim-state",
                "wifi=off",
                "--base-url",
                server.base_url,
                "--trajectory",
                str(trajectory),
            ]
        )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "thinking: Wi-Fi \ufffd first" in captured.out
    end = read_trajectory(trajectory)[-1]
    assert isinstance(end, EndRecord) and (end.stop_reason, end.steps) == ("completed", 5)


class CrashingPhone(Simulator):
    """A phone whose second tap fails in a way no device error describes."""

    taps = 0

    def tap(self, x: int, y: int) -> None:
        self.taps += 1
        if self.taps == 2:
            raise RuntimeError("driver bug")
        super().tap(x, y)


def test_an_unforeseen_failure_still_closes_the_trajectory(tmp_path: Path) -> None:
    trajectory = tmp_path / "run.jsonl"
    with pytest.raises(RuntimeError, match="driver bug"):
        run_scripted(TURN_ON_WIFI, CrashingPhone(), TO_WIFI, trajectory)
    records = read_trajectory(trajectory)
    assert [type(record) for record in records] == [
        EpisodeRecord,
        StepRecord,
        StepRecord,
        EndRecord,
    ]
    end = records[-1]
    assert isinstance(end, EndRecord) and end.stop_reason == "aborted"
    assert end.detail == "internal error: RuntimeError: driver bug"


# A server that would take this long to send one answer, a byte at a time (each byte far within
# the read timeout), against a decision timeout of one second.
DRIP_S = 60.0


@pytest.mark.parametrize("stages", [1, 3], ids=["one request", "three attempts"])
def test_a_server_that_drips_its_answer_is_cut_off_at_the_decision_deadline(
    stages: int,
) -> None:
    """The whole answer, headers included, comes a byte at a time: no single read ever times
    out. The decision ends with the deadline error long before the answer could be whole, and
    retries do not start over on a deadline that has passed."""
    dripping = drip(call("tap", index=2), DRIP_S)
    with ScriptedServer([dripping] * stages) as server:
        client = client_for(
            server.base_url, retries=stages - 1, timeout_s=DRIP_S / 4, decision_timeout_s=1.0
        )
        client.model_name()
        started = time.monotonic()
        with pytest.raises(DecisionTimeout, match="no decision within the 1 s decision timeout"):
            client.decide(request())
        elapsed = time.monotonic() - started
    assert elapsed < DRIP_S / 4  # it did not wait for the answer, nor for one read timeout
    assert len(server.chat_requests) == 1  # the deadline covers every attempt of the decision


def test_run_stops_at_its_decision_timeout_and_says_so_in_the_trajectory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trajectory = tmp_path / "run.jsonl"
    with ScriptedServer([TO_WIFI[0], drip(call("tap", index=2), DRIP_S)]) as server:
        code = main(
            [
                "run",
                TURN_ON_WIFI,
                "--base-url",
                server.base_url,
                "--trajectory",
                str(trajectory),
                "--decision-timeout",
                "1",
                "--json",
            ]
        )
    captured = capsys.readouterr()
    assert code == 1
    summary = json.loads(captured.out.strip().splitlines()[-1])
    assert (summary["stop_reason"], summary["steps"]) == ("model_error", 1)
    end = read_trajectory(trajectory)[-1]
    assert isinstance(end, EndRecord) and end.stop_reason == "model_error"
    assert "no decision within the 1 s decision timeout" in end.detail
