"""Goals that ask for a switch in free words: the state is read clause by clause, and only
where nothing in the goal says otherwise. A reading holds a claim of success to it; a misreading
would refuse a true success, so whatever is unsure is left unread."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from agent.actions import Tap, TaskComplete
from agent.goal_switches import goal_parts, wished_states
from agent.guards import Guards
from agent.screen import Screen
from evals.goal_rewording import training_goal
from evals.scripted_model import call, tap
from simulator import Simulator
from simulator.tasks import TASKS
from tests.support.fake_device import screen_of
from tests.support.loop_harness import run_scripted


def asked(goal: str) -> list[str]:
    return [part.asked for part in wished_states(goal)]


@pytest.mark.parametrize(
    ("goal", "reading"),
    [
        ("the cafe's network is awful, drop the phone off wifi", ["Wi-Fi off"]),
        ("hop back onto the wlan when you get a chance", ["Wi-Fi on"]),
        ("my headset needs bluetooth running", ["Bluetooth on"]),
        ("Kill bluetooth, it drains the battery.", ["Bluetooth off"]),
        ("We're boarding soon. Flight mode, please.", ["Airplane mode on"]),
        ("got home, get me out of plane mode", ["Airplane mode off"]),
        ("I never asked for dark mode. Get rid of it.", ["Dark theme off"]),
        ("put the phone in do not disturb for the lecture", ["Do Not Disturb on"]),
        ("Battery saver: get it going before the trip", ["Battery Saver on"]),
        ("No more auto-rotate for me, thanks.", ["Auto-rotate off"]),
        # the condition says what is, the rest what is wanted
        ("wlan: make sure it's connected, and connect it if it's not", ["Wi-Fi on"]),
        ("Is Bluetooth on at the moment? If it is, switch it off.", ["Bluetooth off"]),
        ("Check Wi-Fi, enable it if needed, otherwise leave it alone.", ["Wi-Fi on"]),
        ("cut wifi, then get bluetooth going", ["Wi-Fi off", "Bluetooth on"]),
        ("Wi-Fi should end up off; Bluetooth should end up on.", ["Wi-Fi off", "Bluetooth on"]),
        # what the switch is now is no wish; after "so" it is the wanted result
        ("the bluetooth is on, switch it off", ["Bluetooth off"]),
        ("wlan's off again, put it back on", ["Wi-Fi on"]),
        ("Stay awake: tap it so it's on", ["Stay awake on"]),
        # "going to" is a plan, not a state: only Wi-Fi is asked for
        ("we're going to rely on mobile data, so switch wifi off", ["Wi-Fi off"]),
        # an alarm is named by its time, and kept from ringing by being off
        ("The 5:01 AM alarm must not ring. See to it.", ["5:01 AM alarm off"]),
        ("Is my 13:00 alarm still active? It needs to be off.", ["13:00 alarm off"]),
        ("the 6:40am alarm mustn't wake me, check it's disabled", ["6:40am alarm off"]),
        ("the 6 am alarm, switch it back on please", ["6 am alarm on"]),
        # a switch described by what it does
        ("Stop the screen from sleeping while the phone charges.", ["Stay awake on"]),
        ("while it charges the screen should never go to sleep", ["Stay awake on"]),
        ("go back to the light look, dark mode is hard to read outside", ["Dark theme off"]),
        ("stop the screen from flipping sideways every time I lie down", ["Auto-rotate off"]),
        ("Lock the screen rotation please", ["Auto-rotate off"]),
        ("I want the exact battery % up top next to the icon", ["Battery percentage on"]),
        ("hide the battery percentage, I don't need it", ["Battery percentage off"]),
        # a switch wished for by name is wanted on, unless the words say off
        ("need dark mode pls, the screen is way too bright at night", ["Dark theme on"]),
        ("I'd like the flashlight for a minute", ["Flashlight on"]),
        ("I want wifi off for the night", ["Wi-Fi off"]),
        # a question about a switch, then the answer wished for
        ("am I still in airplane mode from the flight? I shouldn't be", ["Airplane mode off"]),
        ("is bluetooth off? it should be", ["Bluetooth off"]),
        ("Is Wi-Fi on? It needs to be.", ["Wi-Fi on"]),
    ],
)
def test_free_words_are_read_as_the_state_they_ask_for(goal: str, reading: list[str]) -> None:
    assert asked(goal) == reading
    parts = goal_parts(goal)
    assert [part.asked for part in parts.parts] == reading
    assert parts.complete is False  # read from free words: never ends an episode by itself


@pytest.mark.parametrize(
    "goal",
    [
        "Is Wi-Fi on?",  # a question about the state, not a wish
        "tell me whether bluetooth is on",
        "Turn bluetooth on, no, actually leave it off",  # two states for one switch
        "don't switch wifi off",  # a negation the cues do not account for
        "Open the Wi-Fi settings page",
        "Add an event. title: Team lunch, location: Cafe Roma",  # a field named like a switch
        "Create a note titled Flashlight",
        "Battery percentage?",
        "the phone died on me while bluetooth was paired",
        "lose the bluetooth connection",  # a noun, not "connect"
        "I can't get online and the wifi is off",  # what is, not what is wanted
        "Get rid of the 11:28 AM alarm and keep the others.",  # deleted, not switched off
        "move the 12:51am alarm so it goes off at 14:02",  # an alarm that goes off rings
        "bring back my 1:41am alarm, it's been switched off",  # what it is now
        "I hate the light theme",  # no request
        "don't stop the screen from rotating",
        "Does the screen stay on while charging?",
        "If the screen sleeps while charging, keep it awake",  # a condition
        "stop the screen from sleeping",  # not while charging: the screen timeout, no switch
        "I don't want the battery % shown",  # a negation the words do not account for
        "What is the battery %?",
        "is wifi on, and is bluetooth off? it should be",  # which one should be?
        "Is Wi-Fi on? Tell me.",
    ],
)
def test_what_is_unsure_is_left_unread(goal: str) -> None:
    assert asked(goal) == []


def test_a_goal_read_by_a_rule_is_not_read_again_from_its_words() -> None:
    parts = goal_parts("Turn off Wi-Fi, then open Clock. Wi-Fi should be on afterwards.")
    assert [part.asked for part in parts.parts] == ["Wi-Fi off"]


_SWITCH_TASKS = ("TurnOn", "TurnOff", "SystemStayAwake", "SystemUsbDebugging", "ClockAlarmTurn")


def test_no_training_goal_outside_the_switch_tasks_is_read_as_a_switch() -> None:
    rng = random.Random(7)
    for task in TASKS:
        if task.family in ("toggle", "already_done") or task.name.startswith(_SWITCH_TASKS):
            continue
        for seed in range(100, 104):
            for phrasing in task.training_phrasings:
                goal = training_goal(task, seed, phrasing, rng)
                assert wished_states(goal) == (), (task.name, goal)


def test_a_claim_is_held_to_the_state_read_from_free_words() -> None:
    guards = Guards("my train leaves soon, get the phone off wifi")
    off, on = screen_of("network"), screen_of("network", wifi=True)
    verdict = guards.review(TaskComplete(success=True), None, on)
    assert verdict.verdict == "block"
    assert "Wi-Fi off" in " ".join(verdict.feedback)
    wifi = next(element for element in on.elements if element.label == "Wi-Fi")
    guards.review(Tap(index=wifi.index), wifi, on)
    # Wi-Fi off reached: the reading does not end the episode, the model's claim does
    assert guards.observe(Tap(index=wifi.index), on, off).verdict == "allow"
    assert guards.review(TaskComplete(success=True), None, off).verdict == "complete"


def test_a_verify_goal_in_free_words_keeps_the_switch_as_asked(tmp_path: Path) -> None:
    # Wi-Fi is already on as asked: the model's tap on it is refused, and its claim stands.
    device = Simulator(state={"wifi": True})
    episode = run_scripted(
        "wifi ought to be on already, double-check and connect it if it isn't",
        device,
        [
            call("open_app", name="Settings"),
            tap("Network & internet"),
            tap("Internet"),
            tap("Wi-Fi"),
            call("task_complete", success=True),
        ],
        tmp_path / "run.jsonl",
    )
    assert episode.result.stop_reason == "completed"
    assert device.state["wifi"] is True
    assert episode.guard_kinds[3] == ["goal_state"]


def test_an_alarm_that_must_not_ring_stays_off(tmp_path: Path) -> None:
    # The alarm is already off as asked: the model's tap on its switch is refused, and its
    # claim stands with the alarm still off.
    device = Simulator(state={"alarms": [{"time": "13:00", "enabled": False, "label": ""}]})
    episode = run_scripted(
        "Is my 13:00 alarm still active? It needs to be off.",
        device,
        [
            call("open_app", name="Clock"),
            tap("1:00 PM alarm"),
            call("task_complete", success=True),
        ],
        tmp_path / "run.jsonl",
    )
    assert episode.result.stop_reason == "completed"
    assert device.state["alarms"][0]["enabled"] is False
    assert episode.guard_kinds[1] == ["goal_state"]


def test_a_claim_after_the_alarm_was_switched_on_is_refused() -> None:
    guards = Guards("The 5:01 AM alarm must not ring. See to it.")
    alarm = Simulator(state={"alarms": [{"time": "05:01", "enabled": True, "label": ""}]})
    alarm.open_app("Clock")
    screen = Screen.parse(alarm.dump_xml())
    verdict = guards.review(TaskComplete(success=True), None, screen)
    assert verdict.verdict == "block"
    assert "5:01 AM alarm off" in " ".join(verdict.feedback)
