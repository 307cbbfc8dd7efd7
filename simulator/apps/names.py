"""The names people use for the simulated apps, and how a name someone types finds its app.

People rarely say an app's launcher label exactly: they write "the calendar app", the store's
name ("Simple Calendar Pro"), what the app is for ("expense tracker", "to-do list") or a
shortening ("sms"). `open_app` and the launcher's search both answer to every name listed here,
ignoring case, spacing, hyphens and a leading "the"/"my" or trailing "app". A name never picks
an app by a guess: one that fits several apps (the word "Pro" is in both "Pro Expense" and
"Simple Calendar Pro") is refused with the candidates named.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

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

# Other names of each app, beside its launcher label: store names and what people call it.
APP_ALIASES: Mapping[str, tuple[str, ...]] = {
    LAUNCHER: ("home screen", "launcher"),
    SETTINGS: ("system settings", "phone settings", "device settings", "preferences"),
    CLOCK: ("alarm", "alarms", "alarm clock", "timer", "stopwatch", "world clock"),
    CONTACTS: ("address book", "phone book", "people", "contact list"),
    MESSAGES: ("sms", "texts", "text messages", "messaging", "Google Messages", "SMS Messenger"),
    CALENDAR: ("Simple Calendar", "Simple Calendar Pro", "agenda", "events", "schedule"),
    MARKOR: ("notes", "note", "notepad", "markdown editor", "text editor"),
    FILES: ("file manager", "files manager", "file browser", "Files by Google", "documents"),
    EXPENSE: ("expenses", "expense", "expense tracker", "expense manager", "spending"),
    TASKS_APP: ("to-do", "to-dos", "to-do list", "todo list", "tasks.org", "task list"),
    BROCCOLI: ("recipes", "recipe", "recipe book", "cookbook", "Broccoli Recipe App"),
}

# Words around a name that do not name an app ("the calendar app", "my notes").
_LEADING = ("the", "my")
_TRAILING = ("app", "application")


def words(name: str) -> tuple[str, ...]:
    """`name` as the words it is matched by: lower case, hyphens and dots within a word gone
    ("to-do" and "todo" are one word), a leading "the"/"my" and trailing "app" dropped."""
    joined = re.sub(r"(?<=\w)[-.'’](?=\w)", "", name.casefold())
    found = re.findall(r"\w+", joined)
    while found and found[0] in _LEADING:
        found = found[1:]
    while len(found) > 1 and found[-1] in _TRAILING:
        found = found[:-1]
    return tuple(found)


def compact(name: str) -> str:
    """`name` with spacing ignored: "ProExpense" and "pro expense" are one name."""
    return "".join(words(name))


def app_names(package: str, label: str) -> tuple[str, ...]:
    """Every name `package` answers to: its label first, then its aliases."""
    return (label, *APP_ALIASES.get(package, ()))


class AmbiguousAppName(LookupError):
    """A name that fits several apps."""

    def __init__(self, name: str, labels: list[str]) -> None:
        candidates = ", ".join(repr(label) for label in labels)
        super().__init__(f"the app name {name!r} is ambiguous: it could be any of {candidates}")
        self.labels = labels


def find_app(name: str, labels: Mapping[str, str]) -> str | None:
    """The package (of `labels`, package -> launcher label) that `name` names: by package, by
    a whole name of one app, or by words that all belong to a name of only one app. None when
    no app fits; AmbiguousAppName when several do."""
    wanted = name.strip()
    if wanted in labels:
        return wanted
    whole = compact(wanted)
    if not whole:
        return None
    exact = [p for p, label in labels.items() if whole in map(compact, app_names(p, label))]
    if exact:
        return _one(wanted, exact, labels)
    asked = set(words(wanted))
    partial = [
        package
        for package, label in labels.items()
        if any(asked <= set(words(known)) for known in app_names(package, label))
    ]
    return _one(wanted, partial, labels) if partial else None


def search_apps(query: str, labels: Mapping[str, str]) -> list[str]:
    """The packages whose label or another name holds `query` as typed so far (spacing and
    case ignored), as a launcher's search lists them."""
    typed = compact(query)
    return [
        package
        for package, label in labels.items()
        if any(typed in compact(known) for known in app_names(package, label))
    ]


def _one(name: str, packages: list[str], labels: Mapping[str, str]) -> str:
    if len(packages) > 1:
        raise AmbiguousAppName(name, sorted(labels[p] for p in packages))
    return packages[0]
