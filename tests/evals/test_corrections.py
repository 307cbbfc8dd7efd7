"""`eval --policy llm --export-demos`: the states a model fails from, labelled by the oracle."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.model_client import DecisionRequest, ModelReply, ModelServerUnavailable
from evals.corrections import ModelServerFailed, export_corrections, record_corrections
from evals.demos import DemoEpisode, DemoSplitError, plan_demo_episodes
from evals.faulty import FaultyPolicy
from evals.oracle import OraclePolicy
from evals.scripted_model import ScriptedServer, call, screen_lines
from simulator.tasks import TASKS_BY_NAME


def target_call(line: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    function = line["target"]["tool_calls"][0]["function"]
    return function["name"], json.loads(function["arguments"])


def tapped_label(line: dict[str, Any]) -> str:
    name, arguments = target_call(line)
    assert name == "tap"
    return dict(screen_lines(line))[arguments["index"]]


def test_a_model_that_never_says_done_is_taught_to_say_it_once_the_task_is_done(
    tmp_path: Path,
) -> None:
    task = TASKS_BY_NAME["SystemWifiTurnOn"]
    # a phrasing the guards do not read as a switch goal: nothing completes the task for it
    episode = plan_demo_episodes([task], [125])[0]
    result = record_corrections(episode, FaultyPolicy(task, 123, "never-complete"), tmp_path)
    assert not result.solved
    # from the screen where Wi-Fi is on, the shortest way on is to say so, at every such step
    assert result.lines
    assert all(target_call(line) == ("task_complete", {}) for line in result.lines)
    assert all(line["source"] == "correction" for line in result.lines)


def test_a_model_that_solves_the_task_gets_no_corrections(tmp_path: Path) -> None:
    task = TASKS_BY_NAME["SystemBluetoothTurnOff"]
    episode = DemoEpisode(task, seed=123, phrasing=0, thinking=False)
    result = record_corrections(episode, OraclePolicy(task, 123), tmp_path)
    assert result.solved and not result.lines


def test_a_model_that_taps_around_is_shown_the_switch_the_task_needs(tmp_path: Path) -> None:
    # taps-everything follows the plan to the Bluetooth page, then taps every element there
    task = TASKS_BY_NAME["SystemBluetoothTurnOff"]
    episode = DemoEpisode(task, seed=123, phrasing=0, thinking=False)
    result = record_corrections(episode, FaultyPolicy(task, 123, "taps-everything"), tmp_path)
    assert not result.solved and result.lines
    # where it tapped something else on the decisive page, the label is the plan's switch
    assert tapped_label(result.lines[0]) == "Use Bluetooth"


class ServerGoneAfterOneReply:
    def __init__(self, task_name: str, seed: int) -> None:
        self._oracle = OraclePolicy(TASKS_BY_NAME[task_name], seed)
        self._replies = 0

    def decide(self, request: DecisionRequest) -> ModelReply:
        self._replies += 1
        if self._replies > 1:
            raise ModelServerUnavailable("http://127.0.0.1:9/v1")
        return self._oracle.decide(request)


def test_a_server_that_goes_away_ends_the_export_instead_of_counting_failures(
    tmp_path: Path,
) -> None:
    # a dead server is no mistake of the model's: its episodes must not be labelled as such
    task = TASKS_BY_NAME["SystemWifiTurnOn"]
    episodes = plan_demo_episodes([task], [123, 124])
    with pytest.raises(ModelServerFailed, match="no model server"):
        export_corrections(episodes, ServerGoneAfterOneReply(task.name, 123), tmp_path / "c.jsonl")


def test_corrections_never_come_from_held_out_episodes(tmp_path: Path) -> None:
    task = TASKS_BY_NAME["SystemWifiTurnOn"]
    held_out = DemoEpisode(task, seed=123, phrasing=task.held_out_phrasing, thinking=False)
    with pytest.raises(DemoSplitError, match="held out"):
        export_corrections([held_out], OraclePolicy(task, 123), tmp_path / "c.jsonl")


def test_the_export_command_writes_the_oracles_label_where_the_model_gave_up_too_soon(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent.cli import main

    path = tmp_path / "corrections.jsonl"
    # the model opens Settings and gives up with Wi-Fi still off
    give_up = call("task_complete", success=False)
    with ScriptedServer([call("open_app", name="Settings"), give_up]) as server:
        code = main(
            [
                "eval", "--suite", "sim", "--policy", "llm", "--base-url", server.base_url,
                "--tasks", "SystemWifiTurnOn", "--export-demos", str(path),
                "--demo-seeds", "120",
            ]
        )  # fmt: skip
    assert code == 0
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    # opening Settings was right; calling it done there was not: one correction, at step 2
    assert [line["step"] for line in lines] == [2]
    assert tapped_label(lines[0]).startswith("Network & internet")
    # the request shows the model's own first step, as the loop showed it
    assert "open_app" in lines[0]["messages"][-1]["content"]
    assert lines[0]["seed"] == 120 and lines[0]["source"] == "correction"
    assert "1 corrections written" in capsys.readouterr().out
