"""Guards in isolation, on screens of the fake phone."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent.actions import PressKey, Tap, TaskComplete, TypeText, Wait
from agent.guards import GoalTarget, Guards, goal_target, risky_word
from agent.screen import Screen
from tests.fake_device import FakePhone


def screen_of(page: str = "settings", **state: bool) -> Screen:
    phone = FakePhone(page=page)
    phone.state.update(state)
    return Screen.parse(phone.dump_xml())


def element(screen: Screen, label: str):
    return next(e for e in screen.elements if e.label == label)


@pytest.mark.parametrize(
    ("goal", "subject", "desired"),
    [
        ("Turn on Wi-Fi", "Wi-Fi", True),
        ("turn wifi off.", "wifi", False),
        ("Please switch off airplane mode", "airplane mode", False),
        ("Switch the Bluetooth on", "Bluetooth", True),
        ("Enable dark theme", "dark theme", True),
        ("Disable Bluetooth!", "Bluetooth", False),
        ("Make sure Wi-Fi is enabled", "Wi-Fi", True),
        ("Ensure that airplane mode is turned off", "airplane mode", False),
        ("Set dark theme to on", "dark theme", True),
        ("Turn on Wi-Fi in Settings", "Wi-Fi", True),
        ("Deactivate developer options on the phone", "developer options", False),
    ],
)
def test_goal_rules_read_switch_and_state(goal: str, subject: str, desired: bool) -> None:
    assert goal_target(goal) == GoalTarget(subject=subject, desired=desired)


@pytest.mark.parametrize(
    "goal",
    [
        "Open the Clock app",
        "Turn on Wi-Fi and open Chrome",
        "Turn on Wi-Fi, then Bluetooth",
        "What is the battery level?",
        "Send a message to Alice",
        "Turn on the alarm for the seven o'clock morning meeting",
    ],
)
def test_goals_beyond_one_switch_have_no_rule(goal: str) -> None:
    assert goal_target(goal) is None


@given(st.text(max_size=80))
def test_goal_rules_never_fail_on_arbitrary_text(goal: str) -> None:
    target = goal_target(goal)
    assert target is None or target.subject


def test_target_matches_switch_labels_but_not_longer_names() -> None:
    network = screen_of("network")
    target = GoalTarget("wifi", True)
    assert target.find(network) == element(network, "Wi-Fi")
    hotspot = element(network, "Wi-Fi").model_copy(update={"label": "Wi-Fi hotspot"})
    assert not target.matches(hotspot)
    use_wifi = element(network, "Wi-Fi").model_copy(update={"label": "Use Wi-Fi"})
    assert target.matches(use_wifi)
    assert target.satisfied(screen_of("settings")) is None
    assert target.satisfied(screen_of("network", wifi=True)) is True


def test_flipping_a_switch_already_in_the_asked_state_completes_instead() -> None:
    guards = Guards("Turn on Wi-Fi")
    network = screen_of("network", wifi=True)
    decision = guards.review(Tap(index=3), element(network, "Wi-Fi"), network)
    assert decision.verdict == "complete"
    assert decision.notes[0].kind == "goal_state"
    assert "already on" in decision.notes[0].reason


def test_own_action_reaching_the_goal_state_completes() -> None:
    guards = Guards("Turn on Wi-Fi")
    before, after = screen_of("network"), screen_of("network", wifi=True)
    assert guards.review(Tap(index=3), element(before, "Wi-Fi"), before).verdict == "allow"
    decision = guards.observe(Tap(index=3), before, after)
    assert decision.verdict == "complete"
    assert "Wi-Fi is now on" in decision.notes[0].reason


def test_self_undo_is_blocked_then_stops_the_run() -> None:
    guards = Guards("Open the network page and enable Wi-Fi")  # no rule: the undo guard acts
    before, after = screen_of("network"), screen_of("network", wifi=True)
    guards.review(Tap(index=3), element(before, "Wi-Fi"), before)
    assert guards.observe(Tap(index=3), before, after).verdict == "allow"
    first = guards.review(Tap(index=3), element(after, "Wi-Fi"), after)
    assert first.verdict == "block"
    assert first.notes[0].kind == "self_undo"
    assert "undo" in first.feedback[0]
    second = guards.review(Tap(index=3), element(after, "Wi-Fi"), after)
    assert (second.verdict, second.stop_reason) == ("stop", "undo_detected")


def test_repeating_an_action_on_the_same_screen_escalates_once_then_stops() -> None:
    guards = Guards("Open battery details")
    screen = screen_of()
    battery = element(screen, "Battery")
    assert guards.review(Tap(index=4), battery, screen).verdict == "allow"
    again = guards.review(Tap(index=4), battery, screen)
    assert again.verdict == "block"
    assert [note.kind for note in again.notes] == ["repeat", "escalation"]
    assert guards.take_escalation() is True
    assert guards.take_escalation() is False  # thinking on for one step only
    last = guards.review(Tap(index=4), battery, screen)
    assert (last.verdict, last.stop_reason) == ("stop", "stuck")


def test_streak_of_actions_that_change_nothing_escalates_then_stops() -> None:
    guards = Guards("Open battery details", max_no_op_streak=2)
    screen = screen_of()
    first = guards.observe(PressKey(key="enter"), screen, screen)
    assert first.verdict == "allow"
    assert first.notes[0].kind == "no_op"
    assert "changed nothing" in first.feedback[0]
    escalation = guards.observe(PressKey(key="space"), screen, screen)
    assert escalation.verdict == "allow"
    assert "escalation" in [note.kind for note in escalation.notes]
    guards.observe(PressKey(key="tab"), screen, screen)
    stop = guards.observe(PressKey(key="menu"), screen, screen)
    assert (stop.verdict, stop.stop_reason) == ("stop", "stuck")


def test_waiting_is_not_a_no_op() -> None:
    guards = Guards("Open battery details", max_no_op_streak=1)
    screen = screen_of()
    assert guards.observe(Wait(seconds=1), screen, screen).notes == []


def test_false_completion_claim_is_pushed_back_once() -> None:
    guards = Guards("Turn on Wi-Fi")
    network = screen_of("network")
    first = guards.review(TaskComplete(success=True), None, network)
    assert first.verdict == "block"
    assert "shows Wi-Fi off" in first.feedback[0]
    second = guards.review(TaskComplete(success=True), None, network)
    assert second.verdict == "complete"
    assert "claimed again" in second.notes[0].reason


def test_completion_claim_without_the_switch_on_screen_is_accepted() -> None:
    guards = Guards("Turn on Wi-Fi")
    assert guards.review(TaskComplete(), None, screen_of()).verdict == "complete"


def test_giving_up_is_infeasible_unless_the_screen_shows_the_goal() -> None:
    assert Guards("Turn on Wi-Fi").review(
        TaskComplete(success=False), None, screen_of("network")
    ).stop_reason == ("infeasible")
    done = Guards("Turn on Wi-Fi").review(
        TaskComplete(success=False), None, screen_of("network", wifi=True)
    )
    assert done.verdict == "complete"


def test_risky_actions_need_confirmation() -> None:
    screen = screen_of()
    reset = element(screen, "Reset options")
    refused = Guards("Reset the phone").review(Tap(index=5), reset, screen)
    assert refused.verdict == "block"
    assert refused.notes[0].kind == "risky"
    assert "confirmation" in refused.feedback[0]
    asked: list[str] = []

    def decline(described: str) -> bool:
        asked.append(described)
        return False

    declined = Guards("Reset the phone", confirm=decline).review(Tap(index=5), reset, screen)
    assert declined.verdict == "block"
    assert asked == ['tap [5] "Reset options"']
    allowed = Guards("Reset the phone", confirm=lambda d: True).review(Tap(index=5), reset, screen)
    assert allowed.verdict == "allow"
    assert "confirmed" in allowed.notes[0].reason


def test_risky_words_are_whole_words_of_labels_or_typed_text() -> None:
    screen = screen_of()
    display = element(screen, "Display")
    assert risky_word(Tap(index=3), display) is None  # "Display" holds "pay" mid-word
    delete = display.model_copy(update={"label": "Delete account"})
    assert risky_word(Tap(index=3), delete) == "Delete"
    assert risky_word(TypeText(text="please send it"), None) == "send"
    assert risky_word(TypeText(text="information"), None) is None


def test_bad_calls_go_back_to_the_model_until_the_limit() -> None:
    guards = Guards("Turn on Wi-Fi", max_bad_calls=2)
    first = guards.bad_call("no element [9]: valid indices are 1 to 5")
    assert first.verdict == "block"
    assert "valid indices are 1 to 5" in first.feedback[0]
    second = guards.bad_call("no tool call in the reply")
    assert (second.verdict, second.stop_reason) == ("stop", "model_error")


def test_a_good_call_resets_the_bad_call_count() -> None:
    guards = Guards("Open battery details", max_bad_calls=2)
    screen = screen_of()
    guards.bad_call("no tool call in the reply")
    guards.review(Tap(index=4), element(screen, "Battery"), screen)
    assert guards.bad_call("no tool call in the reply").verdict == "block"
