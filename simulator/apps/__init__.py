"""The simulated apps and the launcher labels they are installed under."""

from __future__ import annotations

from simulator.apps.calendar import calendar_root
from simulator.apps.clock import clock_root
from simulator.apps.contacts import contacts_root
from simulator.apps.expense import expense_root
from simulator.apps.files import files_root
from simulator.apps.launcher import HomePage
from simulator.apps.markor import markor_root
from simulator.apps.messages import messages_root
from simulator.apps.recipe import recipe_root
from simulator.apps.settings import settings_root
from simulator.apps.tasks_app import tasks_root
from simulator.runtime import AppSpec
from simulator.state import (
    BROCCOLI,
    CALENDAR,
    CLOCK,
    CONTACTS,
    EXPENSE,
    FILES,
    LAUNCHER,
    MARKOR,
    MESSAGES,
    SETTINGS,
    TASKS_APP,
)

APPS: tuple[AppSpec, ...] = (
    AppSpec(LAUNCHER, "Pixel Launcher", HomePage),
    AppSpec(SETTINGS, "Settings", settings_root),
    AppSpec(CLOCK, "Clock", clock_root),
    AppSpec(CONTACTS, "Contacts", contacts_root),
    AppSpec(MESSAGES, "Messages", messages_root),
    AppSpec(CALENDAR, "Calendar", calendar_root),
    AppSpec(MARKOR, "Markor", markor_root),
    AppSpec(FILES, "Files", files_root),
    AppSpec(EXPENSE, "Pro Expense", expense_root),
    AppSpec(TASKS_APP, "Tasks", tasks_root),
    AppSpec(BROCCOLI, "Broccoli", recipe_root),
)
