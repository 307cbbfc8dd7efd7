"""`phone-agent eval --suite androidworld` end to end, offline: android_world's runner, suite,
registry and checkpoints as stand-ins (tests/support/androidworld_fake.py), recorded screens for the
emulator, a scripted model in place of the server's client."""

from __future__ import annotations

import gzip
import pickle
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.actions import OpenApp, Swipe
from agent.cli import main
from agent.model_client import ClientSettings, DecisionRequest, ModelReply
from agent.trajectory import EndRecord, EpisodeRecord, read_trajectory
from tests.support.androidworld_fake import (
    AndroidWorld,
    ScriptedModel,
    act,
    recorded_task,
    tap,
    transpose_dol_to_lod,
)

WIFI_GOAL = "Turn on Wi-Fi."
VERSION_GOAL = "What Android version is this phone on?"


def registry() -> dict[str, Any]:
    return {
        "SystemWifiTurnOn": recorded_task("turn_on_wifi.json", complexity=1.0),
        "SystemAndroidVersion": recorded_task("android_version.json", complexity=0.3),
    }


def wifi_model() -> ScriptedModel:
    return ScriptedModel(
        act(OpenApp(name="Settings")), tap("Network & internet"), tap("Internet"), tap("Wi-Fi")
    )


def install(
    monkeypatch: pytest.MonkeyPatch, models: dict[str, ScriptedModel], world: AndroidWorld
) -> AndroidWorld:
    """The stand-in android_world, and a model client that plays `models` (one per goal)."""

    class ScriptedClient:
        def __init__(self, settings: ClientSettings) -> None:
            self.closed = False

        def model_name(self) -> str:
            return "scripted"

        def decide(self, request: DecisionRequest) -> ModelReply:
            return models[request.goal].decide(request)

        def close(self) -> None:
            self.closed = True

    world.install(monkeypatch)
    monkeypatch.setattr("agent.model_client.ModelClient", ScriptedClient)
    return world


def eval_androidworld(run_dir: Path, tasks: str) -> int:
    return main(["eval", "--suite", "androidworld", "--tasks", tasks, "--run-dir", str(run_dir)])


def checkpoint(run_dir: Path, instance: str) -> dict[str, Any]:
    [episode] = pickle.loads(gzip.decompress((run_dir / f"{instance}.pkl.gz").read_bytes()))
    data: dict[str, Any] = episode
    return data


def test_a_resumed_run_keeps_every_trajectory_and_ends_each_with_its_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = install(monkeypatch, {WIFI_GOAL: wifi_model()}, AndroidWorld(registry()))
    assert eval_androidworld(tmp_path, "wifi") == 0
    assert first.suites == [["SystemWifiTurnOn"]]  # a substring, resolved to the exact name
    assert first.emulator.closed
    trajectories = tmp_path / "trajectories"
    wifi_trajectory = (trajectories / "episode-001.jsonl").read_text(encoding="utf-8")

    # The same run directory again, with one more task: the finished one is skipped.
    scrolling = ScriptedModel(
        act(OpenApp(name="Settings")), act(Swipe(direction="up")), act(Swipe(direction="up"))
    )
    second = install(monkeypatch, {VERSION_GOAL: scrolling}, AndroidWorld(registry()))
    assert eval_androidworld(tmp_path, "wifi,*version") == 0
    assert second.suites == [["SystemAndroidVersion", "SystemWifiTurnOn"]]
    assert second.emulator.closed

    assert (trajectories / "episode-001.jsonl").read_text(encoding="utf-8") == wifi_trajectory
    assert sorted(path.name for path in trajectories.iterdir()) == [
        "episode-001.jsonl",
        "episode-002.jsonl",
    ]
    ends = {}
    for path in sorted(trajectories.iterdir()):
        records = read_trajectory(path)
        assert isinstance(records[0], EpisodeRecord) and isinstance(records[-1], EndRecord)
        ends[records[0].goal] = (records[-1].stop_reason, records[-1].steps)
    # The last episode of the run used up its budget of 10 x 0.3 steps: its trajectory says so.
    assert ends == {WIFI_GOAL: ("completed", 5), VERSION_GOAL: ("step_budget", 3)}

    version = checkpoint(tmp_path, "SystemAndroidVersion_0")
    steps = transpose_dol_to_lod(version["episode_data"])
    assert len(steps) == version["episode_length"] == 3
    assert [step["stop_reason"] for step in steps] == [None, None, "step_budget"]
    wifi = checkpoint(tmp_path, "SystemWifiTurnOn_0")
    assert wifi["is_successful"] == 1.0
    assert [step["stop_reason"] for step in transpose_dol_to_lod(wifi["episode_data"])] == [
        None,
        None,
        None,
        None,
        "completed",
    ]


def test_a_task_name_that_matches_nothing_stops_before_the_emulator_is_touched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    world = install(monkeypatch, {}, AndroidWorld(registry()))
    assert eval_androidworld(tmp_path, "SystemWifiTurnOn,SystemWifiTurnOf") == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "no task matches 'SystemWifiTurnOf'" in error[0]
    assert "SystemWifiTurnOn" in error[0]  # the closest names are offered
    assert world.env_launches == [] and world.suites == []


def test_ctrl_c_mid_episode_closes_the_trajectory_and_the_emulator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupt(request: DecisionRequest) -> Any:
        raise KeyboardInterrupt

    model = ScriptedModel(act(OpenApp(name="Settings")), interrupt)
    world = install(monkeypatch, {WIFI_GOAL: model}, AndroidWorld(registry()))
    assert eval_androidworld(tmp_path, "SystemWifiTurnOn") == 130
    assert world.emulator.closed
    end = read_trajectory(tmp_path / "trajectories" / "episode-001.jsonl")[-1]
    assert isinstance(end, EndRecord) and (end.stop_reason, end.steps) == ("aborted", 1)
    assert "Ctrl-C" in end.detail


def test_a_run_that_fails_still_closes_the_emulator(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def lost(suite: Any, agent: Any, checkpointer: Any) -> list[dict[str, Any]]:
        raise ConnectionError("emulator went away")

    world = install(monkeypatch, {}, AndroidWorld(registry(), run_suite=lost))
    assert eval_androidworld(tmp_path, "SystemWifiTurnOn") == 1
    assert "emulator went away" in capsys.readouterr().err
    assert world.emulator.closed


def test_the_emulator_and_suite_options_reach_androidworld_and_default_to_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    played: list[dict[str, list[Any]]] = []

    def record(suite: Any, agent: Any, checkpointer: Any) -> list[dict[str, Any]]:
        played.append(dict(suite))
        return []

    world = install(monkeypatch, {}, AndroidWorld(registry(), run_suite=record))
    assert eval_androidworld(tmp_path / "defaults", "SystemWifiTurnOn") == 0
    given = [
        "--console-port",
        "5556",
        "--perform-emulator-setup",
        "--n-task-combinations",
        "2",
        "--task-random-seed",
        "7",
    ]
    run_dir = str(tmp_path / "given")
    assert main(["eval", "--suite", "androidworld", "--run-dir", run_dir, *given]) == 0

    assert world.env_launches == [
        {"console_port": 5554, "emulator_setup": False},
        {"console_port": 5556, "emulator_setup": True},
    ]
    assert [len(played[0]["SystemWifiTurnOn"]), len(played[1]["SystemWifiTurnOn"])] == [1, 2]
    assert sorted(played[1]) == ["SystemAndroidVersion", "SystemWifiTurnOn"]  # no --tasks: all


@pytest.mark.parametrize(
    ("option", "refusal"),
    [
        (["--policy", "oracle"], "only --policy llm runs there"),
        (["--guards", "both"], "--guards is on or off there"),
    ],
)
def test_options_androidworld_cannot_run_are_refused_before_the_emulator_is_touched(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    option: list[str],
    refusal: str,
) -> None:
    world = install(monkeypatch, {}, AndroidWorld(registry()))
    assert main(["eval", "--suite", "androidworld", "--run-dir", str(tmp_path), *option]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and refusal in error[0]
    assert world.env_launches == [] and world.suites == []


@pytest.fixture
def stray_android_world_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A folder named android_world on the path, as a clone's parent directory gives."""
    (tmp_path / "android_world").mkdir()
    (tmp_path / "android_world" / "notes.txt").write_text("not a package\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [name for name in sys.modules if name.startswith("android_world")]:
        monkeypatch.delitem(sys.modules, name)
    yield
    for name in [name for name in sys.modules if name.startswith("android_world")]:
        del sys.modules[name]


@pytest.mark.usefixtures("stray_android_world_folder")
def test_a_folder_named_android_world_is_not_taken_for_the_package(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["eval", "--suite", "androidworld"]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "not on PyPI" in error[0]
