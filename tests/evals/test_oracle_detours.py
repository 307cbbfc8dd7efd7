"""The oracle re-plans from the screen it is shown: every task finishes from a detour start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent.cli import main
from agent.screen import Screen
from evals.detours import DETOUR_KINDS, start_from_detour
from evals.policies import PolicySpec
from evals.runner import EvalSettings, Run, Runner
from simulator import Simulator
from simulator.state import SETTINGS
from simulator.tasks import TASKS, TASKS_BY_NAME, Task, done, open_app, tap
from tests.support.paths import REPO_ROOT

# One seed per task, turning through the detour kinds so that every kind meets every app.
SEEDED = [(task, number % len(DETOUR_KINDS)) for number, task in enumerate(TASKS)]


def start(task: Task, seed: int) -> tuple[Simulator, str]:
    sim, detour = start_from_detour(
        task, seed, lambda: Simulator(state=task.initial_state(seed), seed=seed)
    )
    return sim, detour.describe()


@pytest.mark.parametrize(("task", "seed"), SEEDED, ids=lambda v: getattr(v, "name", f"s{v}"))
def test_the_oracle_finishes_every_task_from_a_detour(
    task: Task, seed: int, tmp_path: Path
) -> None:
    outcome = Runner(tmp_path, EvalSettings()).run(
        Run(task, seed, PolicySpec(kind="oracle"), guards=True, detour=True)
    )
    assert outcome.error is None, outcome.error
    assert outcome.stop_reason == "completed", outcome.detail
    assert outcome.success and outcome.detour


def successful_detour_steps(name: str, seed: int, tmp_path: Path) -> list[dict[str, Any]]:
    """The step records of the oracle's run of `name` from the detour `seed` picks, which must
    succeed."""
    outcome = Runner(tmp_path, EvalSettings()).run(
        Run(TASKS_BY_NAME[name], seed, PolicySpec(kind="oracle"), guards=True, detour=True)
    )
    assert outcome.success, outcome.detail
    records = [json.loads(line) for line in Path(outcome.trajectory).read_text().splitlines()]
    return [record for record in records if record["type"] == "step"]


@pytest.mark.parametrize("seed", range(len(DETOUR_KINDS)))
@pytest.mark.parametrize("name", ["SystemBatteryLevel", "SimpleSmsReadMessage", "TasksDueOnDate"])
def test_the_oracle_answers_only_on_a_screen_that_shows_the_answer(
    name: str, seed: int, tmp_path: Path
) -> None:
    # Demonstrations that answer from a page without the answer teach a model to make one up.
    steps = successful_detour_steps(name, seed, tmp_path)
    assert not [n for s in steps for n in s["guard"]["notes"] if n["kind"] == "answer_check"]
    last = steps[-1]
    assert last["call"]["name"] == "task_complete"
    labels = " | ".join(element["label"] for element in last["screen"]["elements"])
    for part in last["call"]["arguments"]["answer"].split(", "):
        assert part in labels


def test_an_event_time_is_read_beside_its_title_not_off_a_new_events_form(
    tmp_path: Path,
) -> None:
    # this seed opens Calendar on a new event's form, whose start time is the event's time
    task = TASKS_BY_NAME["SimpleCalendarEventTime"]
    outcome = Runner(tmp_path, EvalSettings()).run(
        Run(task, 4303, PolicySpec(kind="oracle"), guards=True, phrasing=7, detour=True)
    )
    assert outcome.stop_reason == "completed", outcome.detail
    assert outcome.success and outcome.refused_completions == 0
    records = [json.loads(line) for line in Path(outcome.trajectory).read_text().splitlines()]
    last = [record for record in records if record["type"] == "step"][-1]
    labels = " | ".join(element["label"] for element in last["screen"]["elements"])
    assert task.params(4303)["title"] in labels
    assert "Add title" not in labels


@pytest.mark.parametrize(
    ("name", "seed", "taps"),
    [
        ("ClockAlarmTurnOn", 901, 1),
        ("ClockAlarmTurnOff", 814, 1),
        ("ClockAlarmTurnOffAll", 880, 3),
        ("ClockTimerEntry", 871, 1),
    ],
)
def test_a_dialog_hides_the_page_under_it_so_no_tap_is_lost_to_it(
    name: str, seed: int, taps: int, tmp_path: Path
) -> None:
    # These seeds start on the add-alarm dialog, over the alarm list. A dump of a dialog holds
    # the dialog alone, so the oracle closes it before acting on the page. When the page's
    # switches and tabs were listed under the dialog, the first tap on one only closed the
    # dialog: a demonstration then said "done" with the alarm unchanged, or typed a timer's
    # duration into nothing.
    steps = successful_detour_steps(name, seed, tmp_path)
    shown = [element["label"] for element in steps[0]["screen"]["elements"]]
    assert "Enter time" in shown
    assert "Timer" not in shown and not any(label.startswith("Alarm ") for label in shown)
    calls = [(step["call"]["name"], step["call"]["arguments"]) for step in steps]
    first_tap = next(i for i, (tool, _) in enumerate(calls) if tool == "tap")
    assert calls[first_tap - 1] == ("press_key", {"key": "back"})
    # one tap per switch the task changes (or the Timer tab), none lost
    assert sum(tool == "tap" for tool, _ in calls) == taps


def test_the_oracle_does_not_tap_a_page_title_for_the_item_that_leads_there(tmp_path: Path) -> None:
    # Seed 937 starts on About phone, whose title reads like the plan's next tap: tapping the
    # title did nothing, and the oracle wandered until it ran out of pages.
    assert successful_detour_steps("SystemBuildNumber", 937, tmp_path)


@pytest.mark.parametrize("seed", [3024, 3057])
def test_a_plan_that_starts_at_home_goes_home_before_its_first_tap(
    seed: int, tmp_path: Path
) -> None:
    # These seeds leave Settings' About phone in front, which shows a label the launcher plan
    # taps: the oracle tapped it there and called the task done with Settings still open.
    steps = successful_detour_steps("OpenAppTaskEval", seed, tmp_path)
    assert steps[0]["call"]["name"] == "press_key"
    assert steps[0]["call"]["arguments"] == {"key": "home"}


@pytest.mark.parametrize("task", TASKS[::7], ids=lambda t: t.name)
def test_a_detour_moves_the_phone_and_nothing_else(task: Task) -> None:
    for seed in range(len(DETOUR_KINDS)):
        own_start = Simulator(state=task.initial_state(seed), seed=seed)
        sim, where = start(task, seed)
        moved = {k for k, v in sim.state.items() if own_start.state[k] != v}
        assert moved <= {"foreground", "permission_prompts", "notifications_allowed"}, where
        shown = Screen.parse(sim.dump_xml()).signature
        assert shown != Screen.parse(own_start.dump_xml()).signature, where


def test_the_seed_picks_the_kind_and_the_same_seed_the_same_detour() -> None:
    task = TASKS_BY_NAME["SystemWifiTurnOn"]
    kinds = [start(task, seed)[1].split(" (")[0] for seed in range(3)]
    assert kinds == ["wrong app", "wrong page", "scrolled"]
    # the same seed, the same detour: in another process too, where the runner replays it
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            "from tests.evals.test_oracle_detours import start; "
            "from simulator.tasks import TASKS_BY_NAME; "
            "sim, described = start(TASKS_BY_NAME['SystemWifiTurnOn'], 4); "
            "print(described); print(sim.dump_xml())",
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "4242"},
        timeout=120,
        cwd=REPO_ROOT,
    )
    sim, described = start(task, 4)
    assert child.stdout == f"{described}\n{sim.dump_xml()}\n"


def test_an_element_on_no_page_ends_the_run_in_one_clear_line(tmp_path: Path) -> None:
    lost = Task(
        name="Lost",
        app=SETTINGS,
        family="navigation",
        templates=("Find the row that is not there.",) * 3,
        plan=lambda p: [open_app("Settings"), tap("Teleport"), done()],
        check=lambda s, p, a: True,
    )
    outcome = Runner(tmp_path, EvalSettings(max_steps=40)).run(
        Run(lost, 0, PolicySpec(kind="oracle"), guards=False)
    )
    assert outcome.stop_reason == "model_error" and not outcome.success
    assert "'Teleport'" in outcome.detail, outcome.detail
    assert outcome.steps < 40  # it gave up; it did not wander until the budget ran out


def test_eval_detour_runs_apart_from_the_plain_ones(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    args = ["eval", "--policy", "oracle", "--tasks", "SystemWifiTurnOn", "--runs", "3"]
    assert main([*args, "--run-dir", str(run_dir)]) == 0
    report = tmp_path / "report.json"
    assert (
        main([*args, "--detour", "--resume", "--run-dir", str(run_dir), "--json", str(report)]) == 0
    )
    results = json.loads(report.read_text(encoding="utf-8"))["results"]
    assert [(r["seed"], r["detour"], r["success"]) for r in results] == [
        (seed, True, True) for seed in range(3)
    ]
    episode = json.loads(Path(results[0]["trajectory"]).read_text(encoding="utf-8").split("\n")[0])
    assert episode["settings"]["policy"]["detour"].startswith("wrong app")
    assert len((run_dir / "results.jsonl").read_text(encoding="utf-8").splitlines()) == 6
