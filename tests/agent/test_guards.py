"""Guards in isolation, on screens of the fake phone."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent.actions import PressKey, Tap, TaskComplete, TypeText, Wait
from agent.goal_switches import GoalTarget, goal_target, label_title, label_titles
from agent.guards import Guards, PassThroughGuards, goal_count, risky_word
from agent.screen import Element, Screen
from tests.support.fake_device import screen_of


def element(screen: Screen, label: str) -> Element:
    return next(e for e in screen.elements if e.label == label)


def with_rows(screen: Screen, rows: dict[str, tuple[str, bool]]) -> Screen:
    """`screen` with the rows labelled as the keys relabelled and set on/off as the values."""
    elements = [
        e.model_copy(update={"label": rows[e.label][0], "checked": rows[e.label][1]})
        if e.label in rows
        else e
        for e in screen.elements
    ]
    return Screen(
        screen.app, screen.keyboard, screen.width, screen.height, screen.rotation, elements
    )


DARK_OFF = ("Dark theme, Will never turn on automatically", False)
DARK_ON = ("Dark theme, Will never turn off automatically", True)


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
        ("I want WLAN off", "WLAN", False),
        ("I'd like the Bluetooth turned on", "Bluetooth", True),
        ("keep dark theme on", "dark theme", True),
        ("Airplane mode should be switched off", "Airplane mode", False),
        ("wifi needs to be on", "wifi", True),
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
        "I want the alarm for the seven o'clock morning meeting on",
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
    guards = Guards("Open the network page and play with Wi-Fi")  # no rule: the undo guard acts
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


def test_the_same_dialog_for_the_next_item_is_work_not_a_repeat() -> None:
    """Deleting item by item shows the same confirmation each time; the list between them is
    new (one item fewer), so confirming again is allowed, and only confirming again with
    nothing new shown since is a repeat."""
    guards = Guards("Delete the Display and Battery entries")
    listing, dialog = screen_of("settings"), screen_of("network")
    confirm = element(dialog, "Wi-Fi")
    assert guards.review(Tap(index=confirm.index), confirm, dialog).verdict == "allow"
    shorter = with_rows(listing, {"Display": ("Battery", False)})
    assert shorter.signature != listing.signature
    battery = element(shorter, "Battery")
    assert guards.review(Tap(index=battery.index), battery, shorter).verdict == "allow"
    assert guards.review(Tap(index=confirm.index), confirm, dialog).verdict == "allow"
    again = guards.review(Tap(index=confirm.index), confirm, dialog)
    assert [note.kind for note in again.notes] == ["repeat", "escalation"]


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


def test_a_false_completion_claim_is_refused_every_time() -> None:
    guards = Guards("Turn on Wi-Fi")
    network = screen_of("network")
    for _ in range(3):
        refused = guards.review(TaskComplete(success=True), None, network)
        assert refused.verdict == "block"
        assert refused.notes[0].kind == "completion_check"
        assert "no screen has shown Wi-Fi on" in refused.feedback[0]


def test_a_claim_on_a_switch_no_screen_showed_is_refused_only_for_switches_every_phone_has() -> (
    None
):
    assert Guards("Turn on Wi-Fi").review(TaskComplete(), None, screen_of()).verdict == "block"
    # "developer options" may be unlocked by taps rather than by a switch: no opinion
    unlock = Guards("Enable developer options")
    assert unlock.review(TaskComplete(), None, screen_of()).verdict == "complete"


def test_an_answer_no_screen_showed_is_pushed_back_once() -> None:
    guards = Guards("What is the battery level?")
    guards.review(PressKey(key="back"), None, screen_of("network"))
    first = guards.review(TaskComplete(answer="85%"), None, screen_of())
    assert first.verdict == "block"
    assert first.notes[0].kind == "answer_check"
    assert '"85%"' in first.feedback[0]
    second = guards.review(TaskComplete(answer="85%"), None, screen_of())
    assert second.verdict == "complete"
    assert "answered again" in second.notes[0].reason


@pytest.mark.parametrize(
    "answer",
    [
        "Airplane mode",  # read two screens ago
        "wi-fi",  # case and punctuation aside
        "Display and Battery",  # each part of a list on its own
        "Reset options, Airplane mode.",
        "the battery level",  # the goal's own words
        "Yes",
    ],
)
def test_an_answer_read_on_any_screen_of_the_episode_is_accepted(answer: str) -> None:
    guards = Guards("What is the battery level?")
    guards.review(PressKey(key="back"), None, screen_of("network"))
    assert guards.review(TaskComplete(answer=answer), None, screen_of()).verdict == "complete"


@pytest.mark.parametrize(
    ("goal", "pushed_back"),
    [
        ("How many rows does Settings show?", False),  # a count is worked out, not read
        ("count the alarms that are on", False),
        ("What did I spend in total?", False),
        ("Which tasks are due on Friday?", True),  # titles asked; no screen showed a 4
    ],
)
def test_a_bare_number_answers_only_a_goal_that_asks_a_count(goal: str, pushed_back: bool) -> None:
    guards = Guards(goal)
    decision = guards.review(TaskComplete(answer="4"), None, screen_of())
    assert (decision.verdict == "block") is pushed_back
    if pushed_back:
        assert '"4"' in decision.feedback[0]


def test_only_the_unseen_part_of_a_list_answer_is_named() -> None:
    guards = Guards("Which rows does Settings show?")
    answer = TaskComplete(answer="Display, Bluetooth and Battery")
    decision = guards.review(answer, None, screen_of())
    assert decision.verdict == "block"
    assert '"Bluetooth"' in decision.feedback[0]
    assert "Display" not in decision.feedback[0]


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


# --- labels that change with state ------------------------------------------------------------


@pytest.mark.parametrize(
    ("label", "titles"),
    [
        ("Wi-Fi", ["Wi-Fi"]),
        ("Dark theme, Will never turn on automatically", ["Dark theme", DARK_OFF[0]]),
        ("Hello, world, Off", ["Hello", "Hello, world", "Hello, world, Off"]),
    ],
)
def test_a_label_title_is_a_leading_run_of_its_pieces(label: str, titles: list[str]) -> None:
    assert label_titles(label) == titles
    assert label_title(label) == titles[0]


@given(st.lists(st.text(min_size=1).filter(lambda t: ", " not in t), min_size=1, max_size=5))
def test_every_title_is_a_prefix_and_the_first_piece_comes_first(pieces: list[str]) -> None:
    label = ", ".join(pieces)
    titles = label_titles(label)
    assert titles[0] == label_title(label) == pieces[0] and titles[-1] == label
    assert all(label.startswith(title) for title in titles)


def test_goal_subjects_match_a_row_whose_summary_follows_its_switch() -> None:
    network = screen_of("network")
    before = with_rows(network, {"Wi-Fi": DARK_OFF})
    after = with_rows(network, {"Wi-Fi": DARK_ON})
    guards = Guards("Turn on dark theme")
    assert guards.review(Tap(index=3), element(before, DARK_OFF[0]), before).verdict == "allow"
    reached = guards.observe(Tap(index=3), before, after)
    assert reached.verdict == "complete"
    assert reached.notes[0].reason == "Dark theme is now on as asked"
    undo = Guards("Turn on dark theme").review(Tap(index=3), element(after, DARK_ON[0]), after)
    assert undo.verdict == "complete"
    assert undo.notes[0].reason.startswith("Dark theme is already on as asked")
    pushed_back = Guards("Turn on dark theme").review(TaskComplete(), None, before)
    assert pushed_back.verdict == "block"  # a false claim is caught on such rows too


def test_titles_holding_commas_and_later_pieces() -> None:
    switch = element(screen_of("network"), "Wi-Fi")
    titled = switch.model_copy(update={"label": "Hello, world, Off"})
    assert GoalTarget("hello world", True).matches(titled)  # the title itself holds ", "
    assert GoalTarget("hello", True).matches(titled)
    network_row = switch.model_copy(update={"label": "Network & internet, Mobile, Wi-Fi"})
    assert not GoalTarget("Wi-Fi", True).matches(network_row)  # named after the title only


def test_quick_settings_tiles_are_matched_by_title(corpus_dir: Path) -> None:
    dump = corpus_dir / "010_systemui_quick_settings_pixel.xml"
    tiles = Screen.parse(dump.read_bytes())
    flashlight = goal_target("Turn on the flashlight")
    assert flashlight is not None and flashlight.satisfied(tiles) is False
    bluetooth = goal_target("Make sure Bluetooth is on")
    assert bluetooth is not None and bluetooth.satisfied(tiles) is True


def test_self_undo_knows_a_switch_by_title_when_its_summary_changes() -> None:
    guards = Guards("Open the display page and try dark theme")  # no rule: the undo guard acts
    network = screen_of("network")
    before = with_rows(network, {"Wi-Fi": DARK_OFF})
    after = with_rows(network, {"Wi-Fi": DARK_ON})
    guards.review(Tap(index=3), element(before, DARK_OFF[0]), before)
    guards.observe(Tap(index=3), before, after)
    undo = guards.review(Tap(index=3), element(after, DARK_ON[0]), after)
    assert undo.verdict == "block" and undo.notes[0].kind == "self_undo"
    assert undo.notes[0].reason == (
        'tap [3] "Dark theme, Will never turn off automat…" would turn Dark theme back off; blocked'
    )


def test_self_undo_stands_aside_when_two_switches_share_the_title() -> None:
    guards = Guards("Open the display page and try dark theme")
    network = screen_of("network")
    before = with_rows(network, {"Wi-Fi": DARK_OFF})
    after = with_rows(network, {"Wi-Fi": DARK_ON})
    guards.review(Tap(index=3), element(before, DARK_OFF[0]), before)
    guards.observe(Tap(index=3), before, after)
    twins = with_rows(after, {"Airplane mode": ("Dark theme, Scheduled", True)})
    assert guards.review(Tap(index=3), element(twins, DARK_ON[0]), twins).verdict == "allow"


# --- deliberate repetition --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("goal", "count"),
    [
        ("Tap Build number 7 times", 7),
        ("Press back twice.", 2),
        ("Swipe up three times, then open Chrome", 3),
        ("Tap it once and then 4 times", 4),
        ("Turn on Wi-Fi", None),
        ("Open settings 1234 times", None),  # no such count: the step budget is far smaller
    ],
)
def test_goal_counts(goal: str, count: int | None) -> None:
    assert goal_count(goal) == count


@given(st.text(max_size=80))
def test_goal_counts_never_fail_on_arbitrary_text(goal: str) -> None:
    count = goal_count(goal)
    assert count is None or 0 <= count <= 999


def tap_in_a_row(guards: Guards, screen: Screen, label: str, times: int) -> list[list[str]]:
    """Review and run the same tap `times` times on an unchanged screen; the note kinds."""
    target = element(screen, label)
    kinds: list[list[str]] = []
    for _ in range(times):
        review = guards.review(Tap(index=target.index), target, screen)
        assert review.verdict == "allow", review.notes
        effect = guards.observe(Tap(index=target.index), screen, screen)
        kinds.append([note.kind for note in review.notes + effect.notes])
    return kinds


def test_the_same_tap_in_a_row_on_a_control_is_deliberate_up_to_the_bound() -> None:
    guards = Guards("Unlock the hidden menu", max_tap_run=4, max_no_op_streak=2)
    screen = screen_of()
    kinds = tap_in_a_row(guards, screen, "Battery", 4)
    # a run is one action that changed nothing: the streak of two never escalates
    assert kinds == [["no_op"]] + [["repeat", "no_op"]] * 3
    fifth = guards.review(Tap(index=4), element(screen, "Battery"), screen)
    assert fifth.verdict == "block"
    assert [note.kind for note in fifth.notes] == ["repeat", "escalation"]
    last = guards.review(Tap(index=4), element(screen, "Battery"), screen)
    assert (last.verdict, last.stop_reason) == ("stop", "stuck")


def test_a_deliberate_run_tells_the_model_what_it_sees() -> None:
    guards = Guards("Unlock the hidden menu")
    screen = screen_of()
    battery = element(screen, "Battery")
    guards.review(Tap(index=4), battery, screen)
    guards.observe(Tap(index=4), screen, screen)
    again = guards.review(Tap(index=4), battery, screen)
    assert again.notes[0].reason == 'tap [4] "Battery" 2 times in a row: allowed as deliberate'
    effect = guards.observe(Tap(index=4), screen, screen)
    assert effect.feedback[0].startswith('tap [4] "Battery" changed nothing visible, 2 times')


def test_repeating_a_tap_on_text_that_takes_no_taps_is_a_loop_at_once() -> None:
    guards = Guards("Unlock the hidden menu")
    screen = screen_of()
    title = element(screen, "Settings")
    assert not title.clickable
    guards.review(Tap(index=1), title, screen)
    guards.observe(Tap(index=1), screen, screen)
    assert guards.review(Tap(index=1), title, screen).verdict == "block"


def test_a_run_broken_by_another_action_is_a_loop() -> None:
    guards = Guards("Unlock the hidden menu")
    screen = screen_of()
    battery = element(screen, "Battery")
    for action, target in ((Tap(index=4), battery), (PressKey(key="enter"), None)):
        guards.review(action, target, screen)
        guards.observe(action, screen, screen)
    assert guards.review(Tap(index=4), battery, screen).verdict == "block"


def test_a_count_in_the_goal_allows_that_many_of_any_action() -> None:
    guards = Guards("Press volume down 4 times", max_no_op_streak=10)
    screen = screen_of()
    quieter = PressKey(key="volume_down")
    for _ in range(4):
        assert guards.review(quieter, None, screen).verdict == "allow"
        guards.observe(quieter, screen, screen)
    assert guards.review(quieter, None, screen).verdict == "block"
    uncounted = Guards("Make it quieter")
    uncounted.review(quieter, None, screen)
    uncounted.observe(quieter, screen, screen)
    assert uncounted.review(quieter, None, screen).verdict == "block"


# --- guards switched off ----------------------------------------------------------------------


def test_pass_through_guards_let_everything_run() -> None:
    guards = PassThroughGuards()
    network = screen_of("network", wifi=True)
    wifi = element(network, "Wi-Fi")
    reset = element(screen_of(), "Reset options")
    for _ in range(3):  # repeats, a flip out of the goal state, a risky tap: all run
        assert guards.review(Tap(index=3), wifi, network).verdict == "allow"
        assert guards.review(Tap(index=5), reset, screen_of()).verdict == "allow"
        assert guards.observe(Tap(index=3), network, network).verdict == "allow"
        bad = guards.bad_call("no tool call in the reply")
        assert bad.verdict == "block" and "not run" in bad.feedback[0]  # never a stop
    assert guards.take_escalation() is False
    assert guards.review(TaskComplete(), None, network).verdict == "complete"
    gave_up = guards.review(TaskComplete(success=False), None, network)
    assert (gave_up.verdict, gave_up.stop_reason) == ("stop", "infeasible")
