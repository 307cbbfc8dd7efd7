"""Files: files deleted, moved and renamed in the shared storage, folders made, files counted."""

from __future__ import annotations

import random
from functools import partial

from simulator.state import FILES
from simulator.tasks import pools
from simulator.tasks.app_steps import hold
from simulator.tasks.base import (
    Params,
    PlanStep,
    State,
    Task,
    done,
    open_app,
    paths,
    same_digits,
    tap,
    type_in,
)

DEVICE = "Pixel 7"  # the storage root is named after the phone's model
# What each top folder of the storage holds: name stems and the file type.
FOLDER_FILES: dict[str, tuple[str, str]] = {
    "Alarms": ("morning_alarm, wake_up, early_bird, weekend_alarm, sunrise, rooster", "mp3"),
    "Audiobooks": ("sci_fi_book, history_lecture, mystery_novel, biography, poetry", "mp3"),
    "DCIM": ("IMG, holiday_photos, birthday_party, mountain_hike, road_trip, PXL", "jpg"),
    "Documents": ("resume, cover_letter, annual_report, project_plan, lease, invoice", "pdf"),
    "Download": ("sample_pdf, test_download, boarding_pass, manual, ticket, statement", "pdf"),
    "Movies": ("action_film, documentary, romantic_comedy, home_video, concert", "mp4"),
    "Music": ("jazz_classics, rock_anthems, piano_pieces, ça_ira, live_set, demo", "mp3"),
    "Notifications": ("chime, ding, soft_bell, ping, knock, whistle", "mp3"),
    "Pictures": ("sunset_beach, city_night, family_portrait, screenshot, wallpaper", "png"),
    "Podcasts": ("tech_talk, science_hour, daily_news, history_pod, episode", "mp3"),
    "Recordings": ("lecture_notes, interview_draft, voice_memo, meeting, idea", "m4a"),
}
# the folders the storage root shows without scrolling (Ringtones is below them)
FOLDERS = tuple(FOLDER_FILES)
_RENAME_SUFFIXES = pools.words("final, old, copy, backup, signed, draft, edited, shared, v2, v3")
_NEW_FOLDERS = pools.words(
    "Taxes, Scans, Trip photos, Old projects, Fotos de verano, Receipts, Contracts, Wallpapers, "
    "Rechnungen, Voyage à Lyon, Kids art, Recipes, Warranty, Bank, Medical, Concerts, Memes, "
    "Applications, 旅行, Фото, Archive, Slides, Lessons, Invoices"
)


def _file_name(rng: random.Random, folder: str) -> str:
    """ "holiday_photos_0412.jpg", "resume_2023.pdf": a stem of the folder and a number."""
    stems, extension = FOLDER_FILES[folder]
    number = rng.randrange(2015, 2027) if rng.random() < 0.3 else f"{rng.randrange(1, 10000):04d}"
    return f"{rng.choice(pools.words(stems))}_{number}.{extension}"


def _folder_name(rng: random.Random) -> str:
    """ "Scans 2023", "Trip photos 12", "Receipts March 2024"."""
    name = rng.choice(_NEW_FOLDERS)
    shape = rng.randrange(3)
    if shape == 0:
        return f"{name} {rng.randrange(1990, 2031)}"
    if shape == 1:
        return f"{name} {pools.pick_word(rng, pools.MONTHS)} {rng.randrange(2015, 2031)}"
    return f"{name} {rng.randrange(1, 1000)}"


def _storage(rng: random.Random) -> dict[str, str]:
    """Two to four files in every folder, none of them text."""
    files: dict[str, str] = {}
    for folder in FOLDERS:
        for name in pools.distinct(rng, partial(_file_name, folder=folder), rng.randrange(2, 5)):
            files[f"{folder}/{name}"] = ""
    return files


def _in_folder(rng: random.Random) -> Params:
    files = _storage(rng)
    path = rng.choice(sorted(files))
    folder, _, name = path.partition("/")
    return {"file_name": name, "subfolder": folder, "files": files}


def _others_kept(state: State, p: Params, *gone: str) -> bool:
    return all(path in state["files"] for path in p["files"] if path not in gone)


def _open_folder(folder: str) -> list[PlanStep]:
    """From Files' first screen to a folder at the top of the phone's storage."""
    return [open_app("Files"), tap("Show roots"), tap(DEVICE), tap(folder)]


def _move(rng: random.Random) -> Params:
    params = _in_folder(rng)
    params["destination_folder"] = rng.choice([f for f in FOLDERS if f != params["subfolder"]])
    return params


def _rename(rng: random.Random) -> Params:
    params = _in_folder(rng)
    stem, dot, extension = params["file_name"].rpartition(".")
    params["new_name"] = f"{stem}_{rng.choice(_RENAME_SUFFIXES)}{dot}{extension}"
    return params


def _count(rng: random.Random) -> Params:
    files = _storage(rng)
    folder = rng.choice(FOLDERS)
    count = sum(1 for path in files if path.startswith(folder + "/"))
    return {"subfolder": folder, "files": files, "count": count}


TASKS: list[Task] = [
    Task(
        name="FilesDeleteFile",
        app=FILES,
        family="files",
        sample=_in_folder,
        setup=lambda p: {"files": p["files"]},
        plan=lambda p: [
            *_open_folder(p["subfolder"]),
            hold(p["file_name"]),
            tap("Delete"),
            tap("OK"),
            done(),
        ],
        check=lambda s, p, a: (
            f"{p['subfolder']}/{p['file_name']}" not in s["files"]
            and _others_kept(s, p, f"{p['subfolder']}/{p['file_name']}")
        ),
        changes=lambda p: {"files": paths(f"{p['subfolder']}/{p['file_name']}")},
        max_steps=10,
    ),
    Task(
        name="FilesMoveFile",
        app=FILES,
        family="files",
        sample=_move,
        setup=lambda p: {"files": p["files"]},
        plan=lambda p: [
            *_open_folder(p["subfolder"]),
            hold(p["file_name"]),
            tap("More options"),
            tap("Move to…"),
            tap(p["destination_folder"]),
            tap("Move"),
            done(),
        ],
        check=lambda s, p, a: (
            f"{p['destination_folder']}/{p['file_name']}" in s["files"]
            and _others_kept(s, p, f"{p['subfolder']}/{p['file_name']}")
            and f"{p['subfolder']}/{p['file_name']}" not in s["files"]
        ),
        changes=lambda p: {
            "files": paths(
                f"{p['subfolder']}/{p['file_name']}", f"{p['destination_folder']}/{p['file_name']}"
            )
        },
        max_steps=12,
    ),
    Task(
        name="FilesRenameFile",
        app=FILES,
        family="files",
        sample=_rename,
        setup=lambda p: {"files": p["files"]},
        plan=lambda p: [
            *_open_folder(p["subfolder"]),
            hold(p["file_name"]),
            tap("More options"),
            tap("Rename"),
            type_in(None, p["new_name"], clear=True),
            tap("OK"),
            done(),
        ],
        check=lambda s, p, a: (
            f"{p['subfolder']}/{p['new_name']}" in s["files"]
            and _others_kept(s, p, f"{p['subfolder']}/{p['file_name']}")
            and f"{p['subfolder']}/{p['file_name']}" not in s["files"]
        ),
        changes=lambda p: {
            "files": paths(
                f"{p['subfolder']}/{p['file_name']}", f"{p['subfolder']}/{p['new_name']}"
            )
        },
        max_steps=12,
    ),
    Task(
        name="FilesCreateFolder",
        app=FILES,
        family="files",
        sample=lambda rng: {
            "folder_name": _folder_name(rng),
            "subfolder": rng.choice(("Documents", "Download", "Pictures")),
        },
        plan=lambda p: [
            *_open_folder(p["subfolder"]),
            tap("More options"),
            tap("New folder"),
            type_in(None, p["folder_name"]),
            tap("OK"),
            done(),
        ],
        check=lambda s, p, a: f"{p['subfolder']}/{p['folder_name']}" in s["folders"],
        changes=lambda p: {"folders": paths(f"{p['subfolder']}/{p['folder_name']}")},
        max_steps=10,
    ),
    Task(
        name="FilesCountFilesInFolder",
        app=FILES,
        family="question",
        sample=_count,
        setup=lambda p: {"files": p["files"]},
        plan=lambda p: [*_open_folder(p["subfolder"]), done(answer=str(p["count"]))],
        check=lambda s, p, a: same_digits(a, str(p["count"])),
        max_steps=8,
    ),
]
