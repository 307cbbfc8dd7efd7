"""Markor: notes created, edited, renamed, moved and deleted in the notebook folder, and read."""

from __future__ import annotations

import random
from typing import Any

from simulator.apps.markor import NOTEBOOK
from simulator.state import MARKOR
from simulator.tasks import pools
from simulator.tasks.app_steps import hold, same_lines
from simulator.tasks.base import (
    Params,
    PlanStep,
    State,
    Task,
    done,
    key,
    open_app,
    paths,
    same_text,
    tap,
    type_in,
    under,
)

# The note that waits in the folder another note is moved to.
SCENERY_NOTE = "ideas.md"


def note(name: str) -> str:
    return f"{NOTEBOOK}/{name}"


def _note_names(rng: random.Random, count: int) -> list[str]:
    return pools.distinct(rng, pools.note_name, count)


def _other_notes(rng: random.Random, names: list[str]) -> dict[str, str]:
    return {note(name): pools.sentence(rng) for name in names}


def _one_note(rng: random.Random) -> Params:
    name, *others = _note_names(rng, 4)
    return {
        "file_name": name,
        "content": pools.sentence(rng),
        "others": _other_notes(rng, others),
    }


def _with_the_note(p: Params) -> dict[str, Any]:
    """Storage holding the task's note beside the other notes."""
    return {"files": {**p["others"], note(p["file_name"]): p["content"]}}


def _kept(state: State, others: dict[str, str]) -> bool:
    return all(state["files"].get(path) == content for path, content in others.items())


def _create_note(rng: random.Random) -> Params:
    name, *others = _note_names(rng, 4)
    return {"file_name": name, "text": pools.sentence(rng), "others": _other_notes(rng, others)}


_EDITS = {
    "header": "add “{line}” as a new first line",
    "footer": "add “{line}” as a new last line",
    "replace": "replace everything in it with “{line}”",
}


def _edit(rng: random.Random) -> Params:
    params = _one_note(rng)
    edit_type = rng.choice(sorted(_EDITS))
    line = pools.unlike(rng, pools.sentence, [params["content"]])
    expected = {
        "header": f"{line}\n{params['content']}",
        "footer": f"{params['content']}\n{line}",
        "replace": line,
    }[edit_type]
    return {
        **params,
        "edit_type": edit_type,
        "line": line,
        "change": _EDITS[edit_type].format(line=line),
        "expected": expected,
    }


def _edit_steps(p: Params) -> list[PlanStep]:
    """Open the note and make the change: the editor keeps the cursor where it is put."""
    steps = [tap(p["file_name"]), tap(p["content"])]
    if p["edit_type"] == "header":
        steps += [key("move_home"), type_in(None, p["line"] + "\n")]
    elif p["edit_type"] == "footer":
        steps.append(type_in(None, "\n" + p["line"]))
    else:
        steps.append(type_in(None, p["line"], clear=True))
    return steps


def _rename_steps(old_name: str, new_name: str) -> list[PlanStep]:
    """Rename the open note from its title."""
    return [tap(old_name), type_in(None, new_name, clear=True), tap("OK")]


def _renamed(rng: random.Random) -> Params:
    params = _one_note(rng)
    taken = {params["file_name"], *(path.rpartition("/")[2] for path in params["others"])}
    params["new_name"] = pools.unlike(rng, pools.note_name, taken)
    params["updated"] = pools.unlike(rng, pools.sentence, [params["content"]])
    return params


def _notes_only_in(state: State, folder: str) -> list[str]:
    return [p for p in state["files"] if p.startswith(folder + "/")]


def _move(rng: random.Random) -> Params:
    source, destination = pools.distinct(rng, pools.notebook_folder, 2)
    name = pools.unlike(rng, pools.note_name, [SCENERY_NOTE])
    return {
        "file_name": name,
        "content": pools.sentence(rng),
        "source_folder": source,
        "destination_folder": destination,
    }


def _delete_all(rng: random.Random) -> Params:
    names = _note_names(rng, rng.randrange(2, 5))
    return {"notes": _other_notes(rng, names)}


def _select_all_and_delete(p: Params) -> list[PlanStep]:
    first, *rest = sorted((path.rpartition("/")[2] for path in p["notes"]), key=str.casefold)
    return [hold(first), *[tap(name) for name in rest], tap("Delete"), tap("OK")]


TASKS: list[Task] = [
    Task(
        name="MarkorCreateNote",
        app=MARKOR,
        family="notes",
        templates=(
            "Create a new note in Markor named {file_name} with the following text: {text}",
            "In Markor, make a note called {file_name} that says: {text}",
            "Using Markor, start a new note named {file_name} and put this text in it: {text}",
            "I need a note called {file_name} in Markor, and it should contain: {text}",
            "Please jot down a Markor note titled {file_name} with these words: {text}",
            "New Markor note {file_name}, text: {text}",
            "Hey, can you make me a Markor note named {file_name}? Put this in it: {text}",
            "So I don't forget, save a note {file_name} in Markor with the text: {text}",
            "Would you mind creating {file_name} in Markor? Its content should be: {text}",
            "It would help to have a Markor note {file_name} whose body reads: {text}",
            "We need a fresh note in Markor. Name it {file_name}, then type in the following: "
            "{text}",
            "A note named {file_name} should end up in Markor, holding this text: {text}",
            "Write a new Markor note, {file_name}, containing this text: {text}",
        ),
        sample=_create_note,
        setup=lambda p: {"files": p["others"]},
        plan=lambda p: [
            open_app("Markor"),
            tap("Create a new file or folder"),
            type_in(None, p["file_name"]),
            tap("OK"),
            type_in(None, p["text"]),
            done(),
        ],
        check=lambda s, p, a: (
            same_lines(s["files"].get(note(p["file_name"]), ""), p["text"])
            and _kept(s, p["others"])
        ),
        changes=lambda p: {"files": paths(note(p["file_name"]))},
        max_steps=10,
    ),
    Task(
        name="MarkorCreateFolder",
        app=MARKOR,
        family="notes",
        templates=(
            "Create a new folder in Markor named {folder_name}.",
            "In Markor, add a folder called {folder_name}.",
            "Please create a folder called {folder_name} in Markor.",
            "Using Markor, set up a new folder named {folder_name}.",
            "I need a new Markor folder, {folder_name}.",
            "Markor should have a folder {folder_name}; go ahead and create it.",
            "Hey, could you add a new {folder_name} folder in Markor for me?",
            "To keep my notes organized, create a folder named {folder_name} in Markor.",
            "Can a folder called {folder_name} be added to Markor, please?",
            "New folder in Markor: {folder_name}.",
            "Open Markor, then create a folder and call it {folder_name}.",
            "A folder named {folder_name} should be created in Markor.",
            "Make a folder {folder_name} in my Markor notebook.",
        ),
        sample=lambda rng: {
            "folder_name": pools.notebook_folder(rng),
            "others": _other_notes(rng, _note_names(rng, 3)),
        },
        setup=lambda p: {"files": p["others"]},
        plan=lambda p: [
            open_app("Markor"),
            tap("Create a new file or folder"),
            type_in(None, p["folder_name"]),
            tap("Folder"),
            done(),
        ],
        check=lambda s, p, a: (
            note(p["folder_name"]) in s["folders"]
            or any(path.startswith(note(p["folder_name"]) + "/") for path in s["files"])
        ),
        changes=lambda p: {
            "folders": paths(note(p["folder_name"])),
            "files": under(note(p["folder_name"])),
        },
        max_steps=8,
    ),
    Task(
        name="MarkorEditNote",
        app=MARKOR,
        family="notes",
        templates=(
            "Edit {file_name} in Markor: {change}.",
            "Open the Markor note {file_name} and {change}.",
            "Using Markor, go to the note {file_name} and {change}.",
            "My Markor note {file_name} needs an edit. Please {change}.",
            "Markor note {file_name}: {change}.",
            "Find {file_name} among my notes in Markor, then {change}.",
            "Hey, could you pull up {file_name} in Markor and {change}?",
            "Before the meeting, the Markor note {file_name} needs one change: {change}.",
            "Change request for {file_name} (Markor): {change}.",
            "Let's update {file_name} in Markor. Go into the note, then {change}.",
            "For the note {file_name} in Markor, I'd like you to {change}.",
            "Once {file_name} is open in Markor, {change}.",
            "In Markor's note {file_name}, {change}.",
        ),
        sample=_edit,
        setup=_with_the_note,
        plan=lambda p: [open_app("Markor"), *_edit_steps(p), done()],
        check=lambda s, p, a: (
            same_lines(s["files"].get(note(p["file_name"]), ""), p["expected"])
            and _kept(s, p["others"])
        ),
        changes=lambda p: {"files": paths(note(p["file_name"]))},
        max_steps=10,
    ),
    Task(
        name="MarkorDeleteNote",
        app=MARKOR,
        family="notes",
        templates=(
            "Delete the note in Markor named {file_name}.",
            "Remove {file_name} from my Markor notes.",
            "I'd like you to delete {file_name} in Markor.",
            "Using Markor, erase the note called {file_name}.",
            "I no longer need my Markor note {file_name}, so please delete it.",
            "The note {file_name} should be removed from Markor.",
            "Hey, {file_name} in Markor can go, just delete it.",
            "That note is outdated, so delete {file_name} from Markor.",
            "Is it possible to remove the note {file_name} from Markor?",
            "Markor cleanup: delete {file_name}.",
            "Open Markor, then find the note {file_name} and delete it.",
            "We want {file_name} deleted from Markor.",
            "Get rid of the Markor note {file_name}.",
        ),
        sample=_one_note,
        setup=_with_the_note,
        plan=lambda p: [open_app("Markor"), hold(p["file_name"]), tap("Delete"), tap("OK"), done()],
        check=lambda s, p, a: note(p["file_name"]) not in s["files"] and _kept(s, p["others"]),
        changes=lambda p: {"files": paths(note(p["file_name"]))},
        max_steps=8,
    ),
    Task(
        name="MarkorDeleteAllNotes",
        app=MARKOR,
        family="notes",
        templates=(
            "Delete all my notes in Markor.",
            "Remove every note I have in Markor.",
            "Erase all the notes in Markor.",
            "Using Markor, select every note and delete them.",
            "I want my Markor notebook empty, so please remove all of my notes.",
            "Every note in Markor should be deleted.",
            "Hey, can you wipe Markor clean and remove all the notes?",
            "I'm starting fresh, so please delete every single note in Markor.",
            "Could every note of mine in Markor be deleted, please?",
            "Markor: delete all notes.",
            "Let's empty Markor. Get rid of all the notes in it.",
            "When you're finished, Markor should hold no notes at all, so delete them.",
            "Clear out Markor: delete each of my notes.",
        ),
        sample=_delete_all,
        setup=lambda p: {"files": {**p["notes"], "Download/sample_pdf.pdf": ""}},
        plan=lambda p: [open_app("Markor"), *_select_all_and_delete(p), done()],
        check=lambda s, p, a: (
            not _notes_only_in(s, NOTEBOOK) and "Download/sample_pdf.pdf" in s["files"]
        ),
        changes=lambda p: {"files": under(NOTEBOOK)},
        max_steps=12,
    ),
    Task(
        name="MarkorMoveNote",
        app=MARKOR,
        family="notes",
        templates=(
            "In Markor, move the note {file_name} from {source_folder} to {destination_folder}.",
            "Move my Markor note {file_name} out of {source_folder} into {destination_folder}.",
            "Using Markor, take {file_name} from the {source_folder} folder and relocate it to "
            "{destination_folder}.",
            "I want the Markor note {file_name}, currently in {source_folder}, to be in "
            "{destination_folder}.",
            "Markor note {file_name}: move from {source_folder} to {destination_folder}.",
            "Please shift my note {file_name} from {source_folder} over to {destination_folder} "
            "in Markor, where it belongs.",
            "Hey, quick favor: in Markor, {file_name} needs to go from {source_folder} to "
            "{destination_folder}.",
            "Since {file_name} was filed in the wrong place, please move it in Markor from the "
            "{source_folder} folder to the {destination_folder} folder.",
            "Would you mind transferring the Markor note {file_name} from {source_folder} into "
            "the {destination_folder} folder?",
            "The note {file_name} should end up in {destination_folder} instead of "
            "{source_folder} in Markor.",
            "Open the {source_folder} folder in Markor, then move {file_name} from there to "
            "{destination_folder}.",
            "We keep {file_name} in {source_folder} in Markor, but it needs to live in "
            "{destination_folder}; please move it.",
            "Put the note {file_name} in Markor's {destination_folder} folder; it is in "
            "{source_folder} now.",
        ),
        sample=_move,
        setup=lambda p: {
            "files": {
                note(f"{p['source_folder']}/{p['file_name']}"): p["content"],
                note(f"{p['destination_folder']}/{SCENERY_NOTE}"): "Keep this one here.",
            }
        },
        plan=lambda p: [
            open_app("Markor"),
            tap(p["source_folder"]),
            hold(p["file_name"]),
            tap("More options"),
            tap("Move"),
            tap("..", near="OK"),  # the dialog's parent row, not the list's behind it
            tap(p["destination_folder"]),
            tap("OK"),
            done(),
        ],
        check=lambda s, p, a: (
            s["files"].get(note(f"{p['destination_folder']}/{p['file_name']}")) == p["content"]
            and note(f"{p['source_folder']}/{p['file_name']}") not in s["files"]
        ),
        changes=lambda p: {
            "files": paths(
                note(f"{p['source_folder']}/{p['file_name']}"),
                note(f"{p['destination_folder']}/{p['file_name']}"),
            )
        },
        max_steps=12,
    ),
    Task(
        name="MarkorChangeNoteContent",
        app=MARKOR,
        family="notes",
        templates=(
            'Update the content of {file_name} to "{updated}" in Markor and change its name to '
            "{new_name}.",
            'In Markor, replace the text of {file_name} with "{updated}" and rename the note '
            "{new_name}.",
            'Using Markor, open {file_name}, swap its content for "{updated}", then rename it to '
            "{new_name}.",
            "I need {file_name} in Markor renamed to {new_name}, with its text replaced by "
            '"{updated}".',
            'Markor note {file_name}: new text "{updated}", new name {new_name}.',
            'Please rewrite the Markor note {file_name} so that it says "{updated}", and give it '
            "the new name {new_name}.",
            'Hey, can you open {file_name} in Markor, overwrite everything with "{updated}" and '
            "rename it {new_name}?",
            'Because {file_name} in Markor is out of date, make "{updated}" its only text and '
            "retitle it {new_name}.",
            "Would you mind giving the Markor note {file_name} the name {new_name} and the "
            'content "{updated}"?',
            "It would help if {file_name} in Markor were renamed {new_name} and contained just "
            '"{updated}".',
            'Markor: {file_name} becomes {new_name}, and its whole text becomes "{updated}".',
            'Let\'s rework a Markor note. Clear out {file_name} and type "{updated}" instead, '
            "then rename the note to {new_name}.",
            'Change Markor\'s note {file_name}: its text should be "{updated}" and its name '
            "{new_name}.",
        ),
        sample=_renamed,
        setup=_with_the_note,
        plan=lambda p: [
            open_app("Markor"),
            tap(p["file_name"]),
            tap(p["content"]),
            type_in(None, p["updated"], clear=True),
            *_rename_steps(p["file_name"], p["new_name"]),
            done(),
        ],
        check=lambda s, p, a: (
            note(p["file_name"]) not in s["files"]
            and same_lines(s["files"].get(note(p["new_name"]), ""), p["updated"])
            and _kept(s, p["others"])
        ),
        changes=lambda p: {"files": paths(note(p["file_name"]), note(p["new_name"]))},
        max_steps=12,
    ),
    Task(
        name="MarkorAddNoteHeader",
        app=MARKOR,
        family="notes",
        templates=(
            "Update the Markor note {file_name} by adding the following text, along with a new "
            'blank line before the existing content: "{updated}", and rename it to {new_name}.',
            'In Markor, put "{updated}" and then an empty line above the text of {file_name}, '
            "then rename the note {new_name}.",
            'Using Markor, insert "{updated}" plus one empty line at the beginning of {file_name}, '
            "then rename the note to {new_name}.",
            'I want the Markor note {file_name} to begin with "{updated}" and an empty line '
            "ahead of its current text, and its name changed to {new_name}.",
            'Markor note {file_name}: prepend "{updated}" and a blank line above the existing '
            "text; new name {new_name}.",
            'Open {file_name} in Markor, write "{updated}" and a blank line before what is already '
            "there, and rename it {new_name}.",
            'Hey, in Markor can you stick "{updated}" at the very start of {file_name}, leave an '
            "empty line after it, and rename the note {new_name}?",
            'Before sharing {file_name} from Markor, put "{updated}" as its first line with one '
            "blank line separating it from the old text, then change its name to {new_name}.",
            'Would you mind opening {file_name} in Markor, typing "{updated}" above the current '
            "text with an empty line in between, and renaming the note {new_name}?",
            'It would help if the Markor note {file_name} started with "{updated}", then an empty '
            "line, then its existing text, and if it were renamed {new_name}.",
            'Markor, {file_name}: new first line "{updated}", empty line below it, original text '
            "after; rename to {new_name}.",
            'We need {file_name} in Markor to open with the line "{updated}" and a blank line '
            "before its old content. After that, rename it to {new_name}.",
            'Add the heading "{updated}" followed by a blank line to the top of the Markor note '
            "{file_name} and call the note {new_name}.",
        ),
        sample=_renamed,
        setup=_with_the_note,
        plan=lambda p: [
            open_app("Markor"),
            tap(p["file_name"]),
            tap(p["content"]),
            key("move_home"),
            type_in(None, p["updated"] + "\n\n"),
            *_rename_steps(p["file_name"], p["new_name"]),
            done(),
        ],
        check=lambda s, p, a: (
            note(p["file_name"]) not in s["files"]
            and s["files"].get(note(p["new_name"]), "").strip()
            == f"{p['updated']}\n\n{p['content']}"
            and _kept(s, p["others"])
        ),
        changes=lambda p: {"files": paths(note(p["file_name"]), note(p["new_name"]))},
        max_steps=12,
    ),
    Task(
        name="MarkorReadNote",
        app=MARKOR,
        family="question",
        templates=(
            "What does my Markor note {file_name} say? Answer with its text.",
            "Read the note {file_name} in Markor and tell me what it says.",
            "Open {file_name} in Markor and give me its text.",
            "Using Markor, look at the note {file_name}. Answer with its text.",
            "I need to know what the note {file_name} in Markor says. Answer with its text.",
            "Markor note {file_name}: what is written in it? Answer with its text.",
            "Hey, what's written in {file_name} over in Markor? Answer with its text.",
            "I can't remember what I put in {file_name}; check Markor and answer with its text.",
            "Would you mind opening the note {file_name} in Markor and reading me its contents?",
            "Please report the contents of {file_name} from Markor. Answer with its text.",
            "It would help to know the words in my Markor note {file_name}. Answer with its text.",
            "Go to Markor, then open {file_name} and say what it contains. Answer with its text.",
            "Tell me the text of the Markor note {file_name}.",
        ),
        sample=_one_note,
        setup=_with_the_note,
        plan=lambda p: [open_app("Markor"), tap(p["file_name"]), done(answer=p["content"])],
        check=lambda s, p, a: same_text(a, p["content"]),
        max_steps=8,
    ),
]
