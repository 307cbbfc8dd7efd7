"""A tap whose index disagrees with the element the model's reasoning names goes where the words
say, and only in clear cases that the goal backs."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.aim import announced_target
from agent.screen import Element, Screen
from evals.scripted_model import Scripted, call, index_of
from simulator import Simulator
from simulator.tasks import TASKS_BY_NAME
from tests.support.elements import element
from tests.support.fake_device import FakePhone, screen_of
from tests.support.loop_harness import run_scripted


def _element(index: int, role: str, label: str, bounds: tuple[int, int, int, int]) -> Element:
    checked = False if role == "switch" else None
    return element(index, role, label, bounds, checked=checked, package="org.tasks")


# A to-do list: each row has its title and a "complete box" of its own; the first row shows
# its due date as a button of its own.
TODO_LIST = Screen(
    "org.tasks",
    False,
    1080,
    2400,
    0,
    [
        _element(1, "button", "Book flights to Osaka", (0, 300, 900, 480)),
        _element(2, "button", "complete box", (900, 300, 1080, 480)),
        _element(3, "button", "Call Ana for follow-up", (0, 480, 900, 660)),
        _element(4, "button", "complete box", (900, 480, 1080, 660)),
        _element(5, "switch", "Show completed", (0, 700, 1080, 860)),
        _element(6, "button", "Due today", (40, 400, 400, 470)),
    ],
)


DELETE_OSAKA = "Delete the task Book flights to Osaka"


@pytest.mark.parametrize(
    "thinking",
    [
        'Tap "Book flights to Osaka".',
        'The list is open. I will click on the "Book flights to Osaka" row.',
        'Tap "Call Ana for follow-up". No: tap "book flights to osaka".',
    ],
)
def test_the_row_the_reasoning_names_is_tapped_instead_of_another_row(thinking: str) -> None:
    aimed = announced_target(thinking, "tap", 3, TODO_LIST, DELETE_OSAKA)
    assert aimed is not None and aimed.index == 1


@pytest.mark.parametrize(
    ("thinking", "tool", "index", "why"),
    [
        ('Tap "Call Ana for follow-up".', "tap", 3, "the call agrees"),
        ('Tap "Show completed".', "tap", 5, "the goal does not name the element"),
        ("Tap the first row.", "tap", 3, "no element named"),
        ('Tap "Buy milk".', "tap", 3, "the named element is not on this screen"),
        ('Tap "complete box".', "tap", 1, "the label is on every row"),
        ('Tap "complete box" by "Book flights to Osaka".', "tap", 2, "the call agrees"),
        ('Tap "complete box" by "Call Ana for follow-up".', "tap", 2, "the goal names another row"),
        ('Tap "complete box" by "Buy milk".', "tap", 4, "no such row on this screen"),
        ('Tap "complete box" by "Book flights to Osaka".', "tap", 3, "the row itself tapped"),
        ('Long-press "Book flights to Osaka".', "tap", 3, "another tool announced"),
        ('Tap "Book flights to Osaka".', "long_press", 3, "another tool called"),
        ('Tap "Show completed".', "tap", 1, "a switch is no row"),
        ('Tap "Due today".', "tap", 1, "a button inside the row tapped"),
        ('Tap "Book flights to Osaka".', "tap", 99, "the index is not on the screen"),
    ],
)
def test_the_call_stands_where_the_words_are_not_clear(
    thinking: str, tool: str, index: int, why: str
) -> None:
    assert announced_target(thinking, tool, index, TODO_LIST, DELETE_OSAKA) is None, why


def test_a_control_named_by_its_row_is_tapped_in_that_row() -> None:
    """The model writes `Tap "complete box" by "<the goal's to-do>".` and ticks the box of
    another row: the one in the named row is ticked instead."""
    thinking = 'Tap "complete box" by "Book flights to Osaka".'
    aimed = announced_target(thinking, "tap", 4, TODO_LIST, "Tick off Book flights to Osaka")
    assert aimed is not None and aimed.index == 2


def test_a_control_named_by_its_row_stays_where_the_goal_names_the_called_row() -> None:
    goal = "Tick off Book flights to Osaka and Call Ana for follow-up"
    thinking = 'Tap "complete box" by "Book flights to Osaka".'
    assert announced_target(thinking, "tap", 4, TODO_LIST, goal) is None


def test_a_long_press_announced_and_called_is_aimed_too() -> None:
    goal = "Select Call Ana for follow-up"
    aimed = announced_target(
        'Long-press "Call Ana for follow-up".', "long_press", 2, TODO_LIST, goal
    )
    assert aimed is not None and aimed.index == 3


def test_the_index_stands_where_the_goal_names_what_it_points_at() -> None:
    # Moving a note from one folder to another: the words name the folder it comes from, the
    # index the one it goes to; both are in the goal, so the model's call is taken as written.
    goal = "Move Book flights to Osaka into the list of Call Ana for follow-up"
    assert announced_target('Tap "Book flights to Osaka".', "tap", 3, TODO_LIST, goal) is None


def test_the_loop_taps_the_named_row_and_records_the_repair(tmp_path: Path) -> None:
    settings = screen_of()
    display = index_of_label(settings, "Display")
    phone = FakePhone()
    episode = run_scripted(
        "Open Network and internet",
        phone,
        [
            Scripted(
                reasoning='Tap "Network and internet".',
                calls=[("tap", {"index": display})],
                finish_reason="tool_calls",
            ),
            call("task_complete"),
        ],
        tmp_path / "run.jsonl",
    )
    # the phone went where the reasoning said, not to the Display page the index pointed at
    assert phone.page == "network"
    first = episode.steps[0].call
    wanted = index_of_label(settings, "Network and internet")
    assert first.arguments == {"index": wanted}
    assert first.repairs == [
        f"index {display} -> {wanted}: the reasoning names 'Network and internet'"
    ]
    assert episode.result.stop_reason == "completed"


def test_the_loop_ticks_the_box_in_the_row_the_reasoning_names(tmp_path: Path) -> None:
    task = TASKS_BY_NAME["TasksCompleteTask"]
    title = task.params(1)["title"]
    device = Simulator(state=task.initial_state(1))

    def box_of_the_row_above(body: dict[str, object]) -> Scripted:
        # the box of the row above the named one: the slip a small model makes
        wanted = index_of(body, title) + 1  # each row's box comes right after its title
        return Scripted(
            reasoning=f'Tap "complete box" by "{title}".',
            calls=[("tap", {"index": wanted - 3})],
            finish_reason="tool_calls",
        )

    episode = run_scripted(
        f"In Tasks, complete the to-do {title}.",
        device,
        [call("open_app", name="Tasks"), box_of_the_row_above, call("task_complete")],
        tmp_path / "run.jsonl",
    )
    assert task.success(device.state, 1), "the named to-do is done, its neighbour is not"
    assert "the reasoning names 'complete box'" in episode.steps[1].call.repairs[0]
    assert episode.end.stop_reason == "completed"


def test_without_reasoning_the_index_is_taken_as_written(tmp_path: Path) -> None:
    phone = FakePhone()
    episode = run_scripted(
        "Open the display page",
        phone,
        [lambda body: call("tap", index=index_of(body, "Display")), call("task_complete")],
        tmp_path / "run.jsonl",
    )
    assert phone.page == "display"
    assert episode.steps[0].call.repairs == []


def index_of_label(screen: Screen, label: str) -> int:
    return next(element.index for element in screen.elements if element.label == label)
