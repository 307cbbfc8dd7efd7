"""Reworded goals in demonstrations: more ways to say a training goal, none a held-out one,
each asking exactly what the phrasing asks with exactly its values."""

from __future__ import annotations

import datetime as dt
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evals.goal_rewording import (
    APP_NAMES,
    REQUESTS,
    SYNONYMS,
    kept_names,
    reformat_listing,
    restate_values,
    reword,
    training_goal,
    training_goal_template,
)
from simulator.tasks import TASKS, TASKS_BY_NAME, Task
from tests.evals.test_others_words import clock_minutes, named_dates

TRAINING_TEMPLATES = [task.templates[i] for task in TASKS for i in task.training_phrasings]


def kept_verbatim(template: str) -> list[str]:
    return re.findall(r"\{[^{}]*\}|\"[^\"]*\"|“[^”]*”", template)


def test_every_group_of_the_lexicon_rewords_some_training_goal() -> None:
    # A group no training phrasing uses would never come into a demonstration.
    training_text = "\n".join(TRAINING_TEMPLATES)
    for group in SYNONYMS:
        assert any(
            re.search(rf"\b{re.escape(phrase)}\b", training_text, re.IGNORECASE) for phrase in group
        ), group


def test_parameters_and_quoted_text_are_never_reworded() -> None:
    for template in TRAINING_TEMPLATES:
        for seed in range(5):
            reworded = reword(template, random.Random(seed))
            assert kept_verbatim(reworded) == kept_verbatim(template), template


def test_no_rewording_says_a_held_out_template() -> None:
    for task in TASKS:
        held_out = task.templates[task.held_out_phrasing].casefold().rstrip(".")
        for phrasing in task.training_phrasings:
            for seed in range(40):
                chosen = training_goal_template(task, phrasing, random.Random(seed))
                assert held_out not in chosen.casefold(), (task.name, chosen)
    # "Enable WLAN." is held out, so "Please enable WLAN." is never a training goal
    wifi = TASKS_BY_NAME["SystemWifiTurnOn"]
    said = {training_goal_template(wifi, 0, random.Random(seed)) for seed in range(400)}
    assert not any("enable wlan" in wording.casefold() for wording in said)


def test_a_goal_is_said_several_ways_and_keeps_its_subject() -> None:
    task = TASKS_BY_NAME["SystemWifiTurnOn"]
    wordings = {training_goal_template(task, 0, random.Random(seed)) for seed in range(300)}
    assert {
        "Turn on Wi-Fi.",
        "Switch on WLAN.",
        "Activate Wi-Fi.",
        "Please switch on WLAN.",
        "Turn WLAN on, please.",
        "Kindly activate Wi-Fi.",
        # other spellings and cases, the other word order, the terse form
        "Turn on WiFi.",
        "turn on wi-fi.",
        "turn wifi on.",
        "Turn WLAN on.",
        "Wi-Fi on",
        "wifi on",
        "ENABLE WI-FI.",
    } <= wordings
    assert all(re.search(r"\b(wi-?fi|wlan)\b", wording, re.IGNORECASE) for wording in wordings)
    # a name keeps its case wherever it comes in; a common phrase is capitalized only first
    battery = TASKS_BY_NAME["SystemBatterySaverTurnOn"]
    said = {training_goal_template(battery, 0, random.Random(seed)) for seed in range(200)}
    assert "Turn on power-saving mode." in said
    # (unless the whole goal is in title case)
    assert not any(re.search(r"\S.*Power-saving mode", wording) for wording in said)


def test_apps_are_called_by_other_names_only_where_the_name_stands_alone() -> None:
    calendar = TASKS_BY_NAME["SimpleCalendarAddOneEvent"]
    said = {training_goal_template(calendar, 3, random.Random(seed)) for seed in range(300)}
    assert any("in Simple Calendar Pro" in wording for wording in said)
    assert any(wording.startswith("In the calendar app, ") for wording in said)
    expense = TASKS_BY_NAME["ExpenseAddSingle"]
    said = {training_goal_template(expense, 1, random.Random(seed)) for seed in range(300)}
    assert any("the expense tracker" in wording for wording in said)
    assert any("pro expense" in wording for wording in said)
    # "Move my Markor note ..." names a note, not the app: it never becomes "my the notes app"
    for template in (t for t in TRAINING_TEMPLATES if "Markor note" in t):
        for seed in range(20):
            reworded = reword(template, random.Random(seed))
            assert not re.search(r"\b(my|the|a) the\b", reworded, re.IGNORECASE), reworded
            assert re.search(r"markor note", reworded, re.IGNORECASE), reworded
    # every group of app names starts with the name some training phrasing uses
    training_text = "\n".join(TRAINING_TEMPLATES)
    assert all(group[0] in training_text for group in APP_NAMES)


@settings(deadline=None, max_examples=300)
@given(
    task_index=st.integers(0, len(TASKS) - 1),
    pick=st.integers(0, 100),
    seed=st.integers(100, 5000),
    draw=st.integers(0, 2**32),
)
def test_a_reworded_goal_asks_with_exactly_the_values_it_was_given(
    task_index: int, pick: int, seed: int, draw: int
) -> None:
    task = TASKS[task_index]
    phrasing = task.training_phrasings[pick % len(task.training_phrasings)]
    template = task.templates[phrasing]
    reworded = training_goal_template(task, phrasing, random.Random(draw))
    # parameters and quoted text as written, in the same order
    assert kept_verbatim(reworded) == kept_verbatim(template)
    held_out = task.templates[task.held_out_phrasing].casefold().rstrip(".")
    assert held_out not in reworded.casefold()
    goal = training_goal(task, seed, phrasing, random.Random(draw))
    params = task.params(seed)
    rows = params.get("rows") if "{listing}" in template else None
    restated = {"listing", "time", "new_time", "day", "date"}  # see the test below
    for value in (v for k, v in params.items() if isinstance(v, str) and k not in restated):
        if "{" + next(k for k, v in params.items() if v == value) + "}" in template:
            assert value in goal, (value, goal)
    for row in rows or []:
        for value in (v for v in row.values() if isinstance(v, str)):
            if value in params["listing"]:
                assert value in goal, (value, goal)


def test_a_listing_is_written_other_ways_with_every_value_as_given() -> None:
    task = TASKS_BY_NAME["ExpenseAddMultiple"]
    params = task.params(2908)
    listings = {reformat_listing(params, random.Random(draw))["listing"] for draw in range(60)}
    assert params["listing"] in listings and len(listings) > 8
    keyed = [listing for listing in listings if "amount: $" in listing]
    assert keyed and any(listing.startswith("1. ") for listing in listings)
    for listing in listings:
        lines = listing.split("\n")
        assert len(lines) == len(params["rows"])
        for line, row in zip(lines, params["rows"], strict=True):
            assert row["name"] in line and row["note"] in line and row["category"] in line
            assert f"${row['amount']:.2f}" in line
    # a value with a comma in it is never cut in two by commas between values
    recipes = TASKS_BY_NAME["RecipeAddMultipleRecipes"]
    for seed in range(2908, 2920):
        given = recipes.params(seed)
        for draw in range(10):
            listing = reformat_listing(given, random.Random(draw))["listing"]
            for row in given["rows"]:
                if "," in row["description"]:
                    assert ", " + row["description"] not in listing.replace(" | ", "|")


def test_names_of_apps_and_settings_are_kept_in_any_case() -> None:
    template = "In Settings, turn Do Not Disturb on, then open Pro Expense."
    assert set(kept_names(template, "in settings, turn dnd on, then open pro expense")) == {
        "settings",
        "dnd",
        "pro expense",
    }
    # a person the template names is kept too, lowered or not
    assert "bob chen" in kept_names("Text Bob Chen the address.", "text bob chen the address")


def test_only_a_one_sentence_instruction_is_put_in_a_request() -> None:
    frames = [re.escape(request).replace(r"\{\}", "(.+)") for request in REQUESTS]

    def is_request(text: str) -> bool:
        return any(re.fullmatch(frame, text, re.DOTALL) for frame in frames)

    # a phrasing that already reads as a request ("Could you ...?", or "Hey, can you ...
    # real quick?" said tersely) is left out: its own words made it one, not a frame
    asks = re.compile(r"\b(can|could|would) you\b", re.IGNORECASE)
    for template in (t for t in TRAINING_TEMPLATES if not is_request(t) and not asks.search(t)):
        for seed in range(20):
            reworded = reword(template, random.Random(seed))
            if is_request(reworded):
                assert "?" not in template and template.count(".") <= 1, (template, reworded)


@pytest.mark.parametrize(
    "task",
    [t for t in TASKS if {"time", "day", "date"} & set(t.params(100))],
    ids=lambda task: task.name,
)
def test_a_time_or_a_day_written_another_way_names_the_same_value(task: Task) -> None:
    """Read back with the others' words test's own readers, not with the views."""
    written: set[str] = set()
    for seed in range(100, 130):
        params = task.params(seed)
        for draw in range(8):
            restated = restate_values(params, random.Random(draw))
            for field, hhmm in (("time", "hhmm"), ("new_time", "new_hhmm")):
                if field in params:
                    hour, minute = map(int, params[hhmm].split(":"))
                    assert clock_minutes(restated[field]) == {hour * 60 + minute}, restated
                    written.add(restated[field])
            for field, iso in (("day", "date"), ("date", "due_iso")):
                if field in params and iso in params:
                    day = dt.date.fromisoformat(params[iso])
                    assert named_dates(f"due {restated[field]}") == {day}, restated
                    written.add(restated[field])
    originals = {
        task.params(seed).get(f) for seed in range(100, 130) for f in ("time", "day", "date")
    }
    assert written - originals, "some values are written another way"
