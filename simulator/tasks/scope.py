"""What a task may change, and what an episode changed beyond that: its side effects.

A task declares its scope (`Task.changes`): the state keys it may change, and for a key that
holds records (alarms, contacts, the files, ...) a rule saying which records it may add, remove
or alter. An episode's side effects are every difference between the state it started from and
the state it ended in that falls outside that scope, each written as one line a person can read:
"auto_rotate: on -> off", "expenses: removed 'Lunch'", "alarms: changed '07:00' (enabled on ->
off)". An episode with side effects is not solved, whatever the task's check says.

Records are compared as a multiset: the order of a list is not state an agent could be asked
to change (the apps sort what they show), so a list that holds the same records in another
order is unchanged. A record that keeps its name and differs in some field is one change (both
its versions must be in scope); one that changes its name is a removal and an addition.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

State = Mapping[str, Any]
# Whether a task may add, remove or alter one record of a key: a record of a list of objects
# (a dict), a folder (its path), or a file (its path: a changed content changes the path's file).
RecordRule = Callable[[Any], bool]
# A task's scope: the keys it may change, each with the rule for its records (None: a key without
# records, such as `wifi` or the `stopwatch`, which may change in any way).
Changes = Mapping[str, RecordRule | None]

# Keys that change by merely using the phone, as any agent (the oracle included) must:
# - foreground: opening an app, going back or home changes which app is in front;
# - permission_prompts: an app asks for the notification permission on its first launch, and
#   any answer (or dismissing it) takes the prompt away;
# - notifications_allowed: answering that prompt with Allow, as a user lets an app they use
#   notify them; no task is about it and nothing a task checks depends on it.
INCIDENTAL_KEYS = frozenset({"foreground", "permission_prompts", "notifications_allowed"})

# Keys holding records, and the field that names a record of each: a record that keeps its name
# but differs otherwise is reported as changed, field by field. Messages have no name: a sent
# text is never edited, only sent or not.
_NAMED_BY: dict[str, str | None] = {
    "alarms": "time",
    "contacts": "name",
    "messages": None,
    "inbox": None,
    "events": "title",
    "expenses": "name",
    "todo_tasks": "title",
    "recipes": "title",
    "folders": None,
}
# A key mapping a record's path to its content.
_FILE_KEYS = frozenset({"files"})
RECORD_KEYS = frozenset(_NAMED_BY) | _FILE_KEYS

_SHOWN_CHARS = 40  # a long value (a recipe's directions) is cut short in a change's line


@dataclass(frozen=True)
class Change:
    """One difference between two states: its line, and the records it touches (both versions
    of an altered record; none for a plain value)."""

    key: str
    text: str
    records: tuple[Any, ...] = ()


def differences(before: State, after: State) -> list[Change]:
    """Every difference between two states, key by key in the order of `before`."""
    before, after = _as_seen(before), _as_seen(after)
    found: list[Change] = []
    for key in [*before, *(k for k in after if k not in before)]:
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        if key in _FILE_KEYS and isinstance(old, dict) and isinstance(new, dict):
            found.extend(_file_changes(key, old, new))
        elif isinstance(old, list) and isinstance(new, list):
            found.extend(_record_changes(key, old, new))
        elif isinstance(old, dict) and isinstance(new, dict):
            fields = _field_changes(old, new)
            found.append(Change(key, f"{key}: {fields}"))
        else:
            found.append(Change(key, f"{key}: {_show(old)} -> {_show(new)}"))
    return found


def _as_seen(state: State) -> State:
    """`state` with its folders as the phone shows them: those listed and every folder that
    holds a file. Moving the last file out of a folder lists that folder in the state, which
    changes nothing anyone sees."""
    if not isinstance(state.get("folders"), list) or not isinstance(state.get("files"), dict):
        return state
    folders = set(state["folders"])
    for path in state["files"]:
        parts = path.split("/")[:-1]
        folders.update("/".join(parts[: depth + 1]) for depth in range(len(parts)))
    return {**state, "folders": sorted(folders)}


def side_effects(before: State, after: State, changes: Changes) -> list[str]:
    """The lines of every difference outside the scope `changes` (incidental keys aside)."""
    return [
        change.text
        for change in differences(before, after)
        if change.key not in INCIDENTAL_KEYS and not _allowed(change, changes)
    ]


def _allowed(change: Change, changes: Changes) -> bool:
    if change.key not in changes:
        return False
    rule = changes[change.key]
    return rule is None or all(rule(record) for record in change.records)


def _record_changes(key: str, old: list[Any], new: list[Any]) -> list[Change]:
    removed = _without(old, new)
    added = _without(new, old)
    name_field = _NAMED_BY.get(key)
    found: list[Change] = []
    for record in removed:
        twin = _same_name(record, added, name_field)
        if twin is None:
            found.append(Change(key, f"{key}: removed {_name(key, record)}", (record,)))
            continue
        added.remove(twin)
        fields = _field_changes(record, twin)
        found.append(Change(key, f"{key}: changed {_name(key, record)} ({fields})", (record, twin)))
    found.extend(Change(key, f"{key}: added {_name(key, record)}", (record,)) for record in added)
    return found


def _without(records: list[Any], taken: list[Any]) -> list[Any]:
    """`records` less one copy of each record in `taken` (a multiset difference, in order)."""
    left = Counter(_canonical(record) for record in taken)
    kept = []
    for record in records:
        form = _canonical(record)
        if left[form]:
            left[form] -= 1
        else:
            kept.append(record)
    return kept


def _canonical(record: Any) -> str:
    return json.dumps(record, sort_keys=True, ensure_ascii=False)


def _same_name(record: Any, candidates: list[Any], name_field: str | None) -> Any | None:
    if name_field is None or not isinstance(record, dict):
        return None
    return next(
        (
            other
            for other in candidates
            if isinstance(other, dict) and other.get(name_field) == record.get(name_field)
        ),
        None,
    )


def _name(key: str, record: Any) -> str:
    """How a change's line names a record."""
    if not isinstance(record, dict):
        return repr(_cut(str(record)))
    if key == "messages":
        return f"{_cut(str(record.get('text')))!r} to {record.get('to')!r}"
    if key == "inbox":
        return f"{_cut(str(record.get('text')))!r} from {record.get('from')!r}"
    name_field = _NAMED_BY.get(key)
    if name_field is not None and name_field in record:
        return repr(_cut(str(record[name_field])))
    return _cut(_canonical(record))


def _file_changes(key: str, old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    found = [Change(key, f"{key}: removed {path!r}", (path,)) for path in old if path not in new]
    found += [
        Change(key, f"{key}: changed {path!r}", (path,))
        for path in old
        if path in new and old[path] != new[path]
    ]
    found += [Change(key, f"{key}: added {path!r}", (path,)) for path in new if path not in old]
    return found


def _field_changes(old: dict[str, Any], new: dict[str, Any]) -> str:
    names = [*old, *(name for name in new if name not in old)]
    return ", ".join(
        f"{name} {_show(old.get(name))} -> {_show(new.get(name))}"
        for name in names
        if old.get(name) != new.get(name)
    )


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, str):
        return repr(_cut(value))
    if isinstance(value, list | dict):
        return _cut(json.dumps(value, ensure_ascii=False))
    return str(value)


def _cut(text: str) -> str:
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"
