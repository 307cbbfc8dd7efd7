"""android_world, offline: recorded screens and stand-ins for the modules the adapter imports.

android_world is not on PyPI and needs an emulator. These stand-ins keep the signatures and the
behaviour the adapter relies on (checked against google-research/android_world at d9c569f):
the episode runner resets the agent, tells it the step budget (10 x task complexity) and steps
until it says done; the suite runner skips task instances its checkpoint already holds, scores
an instance only when the agent said done, and pickles each episode's step data as one list per
key; `create_suite` takes exact task names only. Only the emulator is replaced, by recordings
(fixtures/androidworld): an action that a state's transitions name leads to the next state.
"""

from __future__ import annotations

import dataclasses
import gzip
import importlib.machinery
import json
import os
import pickle
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent.actions import Action, Tap
from agent.model_client import DecisionRequest, ModelReply
from evals.bench.t3a import BoundingBox, UIElement
from evals.oracle import tool_call
from tests.support.paths import REPO_ROOT

FIXTURES = REPO_ROOT / "fixtures" / "androidworld"
STEP_NUMBER = "step_number"
# JSONAction's own checks (android_world/env/json_action.py)
ACTION_TYPES = {
    "click", "double_tap", "scroll", "swipe", "input_text", "navigate_home", "navigate_back",
    "keyboard_enter", "open_app", "status", "wait", "long_press", "answer", "unknown",
}  # fmt: skip


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return data


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

    @property
    def finished(self) -> bool:
        """The recording's last screen is showing."""
        return self.path[-1] == len(self.recording["states"]) - 1

    def get_state(self, wait_to_stabilize: bool = False) -> list[UIElement]:
        return [
            UIElement(**{**e, "bbox_pixels": BoundingBox(**e["bbox_pixels"])})
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


# --- a model ---------------------------------------------------------------------------------

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


# --- the emulator, as android_world's AsyncEnv -----------------------------------------------


class Emulator:
    """AsyncEnv's surface over one recording at a time (a task loads its own)."""

    def __init__(self) -> None:
        self.screen = RecordedEnv(load("turn_on_wifi.json"))
        self.closed = False
        self.resets: list[bool] = []

    @property
    def logical_screen_size(self) -> tuple[int, int]:
        return self.screen.logical_screen_size

    @property
    def foreground_activity_name(self) -> str:
        return "com.android.settings/.Settings"

    def load(self, recording: dict[str, Any]) -> None:
        self.screen = RecordedEnv(recording)

    def reset(self, go_home: bool = False) -> None:
        self.resets.append(go_home)

    def hide_automation_ui(self) -> None:
        """Nothing to hide on a recording."""

    def get_state(self, wait_to_stabilize: bool = False) -> Any:
        return types.SimpleNamespace(ui_elements=self.screen.get_state())

    def execute_action(self, action: Any) -> None:
        self.screen.execute_action(action.as_dict())

    def close(self) -> None:
        self.closed = True


def recorded_task(fixture: str, complexity: float) -> type:
    """A TaskEval class over a recording: successful when its last screen was reached (and, for
    a question, the answer given)."""
    recording = load(fixture)

    class RecordedTask:
        start_on_home_screen = False

        def __init__(self, params: dict[str, Any]) -> None:
            self.params = params
            self.complexity = complexity
            self.goal: str = recording["goal"]

        @property
        def name(self) -> str:
            return str(recording["task"])

        @classmethod
        def generate_random_params(cls) -> dict[str, Any]:
            return {}

        def initialize_task(self, env: Emulator) -> None:
            env.load(recording)

        def is_successful(self, env: Emulator) -> float:
            answered = recording["answer"] in (None, env.screen.interaction_cache)
            return float(env.screen.finished and answered)

        def tear_down(self, env: Emulator) -> None:
            """Nothing to undo on a recording."""

    RecordedTask.__name__ = str(recording["task"])
    return RecordedTask


# --- android_world's modules ------------------------------------------------------------------


@dataclass
class AndroidWorld:
    """The stand-in package: its task registry, the emulator, and what the adapter did."""

    registry: dict[str, Any]  # task name -> its TaskEval class
    emulator: Emulator = field(default_factory=Emulator)
    env_launches: list[dict[str, Any]] = field(default_factory=list)
    suites: list[list[str] | None] = field(default_factory=list)  # `tasks` given to create_suite
    run_suite: Callable[..., list[dict[str, Any]]] | None = None  # replaces suite_utils.run

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        modules = self._modules()
        for name, module in modules.items():
            monkeypatch.setitem(sys.modules, name, module)
        monkeypatch.delitem(sys.modules, "evals.androidworld.agent", raising=False)

    def _modules(self) -> dict[str, types.ModuleType]:
        names = [
            "android_world",
            "android_world.agents",
            "android_world.agents.base_agent",
            "android_world.env",
            "android_world.env.interface",
            "android_world.env.json_action",
            "android_world.env.env_launcher",
            "android_world.episode_runner",
            "android_world.suite_utils",
            "android_world.checkpointer",
            "android_world.registry",
        ]
        modules = {name: types.ModuleType(name) for name in names}
        for name, module in modules.items():
            module.__spec__ = importlib.machinery.ModuleSpec(name, loader=None)
        contents: dict[str, dict[str, Any]] = {
            "android_world.agents.base_agent": {
                "AgentInteractionResult": AgentInteractionResult,
                "EnvironmentInteractingAgent": EnvironmentInteractingAgent,
            },
            "android_world.env.interface": {"AsyncEnv": Emulator},
            "android_world.env.json_action": {"JSONAction": JSONAction},
            "android_world.env.env_launcher": {"load_and_setup_env": self._load_and_setup_env},
            "android_world.episode_runner": {
                "run_episode": run_episode,
                "transpose_dol_to_lod": transpose_dol_to_lod,
            },
            "android_world.suite_utils": {"create_suite": self._create_suite, "run": self._run},
            "android_world.checkpointer": {"IncrementalCheckpointer": IncrementalCheckpointer},
            "android_world.registry": {"TaskRegistry": self._task_registry},
        }
        for name, attributes in contents.items():
            for attribute, value in attributes.items():
                setattr(modules[name], attribute, value)
        for name, module in modules.items():  # each package knows its submodules
            parent, _, child = name.rpartition(".")
            if parent:
                setattr(modules[parent], child, module)
        return modules

    def _task_registry(self) -> Any:
        registry = self.registry

        class TaskRegistry:
            def get_registry(self, family: str) -> dict[str, Any]:
                assert family == "android_world"
                return registry

        return TaskRegistry()

    def _load_and_setup_env(
        self,
        console_port: int = 5554,
        emulator_setup: bool = False,
        freeze_datetime: bool = True,
        adb_path: str = "~/Android/Sdk/platform-tools/adb",
        grpc_port: int = 8554,
    ) -> Emulator:
        self.env_launches.append({"console_port": console_port, "emulator_setup": emulator_setup})
        return self.emulator

    def _create_suite(
        self,
        task_registry: dict[str, Any],
        n_task_combinations: int = 1,
        seed: int | None = None,
        tasks: list[str] | None = None,
        use_identical_params: bool = False,
        env: Any = None,
    ) -> Suite:
        self.suites.append(tasks)
        for name in tasks or []:
            if name not in task_registry:
                raise ValueError(f"Task {name} not found in the task registry.")
        chosen = {
            name: [
                task_type(task_type.generate_random_params()) for _ in range(n_task_combinations)
            ]
            for name, task_type in task_registry.items()
            if tasks is None or name in tasks
        }
        return Suite(sorted(chosen.items()))

    def _run(
        self, suite: Suite, agent: Any, checkpointer: IncrementalCheckpointer
    ) -> list[dict[str, Any]]:
        if self.run_suite is not None:
            return self.run_suite(suite, agent, checkpointer)
        return run_suite(suite, agent, checkpointer)


@dataclass
class AgentInteractionResult:
    done: bool
    data: dict[str, Any]


class EnvironmentInteractingAgent:
    def __init__(self, env: Any, name: str = "", transition_pause: float | None = 1.0) -> None:
        self._env, self._name = env, name
        self._transition_pause = transition_pause
        self._max_steps: int | None = None

    @property
    def env(self) -> Any:
        return self._env

    @property
    def name(self) -> str:
        return self._name

    def set_max_steps(self, max_steps: int) -> None:
        self._max_steps = max_steps

    def reset(self, go_home: bool = False) -> None:
        self.env.reset(go_home=go_home)

    def get_post_transition_state(self) -> Any:
        return self.env.get_state(wait_to_stabilize=self._transition_pause is None)


@dataclass
class JSONAction:
    action_type: str | None = None
    index: str | int | None = None
    x: int | None = None
    y: int | None = None
    text: str | None = None
    direction: str | None = None
    goal_status: str | None = None
    app_name: str | None = None
    keycode: str | None = None
    clear_text: bool | None = None

    def __post_init__(self) -> None:
        check_json_action(self.as_dict())

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None}


@dataclass
class EpisodeResult:
    done: bool
    step_data: dict[str, Any]


def run_episode(
    goal: str,
    agent: Any,
    max_n_steps: int = 10,
    start_on_home_screen: bool = False,
    termination_fn: Callable[[Any], float] | None = None,
    print_fn: Callable[[str], None] = print,
) -> EpisodeResult:
    if max_n_steps == 0:
        return EpisodeResult(done=False, step_data={})
    agent.reset(start_on_home_screen)
    agent.set_max_steps(max_n_steps)
    steps: list[dict[str, Any]] = []
    done = False
    for number in range(max_n_steps):
        result = agent.step(goal)
        assert STEP_NUMBER not in result.data
        steps.append(result.data | {STEP_NUMBER: number})
        done = result.done
        if done:
            break
    # One list per key, as long as the key turns up: uneven when a key is missing sometimes.
    lists: dict[str, list[Any]] = {}
    for step in steps:
        for key, value in step.items():
            lists.setdefault(key, []).append(value)
    return EpisodeResult(done=done, step_data=lists)


def transpose_dol_to_lod(data: dict[str, list[Any]]) -> list[dict[str, Any]]:
    """The steps back from the lists: as many as the shortest list holds."""
    rows = zip(*data.values(), strict=False)
    return [dict(zip(data.keys(), values, strict=True)) for values in rows]


class Suite(dict[str, list[Any]]):
    suite_family = ""


class IncrementalCheckpointer:
    def __init__(self, directory: str) -> None:
        self.directory = directory
        os.makedirs(directory, exist_ok=True)

    def save_episodes(self, task_episodes: list[dict[str, Any]], task_name: str) -> None:
        path = Path(self.directory) / f"{task_name}.pkl.gz"
        path.write_bytes(gzip.compress(pickle.dumps(task_episodes)))

    def load(self, fields: list[str] | None = None) -> list[dict[str, Any]]:
        episodes: list[dict[str, Any]] = []
        for path in sorted(Path(self.directory).glob("*.pkl.gz")):
            for episode in pickle.loads(gzip.decompress(path.read_bytes())):
                episodes.append({k: episode[k] for k in fields} if fields else episode)
        return episodes


def run_suite(
    suite: Suite, agent: Any, checkpointer: IncrementalCheckpointer
) -> list[dict[str, Any]]:
    """suite_utils.run: every instance the checkpoint lacks, scored only when done."""
    finished = {
        f"{episode['task_template']}_{episode['instance_id']}": episode
        for episode in checkpointer.load(fields=["task_template", "instance_id", "is_successful"])
    }
    results: list[dict[str, Any]] = []
    for name, instances in suite.items():
        for number, task in enumerate(instances):
            instance = f"{name}_{number}"
            if instance in finished:
                results.append(finished[instance])
                continue
            task.initialize_task(agent.env)
            outcome = run_episode(
                task.goal, agent, int(10 * task.complexity), task.start_on_home_screen
            )
            successful = task.is_successful(agent.env) if outcome.done else 0.0
            task.tear_down(agent.env)
            episode = {
                "goal": task.goal,
                "task_template": name,
                "instance_id": number,
                "episode_data": outcome.step_data,
                "episode_length": len(outcome.step_data[STEP_NUMBER]),
                "is_successful": successful,
            }
            checkpointer.save_episodes([episode], instance)
            results.append(episode)
    return results
