"""A goal that names a file works on that file, and a message goes to the person the goal
names: where a screen lists the named row, opening or picking another file or conversation is
blocked. Small models open the row beside the named one, work there and call the task done."""

from __future__ import annotations

from agent.actions import LongPress, Tap
from simulator.tasks import TASKS_BY_NAME
from tests.support.guarded_phone import Phone

EDIT = TASKS_BY_NAME["MarkorEditNote"]
NAMED = EDIT.params(1)["file_name"]  # "meal_plan_work.md", listed among three other notes
BESIDE = "interview_prep_work.txt"


def notes(goal: str) -> Phone:
    return Phone("MarkorEditNote", "Markor", goal, seed=1)


def test_opening_another_file_where_the_named_one_is_listed_is_blocked() -> None:
    phone = notes(f"My note {NAMED} (Markor) needs a new first line")
    for pick in (Tap(index=phone.index(BESIDE)), LongPress(index=phone.index(BESIDE))):
        assert (
            f'picks a file the goal does not name. The goal is about "{NAMED}" '
            f"[{phone.index(NAMED)}], listed on this screen: pick that instead."
        ) in phone.blocked_off_goal(pick)
    assert phone.act(Tap(index=phone.index(NAMED))).verdict == "allow"
    assert any(e.label == NAMED for e in phone.screen.elements)  # its editor is open


def test_files_are_compared_in_any_case_and_other_rows_stay_free() -> None:
    phone = notes(f"add a first line to {NAMED.upper()} in markor")
    assert phone.act(Tap(index=phone.index(BESIDE))).verdict == "block"
    assert phone.act(Tap(index=phone.index("Sort"))).verdict == "allow"


def test_a_goal_that_names_no_listed_file_leaves_every_file_open_to_pick() -> None:
    for goal in (
        "Edit the note about the bakery in Markor",
        "Rename notes_2031.md to notes.md",  # the named file is on no screen yet
    ):
        phone = notes(goal)
        assert phone.act(Tap(index=phone.index(BESIDE))).verdict == "allow", goal


SEND = TASKS_BY_NAME["SimpleSmsSendEventTime"]  # the list holds Bob Chen's and Alice Martin's


def conversations(goal: str) -> Phone:
    phone = Phone(SEND.name, "Messages", goal)
    phone.act(Tap(index=phone.index("Allow")))
    return phone


def test_opening_a_conversation_with_someone_the_goal_does_not_name_is_blocked() -> None:
    phone = conversations("tell alice martin by text when Sprint review starts today")
    assert (
        f'opens a conversation the goal does not name. The goal names "Alice Martin" '
        f"[{phone.index('Alice Martin')}], listed on this screen: pick that instead."
    ) in phone.blocked_off_goal(Tap(index=phone.index("Bob Chen")))
    assert phone.act(Tap(index=phone.index("Alice Martin"))).verdict == "allow"


def test_a_conversation_a_send_reads_from_is_named_too() -> None:
    phone = conversations("Send the address in Bob Chen's last text to Alice Martin")
    assert phone.act(Tap(index=phone.index("Bob Chen"))).verdict == "allow"


def test_conversations_are_free_to_open_when_the_goal_sends_nothing_or_names_nobody() -> None:
    for goal in (
        "What did Alice Martin ask me?",
        "Reply “on my way” to the latest message",
        "Answer the newest text with “ask Alice Martin”",  # a name in the message's words
    ):
        phone = conversations(goal)
        assert phone.act(Tap(index=phone.index("Bob Chen"))).verdict == "allow", goal
