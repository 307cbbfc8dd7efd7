"""Claims about the stopwatch held to the state its page last showed: "get the stopwatch going"
claimed on the Start button nobody pressed is refused, and accepted once it counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.actions import TaskComplete
from agent.goal_stopwatch import stopwatch_running, stopwatch_wish
from agent.guards import Guards
from agent.screen import Screen
from evals.results import is_refused_completion
from evals.scripted_model import call
from simulator import Simulator
from simulator.tasks import TASKS_BY_NAME
from tests.support.loop_harness import run_scripted


@pytest.mark.parametrize(
    ("goal", "wish"),
    [
        ("Run the stopwatch.", True),
        ("get the Clock's stopwatch going", True),
        ("I'm timing a lap, get the stop watch counting", True),
        ("Could you start the stopwatch for me?", True),
        ("Pause the stopwatch.", False),
        ("the stopwatch shouldn't be running any more, stop it", False),
        ("make sure the stopwatch isn't counting", False),
        ("hold the stopwatch where it is", False),
        # both asked, or asked about: no opinion
        ("start the stopwatch, I'll stop it when I'm back", None),
        ("Is the stopwatch running?", None),
        ("How long has the stopwatch been running?", None),
        # a page, not a state
        ("Go to the stopwatch tab in Clock.", None),
        # not about the stopwatch
        ("Start a 5 minute timer.", None),
        ("Stop the alarm at 7:00.", None),
    ],
)
def test_the_state_a_goal_asks_of_the_stopwatch(goal: str, wish: bool | None) -> None:
    assert stopwatch_wish(goal) is wish


def stopwatch_screen(device: Simulator) -> Screen:
    device.open_app("Clock")
    screen = Screen.parse(device.dump_xml())
    tab = next(e for e in screen.elements if e.label == "Stopwatch" and e.clickable)
    device.tap(*tab.center)
    return Screen.parse(device.dump_xml())


def test_the_page_says_whether_the_stopwatch_counts() -> None:
    device = Simulator(state=TASKS_BY_NAME["ClockStopWatchRunning"].initial_state(0))
    device.open_app("Clock")
    assert stopwatch_running(Screen.parse(device.dump_xml())) is None  # the Alarm tab
    stopped = stopwatch_screen(device)
    assert stopwatch_running(stopped) is False
    start = next(e for e in stopped.elements if e.label == "Start")
    device.tap(*start.center)
    assert stopwatch_running(Screen.parse(device.dump_xml())) is True


def test_a_claim_before_the_stopwatch_was_shown_is_refused() -> None:
    device = Simulator(state=TASKS_BY_NAME["ClockStopWatchRunning"].initial_state(0))
    device.open_app("Clock")
    guards = Guards("get the stopwatch going")
    decision = guards.review(TaskComplete(success=True), None, Screen.parse(device.dump_xml()))
    assert decision.verdict == "block"
    assert decision.notes[0].reason == (
        "no screen showed the stopwatch, the goal asks it running: refused"
    )


def test_a_stopwatch_claimed_running_on_its_start_button_is_refused(tmp_path: Path) -> None:
    task = TASKS_BY_NAME["ClockStopWatchRunning"]
    device = Simulator(state=task.initial_state(0))
    # Clock opens on Alarm: the Stopwatch tab is [8] there, Start is [5] on its page
    episode = run_scripted(
        "Get the Clock's stopwatch going.",
        device,
        [
            call("open_app", name="Clock"),
            call("tap", index=8),
            call("task_complete", success=True),
            call("tap", index=5),
            call("task_complete", success=True),
        ],
        tmp_path / "t.jsonl",
    )
    early, late = episode.steps[2], episode.steps[4]
    assert is_refused_completion(early)
    assert early.guard.notes[0].reason == (
        "the stopwatch was last shown stopped, the goal asks it running: refused"
    )
    assert (
        "Not done yet: the goal asks for the stopwatch running, and the stopwatch was last "
        "shown stopped. Open the stopwatch and press Start, or call "
        "task_complete(success=false) if it cannot be done."
    ) in episode.server.chat_requests[3].user_text
    assert not is_refused_completion(late)
    assert episode.end.stop_reason == "completed"
    assert task.success(device.state, 0)


def test_a_paused_stopwatch_satisfies_a_goal_that_stops_it(tmp_path: Path) -> None:
    task = TASKS_BY_NAME["ClockStopWatchPause"]
    device = Simulator(state=task.initial_state(0))
    # running from the start: Lap [5] and Pause [6] on its page
    episode = run_scripted(
        "Pause the stopwatch.",
        device,
        [
            call("open_app", name="Clock"),
            call("tap", index=8),
            call("tap", index=6),
            call("task_complete", success=True),
        ],
        tmp_path / "t.jsonl",
    )
    assert not any(is_refused_completion(step) for step in episode.steps)
    assert episode.end.stop_reason == "completed"
    assert task.success(device.state, 0)
