"""The step loop on the fake phone: recording, prefix stability, budgets, stops."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.loop import RunSettings, run_episode
from agent.model_client import DecisionRequest, ModelReply
from agent.trajectory import EndRecord, StepRecord, read_trajectory
from devices.base import DeviceError, InputNotApplied
from tests.fake_device import FakePhone
from tests.loop_harness import run_scripted
from tests.scripted_server import call, tap, turns


def test_a_plain_run_is_recorded_step_by_step(tmp_path: Path) -> None:
    phone = FakePhone()
    episode = run_scripted(
        "Open the network page and enable Wi-Fi",  # no goal rule: the model says when it is done
        phone,
        turns(tap("Network and internet"), tap("Wi-Fi"), call("task_complete", success=True)),
        tmp_path / "run.jsonl",
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 3)
    assert phone.state["wifi"] is True
    assert episode.end.device_state == phone.state  # a device with a state dict reports it
    first, second, third = episode.steps
    assert first.call.name == "tap" and first.call.source == "tool_calls"
    assert first.result.executed and first.result.device_calls == ["tap(540, 390)"]
    assert first.screen.app == "com.android.settings"
    assert second.result.changed == 'Wi-Fi: off -> on; appeared: "Connected to Home"'
    assert third.guard.verdict == "complete" and not third.result.executed
    assert episode.episode.goal == "Open the network page and enable Wi-Fi"
    assert episode.episode.settings["run"]["max_steps"] == 15


def test_system_prompt_and_tools_are_byte_identical_across_steps(tmp_path: Path) -> None:
    episode = run_scripted(
        "Open the network page and enable Wi-Fi",
        FakePhone(),
        turns(tap("Network and internet"), tap("Wi-Fi"), call("task_complete")),
        tmp_path / "run.jsonl",
    )
    bodies = [request.body for request in episode.server.chat_requests]
    prefixes = {json.dumps([b["messages"][0], b["tools"]], sort_keys=True) for b in bodies}
    assert len(bodies) == 3 and len(prefixes) == 1
    users = [request.user_text for request in episode.server.chat_requests]
    assert all(user.startswith("Goal: Open the network page and enable Wi-Fi\n") for user in users)
    assert users[1].endswith(episode.steps[1].screen.text)  # the screen comes last
    assert '1. tap [2] "Network and internet" -> ' in users[1]
    assert '2. tap [3] "Wi-Fi" -> Wi-Fi: off -> on' in users[2]


def test_step_budget_stops_the_run(tmp_path: Path) -> None:
    episode = run_scripted(
        "Open the network page and enable Wi-Fi",
        FakePhone(),
        turns(tap("Network and internet"), tap("Wi-Fi")),
        tmp_path / "run.jsonl",
        settings=RunSettings(max_steps=1),
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("step_budget", 1)
    assert episode.end.detail == "1 steps without finishing"


class ScriptedPolicy:
    """A Python policy: replies in order, or raises what it is given."""

    def __init__(self, *replies: ModelReply | BaseException) -> None:
        self.replies = list(replies)
        self.requests: list[DecisionRequest] = []

    def decide(self, request: DecisionRequest) -> ModelReply:
        self.requests.append(request)
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply


def tap_reply(index: int) -> ModelReply:
    arguments = json.dumps({"index": index})
    function = {"name": "tap", "arguments": arguments}
    return ModelReply(tool_calls=[{"id": "1", "type": "function", "function": function}])


def test_ctrl_c_ends_as_aborted_with_a_complete_trajectory(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    policy = ScriptedPolicy(tap_reply(2), KeyboardInterrupt())
    result = run_episode("Turn on Wi-Fi", FakePhone(), policy, RunSettings(), path)
    assert (result.stop_reason, result.steps) == ("aborted", 1)
    records = read_trajectory(path)
    assert [record.type for record in records] == ["episode", "step", "end"]
    assert isinstance(records[-1], EndRecord) and "Ctrl-C" in records[-1].detail


def test_time_budget_stops_between_steps(tmp_path: Path) -> None:
    ticks = iter(range(0, 1000, 10))
    policy = ScriptedPolicy(tap_reply(2), tap_reply(3))
    result = run_episode(
        "Turn on Wi-Fi",
        FakePhone(),
        policy,
        RunSettings(time_budget_s=25),
        tmp_path / "run.jsonl",
        clock=lambda: float(next(ticks)),
    )
    assert result.stop_reason == "step_budget"
    assert result.detail == "time budget of 25 s used up"
    assert result.steps == 1


class BrokenPhone(FakePhone):
    def tap(self, x: int, y: int) -> None:
        raise DeviceError("device offline")


def test_device_errors_stop_the_run_and_are_recorded(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    result = run_episode(
        "Turn on Wi-Fi", BrokenPhone(), ScriptedPolicy(tap_reply(2)), RunSettings(), path
    )
    assert (result.stop_reason, result.detail, result.steps) == (
        "device_error",
        "device offline",
        1,
    )
    step = read_trajectory(path)[1]
    assert isinstance(step, StepRecord) and step.result.error == "device offline"


class LossyKeyboardPhone(FakePhone):
    def type_text(self, text: str) -> None:
        raise InputNotApplied(f"typed {text!r} but the focused field reads ''")


def type_reply(text: str) -> ModelReply:
    function = {"name": "type_text", "arguments": json.dumps({"text": text})}
    return ModelReply(tool_calls=[{"id": "1", "type": "function", "function": function}])


def test_text_that_did_not_arrive_is_reported_to_the_model_and_the_run_goes_on(
    tmp_path: Path,
) -> None:
    path = tmp_path / "run.jsonl"
    policy = ScriptedPolicy(type_reply("hello"), tap_reply(2), tap_reply(3))
    result = run_episode("Turn on Wi-Fi", LossyKeyboardPhone(), policy, RunSettings(), path)
    assert result.stop_reason == "completed"
    first = read_trajectory(path)[1]
    assert isinstance(first, StepRecord)
    assert first.result.error == "typed 'hello' but the focused field reads ''"
    assert "the focused field reads ''" in policy.requests[1].messages[-1]["content"]


class UnreadablePhone(FakePhone):
    def dump_xml(self) -> str:
        self.calls.append("dump_xml")
        return "<html>not a dump</html>"


def test_an_unreadable_screen_is_retried_once_then_a_device_error(tmp_path: Path) -> None:
    phone = UnreadablePhone()
    result = run_episode(
        "Turn on Wi-Fi", phone, ScriptedPolicy(), RunSettings(), tmp_path / "run.jsonl"
    )
    assert result.stop_reason == "device_error"
    assert result.detail.startswith("the screen could not be read")
    assert phone.calls == ["dump_xml", "dump_xml"]


def test_escalation_turns_thinking_on_for_the_next_decision(tmp_path: Path) -> None:
    done = ModelReply(
        tool_calls=[
            {
                "id": "9",
                "type": "function",
                "function": {"name": "task_complete", "arguments": "{}"},
            }
        ]
    )
    policy = ScriptedPolicy(tap_reply(4), tap_reply(4), tap_reply(3), done)
    result = run_episode(
        "Open the display page", FakePhone(), policy, RunSettings(), tmp_path / "run.jsonl"
    )
    assert [request.thinking for request in policy.requests] == [None, None, True, None]
    assert "You already tried tap [4]" in policy.requests[2].messages[1]["content"]
    assert (result.stop_reason, result.steps) == ("completed", 4)


@pytest.mark.parametrize("extra", [1, 2])
def test_extra_calls_in_one_reply_are_dropped_and_the_model_told(
    tmp_path: Path, extra: int
) -> None:
    function = {"name": "tap", "arguments": '{"index": 2}'}
    calls = [{"id": str(n), "type": "function", "function": function} for n in range(extra + 1)]
    policy = ScriptedPolicy(ModelReply(tool_calls=calls), tap_reply(1))
    path = tmp_path / "run.jsonl"
    run_episode("Turn on Wi-Fi", FakePhone(), policy, RunSettings(max_steps=2), path)
    step = read_trajectory(path)[1]
    assert isinstance(step, StepRecord) and step.call.dropped == extra
    assert "Only your first tool call ran" in policy.requests[1].messages[1]["content"]
