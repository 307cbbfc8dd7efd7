"""Plan steps and answer checks the note, file, expense, to-do, recipe and timer tasks share."""

from __future__ import annotations

import datetime as dt
import re

from simulator.apps.datepicker import day_description
from simulator.state import DeviceState
from simulator.tasks.base import PlanStep, normalize_text, tap

TODAY = dt.date.fromisoformat(DeviceState.model_fields["date"].default)


def hold(target: str, near: str | None = None) -> PlanStep:
    """A long press on the element labelled `target`."""
    return PlanStep(tool="long_press", target=target, near=near)


def pick_date_steps(day: dt.date) -> list[PlanStep]:
    """Choose `day` in an open date picker of the month it falls in, and confirm."""
    return [tap(day_description(day)), tap("OK")]


def spoken_date(day: dt.date) -> str:
    """ "October 18 2024", as AndroidWorld's goals name a day."""
    return f"{day.strftime('%B')} {day.day} {day.year}"


def same_titles(given: str | None, expected: list[str]) -> bool:
    """A list answer ("A, B and C"): the same titles in any order, nothing missing or extra."""
    if given is None:
        return False
    wanted = {normalize_text(title) for title in expected}
    found: set[str] = set()
    for piece in re.split(r"[,;\n]", given):
        piece = re.sub(r"^\s*and\s+", "", piece)
        if normalize_text(piece) in wanted:  # a title may hold "and" itself
            found.add(normalize_text(piece))
        else:
            found.update(normalize_text(p) for p in re.split(r"\s+and\s+", piece))
    found.discard("")
    return found == wanted


def same_lines(actual: str, expected: str) -> bool:
    """A text file's content: the same lines, ignoring blank lines and edge spaces."""

    def lines(text: str) -> list[str]:
        return [" ".join(line.split()) for line in text.splitlines() if line.strip()]

    return lines(actual) == lines(expected)
