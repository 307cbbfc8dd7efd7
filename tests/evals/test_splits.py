"""The splits (`evals.splits`): training, validation and test seeds never meet, and a held-out
goal or a goal in either split's others' words reaches no training goal, whatever case,
punctuation or politeness it comes in."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from evals.demos import given_values
from evals.goal_rewording import training_goal_template
from evals.goals import others_words as test_set
from evals.policies import parse_policy
from evals.runner import Run
from evals.splits import (
    DEVELOPMENT_SEEDS,
    EVALUATION_SEEDS,
    SPLITS,
    TEST_SEEDS,
    TRAINING_SEEDS_START,
    VALIDATION_SEEDS,
    SplitName,
    leaked_goal,
    others_words,
    plain_words,
    plan_split,
    says,
)
from serving.training.goal_word_dropout import shorten
from simulator.tasks import TASKS, TASKS_BY_NAME, Task

# Seeds that chose a shipped model or checkpoint so far (the model card's history): seeds 0-1
# for every run, seeds 2-3 for the eleventh run's checkpoint.
SEEDS_THAT_CHOSE = range(0, 4)


def test_the_splits_share_no_seed_and_only_training_seeds_train() -> None:
    validation, test = set(VALIDATION_SEEDS), set(TEST_SEEDS)
    development = set(DEVELOPMENT_SEEDS)
    assert not validation & test and not development & (validation | test)
    assert validation | test | development <= set(EVALUATION_SEEDS)
    assert EVALUATION_SEEDS.stop == TRAINING_SEEDS_START
    # a test seed never chose anything, or reporting on it would flatter the choice
    assert not test & set(SEEDS_THAT_CHOSE)
    assert SPLITS["validation"].seeds == VALIDATION_SEEDS
    assert SPLITS["test"].seeds == TEST_SEEDS
    assert SPLITS["development"].seeds == DEVELOPMENT_SEEDS


def planned(name: SplitName, tasks: list[Task] = TASKS) -> list[Run]:
    return plan_split(name, tasks, parse_policy("oracle"), [True])


def test_validation_plays_its_seeds_in_both_phrasings_and_its_own_others_words() -> None:
    runs = planned("validation")
    phrased = len(TASKS) * len(VALIDATION_SEEDS) * 2
    assert len(runs) == phrased + len(others_words("validation"))
    wifi = TASKS_BY_NAME["SystemWifiTurnOn"]
    assert {r.goal for r in runs[:phrased] if r.task is wifi} == {"Turn on Wi-Fi.", "Enable WLAN."}
    assert [r.given for r in runs[phrased:]] == list(others_words("validation"))
    assert {r.seed for r in runs} == set(VALIDATION_SEEDS)
    wordings = {"phrasing 0", "held-out phrasing", "others_words_validation"}
    assert {r.wording for r in runs} == wordings


def test_test_plays_its_seeds_in_both_phrasings_and_the_others_words() -> None:
    runs = planned("test")
    phrased = len(TASKS) * len(TEST_SEEDS) * 2
    assert len(runs) == phrased + len(others_words())
    assert [r.given for r in runs[phrased:]] == list(others_words())
    assert {r.seed for r in runs} == set(TEST_SEEDS)
    assert {r.wording for r in runs} == {"phrasing 0", "held-out phrasing", "others_words"}
    # a subset of tasks keeps only their goals
    alarm = TASKS_BY_NAME["ClockAlarmAdd"]
    some = planned("test", [alarm])
    assert {r.task for r in some} == {alarm}
    held_out = {alarm.goal(seed, alarm.held_out_phrasing) for seed in TEST_SEEDS}
    assert held_out <= {r.goal for r in some}
    assert len(some) == 2 * len(TEST_SEEDS) + len(test_set.PHRASINGS[alarm.name])


def test_eval_plays_a_split_and_refuses_what_a_split_decides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent.cli import main

    base = ["eval", "--suite", "sim", "--policy", "oracle", "--tasks", "SystemWifiTurnOn"]
    for split in SPLITS:
        results = tmp_path / f"{split}.json"
        command = [*base, "--split", split, "--run-dir", str(tmp_path / split)]
        assert main([*command, "--json", str(results)]) == 0
        report = json.loads(results.read_text())
        wifi_goals = [g for g in others_words(split) if g.task.name == "SystemWifiTurnOn"]
        assert wifi_goals
        assert len(report["results"]) == 2 * len(SPLITS[split].seeds) + len(wifi_goals)
        assert all(result["success"] for result in report["results"])
    capsys.readouterr()
    for extra in (["--runs", "2"], ["--phrasing", "held-out"], ["--export-demos", "d.jsonl"]):
        assert main([*base, "--split", "validation", *extra]) == 2
        assert "--split" in capsys.readouterr().err


def test_a_goal_is_said_whatever_its_case_punctuation_or_politeness() -> None:
    held_out = "Turn on Wi-Fi."
    for said in (
        "turn on wi-fi",
        "Please turn on Wi-Fi.",
        "Can you please TURN ON WIFI?",
        "Turn on Wi-Fi, thanks!",
        "Hey, turn on wi‑fi now, please.",
        "First, turn on Wi-Fi. Then open Clock.",
    ):
        assert says(said, held_out), said
    # whole words only, and a different request is a different goal
    for other in ("Turn off Wi-Fi.", "Return on Wi-Fi spending.", "Turn on WLAN."):
        assert not says(other, held_out), other
    assert plain_words("Could you flip Wi-Fi on for me?") == "flip wifi on"
    assert plain_words("Battery charge (%)?") == "battery charge percent"


def test_a_held_out_goal_or_others_words_are_found_in_a_would_be_training_goal() -> None:
    wifi = TASKS_BY_NAME["SystemWifiTurnOn"]
    assert leaked_goal(wifi, 100, "Please enable wlan!") == "Enable WLAN."
    assert leaked_goal(wifi, 100, "Turn on Wi-Fi.") is None
    off = TASKS_BY_NAME["SystemWifiTurnOff"]
    # a goal of the test split's others' words, and one of the validation split's
    assert leaked_goal(off, 100, "KILL THE WIFI, thanks") == "kill the wifi"
    flaky = "the router here is flaky, take the phone off wifi completely"
    assert (
        leaked_goal(off, 100, "The router here is FLAKY - take the phone off Wi-Fi completely!")
        == flaky
    )
    # another task's held-out goal is no leak
    assert leaked_goal(off, 100, "Enable WLAN.") is None


def test_no_training_phrasing_or_rewording_says_a_held_out_or_test_goal() -> None:
    """Over many draws of the rewordings export uses, and the word dropout training applies
    on top: every training goal keeps clear of the held-out phrasing and of both splits'
    others' words."""
    leaks = []
    for task in TASKS:
        for seed in (100, 101):
            params = task.params(seed)
            values = given_values(params)
            for phrasing in task.training_phrasings:
                for draw in range(8):
                    reworded = training_goal_template(task, phrasing, random.Random(draw))
                    goal = reworded.format(**params)
                    shortened = shorten(goal, values, random.Random(draw)) or goal
                    leaks += [
                        (task.name, said, leaked)
                        for said in (goal, shortened)
                        if (leaked := leaked_goal(task, seed, said)) is not None
                    ]
    assert not leaks
