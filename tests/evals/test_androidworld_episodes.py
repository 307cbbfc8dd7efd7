"""Whole AndroidWorld episodes offline: a fake environment with AndroidWorld's
`get_state`/`execute_action` surface replays recorded states, the harness's episode loop calls
our agent one step at a time, and the actions it sends are checked as AndroidWorld would."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent.actions import OpenApp, PressKey, Swipe, TaskComplete, TypeText, Wait
from agent.loop import RunSettings
from agent.model_client import DecisionRequest, ModelReply
from agent.trajectory import EndRecord, EpisodeRecord, StepRecord, read_trajectory
from evals.androidworld.convert import screen_from_aw
from evals.androidworld.step import AgentStepper
from evals.report import load_episode
from tests.support.androidworld_fake import AndroidWorld, RecordedEnv, ScriptedModel, act, load, tap

OpenAppSettings = OpenApp(name="Settings")


@dataclass
class HarnessEpisode:
    done: bool
    steps: list[dict[str, Any]]  # each step's data, as AndroidWorld keeps it


def run_harness_episode(env: RecordedEnv, stepper: AgentStepper, max_steps: int) -> HarnessEpisode:
    """AndroidWorld's episode loop: reset, the step budget, then steps until done or spent."""
    goal = env.recording["goal"]
    stepper.reset()
    stepper.set_step_budget(max_steps)
    steps: list[dict[str, Any]] = []
    for _ in range(max_steps):
        observed = screen_from_aw(env.get_state(), env.logical_screen_size)
        outcome = stepper.step(goal, observed, env.execute_action)
        steps.append(outcome.data)
        if outcome.done:
            return HarnessEpisode(True, steps)
    return HarnessEpisode(False, steps)


def test_turn_on_wifi_ends_done_by_the_goal_guard(tmp_path: Path) -> None:
    env = RecordedEnv(load("turn_on_wifi.json"))
    model = ScriptedModel(
        act(OpenAppSettings), tap("Network & internet"), tap("Internet"), tap("Wi-Fi")
    )
    stepper = AgentStepper(model, tmp_path)
    assert run_harness_episode(env, stepper, max_steps=10).done
    assert env.path == [0, 1, 2, 3, 4]  # every tap landed where the model saw its element
    assert [a["action_type"] for a in env.actions] == [
        "open_app", "click", "click", "click", "status",
    ]  # fmt: skip
    assert env.actions[-1] == {"action_type": "status", "goal_status": "complete"}
    assert len(model.requests) == 4  # done without asking the model a fifth time
    records = read_trajectory(tmp_path / "episode-001.jsonl")
    end = records[-1]
    assert isinstance(end, EndRecord) and end.stop_reason == "completed"
    assert "Wi-Fi is now on as asked" in end.detail


def test_question_scrolls_with_inverted_directions_and_answers_before_status(
    tmp_path: Path,
) -> None:
    env = RecordedEnv(load("android_version.json"))
    model = ScriptedModel(
        act(OpenAppSettings),
        act(Swipe(direction="up")),  # finger up: AndroidWorld scrolls down
        act(Swipe(direction="up")),
        tap("About phone"),
        act(TaskComplete(answer="13")),
    )
    stepper = AgentStepper(model, tmp_path)
    assert run_harness_episode(env, stepper, max_steps=10).done
    assert env.path == [0, 1, 2, 3, 4]
    assert env.actions[1] == {"action_type": "scroll", "direction": "down"}
    assert env.actions[-2:] == [
        {"action_type": "answer", "text": "13"},
        {"action_type": "status", "goal_status": "complete"},
    ]
    assert env.interaction_cache == "13"
    episode = load_episode(tmp_path / "episode-001.jsonl")
    assert episode.end is not None and episode.end.answer == "13"
    assert len(episode.steps) == 5


def test_unsupported_key_goes_back_to_the_model_and_the_budget_ends_the_trajectory(
    tmp_path: Path,
) -> None:
    env = RecordedEnv(load("turn_on_wifi.json"))
    model = ScriptedModel(
        act(PressKey(key="volume_up")),
        act(Swipe(direction="down")),
        act(Swipe(direction="up")),
        act(Wait(seconds=1)),
    )
    stepper = AgentStepper(model, tmp_path)
    episode = run_harness_episode(env, stepper, max_steps=4)
    assert not episode.done
    assert [a["action_type"] for a in env.actions] == ["scroll", "scroll", "wait"]
    assert "volume_up" in model.requests[1].messages[-1]["content"]
    records = read_trajectory(tmp_path / "episode-001.jsonl")
    steps = [r for r in records if isinstance(r, StepRecord)]
    assert steps[0].result.error and "not available here" in steps[0].result.error
    # The harness asks no more after its last step: the trajectory ends there, as the budget's.
    end = records[-1]
    assert isinstance(end, EndRecord) and (end.stop_reason, end.steps) == ("step_budget", 4)
    assert [step["stop_reason"] for step in episode.steps] == [None, None, None, "step_budget"]
    episode_line = records[0]
    assert isinstance(episode_line, EpisodeRecord)
    assert episode_line.settings["run"]["max_steps"] == 4  # AndroidWorld's budget, not ours
    stepper.reset()  # the harness moving on afterwards closes nothing twice
    assert read_trajectory(tmp_path / "episode-001.jsonl") == records


def test_repeating_a_dead_action_stops_as_infeasible_status(tmp_path: Path) -> None:
    env = RecordedEnv(load("turn_on_wifi.json"))
    model = ScriptedModel(*[act(Swipe(direction="left"))] * 6)
    stepper = AgentStepper(model, tmp_path)
    assert run_harness_episode(env, stepper, max_steps=10).done
    assert env.actions[-1] == {"action_type": "status", "goal_status": "infeasible"}
    end = read_trajectory(tmp_path / "episode-001.jsonl")[-1]
    assert isinstance(end, EndRecord) and end.stop_reason == "stuck"


@pytest.mark.parametrize("guards", [True, False])
def test_guards_switch_on_or_off_in_the_harness_too(tmp_path: Path, guards: bool) -> None:
    env = RecordedEnv(load("turn_on_wifi.json"))
    model = ScriptedModel(
        act(OpenAppSettings),
        tap("Network & internet"),
        tap("Internet"),
        tap("Wi-Fi"),
        act(TaskComplete()),
    )
    stepper = AgentStepper(model, tmp_path, settings=RunSettings(guards=guards))
    assert run_harness_episode(env, stepper, max_steps=10).done
    assert env.actions[-1] == {"action_type": "status", "goal_status": "complete"}
    # only the guards see the goal state reached and say done without asking the model again
    assert len(model.requests) == (4 if guards else 5)
    episode = read_trajectory(tmp_path / "episode-001.jsonl")[0]
    assert isinstance(episode, EpisodeRecord) and episode.settings["run"]["guards"] is guards
    # the harness's own switch (`--guards on|off`) overrides the settings it is given
    assert (
        AgentStepper(model, tmp_path, settings=RunSettings(), guards=guards).settings.guards
        is guards
    )


def test_extra_calls_in_one_reply_are_dropped_and_the_model_told(tmp_path: Path) -> None:
    env = RecordedEnv(load("turn_on_wifi.json"))

    class TwoCalls(ScriptedModel):
        def decide(self, request: DecisionRequest) -> ModelReply:
            reply = super().decide(request)
            return reply.model_copy(update={"tool_calls": reply.tool_calls * 2})

    model = TwoCalls(act(OpenAppSettings), tap("Network & internet"))
    stepper = AgentStepper(model, tmp_path)
    goal = env.recording["goal"]
    first = stepper.step(
        goal, screen_from_aw(env.get_state(), env.logical_screen_size), env.execute_action
    )
    assert first.data["guard_notes"] == ["extra_calls: 1 more call(s) not run"]
    assert [a["action_type"] for a in env.actions] == ["open_app"]  # one action, not two
    stepper.step(goal, screen_from_aw(env.get_state(), env.logical_screen_size), env.execute_action)
    assert "Only your first tool call ran" in model.requests[1].messages[-1]["content"]


def test_the_agent_class_sends_real_shaped_json_actions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`PhoneAgent` against stand-ins for the android_world modules it uses."""
    world = AndroidWorld(registry={})
    world.install(monkeypatch)
    from evals.androidworld.agent import PhoneAgent

    model = ScriptedModel(
        act(OpenAppSettings), tap("Network & internet"), tap("Internet"), tap("Wi-Fi")
    )
    agent = PhoneAgent(world.emulator, AgentStepper(model, tmp_path))
    agent.reset(go_home=True)
    results = [agent.step("Turn on Wi-Fi.") for _ in range(5)]
    assert [r.done for r in results] == [False, False, False, False, True]
    assert world.emulator.screen.actions[-1] == {"action_type": "status", "goal_status": "complete"}
    assert model.requests[0].screen.app == "com.android.settings"  # from the activity name
    assert results[1].data["aw_actions"][0]["action_type"] == "click"
    json.dumps(results[-1].data)  # plain data: AndroidWorld pickles it into checkpoints


def test_every_step_carries_the_same_keys_so_androidworld_keeps_every_step(
    tmp_path: Path,
) -> None:
    env = RecordedEnv(load("turn_on_wifi.json"))
    model = ScriptedModel(
        act(OpenAppSettings), tap("Network & internet"), tap("Internet"), tap("Wi-Fi")
    )
    episode = run_harness_episode(env, AgentStepper(model, tmp_path), max_steps=10)
    assert episode.done and len(episode.steps) == 5
    assert all(step.keys() == episode.steps[0].keys() for step in episode.steps)
    assert [step["stop_reason"] for step in episode.steps] == [None] * 4 + ["completed"]


def test_empty_text_is_refused_because_androidworld_would_skip_it(tmp_path: Path) -> None:
    env = RecordedEnv(load("turn_on_wifi.json"))
    model = ScriptedModel(act(TypeText(text="", clear=True)), act(OpenAppSettings))
    stepper = AgentStepper(model, tmp_path)
    run_harness_episode(env, stepper, max_steps=2)
    assert [a["action_type"] for a in env.actions] == ["open_app"]  # nothing sent for it
    assert "type_text needs text here" in model.requests[1].messages[-1]["content"]
    first = next(
        r for r in read_trajectory(tmp_path / "episode-001.jsonl") if isinstance(r, StepRecord)
    )
    assert not first.result.executed and first.result.error
    assert "clear=true" in first.result.error


@pytest.mark.parametrize(("asked", "waited_here"), [(3.5, [2.5]), (1.0, []), (0.2, [])])
def test_a_wait_longer_than_androidworlds_second_waits_the_rest_here(
    tmp_path: Path, asked: float, waited_here: list[float]
) -> None:
    env = RecordedEnv(load("turn_on_wifi.json"))
    sleeps: list[float] = []
    model = ScriptedModel(act(Wait(seconds=asked)))
    stepper = AgentStepper(model, tmp_path, sleep=sleeps.append)
    run_harness_episode(env, stepper, max_steps=1)
    assert env.actions == [{"action_type": "wait"}]  # android_world always waits one second
    assert sleeps == waited_here


def test_the_model_reads_what_androidworld_actions_really_do(tmp_path: Path) -> None:
    env = RecordedEnv(load("turn_on_wifi.json"))
    model = ScriptedModel(act(OpenAppSettings))
    run_harness_episode(env, AgentStepper(model, tmp_path), max_steps=1)
    tools = {tool["function"]["name"]: tool["function"] for tool in model.requests[0].tools}
    assert "Enter is always pressed" in tools["type_text"]["description"]
    assert "At least 1" in tools["wait"]["parameters"]["properties"]["seconds"]["description"]
    assert (
        "back, home or enter"
        in tools["press_key"]["parameters"]["properties"]["key"]["description"]
    )
    episode = read_trajectory(tmp_path / "episode-001.jsonl")[0]
    assert isinstance(episode, EpisodeRecord) and episode.tools == model.requests[0].tools


def test_a_second_run_in_the_same_directory_numbers_its_episodes_on(tmp_path: Path) -> None:
    def one_run() -> None:
        env = RecordedEnv(load("turn_on_wifi.json"))
        model = ScriptedModel(
            act(OpenAppSettings), tap("Network & internet"), tap("Internet"), tap("Wi-Fi")
        )
        run_harness_episode(env, AgentStepper(model, tmp_path), max_steps=10)

    one_run()
    first = (tmp_path / "episode-001.jsonl").read_text(encoding="utf-8")
    one_run()  # a resumed run: a new process, a new stepper, the same directory
    assert (tmp_path / "episode-001.jsonl").read_text(encoding="utf-8") == first
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "episode-001.jsonl",
        "episode-002.jsonl",
    ]
