"""Whole AndroidWorld episodes offline: a fake environment with AndroidWorld's
`get_state`/`execute_action` surface replays recorded states, the harness's episode loop calls
our agent one step at a time, and the actions it sends are checked as AndroidWorld would."""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent.actions import Action, OpenApp, PressKey, Swipe, Tap, TaskComplete, Wait
from agent.loop import RunSettings
from agent.model_client import DecisionRequest, ModelReply
from agent.trajectory import EndRecord, EpisodeRecord, StepRecord, read_trajectory
from evals.androidworld.convert import screen_from_aw
from evals.androidworld.step import AgentStepper
from evals.oracle import tool_call
from evals.report import load_episode

OpenAppSettings = OpenApp(name="Settings")
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "androidworld"
# JSONAction's own checks (android_world/env/json_action.py)
ACTION_TYPES = {
    "click", "double_tap", "scroll", "swipe", "input_text", "navigate_home", "navigate_back",
    "keyboard_enter", "open_app", "status", "wait", "long_press", "answer", "unknown",
}  # fmt: skip


@dataclass
class Box:
    x_min: int
    x_max: int
    y_min: int
    y_max: int


@dataclass
class UIElement:
    """The fields of AndroidWorld's UIElement that the recordings carry."""

    text: str | None = None
    content_description: str | None = None
    class_name: str | None = None
    bbox_pixels: Box | None = None
    hint_text: str | None = None
    is_checked: bool | None = None
    is_checkable: bool | None = None
    is_clickable: bool | None = None
    is_editable: bool | None = None
    is_enabled: bool | None = None
    is_focused: bool | None = None
    is_focusable: bool | None = None
    is_long_clickable: bool | None = None
    is_scrollable: bool | None = None
    is_selected: bool | None = None
    is_visible: bool | None = None
    package_name: str | None = None
    resource_name: str | None = None


def check_json_action(action: dict[str, Any]) -> None:
    assert action["action_type"] in ACTION_TYPES
    assert not ("index" in action and ("x" in action or "y" in action))
    if "direction" in action:
        assert action["direction"] in {"left", "right", "down", "up"}


@dataclass
class RecordedEnv:
    """Replays a recording: an action that the state's transitions name leads on."""

    recording: dict[str, Any]
    interaction_cache: str = ""
    actions: list[dict[str, Any]] = field(default_factory=list)
    path: list[int] = field(default_factory=lambda: [0])

    @property
    def logical_screen_size(self) -> tuple[int, int]:
        width, height = self.recording["screen_size"]
        return width, height

    @property
    def state(self) -> dict[str, Any]:
        return self.recording["states"][self.path[-1]]

    def get_state(self, wait_to_stabilize: bool = False) -> list[UIElement]:
        return [
            UIElement(**{**e, "bbox_pixels": Box(**e["bbox_pixels"])})
            for e in self.state["ui_elements"]
        ]

    def execute_action(self, action: dict[str, Any]) -> None:
        check_json_action(action)
        self.actions.append(action)
        kind = action["action_type"]
        if kind == "answer":
            self.interaction_cache = action["text"]
        elif kind == "navigate_back" and len(self.path) > 1:
            self.path.pop()
        for move in self.state["transitions"]:
            if move["action_type"] == kind and _leads(move, action):
                self.path.append(move["to"])
                return


def _leads(move: dict[str, Any], action: dict[str, Any]) -> bool:
    if "within" in move:
        x1, y1, x2, y2 = move["within"]
        return x1 <= action.get("x", -1) < x2 and y1 <= action.get("y", -1) < y2
    if "direction" in move:
        return bool(move["direction"] == action.get("direction"))
    return str(move["app_name"]).casefold() == str(action.get("app_name", "")).casefold()


def run_harness_episode(env: RecordedEnv, stepper: AgentStepper, max_steps: int) -> bool:
    """AndroidWorld's episode loop: step until the agent says done or the budget is spent."""
    goal = env.recording["goal"]
    stepper.reset()
    for _ in range(max_steps):
        observed = screen_from_aw(env.get_state(), env.logical_screen_size)
        if stepper.step(goal, observed, env.execute_action).done:
            return True
    return False


Decide = Callable[[DecisionRequest], Action]


class ScriptedModel:
    """Decides from the screen it is shown, as a model would, with structured tool calls."""

    def __init__(self, *moves: Decide) -> None:
        self._moves: Iterator[Decide] = iter(moves)
        self.requests: list[DecisionRequest] = []

    def decide(self, request: DecisionRequest) -> ModelReply:
        self.requests.append(request)
        action = next(self._moves)(request)
        return ModelReply(tool_calls=[tool_call(action, f"c{len(self.requests)}")])


def tap(label: str) -> Decide:
    def find(request: DecisionRequest) -> Action:
        for element in request.screen.elements:
            if element.label == label or element.label.startswith(label + ","):
                return Tap(index=element.index)
        raise AssertionError(f"{label!r} not on screen: {request.screen.render()}")

    return find


def act(action: Action) -> Decide:
    return lambda request: action


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return data


def test_turn_on_wifi_ends_done_by_the_goal_guard(tmp_path: Path) -> None:
    env = RecordedEnv(load("turn_on_wifi.json"))
    model = ScriptedModel(
        act(OpenAppSettings), tap("Network & internet"), tap("Internet"), tap("Wi-Fi")
    )
    stepper = AgentStepper(model, tmp_path)
    assert run_harness_episode(env, stepper, max_steps=10) is True
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
    assert run_harness_episode(env, stepper, max_steps=10) is True
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


def test_unsupported_key_goes_back_to_the_model_and_the_budget_ends_without_done(
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
    assert run_harness_episode(env, stepper, max_steps=4) is False
    assert [a["action_type"] for a in env.actions] == ["scroll", "scroll", "wait"]
    assert "volume_up" in model.requests[1].messages[-1]["content"]
    records = read_trajectory(tmp_path / "episode-001.jsonl")
    steps = [r for r in records if isinstance(r, StepRecord)]
    assert steps[0].result.error and "not available here" in steps[0].result.error
    stepper.reset()  # the harness moves on: the trajectory is closed as aborted
    end = read_trajectory(tmp_path / "episode-001.jsonl")[-1]
    assert isinstance(end, EndRecord) and end.stop_reason == "aborted"


def test_repeating_a_dead_action_stops_as_infeasible_status(tmp_path: Path) -> None:
    env = RecordedEnv(load("turn_on_wifi.json"))
    model = ScriptedModel(*[act(Swipe(direction="left"))] * 6)
    stepper = AgentStepper(model, tmp_path)
    assert run_harness_episode(env, stepper, max_steps=10) is True
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
    assert run_harness_episode(env, stepper, max_steps=10) is True
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
    sent: list[Any] = []

    class JSONAction:
        def __init__(self, **fields: Any) -> None:
            check_json_action(fields)
            self.fields = fields

    class AgentInteractionResult:
        def __init__(self, done: bool, data: dict[str, Any]) -> None:
            self.done, self.data = done, data

    class EnvironmentInteractingAgent:
        def __init__(self, env: Any, name: str = "", transition_pause: float | None = 1.0):
            self.env, self.name = env, name

        def reset(self, go_home: bool = False) -> None:
            self.env.reset(go_home=go_home)

        def get_post_transition_state(self) -> Any:
            return self.env.get_state(wait_to_stabilize=True)

    recorded = RecordedEnv(load("turn_on_wifi.json"))

    class Env:
        logical_screen_size = recorded.logical_screen_size
        foreground_activity_name = "com.android.settings/.Settings"

        def reset(self, go_home: bool) -> None: ...

        def hide_automation_ui(self) -> None: ...

        def get_state(self, wait_to_stabilize: bool) -> Any:
            return types.SimpleNamespace(ui_elements=recorded.get_state())

        def execute_action(self, action: JSONAction) -> None:
            sent.append(action.fields)
            recorded.execute_action(action.fields)

    modules = {
        "android_world": types.ModuleType("android_world"),
        "android_world.agents": types.ModuleType("android_world.agents"),
        "android_world.agents.base_agent": types.ModuleType("android_world.agents.base_agent"),
        "android_world.env": types.ModuleType("android_world.env"),
        "android_world.env.interface": types.ModuleType("android_world.env.interface"),
        "android_world.env.json_action": types.ModuleType("android_world.env.json_action"),
    }
    base_agent = modules["android_world.agents.base_agent"]
    base_agent.EnvironmentInteractingAgent = EnvironmentInteractingAgent  # type: ignore[attr-defined]
    base_agent.AgentInteractionResult = AgentInteractionResult  # type: ignore[attr-defined]
    modules["android_world.env.json_action"].JSONAction = JSONAction  # type: ignore[attr-defined]
    modules["android_world.agents"].base_agent = base_agent  # type: ignore[attr-defined]
    modules["android_world.env"].json_action = modules["android_world.env.json_action"]  # type: ignore[attr-defined]
    modules["android_world.env"].interface = modules["android_world.env.interface"]  # type: ignore[attr-defined]
    for name, module in modules.items():
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.delitem(sys.modules, "evals.androidworld.agent", raising=False)
    from evals.androidworld.agent import PhoneAgent

    model = ScriptedModel(
        act(OpenAppSettings), tap("Network & internet"), tap("Internet"), tap("Wi-Fi")
    )
    agent = PhoneAgent(Env(), AgentStepper(model, tmp_path))
    agent.reset(go_home=True)
    results = [agent.step("Turn on Wi-Fi.") for _ in range(5)]
    assert [r.done for r in results] == [False, False, False, False, True]
    assert sent[-1] == {"action_type": "status", "goal_status": "complete"}
    assert model.requests[0].screen.app == "com.android.settings"  # from the activity name
    assert results[1].data["aw_actions"][0]["action_type"] == "click"
    json.dumps(results[-1].data)  # plain data: AndroidWorld pickles it into checkpoints
