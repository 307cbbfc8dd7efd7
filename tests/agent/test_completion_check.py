"""The completion check: a success claim stands only when the episode showed every part of the
goal in its asked state, and nothing undid it since."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent.actions import Tap, TaskComplete
from agent.goal_switches import SWITCH_ALIASES, GoalTarget, goal_parts, named_switches
from agent.guards import Guards
from agent.loop import RunSettings
from agent.screen import Screen
from evals.scripted_model import call, tap
from simulator import Simulator
from tests.support.fake_device import screen_of
from tests.support.loop_harness import run_scripted


def wifi_tap(screen: Screen) -> Tap:
    return Tap(index=next(e.index for e in screen.elements if e.label == "Wi-Fi"))


def claim(guards: Guards, screen: Screen) -> tuple[str, str]:
    """The verdict on a success claim made on `screen`, and what the model is told."""
    decision = guards.review(TaskComplete(success=True), None, screen)
    return decision.verdict, " ".join(decision.feedback)


# --- reading goals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("goal", "asked", "complete"),
    [
        ("Turn wifi on.", ["Wi-Fi on"], True),
        ("Turn off WiFi, then enable bluetooth", ["Wi-Fi off", "Bluetooth on"], True),
        ("turn off wi-fi and turn on bluetooth", ["Wi-Fi off", "Bluetooth on"], True),
        ("Switch WLAN off; switch Bluetooth on.", ["Wi-Fi off", "Bluetooth on"], True),
        ("Wi-Fi: off. Bluetooth: on.", ["Wi-Fi off", "Bluetooth on"], True),
        ("Turn Wi Fi off and Bluetooth on", ["Wi-Fi off", "Bluetooth on"], True),
        ("Turn off Wi-Fi and Bluetooth", ["Wi-Fi off", "Bluetooth off"], True),
        (
            "First disable flight mode, then enable dark mode",
            ["Airplane mode off", "Dark theme on"],
            True,
        ),
        ("In Settings, set Do Not Disturb to on.", ["Do Not Disturb on"], True),
        ("Enable the power-saving mode.", ["Battery Saver on"], True),
        ("Turn on the battery percentage in the status bar.", ["Battery percentage on"], True),
        ("Disable automatic screen rotation.", ["Auto-rotate off"], True),
        ("Turn on Wi-Fi, then turn it off", ["Wi-Fi on"], False),  # "it": not read as a part
        ("Turn on Wi-Fi, then open the Clock app.", ["Wi-Fi on"], False),
        ("Enable WLAN; after that, open Contacts.", ["Wi-Fi on"], False),
        ("Turn on USB debugging", ["USB debugging on"], True),
        ("Open the Clock app", [], False),
        ("Swipe up three times, then open Chrome", [], False),
        ("Check that Wi-Fi is on; turn it on if it is not.", ["Wi-Fi on"], False),
        ("I want WLAN off. Please see to it.", ["Wi-Fi off"], False),
        ("Bluetooth should be on, and keep wifi off", ["Bluetooth on", "Wi-Fi off"], True),
        ("Turn on Stay awake in developer options.", ["Stay awake on"], True),
        ("In Developer options, switch stay awake off", ["Stay awake off"], True),
    ],
)
def test_goals_are_read_as_parts(goal: str, asked: list[str], complete: bool) -> None:
    parts = goal_parts(goal)
    assert [part.asked for part in parts.parts] == asked
    assert parts.complete is complete


def spellings(name: str) -> st.SearchStrategy[str]:
    """`name` in any case, its words and hyphenated halves joined by a space, a hyphen or
    nothing ("Wi-Fi": "wifi", "WI FI", "wI-fI"...)."""
    pieces = name.replace("-", " ").split()
    joins = st.lists(
        st.sampled_from(["", " ", "-"]), min_size=len(pieces) - 1, max_size=len(pieces) - 1
    )

    def spell(joined: list[str], rng: random.Random) -> str:
        text = pieces[0] + "".join(
            join + piece for join, piece in zip(joined, pieces[1:], strict=True)
        )
        return "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in text)

    return st.builds(spell, joins, st.randoms(use_true_random=False))


aliases = st.sampled_from([(names[0], name) for names in SWITCH_ALIASES for name in names])


@settings(deadline=None)
@given(
    first=aliases.flatmap(lambda pair: st.tuples(st.just(pair[0]), spellings(pair[1]))),
    second=aliases.flatmap(lambda pair: st.tuples(st.just(pair[0]), spellings(pair[1]))),
    on=st.booleans(),
    joint=st.sampled_from([", then ", " and ", "; ", " then ", ", and then "]),
)
def test_every_spelling_of_a_switch_name_reads_as_that_switch(
    first: tuple[str, str], second: tuple[str, str], on: bool, joint: str
) -> None:
    (label, spelled), (other_label, other_spelled) = first, second
    state, other_state = ("on", "off") if on else ("off", "on")
    single = goal_parts(f"Turn {state} {spelled}.")
    assert [part.asked for part in single.parts] == [f"{label} {state}"]
    # the switch on screen, under the label a phone gives it, is the one the goal names
    switch = screen_of("network").elements[2]
    assert single.parts[0].matches(switch.model_copy(update={"label": label}))
    if label != other_label:
        compound = goal_parts(f"switch {spelled} {state}{joint}turn {other_state} {other_spelled}")
        assert [part.asked for part in compound.parts] == [
            f"{label} {state}",
            f"{other_label} {other_state}",
        ]
        assert compound.complete


def test_stay_awake_is_a_switch_every_phone_has_so_its_claim_is_checked() -> None:
    # a developer option, but on every phone: a claim before a screen showed it on is refused
    (part,) = goal_parts("Turn on Stay awake in developer options.").parts
    assert part.known
    assert named_switches("the stay awake switch") == {"Stay awake"}


def test_a_switch_name_does_not_match_a_longer_one() -> None:
    wifi = GoalTarget("wifi", True)
    switch = screen_of("network").elements[2]
    for label in ("Wi-Fi hotspot", "Wi-Fi calling", "Network & internet, Wi-Fi"):
        assert not wifi.matches(switch.model_copy(update={"label": label}))


# --- claims on one switch -----------------------------------------------------------------------


def test_turn_wifi_on_is_refused_until_a_screen_showed_it_on() -> None:
    guards = Guards("Turn wifi on.")
    display = screen_of("display", dark_theme=True)  # another switch: no opinion on Wi-Fi
    for _ in range(2):  # not only once
        verdict, told = claim(guards, display)
        assert verdict == "block" and "Wi-Fi on" in told
    off = screen_of("network")
    assert claim(guards, off)[0] == "block"
    guards.review(wifi_tap(off), off.elements[2], off)
    assert guards.observe(wifi_tap(off), off, screen_of("network", wifi=True)).verdict == "complete"
    # had the model claimed success later, elsewhere, that would stand too
    assert claim(guards, screen_of("settings")) == ("complete", "")


def test_a_switch_turned_back_since_it_was_shown_is_refused() -> None:
    guards = Guards("Turn on Wi-Fi")
    guards.review(wifi_tap(screen_of("network")), None, screen_of("network", wifi=True))
    assert claim(guards, screen_of("settings"))[0] == "complete"
    guards.review(wifi_tap(screen_of("network")), None, screen_of("network", wifi=False))
    verdict, told = claim(guards, screen_of("settings"))
    assert verdict == "block"
    assert "Wi-Fi on was shown, then changed back" in told


def test_a_wished_state_turned_back_before_the_claim_is_refused() -> None:
    # A Verify task in a wording the rules once could not read: Wi-Fi was off as asked, the
    # model turned it on and called the task done.
    guards = Guards("I want WLAN off. Please see to it.")
    guards.review(wifi_tap(screen_of("network")), None, screen_of("network", wifi=False))
    guards.review(wifi_tap(screen_of("network")), None, screen_of("network", wifi=True))
    verdict, told = claim(guards, screen_of("settings"))
    assert verdict == "block"
    assert "Wi-Fi off was shown, then changed back" in told


def test_a_refusal_is_a_completion_check_note() -> None:
    decision = Guards("Turn on Wi-Fi").review(TaskComplete(), None, screen_of())
    assert decision.verdict == "block"
    assert [note.kind for note in decision.notes] == ["completion_check"]
    assert "no screen showed Wi-Fi on" in decision.notes[0].reason


def test_goals_the_guards_cannot_read_are_accepted_as_claimed() -> None:
    assert claim(Guards("Open the Clock app"), screen_of())[0] == "complete"


# --- compound goals -----------------------------------------------------------------------------


def test_x_then_y_is_refused_after_only_x() -> None:
    guards = Guards("Turn on Wi-Fi, then turn on airplane mode")
    before, after = screen_of("network"), screen_of("network", wifi=True)
    guards.review(wifi_tap(before), None, before)
    # the first part reached is not the goal reached
    assert guards.observe(wifi_tap(before), before, after).verdict == "allow"
    verdict, told = claim(guards, after)
    assert verdict == "block"
    assert "Airplane mode on" in told and "Wi-Fi" not in told
    both = screen_of("network", wifi=True, airplane_mode=True)
    assert claim(guards, both) == ("complete", "")


def test_the_last_part_reached_by_the_agent_completes_the_goal() -> None:
    guards = Guards("Turn off Wi-Fi and turn on airplane mode")
    start = screen_of("network", wifi=True)
    guards.review(wifi_tap(start), None, start)
    wifi_off = screen_of("network")
    assert guards.observe(wifi_tap(start), start, wifi_off).verdict == "allow"
    airplane = Tap(index=wifi_off.elements[3].index)
    guards.review(airplane, wifi_off.elements[3], wifi_off)
    reached = guards.observe(airplane, wifi_off, screen_of("network", airplane_mode=True))
    assert reached.verdict == "complete"
    assert [note.reason for note in reached.notes] == ["Airplane mode is now on as asked"]


def test_a_tap_undoing_one_part_is_blocked_without_ending_the_task() -> None:
    guards = Guards("Turn on Wi-Fi and turn on airplane mode")
    on = screen_of("network", wifi=True)
    decision = guards.review(wifi_tap(on), on.elements[2], on)
    assert decision.verdict == "block"
    assert decision.notes[0].kind == "goal_state"
    assert "already on, as the goal asks" in decision.feedback[0]


def test_giving_up_completes_only_when_every_part_is_shown() -> None:
    guards = Guards("Turn on Wi-Fi and turn on airplane mode")
    gave_up = guards.review(TaskComplete(success=False), None, screen_of("network", wifi=True))
    assert gave_up.stop_reason == "infeasible"
    guards = Guards("Turn on Wi-Fi and turn on airplane mode")
    both = screen_of("network", wifi=True, airplane_mode=True)
    assert guards.review(TaskComplete(success=False), None, both).verdict == "complete"


# --- switches the goal does not name -----------------------------------------------------------


def dark_theme_tap(guards: Guards) -> tuple[str, list[str], str]:
    """The verdict on a tap on the Dark theme switch, the guard notes' kinds, what the model
    is told."""
    display = screen_of("display")
    switch = next(e for e in display.elements if e.label == "Dark theme")
    decision = guards.review(Tap(index=switch.index), switch, display)
    return decision.verdict, [n.kind for n in decision.notes], " ".join(decision.feedback)


def test_another_of_the_phones_switches_is_not_moved_for_a_switch_goal() -> None:
    verdict, kinds, told = dark_theme_tap(Guards("Turn wifi on."))
    assert (verdict, kinds) == ("block", ["off_goal"])
    assert "Dark theme is not part of the goal, which is about Wi-Fi" in told
    verdict, _, told = dark_theme_tap(Guards("Turn off WiFi, then enable bluetooth"))
    assert verdict == "block" and "about Bluetooth, Wi-Fi" in told


@pytest.mark.parametrize(
    "goal",
    [
        "my wlan dropped again, sort it out",  # no rule reads it; the name is enough
        "Is bluetooth on right now?",  # a question changes nothing
        "Turn on Wi-Fi, then open the Clock app.",
    ],
)
def test_a_goal_that_names_a_switch_in_any_words_keeps_the_others_still(goal: str) -> None:
    assert dark_theme_tap(Guards(goal))[:2] == ("block", ["off_goal"])


@pytest.mark.parametrize(
    "goal",
    [
        "Turn on dark mode",  # the goal's own switch
        "Enable developer options",  # names none of the phone's everyday switches
        "Open the Clock app",
    ],
)
def test_a_switch_is_moved_where_the_goal_may_need_it(goal: str) -> None:
    assert dark_theme_tap(Guards(goal))[0] == "allow"


def test_a_claim_among_the_switches_but_never_at_the_named_one_goes_back_once() -> None:
    guards = Guards("my wlan dropped again, sort it out")  # no rule reads the asked state
    display = screen_of("display")  # the phone's switches, but not Wi-Fi
    verdict, told = claim(guards, display)
    assert verdict == "block"
    assert "the goal is about Wi-Fi, and no screen of this task has shown it" in told
    assert claim(guards, display) == ("complete", "")  # once: the goal may name it in passing


def test_a_claim_after_the_named_switch_was_shown_or_away_from_switches_stands() -> None:
    guards = Guards("my wlan dropped again, sort it out")
    guards.review(wifi_tap(screen_of("network")), None, screen_of("network", wifi=True))
    assert claim(guards, screen_of("display")) == ("complete", "")
    # a switch named in passing, beside one that was shown, asks for no look either
    guards = Guards("I'll be on mobile data, so switch the wlan off")
    guards.review(wifi_tap(screen_of("network")), None, screen_of("network"))
    assert claim(guards, screen_of("network")) == ("complete", "")
    # an event's location is no reason to look at the Location switch
    assert claim(Guards("Add the location Office to my next event"), screen_of("settings")) == (
        "complete",
        "",
    )


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("wifi's off", {"Wi-Fi"}),
        ("Wi Fi and WLAN", {"Wi-Fi"}),
        ("DND, then the torch", {"Do Not Disturb", "Flashlight"}),
        ("put it in flight mode", {"Airplane mode"}),
        ("the power-saving mode", {"Battery Saver"}),
        ("a wifi-like name: wifiname", {"Wi-Fi"}),
        ("swift, wiring, andnd", set()),  # parts of other words are not names
    ],
)
def test_switches_are_found_by_any_of_their_names_as_whole_words(
    text: str, named: set[str]
) -> None:
    assert named_switches(text) == named


# --- the whole loop -----------------------------------------------------------------------------


def test_a_refused_claim_is_in_the_trajectory_and_the_result(tmp_path: Path) -> None:
    device = Simulator(state={"wifi": False})
    trajectory = tmp_path / "run.jsonl"
    episode = run_scripted(
        "Turn wifi on.",
        device,
        [
            call("open_app", name="Settings"),
            tap("Display"),
            tap("Auto-rotate screen"),
            call("task_complete", success=True),  # the claim the product owner saw accepted
            call("press_key", key="back"),
            tap("Network & internet"),
            tap("Internet"),
            tap("Wi-Fi"),
        ],
        trajectory,
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 8)
    assert device.state["wifi"] is True
    assert device.state["auto_rotate"] is True  # the tap on it was refused: nothing else moved
    assert episode.result.refused_completions == 1
    steps = [json.loads(line) for line in trajectory.read_text(encoding="utf-8").splitlines()]
    refused = [
        step
        for step in steps
        if step["type"] == "step"
        and step["call"]["name"] == "task_complete"
        and step["guard"]["verdict"] == "block"
        and any(note["kind"] == "completion_check" for note in step["guard"]["notes"])
    ]
    assert [step["step"] for step in refused] == [4]
    assert refused[0]["result"]["executed"] is False
    assert "Not done yet: no screen has shown Wi-Fi on" in episode.server.chat_requests[4].user_text


def test_a_compound_goal_completes_only_after_its_second_part(tmp_path: Path) -> None:
    device = Simulator(state={"wifi": True, "bluetooth": False})
    episode = run_scripted(
        "Turn off WiFi, then enable bluetooth",
        device,
        [
            call("open_app", name="Settings"),
            tap("Network & internet"),
            tap("Internet"),
            tap("Wi-Fi"),
            call("task_complete", success=True),
            call("task_complete", success=True),  # refused again: not only once
            call("press_key", key="back"),
            call("press_key", key="back"),
            tap("Connected devices"),
            tap("Connection preferences"),
            tap("Bluetooth"),
            tap("Use Bluetooth"),
        ],
        tmp_path / "run.jsonl",
        settings=RunSettings(max_steps=16),
    )
    assert episode.result.stop_reason == "completed"
    assert (device.state["wifi"], device.state["bluetooth"]) == (False, True)
    assert episode.result.refused_completions == 2
    assert episode.guard_kinds[3] == []  # Wi-Fi off alone does not complete the goal
    assert episode.guard_kinds[-1] == ["goal_state"]
    told = episode.server.chat_requests[5].user_text
    assert "no screen has shown Bluetooth on" in told
