"""Claims checked against the items a goal names: a deletion claimed while the list still shows
the item, a question closed without an answer, an answer read off the neighbouring row, a text
the goal quotes that no screen has shown, a name it gives that no screen listed, a message
claimed sent before a send button was pressed, a timer never shown at the goal's duration and
an alarm never shown at the goal's time."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.actions import PressKey, Tap, TaskComplete, TypeText
from agent.execute import execute
from agent.goal_items import (
    answer_row_mismatch,
    asks_for_answer,
    asks_for_phone_number,
    asks_to_send,
    copies_listed,
    made_up_values,
    marks_done,
    removal_shown,
    runaway_text,
    unlisted_names,
    unshown_durations,
    unshown_quotes,
    unshown_times,
)
from agent.goal_switches import every_switch
from agent.guards import Guards
from agent.loop import RunSettings
from agent.screen import Screen
from agent.screen_text import clean, truncate
from evals.results import is_refused_completion
from evals.scripted_model import Turn, call, index_of, tap
from simulator import Simulator
from simulator.tasks import TASKS_BY_NAME
from tests.support.elements import element
from tests.support.loop_harness import run_scripted


def app_screen(task: str, app: str, seed: int = 0) -> tuple[Simulator, Screen]:
    """The task's start state, `app` opened on it."""
    device = Simulator(state=TASKS_BY_NAME[task].initial_state(seed))
    device.open_app(app)
    return device, Screen.parse(device.dump_xml())


def verdict(guards: Guards, screen: Screen, answer: str | None = None) -> tuple[str, str]:
    decision = guards.review(TaskComplete(success=True, answer=answer), None, screen)
    return decision.verdict, " ".join(decision.feedback)


# --- deletions ----------------------------------------------------------------------------------


def test_a_task_the_goal_deletes_still_listed_refuses_the_claim() -> None:
    title = TASKS_BY_NAME["TasksDeleteTask"].params(0)["title"]
    _, screen = app_screen("TasksDeleteTask", "Tasks")
    guards = Guards(f"Delete the task {title} from the Tasks app.")
    assert verdict(guards, screen) == (
        "block",
        f'Not done yet: "{title}" is still listed, and the goal asks to delete it. Delete '
        "exactly what the goal names, or call task_complete(success=false) if it cannot be done.",
    )
    # refused each time it is claimed, not once
    assert verdict(guards, screen)[0] == "block"


def test_the_claim_stands_once_the_named_task_is_gone() -> None:
    params = TASKS_BY_NAME["TasksDeleteTask"].params(0)
    state = TASKS_BY_NAME["TasksDeleteTask"].initial_state(0)
    state["todo_tasks"] = [t for t in state["todo_tasks"] if t["title"] != params["title"]]
    device = Simulator(state=state)
    device.open_app("Tasks")
    screen = Screen.parse(device.dump_xml())
    assert verdict(Guards(f"get rid of the task {params['title'].lower()}"), screen) == (
        "complete",
        "",
    )


def test_every_expense_still_listed_is_named_in_any_case_and_row_format() -> None:
    names = TASKS_BY_NAME["ExpenseDeleteMultiple"].params(0)["names"].split(", ")
    _, screen = app_screen("ExpenseDeleteMultiple", "Pro Expense")
    shown = [e.label for e in screen.elements]
    listed = [name for name in names if any(label.startswith(name + ", ") for label in shown)]
    assert listed, "the start screen lists some of the expenses to delete"
    goal = "remove these from pro expense:\n" + "\n".join(f"- {n.lower()}" for n in names)
    assert sorted(removal_shown(goal, screen)) == sorted(listed)


def test_a_named_task_before_the_verb_or_taken_out_is_still_read() -> None:
    title = TASKS_BY_NAME["TasksDeleteTask"].params(0)["title"]
    _, screen = app_screen("TasksDeleteTask", "Tasks")
    for goal in (
        f"{title} isn't happening anymore, delete it from my to-dos",
        f"take {title.lower()} out of my task list",
        f"Keep the others. Scratch {title} off the list",
    ):
        assert removal_shown(goal, screen) == [title], goal
    assert removal_shown(f"Delete the finished ones but keep {title}", screen) == []


def test_a_recipe_is_named_by_the_title_after_its_photo() -> None:
    titles = TASKS_BY_NAME["RecipeDeleteMultipleRecipes"].params(1)["titles"].split(", ")
    _, screen = app_screen("RecipeDeleteMultipleRecipes", "Broccoli", seed=1)
    shown = removal_shown(f"Delete the recipes {', '.join(titles)} from Broccoli.", screen)
    assert shown and set(shown) <= set(titles)


@pytest.mark.parametrize(
    "goal",
    [
        # a place, not an item: a folder, an app, a note edited
        "Delete the file {file} from the {folder} folder.",
        "In {folder}, remove whatever is older than a week",
        "delete the line 'x' from the note in {folder}",
        # what the goal keeps
        "Delete every file except {file}",
        "remove the old files but keep {file}",
        # all but one of duplicates stays listed
        "Delete the duplicates of {file}, keeping one copy",
        # no deletion asked
        "Open {file}",
        "Move {file} somewhere safe, don't delete it",
        "Rename {file} without removing anything",
    ],
)
def test_places_kept_items_and_other_goals_are_not_read_as_deletions(goal: str) -> None:
    params = TASKS_BY_NAME["FilesDeleteFile"].params(0)
    device, _ = app_screen("FilesDeleteFile", "Files")
    folder, file = params["subfolder"], params["file_name"]
    screens = [Screen.parse(device.dump_xml())]
    # the folder's row on the storage screen, then the file's row inside it
    device.tap(*next(e.center for e in screens[0].elements if e.label.startswith(folder)))
    screens.append(Screen.parse(device.dump_xml()))
    assert any(e.label.startswith(file) for e in screens[1].elements)
    text = goal.format(file=file, folder=folder)
    if "{file}" in goal and "Delete the file" in goal:
        # the folder is a place; the file, when deleted and still listed, is the item
        assert removal_shown(text, screens[0]) == []
        assert removal_shown(text, screens[1]) == [file]
    else:
        assert [removal_shown(text, screen) for screen in screens] == [[], []]


@pytest.mark.parametrize(
    ("goal", "every_note"),
    [
        ("Clear out Markor: delete each of my notes.", True),
        ("I don't need any of my Markor notes anymore — delete the lot.", True),
        ("delete all notes", True),
        # some notes, picked by what they hold or how old they are: not every one
        ("Delete all my notes about Paris.", False),
        ("Delete every note except the shopping list.", False),
        ("Delete all notes older than a week.", False),
        ("Open all my notes", False),  # no deletion
    ],
)
def test_a_goal_that_deletes_every_note_is_refused_while_a_note_is_listed(
    goal: str, every_note: bool
) -> None:
    """The model deletes one note of four and calls "delete the lot" done."""
    _, screen = app_screen("MarkorDeleteAllNotes", "Markor")
    listed = [e.label.split(", ")[0] for e in screen.elements if e.label.endswith(" B")]
    assert len(listed) >= 2
    assert removal_shown(goal, screen) == (listed if every_note else [])
    empty = Simulator(state={**TASKS_BY_NAME["MarkorDeleteAllNotes"].initial_state(0), "files": {}})
    empty.open_app("Markor")
    assert removal_shown(goal, Screen.parse(empty.dump_xml())) == []


@pytest.mark.parametrize(
    ("task", "app", "goal"),
    [
        ("RecipeDeleteDuplicateRecipes", "Broccoli", "one recipe shows up twice, delete the copy"),
        ("ExpenseDeleteDuplicates", "Pro Expense", "Remove duplicate expenses from Pro Expense."),
    ],
)
def test_a_goal_that_deletes_copies_is_refused_while_a_row_is_listed_twice(
    task: str, app: str, goal: str
) -> None:
    """The model deletes the row above the copy and calls the list clean."""
    _, screen = app_screen(task, app)
    labels = [element.label for element in screen.elements]
    twice = [label for label in dict.fromkeys(labels) if labels.count(label) == 2]
    assert len(twice) == 1
    guards = Guards(goal)
    refused, told = verdict(guards, screen)
    assert refused == "block" and f'"{twice[0]}" is still listed more than once' in told
    assert copies_listed("Delete the recipe Spicy Tacos", screen) == []  # no copies asked for
    # every to-do row has a "complete box" of its own: no copy of anything
    _, todo = app_screen("TasksDeleteTask", "Tasks")
    assert copies_listed("delete the duplicate task", todo) == []


@pytest.mark.parametrize(
    ("typed", "goal", "labels", "made_up"),
    [
        # a new name for the note the goal only edits
        (
            "workout_log_2020.md",
            "Edit study_notes_2017.md: add a line",
            ["study_notes_2017.md"],
            ["workout_log_2020.md"],
        ),
        # the number is in a text the model never opened
        (
            "+35151515151",
            "Save Iñaki; the number is in Bob Chen's last text",
            ["Bob Chen"],
            ["+35151515151"],
        ),
        # given: by the goal without its extension, or by a screen, grouped another way
        ("groceries.md", "Create a note called groceries in Markor", [], []),
        ("+351 968-685-927", "Save Iñaki", ["Bob Chen, Call me at +351968685927"], []),
        ("Call +34 612 345 678", "Add an event to call Ana", ["Phone: +34 612 345 678"], []),
        # times, dates and amounts are no phone numbers
        ("See you at 8:30 on 2024-10-15, it's $258.51", "text Ana", [], []),
    ],
)
def test_a_file_name_or_phone_number_typed_must_be_given(
    typed: str, goal: str, labels: list[str], made_up: list[str]
) -> None:
    assert made_up_values(typed, goal, labels) == made_up


@pytest.mark.parametrize(
    ("typed", "runaway"),
    [
        # decoding that ran away: a word over and over, or the prompt's screen listing
        ("tomato, basil, butter, butter, butter", "butter"),
        ("Книга 21.\n\nScreen:\napp: net.gsantner.markor, keyboard: shown", "Screen:"),
        ('ok\n[2] input "Name: notes.md" focused', '[2] input "'),
        # the goal's own words, repeated or not, are typed as given
        ("tomato, basil, butter", None),
        ("ha ha ha, see you", None),
        ("Screen: cracked, ask for a refund", None),
        ("Prepare the tomato. Add the basil and serve with the tomato.", None),
    ],
)
def test_runaway_text_is_told_from_given_text(typed: str, runaway: str | None) -> None:
    goal = (
        'add a recipe: ingredients tomato, basil, butter; note "ha ha ha, see you"; then a note '
        '"Screen: cracked, ask for a refund"'
    )
    assert runaway_text(typed, goal, ["Recipes"]) == runaway


def test_typing_runaway_text_is_blocked() -> None:
    guards = Guards("new recipe: Pad Thai, ingredients tomato, basil, butter")
    _, screen = app_screen("RecipeAddSingleRecipe", "Broccoli")
    field = screen.elements[0]
    typed = TypeText(text="tomato, basil, butter, butter, butter", index=field.index)
    blocked = guards.review(typed, field, screen)
    assert blocked.verdict == "block" and '"butter"' in blocked.feedback[0]
    fine = TypeText(text="tomato, basil, butter", index=field.index)
    assert guards.review(fine, field, screen).verdict == "allow"


def test_typing_a_number_no_screen_showed_is_blocked_until_one_does() -> None:
    """The model creates the contact with a number it made up instead of reading Bob Chen's
    text: the number is not typed. Once the text was on a screen, its number is."""
    task = TASKS_BY_NAME["ContactsAddContactFromSms"]
    params = task.params(0)
    guards = Guards(
        f"Create a contact for {params['name']}; the number is in Bob Chen's last text."
    )
    device, contacts = app_screen("ContactsAddContactFromSms", "Contacts")
    # the guard reads what is typed, not where: any element stands for the phone field
    field = contacts.elements[0]
    made_up = guards.review(TypeText(text="+35151515151", index=field.index), field, contacts)
    assert made_up.verdict == "block"
    assert made_up.notes[0].kind == "made_up_value"
    assert '"+35151515151"' in made_up.feedback[0]
    device.open_app("Messages")
    allow = next(e for e in Screen.parse(device.dump_xml()).elements if e.label == "Allow")
    device.tap(*allow.center)
    guards.review(PressKey(key="back"), None, Screen.parse(device.dump_xml()))  # the text read
    read = guards.review(TypeText(text=params["phone"], index=field.index), field, contacts)
    assert read.verdict == "allow", read.notes


def test_a_refused_deletion_is_in_the_trajectory_and_counted(tmp_path: Path) -> None:
    title = TASKS_BY_NAME["TasksDeleteTask"].params(0)["title"]
    device = Simulator(state=TASKS_BY_NAME["TasksDeleteTask"].initial_state(0))
    episode = run_scripted(
        f"Delete the task {title} from the Tasks app.",
        device,
        [call("open_app", name="Tasks"), call("task_complete", success=True)],
        tmp_path / "t.jsonl",
    )
    claim = episode.steps[1]
    assert claim.guard.verdict == "block" and is_refused_completion(claim)
    assert title in claim.guard.notes[0].reason
    assert episode.end.stop_reason != "completed"


# --- answers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("goal", "asks"),
    [
        ("How much did I spend on Bonus 304 according to Pro Expense?", True),
        ("Look up Ana in Contacts. What is their phone number?", True),
        ("Find the number saved for Ana Lima.", True),
        ("whats anas number", True),
        ("do i have anything on friday?", True),
        ("Check the Calendar and tell me what is on Friday.", True),
        ("Could you tell me what Ana's number is?", True),
        ("Can you turn on Wi-Fi?", False),
        ("How about texting Ana the words 'see you'?", False),
        ("When you get a chance, could you erase the task Call Ana?", False),
        ("Can I get you to erase the expense Bonus 304?", False),
        ("When you're finished, Markor should hold no notes at all, so delete them.", False),
        ("When you get a moment, verify that Wi-Fi is on, and fix it if it is not.", False),
        ("Could you get me connected to wifi again?", False),
        ("Do I have any events on Friday? Answer yes or no.", True),
        ("Did I spend more than $50.00 on Shoes 201?", True),  # a decimal point ends no question
        ("Is Wi-Fi on? If not, turn it on.", False),
        ("is bluetooth off? it should be", False),
        ("Turn on Wi-Fi and tell me when done", False),
        ("Delete the expense Bonus 304.", False),
    ],
)
def test_questions_and_requests_for_a_value_are_told_from_requests(goal: str, asks: bool) -> None:
    assert asks_for_answer(goal) is asks


def test_a_question_closed_without_an_answer_is_refused_each_time() -> None:
    """The model that claims a question done without an answer claims again at once; taken
    the second time, the run ended `completed` with nothing to show the user."""
    _, screen = app_screen("ContactsPhoneNumber", "Contacts")
    guards = Guards("Find the number saved for Ana Lima.")
    for _ in range(3):
        refused, told = verdict(guards, screen)
        assert refused == "block" and "`answer`" in told
    # the list shows no numbers: an answer read elsewhere goes back once, then stands
    number = TaskComplete(answer="+7 938 559 33 15")
    assert guards.review(number, None, screen).verdict == "block"
    answered = guards.review(number, None, screen)
    assert answered.verdict == "complete", answered.notes


@pytest.mark.parametrize(
    "goal",
    [
        "what number do I have saved for Светлана Голубев?",
        "Светлана Голубев's number?",
        "Look up Светлана Голубев in Contacts. What is their phone number?",
    ],
)
def test_an_answer_without_a_phone_number_to_a_question_for_one_is_refused(goal: str) -> None:
    """Asked for a number, the model answered with the phone's model shown on the contact's
    page ("Pixel 7"); the answer was on a screen, so the loop took it."""
    _, screen = app_screen("ContactsPhoneNumber", "Contacts")
    guards = Guards(goal)
    for _ in range(2):
        for wrong in ("Pixel 7", "UQ1A.240205.004"):  # the phone's model, its build number
            refused, told = verdict(guards, screen, wrong)
            assert refused == "block" and "phone number" in told
    assert "phone number" not in verdict(guards, screen, "+7 938 559 33 15")[1]


@pytest.mark.parametrize(
    "goal",
    [
        "What is the build number?",
        "how many numbers are in my contacts?",
        "Whose phone number is +420 627 796 484? Answer with the contact's name.",
    ],
)
def test_other_numbers_are_no_phone_numbers(goal: str) -> None:
    assert not asks_for_phone_number(goal)


def test_an_amount_read_off_the_next_row_goes_back_once_naming_both_rows() -> None:
    params = TASKS_BY_NAME["ExpenseFindAmount"].params(0)
    _, screen = app_screen("ExpenseFindAmount", "Pro Expense")
    goal = f"How much did I spend on {params['name']} according to Pro Expense?"
    neighbour = next(
        row
        for row in params["noise"]
        if any(e.label.startswith(row["name"] + ", ") for e in screen.elements)
    )
    wrong = f"${neighbour['amount']:.2f}"
    mismatch = answer_row_mismatch(goal, wrong, screen)
    assert mismatch is not None
    assert mismatch[0].startswith(neighbour["name"] + ", ") and mismatch[1] == params["name"]
    guards = Guards(goal)
    refused, told = verdict(guards, screen, wrong)
    assert refused == "block" and params["name"] in told and neighbour["name"] in told
    assert verdict(guards, screen, wrong)[0] == "complete"  # the same answer again stands


def test_the_amount_of_the_named_row_stands() -> None:
    params = TASKS_BY_NAME["ExpenseFindAmount"].params(0)
    _, screen = app_screen("ExpenseFindAmount", "Pro Expense")
    goal = f"How much did I spend on {params['name']} according to Pro Expense?"
    assert answer_row_mismatch(goal, params["amount_text"], screen) is None
    assert verdict(Guards(goal), screen, f"${params['amount_text']}") == ("complete", "")


# --- switches named with a time -----------------------------------------------------------------


@pytest.mark.parametrize(
    "goal", ["Disable the alarm set for {time}.", "turn off the {time} alarm", "{time} alarm: off"]
)
def test_an_alarm_named_by_its_time_is_checked_like_any_switch(goal: str) -> None:
    time = TASKS_BY_NAME["ClockAlarmTurnOff"].params(0)["time"]
    _, screen = app_screen("ClockAlarmTurnOff", "Clock")
    alarm = next(e for e in screen.elements if e.role == "switch" and e.label.startswith(time))
    assert alarm.checked is True
    refused, told = verdict(Guards(goal.format(time=time)), screen)
    assert refused == "block" and "off" in told


def test_an_alarms_time_beside_its_label_is_read_from_the_right_row() -> None:
    # expanded, the alarm shows its label as a button of its own beside the time's button
    params = TASKS_BY_NAME["ClockAlarmTime"].params(0)
    device, screen = app_screen("ClockAlarmTime", "Clock")
    device.tap(*next(e.center for e in screen.elements if e.label == "Expand alarm"))
    expanded = Screen.parse(device.dump_xml())
    assert any(e.label == params["label"] and e.clickable for e in expanded.elements)
    goal = f'When does the alarm labelled "{params["label"]}" go off?'
    assert answer_row_mismatch(goal, params["time"], expanded) is None
    assert verdict(Guards(goal), expanded, params["time"]) == ("complete", "")


# --- items marked done -------------------------------------------------------------------------


def box_beside(title: str) -> Turn:
    """A tap on the complete box of the Tasks row titled `title`, the element after it."""
    return lambda body: call("tap", index=index_of(body, title) + 1)


def test_a_task_ticked_beside_the_named_one_refuses_the_claim(tmp_path: Path) -> None:
    task = TASKS_BY_NAME["TasksCompleteTask"]
    device = Simulator(state=task.initial_state(0))
    episode = run_scripted(
        "tick off Order 21 name badges in my to-do list",
        device,
        [
            call("open_app", name="Tasks"),
            box_beside("Prepare 26 slides for market trends"),  # the row below the named one
            call("task_complete", success=True),
            box_beside("Order 21 name badges"),
            call("task_complete", success=True),
        ],
        tmp_path / "t.jsonl",
    )
    refused = [step for step in episode.steps if is_refused_completion(step)]
    assert [step.step for step in refused] == [3]
    assert '"Order 21 name badges" still listed as not done' in refused[0].guard.notes[0].reason
    told = episode.server.chat_requests[3].user_text
    assert "Mark exactly what the goal names" in told
    assert episode.end.stop_reason == "completed"
    done = {row["title"] for row in device.state["todo_tasks"] if row["completed"]}
    # the wrong tick stays: the claim check does not undo it, the side-effect count sees it
    assert done == {"Order 21 name badges", "Prepare 26 slides for market trends"}


def test_a_named_task_under_the_completed_header_is_done() -> None:
    device, screen = app_screen("TasksCompleteTask", "Tasks")
    goal = "Mark the task Order 21 name badges as done in Tasks."
    box = next(e for e in screen.elements if e.label == "Order 21 name badges").index + 1
    execute(Tap(index=box), screen, device, sleep=lambda seconds: None)
    for label in ("More options", "Show completed"):
        screen = Screen.parse(device.dump_xml())
        element = next(e for e in screen.elements if e.label == label)
        execute(Tap(index=element.index), screen, device, sleep=lambda seconds: None)
    screen = Screen.parse(device.dump_xml())
    assert any(e.label == "Completed" for e in screen.elements)
    assert any(e.label == "Order 21 name badges" for e in screen.elements)
    assert verdict(Guards(goal), screen) == ("complete", "")


@pytest.mark.parametrize(
    ("goal", "marks"),
    [
        ("Mark the task Pay rent as completed in Tasks.", True),
        ("I finished Pay rent: check it off.", True),
        ("tick off pay rent", True),
        ("can you check the box for Pay rent?", True),
        ("In Tasks, complete the to-do Pay rent.", True),
        ("Check that Wi-Fi is off; switch it off if it is not.", False),
        ("trash notes.md in Markor, I'm done with it", False),
        ("Which of my tasks are marked done? Titles only.", False),  # a question
    ],
)
def test_goals_that_mark_items_done_are_told_from_others(goal: str, marks: bool) -> None:
    assert marks_done(goal) is marks


# --- every switch of a kind --------------------------------------------------------------------


def test_every_alarm_off_is_refused_while_one_was_last_shown_on(tmp_path: Path) -> None:
    task = TASKS_BY_NAME["ClockAlarmTurnOffAll"]  # seed 0: 3:04 PM and 4:23 PM are on
    device = Simulator(state=task.initial_state(0))
    episode = run_scripted(
        "I'm going away, silence every alarm I have but keep them",
        device,
        [
            call("open_app", name="Clock"),
            tap("3:04 PM alarm"),
            call("task_complete", success=True),
            tap("4:23 PM alarm"),
            call("task_complete", success=True),
        ],
        tmp_path / "t.jsonl",
    )
    refused = [step for step in episode.steps if is_refused_completion(step)]
    assert [step.step for step in refused] == [3]
    assert '"4:23 PM alarm" last shown not off' in refused[0].guard.notes[0].reason
    assert "the goal asks for every one of them off" in episode.server.chat_requests[3].user_text
    assert episode.end.stop_reason == "completed"
    assert task.success(device.state, 0)


def test_every_alarm_off_claimed_before_any_alarm_was_shown_goes_back_once() -> None:
    home = Screen.parse(
        Simulator(state=TASKS_BY_NAME["ClockAlarmTurnOffAll"].initial_state(0)).dump_xml()
    )
    guards = Guards("All my alarms should be off")
    first = guards.review(TaskComplete(), None, home)
    assert first.verdict == "block"
    assert "no screen showed any switch, the goal asks every alarm off" in first.notes[0].reason
    assert (
        "the goal is about every alarm, and no screen of this task has shown it"
        in (first.feedback[0])
    )
    # a phone may have no alarm at all: the claim made again stands
    assert guards.review(TaskComplete(), None, home).verdict == "complete"


def test_every_switch_claimed_once_some_switch_was_shown_is_judged_on_those_shown() -> None:
    # read as every notification switch off; the page shows a switch of another name
    _, home = app_screen("SystemDoNotDisturbTurnOn", "Settings")
    dnd = Screen(
        home.app,
        home.keyboard,
        home.width,
        home.height,
        home.rotation,
        [element(1, "switch", "Do Not Disturb", checked=True)],
    )
    guards = Guards("turn all notifications off")
    assert guards.review(TaskComplete(), None, dnd).verdict == "complete"


@pytest.mark.parametrize(
    ("goal", "asked"),
    [
        ("Turn off all my alarms.", "every alarm off"),
        ("Disable each of my alarms, don't delete them", "every alarm off"),
        ("switch on every alarm", "every alarm on"),
        ("Are all my alarms off?", None),  # a question: the answer, not a change
        ("Delete all my notes in Markor.", None),  # no state asked
        ("stop the screen from turning every time I move", None),  # "every time": no kind
        ("the party is called off, delete all of those events", None),  # the state is not theirs
        ("Delete all events on Thursday, October 17.", None),  # "on" a day is no state
        ("get rid of all the events on my calendar", None),
    ],
)
def test_goals_about_every_switch_of_a_kind(goal: str, asked: str | None) -> None:
    every = every_switch(goal)
    assert (every.asked if every else None) == asked


# --- texts the goal quotes ----------------------------------------------------------------------


def test_a_message_the_goal_quotes_must_have_been_on_a_screen() -> None:
    device, screen = app_screen("SimpleSmsReply", "Messages")
    goal = "Bob Chen wrote to me. Write back “Can you bring the umbrella at 11?”, nothing else."
    guards = Guards(goal)
    assert verdict(guards, screen) == (
        "block",
        'Not done yet: no screen has shown "Can you bring the umbrella at 11?", which the goal '
        "gives word for word. Type it exactly where the goal asks, or find it on the phone, or "
        "call task_complete(success=false) if it cannot be done.",
    )
    assert verdict(guards, screen)[0] == "block", "refused each time it is claimed"

    for label in ("Allow", "Bob Chen, The parcel arrived, Now"):
        if not any(element.label == label for element in screen.elements):
            continue
        element = next(element for element in screen.elements if element.label == label)
        guards.review(Tap(index=element.index), element, screen)
        execute(Tap(index=element.index), screen, device, sleep=lambda seconds: None)
        screen = Screen.parse(device.dump_xml())
    field = next(element for element in screen.elements if element.role == "input")
    # typed without its question mark: punctuation and case are not what the check reads
    typing = TypeText(index=field.index, text="can you bring the umbrella at 11")
    guards.review(typing, field, screen)
    execute(typing, screen, device, sleep=lambda seconds: None)
    typed = Screen.parse(device.dump_xml())
    # "write back" is a reply, sent only once Send is pressed
    assert verdict(guards, typed)[0] == "block"
    send = next(element for element in typed.elements if element.label == "Send SMS")
    guards.review(Tap(index=send.index), send, typed)
    execute(Tap(index=send.index), typed, device, sleep=lambda seconds: None)
    sent = Screen.parse(device.dump_xml())
    guards.observe(Tap(index=send.index), typed, sent)
    assert verdict(guards, sent) == ("complete", "")


@pytest.mark.parametrize(
    ("goal", "unshown"),
    [
        ('note "Gift", amount $12.50', ["Gift", "12.50"]),
        # amounts of money as people write them; a whole number or a bare one is no amount
        ("log 339.79 dollars, then €12,50 and USD 7.05", ["339.79", "12,50", "7.05"]),
        ("add $30 for lunch, 6.50 km of running", []),
        # a question's amount need not be on any screen
        ("Did I spend more than $50.00 on Shoes 201?", []),
        ("«Bonjour toi» and „Hallo du“", ["Bonjour toi", "Hallo du"]),
        # numbers alone are written many ways on screens: "20:27:04", "20h 27m 4s"
        ('set the timer to "20:27:04"', []),
        ("Wi-Fi on, nothing quoted", []),
        # file names are given word for word too, alone or at the end of a path
        ("rename Music/set_01.mp3 to set_01_live.mp3", ["set_01.mp3", "set_01_live.mp3"]),
        ("add 6.5 km to the log at 7.30 a.m.", []),
        ("add it to tasks.org, see example.com", []),  # websites, not files
        # a phone number, in any grouping: the screens here show none of it
        ("text +39-306-808-6879 “on my way”", ["on my way", "+39-306-808-6879"]),
        ("Whose number is +39 306 808 6879?", []),  # a question's number need not be shown
    ],
)
def test_quoted_texts_with_words_are_what_is_looked_for(goal: str, unshown: list[str]) -> None:
    assert unshown_quotes(goal, ["Home", "Tue, Oct 15"]) == unshown


def test_a_phone_number_is_shown_whatever_its_grouping() -> None:
    goal = "There's no contact for it, only +39-306-808-6879. Text them “Ça marche”."
    assert unshown_quotes(goal, ["+39", "Ça marche"]) == ["+39-306-808-6879"]
    assert unshown_quotes(goal, ["+39 306 808 6879, Now", "Ça marche"]) == []


@pytest.mark.parametrize(
    ("note", "shown"),
    [
        # the new last line runs past the label's cut: its first words are what is left
        (
            "Bring sunscreen to the picnic on Tuesday.\nBack up the laptop on Thursday evening.",
            True,
        ),
        # cut between two words, right before the line
        (
            "Water the lemon tree every 2 days and bring sunscreen to the picnic on Tuesday.\n"
            "Back up the laptop on Thursday evening.",
            True,
        ),
        # cut inside a word the line does not start with
        (
            "Bring sunscreen to the picnic on Tuesday, and water the lemon tree every 12 days on "
            "the balcony.",
            False,
        ),
    ],
)
def test_a_label_cut_short_shows_what_may_follow_the_cut(note: str, shown: bool) -> None:
    label = truncate(clean(note))
    assert label.endswith("…")
    quote = "Back up the laptop on Thursday evening."
    assert unshown_quotes(f"Add “{quote}” as a new last line.", [label]) == (
        [] if shown else [quote]
    )


def test_a_claim_on_an_unshown_quote_ends_the_run_uncompleted(tmp_path: Path) -> None:
    task = TASKS_BY_NAME["ExpenseAddSingle"]
    episode = run_scripted(
        "log an expense: Shoes 201, $258.51, Clothes, today, note “Gift for Ana”",
        Simulator(state=task.initial_state(0)),
        [call("open_app", name="Pro Expense"), *[call("task_complete", success=True)] * 3],
        tmp_path / "t.jsonl",
    )
    claims = episode.steps[1:]
    assert claims and all(is_refused_completion(claim) for claim in claims)
    assert "Gift for Ana" in claims[0].guard.notes[0].reason
    assert episode.end.stop_reason != "completed"


@pytest.mark.parametrize(
    ("goal", "sends"),
    [
        ("My last text to Ana may not have arrived: send it again.", True),
        ("Text Bob “see you at 8”", True),
        ("save Ana as a contact and message her “hi”", True),
        ("Resend my last message to Ana", True),
        # the nouns, a question, a negation
        ("Change the text of shopping.md to “milk”", False),
        ("markor: a.md → rename b.md, text becomes “x”", False),
        ("What did Bob text me last?", False),
        ("Create a contact for Ana; the number is in Bob's last text.", False),
        ("don't send anything yet, just write the draft", False),
    ],
)
def test_goals_that_send_a_message(goal: str, sends: bool) -> None:
    assert asks_to_send(goal) is sends


def test_a_message_claimed_sent_before_send_was_pressed_is_refused(tmp_path: Path) -> None:
    task = TASKS_BY_NAME["SimpleSmsResend"]
    device = Simulator(state=task.initial_state(0))
    name, text = (task.params(0)[key] for key in ("name", "text"))
    episode = run_scripted(
        task.goal(0),
        device,
        [
            call("open_app", name="Messages"),
            tap("Allow"),
            tap(name),
            call("task_complete", success=True),  # the conversation open, nothing sent
            on_label("type_text", "Text message", text=text),
            tap("Send SMS"),
            call("task_complete", success=True),
        ],
        tmp_path / "t.jsonl",
        settings=RunSettings(max_steps=10),
        confirm=lambda described: True,  # the user approves sending
    )
    early, late = episode.steps[3], episode.steps[6]
    assert is_refused_completion(early)
    assert early.guard.notes[0].reason == (
        "no send button was pressed, the goal sends a message: refused"
    )
    assert not is_refused_completion(late)
    assert episode.end.stop_reason == "completed"
    assert task.success(device.state, 0)


def on_label(tool: str, label: str, **arguments: object) -> Turn:
    """A call of `tool` on the element labelled `label` on the screen the agent sent."""
    return lambda body: call(tool, index=index_of(body, label), **arguments)


def test_a_rename_claimed_before_the_new_name_was_on_a_screen_is_refused(
    tmp_path: Path,
) -> None:
    task = TASKS_BY_NAME["FilesRenameFile"]
    device = Simulator(state=task.initial_state(0))

    def rename(old: str, new: str) -> list[Turn]:
        return [
            on_label("long_press", old),
            tap("More options"),
            tap("Rename"),
            on_label("type_text", old, text=new, clear=True),
            tap("OK"),
        ]

    episode = run_scripted(
        task.goal(0),  # "... home_video_0643.mp4 in the Movies folder to home_video_0643_old.mp4"
        device,
        [
            call("open_app", name="Files"),
            tap("Show roots"),
            tap("Pixel 7"),
            tap("Movies"),
            call("task_complete", success=True),  # the file found, not yet renamed
            *rename("home_video_0643.mp4", "home_video_0643_old.mp4"),
            call("task_complete", success=True),
        ],
        tmp_path / "t.jsonl",
        settings=RunSettings(max_steps=16),
    )
    refused = [step for step in episode.steps if is_refused_completion(step)]
    assert len(refused) == 1
    assert "home_video_0643_old.mp4" in refused[0].guard.notes[0].reason
    assert episode.end.stop_reason == "completed"
    assert "Movies/home_video_0643_old.mp4" in device.state["files"]


def test_a_new_name_only_typed_into_the_rename_box_is_refused(tmp_path: Path) -> None:
    task = TASKS_BY_NAME["FilesRenameFile"]
    device = Simulator(state=task.initial_state(0))
    episode = run_scripted(
        task.goal(0),
        device,
        [
            call("open_app", name="Files"),
            tap("Show roots"),
            tap("Pixel 7"),
            tap("Movies"),
            on_label("long_press", "home_video_0643.mp4"),
            tap("More options"),
            tap("Rename"),
            on_label(
                "type_text", "home_video_0643.mp4", text="home_video_0643_old.mp4", clear=True
            ),
            tap("Cancel"),  # the box closed, the file keeps its name
            call("task_complete", success=True),
        ],
        tmp_path / "t.jsonl",
        settings=RunSettings(max_steps=12),
    )
    claim = episode.steps[9]
    assert is_refused_completion(claim)
    assert claim.guard.notes[0].reason == (
        'no screen listed "home_video_0643_old.mp4", which the goal names: refused'
    )
    assert "Movies/home_video_0643.mp4" in device.state["files"]


@pytest.mark.parametrize(
    ("goal", "listed", "unlisted"),
    [
        (
            "Make a folder TravelReports2028 in Markor.",
            ["Notes", "WorkLists2027"],
            ["TravelReports2028"],
        ),
        ("Make a folder TravelReports2028 in Markor.", ["TravelReports2028, Folder"], []),
        # a note of that name is no folder
        (
            "Make a folder TravelReports2028 in my Markor notebook.",
            ["TravelReports2028.md, 15.10.24 0 B"],
            ["TravelReports2028"],
        ),
        ("New folder in Markor: TravelReports2028.", ["TravelReports2028, 0 items"], []),
        # a name not called a folder may be any row that shows it
        ("open TravelReports2028 in Markor", ["TravelReports2028.md, 15.10.24 0 B"], []),
        ("rename a.md to b_2.md", ["a.md"], ["b_2.md"]),
        # numbers with units, times, hyphenated durations, sentences: no names
        ("Set a 20-hour timer of 100mins at 5pm on the 21st", [], []),
        ("text them “明天1点56分在学校见”", [], []),
    ],
)
def test_names_a_goal_gives_are_held_to_the_labels_listed(
    goal: str, listed: list[str], unlisted: list[str]
) -> None:
    assert unlisted_names(goal, listed) == unlisted


# --- timers -------------------------------------------------------------------------------------


def test_a_timer_claimed_before_it_showed_the_goals_duration_is_refused(tmp_path: Path) -> None:
    task = TASKS_BY_NAME["ClockTimerEntry"]
    device = Simulator(state=task.initial_state(0))
    # the Timer tab is [7] on the Clock's first screen
    episode = run_scripted(
        "set the timer to 20h 27m 4s but don't start it",
        device,
        [
            call("open_app", name="Clock"),
            call("tap", index=7),
            # the seconds left out: the entry shows 00h 20m 27s
            call("type_text", text="2027"),
            call("task_complete", success=True),
            call("type_text", text="04"),
            call("task_complete", success=True),
        ],
        tmp_path / "t.jsonl",
    )
    early, late = episode.steps[3], episode.steps[5]
    assert is_refused_completion(early)
    assert early.guard.notes[0].reason == 'no screen showed the timer at "20h 27m 4s": refused'
    # what the model reads next
    assert (
        "Not done yet: no screen has shown the timer set to 20h 27m 4s. Enter exactly that "
        "duration on the timer, or call task_complete(success=false) if it cannot be done."
    ) in episode.server.chat_requests[4].user_text
    assert not is_refused_completion(late)
    assert episode.end.stop_reason == "completed"
    assert task.success(device.state, 0)


@pytest.mark.parametrize(
    ("goal", "labels", "unshown"),
    [
        # the entry writes hours, minutes and seconds; the goal any way it likes
        ("Create a timer with 20 hours, 27 minutes, and 4 seconds.", ["20h 27m 04s"], []),
        ("Let's prepare a 20-hour, 27-minute, 4-second timer.", ["20h 27m 04s"], []),
        ("Timer: 3:03:48. Just key it in.", ["03h 03m 48s"], []),
        ("Timer: 3:03:48. Just key it in.", ["00h 03m 48s"], ["3:03:48"]),
        # two numbers are minutes and seconds on a running count, hours and minutes in entry
        ("I need a 65:49 countdown running on the timer.", ["65:49", "Running"], []),
        ("I need a 65:49 countdown running on the timer.", ["00h 65m 49s"], []),
        ("countdown of 79 min 56 sec, start it now", ["00h 79m 56s"], []),
        ("countdown of 79 min 56 sec, start it now", ["1:19:56"], []),
        ("countdown of 79 min 56 sec, start it now", ["00h 07m 95s"], ["79 min 56 sec"]),
        # a time of day is no duration, and goals without a timer are not read
        ("Set an alarm for 7:30 am and a 5 minute timer.", ["00h 05m 00s"], []),
        ("Stay on this call for 5 minutes.", ["Home"], []),
    ],
)
def test_a_timers_duration_is_read_however_it_is_written(
    goal: str, labels: list[str], unshown: list[str]
) -> None:
    assert unshown_durations(goal, labels) == unshown


# --- alarms' times ------------------------------------------------------------------------------


def test_an_alarm_claimed_before_a_screen_showed_its_time_is_refused() -> None:
    _, screen = app_screen("ClockAlarmAdd", "Clock")
    guards = Guards("wake me up at 7:09 p.m., I'll be napping")
    assert verdict(guards, screen) == (
        "block",
        "Not done yet: no screen has shown an alarm at 7:09 p.m., the time the goal gives. Find "
        "or set the alarm at exactly that time, or call task_complete(success=false) if it "
        "cannot be done.",
    )
    assert verdict(guards, screen)[0] == "block", "refused each time it is claimed"


@pytest.mark.parametrize(
    ("goal", "labels", "unshown"),
    [
        # the list writes 12-hour times; goals write them any way
        ("need an alarm at 7:09pm", ["7:09 PM"], []),
        ("Alarm for 13:31 please", ["1:31 PM, Mon"], []),
        ("shift the 6:38 p.m. alarm so it goes off at 8:25 a.m.", ["6:38 PM"], ["8:25 a.m."]),
        # set for the evening instead of the morning
        ("move my 6:38pm alarm to 8:25am", ["6:38 PM", "8:25 PM"], ["8:25am"]),
        ("an alarm for 7 pm", ["7:00 PM"], []),
        # without AM or PM, either
        ("The alarm at 07:02 needs to ring at 15:34.", ["7:02 AM", "3:34 PM"], []),
        ("The alarm at 07:02 needs to ring at 15:34.", ["7:02 PM", "3:34 PM"], []),
        ("Which name did I give the alarm at 00:32?", ["12:32 AM"], []),
        # no time given, no alarm, or a time that only shows the answer's form; the app's
        # name is no alarm
        ("alice texted me a time to wake up — set an alarm for it", ["Home"], []),
        ("What time is the Gym alarm? Answer like 7:05 AM", ["Home"], []),
        ("Open the alarm clock app; the stopwatch reads about 20:10. Pause it.", ["Home"], []),
        ("Add an event at 7:09 PM to my calendar.", ["Home"], []),
    ],
)
def test_an_alarms_time_is_read_however_it_is_written(
    goal: str, labels: list[str], unshown: list[str]
) -> None:
    assert unshown_times(goal, labels) == unshown


def test_beside_an_alarm_a_clock_reading_is_no_timer_duration() -> None:
    assert unshown_durations("Set an alarm for 7:30 and a 5 minute timer.", ["00h 05m 00s"]) == []
