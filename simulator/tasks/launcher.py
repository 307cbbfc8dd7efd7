"""The launcher: finding apps in the app drawer."""

from __future__ import annotations

from simulator.state import LAUNCHER
from simulator.tasks.base import APP_PACKAGES, Task, done, pick, swipe, tap

TASKS: list[Task] = [
    Task(
        name="OpenAppTaskEval",
        app=LAUNCHER,
        family="navigation",
        sample=pick(("Settings", "Clock", "Contacts", "Calendar"), "app"),
        plan=lambda p: [swipe("up"), tap(p["app"]), done()],
        check=lambda s, p, a: s["foreground"] == APP_PACKAGES[p["app"]],
        max_steps=6,
    ),
]
