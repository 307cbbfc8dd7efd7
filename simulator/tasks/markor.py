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
        sample=_one_note,
        setup=_with_the_note,
        plan=lambda p: [open_app("Markor"), tap(p["file_name"]), done(answer=p["content"])],
        check=lambda s, p, a: same_text(a, p["content"]),
        max_steps=8,
    ),
]
