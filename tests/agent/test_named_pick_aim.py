"""A pick of the row beside the one the goal names is aimed at the named row: the file the goal
names, the item it deletes, the person a message goes to. Told the named row's index, small
models tapped the same wrong row again until the run stopped; the loop now taps the row the
goal names and records the repair, and with the guards off nothing is aimed."""

from __future__ import annotations

from pathlib import Path

from agent.actions import Tap
from agent.loop import RunSettings
from evals.scripted_model import call, tap
from simulator import Simulator
from simulator.tasks import TASKS_BY_NAME
from tests.support.guarded_phone import Phone
from tests.support.loop_harness import run_scripted

EDIT = TASKS_BY_NAME["MarkorEditNote"]
NAMED = EDIT.params(1)["file_name"]  # "meal_plan_work.md", listed among three other notes
BESIDE = "interview_prep_work.txt"


def _markor(goal: str, tmp_path: Path, **options: object) -> tuple[Simulator, list[str]]:
    device = Simulator(state=EDIT.initial_state(1))
    episode = run_scripted(
        goal,
        device,
        [call("open_app", name="Markor"), tap(BESIDE), call("task_complete", success=False)],
        tmp_path / "t.jsonl",
        **options,
    )
    return device, episode.steps[1].call.repairs


def test_opening_the_note_beside_the_named_one_opens_the_named_one(tmp_path: Path) -> None:
    device, repairs = _markor(f"My note {NAMED} (Markor) needs a new first line", tmp_path)
    assert len(repairs) == 1 and "the goal names" in repairs[0] and NAMED in repairs[0]
    assert NAMED in device.dump_xml() and BESIDE not in device.dump_xml()  # its editor is open


def test_with_the_guards_off_the_pick_is_left_as_the_model_made_it(tmp_path: Path) -> None:
    device, repairs = _markor(
        f"My note {NAMED} (Markor) needs a new first line",
        tmp_path,
        settings=RunSettings(guards=False),
    )
    assert repairs == []
    assert BESIDE in device.dump_xml()


def test_a_goal_that_names_no_listed_row_leaves_the_pick_alone(tmp_path: Path) -> None:
    _, repairs = _markor("Edit the note about the bakery in Markor", tmp_path)
    assert repairs == []


def test_a_deletion_pick_goes_to_the_nearest_named_row_not_yet_picked() -> None:
    task = TASKS_BY_NAME["RecipeDeleteMultipleRecipes"]
    titles = task.params(0)["titles"].split(", ")
    phone = Phone(task.name, "Broccoli", f"Delete the recipes {', '.join(titles)} from Broccoli.")
    rows = [e for e in phone.screen.elements if e.role == "button" and ", " in e.label]
    named = [row for row in rows if any(title in row.label for title in titles)]
    other = next(row for row in rows if row not in named)
    aimed = phone.guards.named_pick(other, phone.screen)
    assert aimed is not None and aimed in named
    nearest = min(named, key=lambda row: abs(row.center[1] - other.center[1]))
    assert aimed == nearest
    # a named row itself is picked as it is
    assert phone.guards.named_pick(named[0], phone.screen) is None


def test_a_message_goes_to_the_conversation_the_goal_names() -> None:
    phone = Phone("SimpleSmsSendEventTime", "Messages", "text Alice Martin when the review starts")
    phone.act(Tap(index=phone.index("Allow")))
    bob = phone.screen.element(phone.index("Bob Chen"))
    aimed = phone.guards.named_pick(bob, phone.screen)
    assert aimed is not None and aimed.label.startswith("Alice Martin")
