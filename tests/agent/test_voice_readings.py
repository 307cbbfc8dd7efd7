"""Goals in the ways people type them that the completion checks once misread, each of which
turned a true claim down: a message's text ending in a question mark, an answer asked to be
texted, negations typed without an apostrophe, "no deleting", a value taken out of a text, the
name a note is renamed to, texting spellings of "how many", durations joined by "n" or
"plus", "every event on it" and a stopwatch to reset."""

from __future__ import annotations

import pytest

from agent.goal_items import (
    asks_for_answer,
    asks_for_count,
    deletes_items,
    removal_shown,
    unshown_durations,
)
from agent.goal_stopwatch import stopwatch_wish
from agent.goal_switches import every_switch, goal_parts
from agent.screen import Screen
from simulator import Simulator
from simulator.tasks import TASKS_BY_NAME


@pytest.mark.parametrize(
    "goal",
    [
        "the newest message in my texts needs a reply: ¿Llegas a la estación a las 3?",
        "add Dana Kim as contact (+91 85552 29016) n text them: can you bring the charger?",
        "“Piano lesson 9” today, what time? text it to Alice Martin",
        "what time is “Lunch with Павел” today? send that time to Alice Martin by sms",
        "when does my “1:1 🏃” event start today? text that time to alice martin",
        "I want to know at a glance what it's for, so give the 7:30 AM alarm the label Gym.",
    ],
)
def test_a_message_or_a_reason_is_no_question_to_answer(goal: str) -> None:
    assert not asks_for_answer(goal)


@pytest.mark.parametrize(
    "goal",
    [
        "Text from Bob: what time is dinner?",
        "Which contact is that? Reply with their name.",
        "hw many files r in my Pictures folder",
        "I want to know what time my dentist appointment is.",
    ],
)
def test_questions_still_ask_for_an_answer(goal: str) -> None:
    assert asks_for_answer(goal)


def test_a_count_in_texting_spelling_is_a_count() -> None:
    assert asks_for_count("hw many files r in my Pictures folder")


@pytest.mark.parametrize(
    ("goal", "deletes"),
    [
        ("Kill the 7:47 AM alarm. Switch only, no deleting.", False),
        ("dont delete the alarm, just switch it off", False),
        ("Can you get the address out of my texts and send it to Léa Ricci?", False),
        ("Åsa has a new number, +86 139 6341 2700, the old one is gone. Edit her contact.", False),
        ("take Buy milk out of my task list", True),
        ("the note old_ideas.md should be gone", True),
        ("these expenses need to go from pro expense:\n- Charity 8\n- Dividends wk 40", True),
        ("Buy milk has to go", True),
        ("I need to go to work at 7, set an alarm", False),
        ("the expense should go under Food", False),
    ],
)
def test_what_reads_as_a_deletion(goal: str, deletes: bool) -> None:
    assert deletes_items(goal) is deletes


@pytest.mark.parametrize(
    "goal",
    [
        "make sure my 6:56 p.m. alarm isnt on",
        "make sure my 6:56 p.m. alarm isn't on",
    ],
)
def test_a_negation_without_its_apostrophe_still_negates(goal: str) -> None:
    parts = goal_parts(goal).parts
    assert [(part.subject, part.desired) for part in parts] == [("6:56 pm alarm", False)]


def test_a_switch_not_to_be_on_asks_for_no_state_it_has_to_show() -> None:
    # "isnt in airplane mode, ... take it out if it is": never read as airplane mode on
    goal = "can u confirm the phone isnt in airplane mode, and take it out if it is"
    assert all(part.desired is False for part in goal_parts(goal).parts)


def test_every_event_on_a_day_is_no_switch() -> None:
    goal = "I want Thursday completely empty in my calendar. Every single event on it should go."
    assert every_switch(goal) is None
    assert every_switch("every alarm should be on") is not None


def test_a_stopwatch_to_reset_is_never_asked_to_run() -> None:
    assert stopwatch_wish("I'm timing cookies, so the stopwatch at 1:42:37 needs to be reset") in (
        None,
        False,
    )
    assert stopwatch_wish("reset the stopwatch") is False


@pytest.mark.parametrize(
    "goal", ["can u set off a timer of 5 min n 12 sec thx", "a timer of 5 minutes plus 12 seconds"]
)
def test_durations_joined_by_n_or_plus_are_one_duration(goal: str) -> None:
    assert unshown_durations(goal, ["5:12"]) == []
    assert unshown_durations(goal, ["5:00"]) != []


def test_the_name_a_note_gets_or_should_have_is_kept() -> None:
    params = TASKS_BY_NAME["MarkorDeleteNote"].params(0)
    device = Simulator(state=TASKS_BY_NAME["MarkorDeleteNote"].initial_state(0))
    device.open_app("Markor")
    screen = Screen.parse(device.dump_xml())
    listed = params["file_name"]
    assert removal_shown(f"delete {listed}", screen) == [listed]
    for goal in (
        f"open my note plans.md, erase what's there, write “Hi.” instead, and rename it {listed}",
        f"plans.md should be gone and there should be a note {listed} whose text is “Hi.”",
    ):
        assert removal_shown(goal, screen) == [], goal
