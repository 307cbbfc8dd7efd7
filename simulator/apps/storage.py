"""The phone's shared storage as Markor and Files see it: folders and text files in the state.

Paths are relative to the storage root ("Documents/Markor/todo.md"); "" is the root itself. A
folder exists when the state lists it or when something lies inside it.
"""

from __future__ import annotations

import hashlib
import posixpath

from simulator.state import DeviceState

ROOT = ""

_KINDS = {
    ".md": "Markdown document",
    ".txt": "Plain text",
    ".pdf": "PDF document",
    ".jpg": "JPG image",
    ".jpeg": "JPG image",
    ".png": "PNG image",
    ".mp3": "MP3 audio",
    ".m4a": "M4A audio",
    ".mp4": "MP4 video",
    ".zip": "Zip archive",
    ".apk": "Android package",
    ".exe": "EXE file",
}


def join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def parent(path: str) -> str:
    return posixpath.dirname(path)


def name_of(path: str) -> str:
    return posixpath.basename(path)


def _ancestors(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def folders(state: DeviceState) -> set[str]:
    """Every folder below the root."""
    found = set(state.folders)
    for path in [*state.folders, *state.files]:
        found.update(_ancestors(path))
    return found


def is_folder(state: DeviceState, path: str) -> bool:
    return path == ROOT or path in folders(state)


def listing(state: DeviceState, folder: str) -> tuple[list[str], list[str]]:
    """Names of the sub-folders and of the files directly inside `folder`, each sorted."""
    subfolders = sorted(
        (name_of(f) for f in folders(state) if parent(f) == folder), key=str.casefold
    )
    files = sorted((name_of(p) for p in state.files if parent(p) == folder), key=str.casefold)
    return subfolders, files


def item_count(state: DeviceState, folder: str) -> int:
    subfolders, files = listing(state, folder)
    return len(subfolders) + len(files)


def exists(state: DeviceState, path: str) -> bool:
    return path in state.files or is_folder(state, path)


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


def write(state: DeviceState, path: str, content: str) -> None:
    state.files = {**state.files, path: content}


def create_folder(state: DeviceState, path: str) -> None:
    if not is_folder(state, path):
        state.folders = [*state.folders, path]


def _keep_parents(state: DeviceState, path: str) -> list[str]:
    """The folders listed, plus those above `path`: emptying a folder does not remove it."""
    return state.folders + [a for a in _ancestors(path) if a not in state.folders]


def delete(state: DeviceState, path: str) -> None:
    """Remove a file, or a folder with everything in it."""
    kept = _keep_parents(state, path)
    state.files = {p: c for p, c in state.files.items() if not _inside(p, path)}
    state.folders = [f for f in kept if not _inside(f, path)]


def relocate(state: DeviceState, path: str, new_path: str) -> str | None:
    """Rename or move `path` (a file or a whole folder) to `new_path`; an error, or None."""
    if new_path == path:
        return None
    if exists(state, new_path):
        return f"{name_of(new_path)} already exists"
    if _inside(new_path, path):
        return "A folder cannot be moved into itself"

    def moved(p: str) -> str:
        return new_path + p[len(path) :] if _inside(p, path) else p

    kept = _keep_parents(state, path)
    state.files = {moved(p): c for p, c in state.files.items()}
    state.folders = [moved(f) for f in kept]
    return None


def valid_name(name: str) -> str | None:
    """Why `name` cannot name a file or folder, or None when it can."""
    if not name:
        return "Enter a name"
    if "/" in name or name in (".", ".."):
        return "Invalid name"
    return None


def rename(state: DeviceState, path: str, name: str) -> str | None:
    """Give `path` a new name in the same folder; an error, or None."""
    problem = valid_name(name)
    if problem is None:
        problem = relocate(state, path, join(parent(path), name))
    return problem


def move_into(state: DeviceState, paths: list[str], folder: str) -> str | None:
    """Move each of `paths` into `folder`, stopping at the first that cannot go; an error, or
    None when all moved."""
    for path in paths:
        problem = relocate(state, path, join(folder, name_of(path)))
        if problem is not None:
            return problem
    return None


def make_folder(state: DeviceState, folder: str, name: str) -> str | None:
    """Create the folder `name` inside `folder`; an error, or None."""
    problem = valid_name(name)
    path = join(folder, name)
    if problem is None and exists(state, path):
        problem = f"{name} already exists"
    if problem is None:
        create_folder(state, path)
    return problem


def size_bytes(path: str, content: str) -> int:
    """A text file's real size; other files (photos, PDFs) get a stable size of their own."""
    if content or posixpath.splitext(path)[1].lower() in (".md", ".txt"):
        return len(content.encode())
    digest = hashlib.sha256(name_of(path).encode()).digest()
    return 20_000 + int.from_bytes(digest[:3], "big") % 3_000_000


def size_label(size: int) -> str:
    if size < 1000:
        return f"{size} B"
    if size < 1_000_000:
        return f"{size / 1000:.0f} kB"
    return f"{size / 1_000_000:.1f} MB"


def kind_label(name: str) -> str:
    return _KINDS.get(posixpath.splitext(name)[1].lower(), "File")
