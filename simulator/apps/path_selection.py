"""What Files and Markor share about selected paths: picking them, and moving them elsewhere."""

from __future__ import annotations

from simulator.apps import storage
from simulator.runtime import Phone


def toggle(selected: list[str], path: str) -> None:
    """A tap while selecting: an unselected path joins the selection, a selected one leaves it."""
    if path in selected:
        selected.remove(path)
    else:
        selected.append(path)


class MoveTarget:
    """The folder a folder chooser shows while the selected paths wait to be moved into it."""

    def __init__(self, phone: Phone, paths: list[str], folder: str) -> None:
        self.phone = phone
        self.paths = paths
        self.folder = folder
        self.error = ""

    def open(self, folder: str) -> None:
        self.folder = folder
        self.phone.changes += 1

    def move(self) -> bool:
        """Moves the paths here; when storage refuses, keeps its reason in `error` to show."""
        problem = storage.move_into(self.phone.state, self.paths, self.folder)
        if problem is None:
            return True
        self.error = problem
        self.phone.changes += 1
        return False
