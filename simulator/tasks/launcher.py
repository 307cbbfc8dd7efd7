"""The launcher: finding apps in the app drawer."""

from __future__ import annotations

from simulator.state import LAUNCHER
from simulator.tasks.base import APP_PACKAGES, Task, done, pick, swipe, tap

TASKS: list[Task] = [
    Task(
        name="OpenAppTaskEval",
        app=LAUNCHER,
        family="navigation",
        templates=(
            "Open the {app} app from the app drawer.",
            "Find {app} among all apps and open it.",
            "Could you open {app} from the app drawer for me?",
            "I'd like {app} started from the app drawer.",
            "App drawer: open {app}.",
            "I can't see {app} on the home screen, so go into the app drawer and open it.",
            "Hey, can you pull up the app drawer and open {app}?",
            "To get to {app}, swipe up into the app drawer and tap it.",
            "Would you mind opening {app} via the app drawer?",
            "{app} should end up open, started from the app drawer.",
            "Go to the app drawer, then tap {app} to open it.",
            "Let's get {app} running from the app drawer.",
            "Launch {app} through the list of all apps.",
        ),
        sample=pick(("Settings", "Clock", "Contacts", "Calendar"), "app"),
        plan=lambda p: [swipe("up"), tap(p["app"]), done()],
        check=lambda s, p, a: s["foreground"] == APP_PACKAGES[p["app"]],
        max_steps=6,
    ),
]
