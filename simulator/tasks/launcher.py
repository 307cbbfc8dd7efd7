"""The launcher: finding apps on the home screen and in the app drawer."""

from __future__ import annotations

from simulator.state import LAUNCHER, SETTINGS
from simulator.tasks.base import Task, done, swipe, tap

TASKS: list[Task] = [
    Task(
        name="OpenAppTaskEval",
        app=LAUNCHER,
        family="navigation",
        templates=(
            "Open the Settings app from the app drawer.",
            "Find Settings among all apps and open it.",
            "Launch Settings through the list of all apps.",
        ),
        plan=lambda p: [swipe("up"), tap("Settings"), done()],
        check=lambda s, p, a: s["foreground"] == SETTINGS,
        max_steps=6,
    ),
]
