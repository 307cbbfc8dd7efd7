"""The step loop on the fake phone: recording, prefix stability, budgets, stops."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent.actions import Tap, TaskComplete
from agent.execute import execute
from agent.loop import RunSettings, Stepper, run_episode
from agent.model_client import ModelReply, PolicyError
from agent.screen import Screen
from agent.trajectory import EndRecord, EpisodeRecord, ResultRecord, StepRecord, read_trajectory
from devices.base import DeviceError, InputNotApplied
from evals.scripted_model import Scripted, call, index_of, tap
from tests.support.fake_device import FakePhone
from tests.support.loop_harness import ScriptedPolicy, run_scripted, tap_reply


def test_a_plain_run_is_recorded_step_by_step(tmp_path: Path) -> None:
    phone = FakePhone()
    episode = run_scripted(
        "Open the network page and enable Wi-Fi",  # no goal rule: the model says when it is done
        phone,
        [tap("Network and internet"), tap("Wi-Fi"), call("task_complete", success=True)],
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
        [tap("Network and internet"), tap("Wi-Fi"), call("task_complete")],
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
        [tap("Network and internet"), tap("Wi-Fi")],
        tmp_path / "run.jsonl",
        settings=RunSettings(max_steps=1),
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("step_budget", 1)
    assert episode.end.detail == "1 steps without finishing"


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
    # the page title takes no taps: tapping it again is a loop, not a deliberate repetition
    policy = ScriptedPolicy(tap_reply(1), tap_reply(1), tap_reply(3), done)
    result = run_episode(
        "Open the display page", FakePhone(), policy, RunSettings(), tmp_path / "run.jsonl"
    )
    assert [request.thinking for request in policy.requests] == [None, None, True, None]
    assert "You already tried tap [1]" in policy.requests[2].messages[1]["content"]
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


def prose_reply(text: str) -> ModelReply:
    return ModelReply(content=text)


def done_reply() -> ModelReply:
    function = {"name": "task_complete", "arguments": "{}"}
    return ModelReply(tool_calls=[{"id": "1", "type": "function", "function": function}])


@pytest.mark.parametrize(("guards", "steps", "wifi"), [(True, 2, True), (False, 4, False)])
def test_guards_switch_off_per_episode_and_the_setting_is_recorded(
    tmp_path: Path, guards: bool, steps: int, wifi: bool
) -> None:
    phone = FakePhone()
    # Network, Wi-Fi on, Wi-Fi off again (an undo of the goal), then a claim of success
    policy = ScriptedPolicy(tap_reply(2), tap_reply(3), tap_reply(3), done_reply())
    path = tmp_path / "run.jsonl"
    result = run_episode("Turn on Wi-Fi", phone, policy, RunSettings(guards=guards), path)
    assert (result.stop_reason, result.steps, phone.state["wifi"]) == ("completed", steps, wifi)
    episode = read_trajectory(path)[0]
    assert isinstance(episode, EpisodeRecord) and episode.settings["run"]["guards"] is guards


def test_a_dead_control_tapped_again_and_again_still_stops_as_stuck(tmp_path: Path) -> None:
    policy = ScriptedPolicy(*[tap_reply(4)] * 10)  # "Battery" takes taps but shows nothing new
    result = run_episode(
        "Open battery details",
        FakePhone(),
        policy,
        RunSettings(max_tap_run=3),
        tmp_path / "run.jsonl",
    )
    # three taps as a deliberate run, one blocked with a hint, then the stop
    assert (result.stop_reason, result.steps) == ("stuck", 5)
    assert [request.thinking for request in policy.requests][-1] is True


# --- the single-step API ----------------------------------------------------------------------


def test_a_stepper_plays_an_episode_turn_by_turn() -> None:
    phone = FakePhone()
    stepper = Stepper("Turn on Wi-Fi", ScriptedPolicy(tap_reply(2), tap_reply(3)), RunSettings())
    screen = Screen.parse(phone.dump_xml())
    first = stepper.decide(screen)
    assert (first.step, first.action_to_run, first.decision.verdict) == (1, Tap(index=2), "allow")
    execute(Tap(index=2), screen, phone)
    network = Screen.parse(phone.dump_xml())
    effect = stepper.observe(first, network)
    assert not effect.no_op and effect.decision.verdict == "allow"
    record = first.record(ResultRecord(executed=True, changed=effect.changed), device_s=0.25)
    assert (record.step, record.call.name, record.timings.device_s) == (1, "tap", 0.25)
    assert record.screen.text == screen.render()

    second = stepper.decide(network)
    assert f'1. tap [2] "Network and internet" -> {effect.changed}' in second.prompt
    assert second.prompt.endswith(network.render())
    execute(Tap(index=3), network, phone)
    reached = stepper.observe(second, Screen.parse(phone.dump_xml()))
    assert reached.decision.verdict == "complete"
    assert reached.decision.notes[0].reason == "Wi-Fi is now on as asked"
    assert stepper.steps == 2


def test_turns_that_run_nothing() -> None:
    screen = Screen.parse(FakePhone().dump_xml())
    policy = ScriptedPolicy(prose_reply("Wi-Fi is useful."), tap_reply(9), done_reply())
    stepper = Stepper("Open the network page", policy, RunSettings())
    prose = stepper.decide(screen)
    assert prose.action is None and prose.action_to_run is None
    assert prose.decision.verdict == "block"
    assert prose.call.error == "no tool call in the reply: 'Wi-Fi is useful.'"
    with pytest.raises(ValueError, match="ran no action"):
        stepper.observe(prose, screen)
    stepper.tell("The keyboard did not open.")
    wrong_index = stepper.decide(screen)
    assert "Note: Your last reply was not run: no tool call" in wrong_index.prompt
    assert "Note: The keyboard did not open." in wrong_index.prompt
    assert "1. your reply -> not run: no tool call in the reply" in wrong_index.prompt
    assert wrong_index.call.error == "tap: no element [9]: valid indices are 1 to 5"
    claim = stepper.decide(screen)
    assert claim.action == TaskComplete() and claim.action_to_run is None
    assert claim.decision.verdict == "complete"


def test_a_failing_policy_gives_a_stopping_turn_that_is_no_step() -> None:
    screen = Screen.parse(FakePhone().dump_xml())
    stepper = Stepper("Turn on Wi-Fi", ScriptedPolicy(PolicyError("server gone")), RunSettings())
    turn = stepper.decide(screen)
    assert turn.failure == "server gone" and turn.action_to_run is None
    assert (turn.decision.verdict, turn.decision.stop_reason) == ("stop", "model_error")
    assert stepper.steps == 0


def test_what_the_model_asks_to_remember_stays_under_the_goal(tmp_path: Path) -> None:
    def noting(note: str, label: str) -> Callable[[dict[str, Any]], Scripted]:
        return lambda body: Scripted(
            content=f"Remember: {note}\n", calls=[("tap", {"index": index_of(body, label)})]
        )

    episode = run_scripted(
        "Open the network page and enable Wi-Fi",
        FakePhone(),
        [
            noting("code 4711", "Network and internet"),
            Scripted(reasoning="Remember: only a thought", calls=[("wait", {"seconds": 1})]),
            noting("gate B12", "Wi-Fi"),
            call("task_complete"),
        ],
        tmp_path / "run.jsonl",
    )
    assert episode.result.stop_reason == "completed"
    users = [request.user_text for request in episode.server.chat_requests]
    assert "Remembered" not in users[0]
    goal = "Goal: Open the network page and enable Wi-Fi\n\n"
    assert users[1].startswith(goal + "Remembered:\n- code 4711\n\nRecent steps:")
    assert users[2].startswith(goal + "Remembered:\n- code 4711\n\nRecent steps:")
    assert users[3].startswith(goal + "Remembered:\n- code 4711\n- gate B12\n\nRecent steps:")
    # the note is no second call, and the trajectory keeps what the model said
    assert all(step.call.dropped == 0 and step.call.error is None for step in episode.steps)
    assert episode.steps[0].reply.content == "Remember: code 4711\n"
