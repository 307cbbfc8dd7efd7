"""Tasks (Tasks.org): the task list with a check box per task, and the task editor.

A task's check box completes it; its title opens the editor, which sets the name, due date
(through the date picker), priority and description, saves on Save or back, and deletes from
its menu. Completed tasks are listed only after "Show completed".
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from functools import partial

from simulator.apps.datepicker import DatePickerDialog
from simulator.apps.dialogs import PopupMenu, ask_to_delete
from simulator.display import WIDTH
from simulator.runtime import Page, Phone
from simulator.state import TASKS_APP, TodoTask
from simulator.view import (
    FRAME,
    IMAGE,
    LINEAR,
    RADIO,
    RELATIVE,
    TEXT,
    VIEW_GROUP,
    Rect,
    ScrollState,
    View,
    rid,
)
from simulator.widgets import Field, edit_text, icon_button, overflow_button, recycler, text

_BAR = 168
_ROW = 170
_HEADER = 120
PRIORITIES = ("none", "low", "medium", "high")


def due_label(due: str, today: str) -> str:
    """How the list shows a due date: Today, Tomorrow, Yesterday, or "Oct 18"."""
    day, now = dt.date.fromisoformat(due), dt.date.fromisoformat(today)
    relative = {0: "Today", 1: "Tomorrow", -1: "Yesterday"}.get((day - now).days)
    if relative is not None:
        return relative
    shown = f"{day.strftime('%b')} {day.day}"
    return shown if day.year == now.year else f"{shown}, {day.year}"


def list_order(due: str, title: str) -> tuple[int, str, str]:
    """Where a task stands in its part of the list (open, or completed): by due date, tasks
    without one last, then by title."""
    return (0 if due else 1, due, title.casefold())


def _order(task: TodoTask) -> tuple[int, str, str]:
    return list_order(task.due, task.title)


class TaskListPage(Page):
    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, TASKS_APP)
        self.show_completed = False
        self.scroll = ScrollState()

    def _changed(self) -> None:
        self.phone.changes += 1

    def _complete(self, task: TodoTask) -> None:
        task.completed = not task.completed
        self._changed()

    def _change_due(self, task: TodoTask) -> None:
        def chosen(day: dt.date) -> None:
            task.due = day.isoformat()

        start = dt.date.fromisoformat(task.due or self.state.date)
        self.phone.open_dialog(DatePickerDialog(self.phone, TASKS_APP, start, chosen))

    def _toggle_completed(self) -> None:
        self.show_completed = not self.show_completed
        self.scroll.offset = 0
        self._changed()

    def _more(self) -> None:
        label = "Hide completed" if self.show_completed else "Show completed"
        items = [
            (label, self._toggle_completed),
            ("Sort", lambda: None),
            ("Settings", lambda: None),
        ]
        self.phone.open_dialog(PopupMenu(self.phone, TASKS_APP, items))

    def _row(self, task: TodoTask) -> Callable[[Rect], View]:
        def build(box: Rect) -> View:
            children: list[View] = [
                View(
                    IMAGE,
                    Rect(0, box.y1, 168, box.y1 + 147),
                    rid=rid(TASKS_APP, "completeBox"),
                    clickable=True,
                    focusable=True,
                    on_tap=partial(self._complete, task),
                ),
                text(task.title, 168, box.y1 + 45, 46, 800, rid=rid(TASKS_APP, "title")),
            ]
            if task.due:
                label = due_label(task.due, self.state.date)
                children.append(
                    View(
                        TEXT,
                        Rect(1040 - len(label) * 20 - 40, box.y1 + 40, 1059, box.y1 + 110),
                        rid=rid(TASKS_APP, "due_date"),
                        text=label,
                        clickable=True,
                        focusable=True,
                        on_tap=partial(self._change_due, task),
                    )
                )
            return View(
                FRAME,
                box,
                rid=rid(TASKS_APP, "row"),
                children=[
                    View(
                        RELATIVE,
                        box,
                        rid=rid(TASKS_APP, "rowBody"),
                        clickable=True,
                        focusable=True,
                        long_clickable=True,
                        on_tap=lambda: self.phone.push(TaskEditPage(self.phone, task)),
                        children=children,
                    )
                ],
            )

        return build

    def _header(self, label: str) -> Callable[[Rect], View]:
        return lambda box: text(
            label, 63, box.y1 + 42, 40, 1000, rid=rid(TASKS_APP, "header_title")
        )

    def content(self, frame: Rect) -> View:
        bar = Rect(0, frame.y1, WIDTH, frame.y1 + _BAR)
        tasks = self.state.todo_tasks
        rows: list[tuple[int, Callable[[Rect], View]]] = [
            (_ROW, self._row(t)) for t in sorted((t for t in tasks if not t.completed), key=_order)
        ]
        if self.show_completed:
            done = sorted((t for t in tasks if t.completed), key=_order)
            if done:
                rows.append((_HEADER, self._header("Completed")))
                rows += [(_ROW, self._row(t)) for t in done]
        body = Rect(0, bar.y2, WIDTH, frame.y2)
        listing: View = (
            recycler(body, rows, self.scroll, rid(TASKS_APP, "recycler_view"))
            if rows
            else text("No tasks", 420, body.y1 + 500, 48, 1000, rid=rid(TASKS_APP, "empty_text"))
        )
        toolbar = View(
            VIEW_GROUP,
            bar,
            rid=rid(TASKS_APP, "toolbar"),
            children=[
                text("My Tasks", 63, bar.y1 + 48, 60, 700),
                icon_button(
                    "Search",
                    Rect(786, bar.y1 + 10, 933, bar.y2 - 10),
                    lambda: None,
                    rid(TASKS_APP, "menu_search"),
                ),
                overflow_button(Rect(933, bar.y1 + 10, 1080, bar.y2 - 10), self._more),
            ],
        )
        fab = icon_button(
            "New task",
            Rect(WIDTH - 42 - 168, frame.y2 - 42 - 168, WIDTH - 42, frame.y2 - 42),
            lambda: self.phone.push(TaskEditPage(self.phone, None)),
            rid(TASKS_APP, "fab"),
        )
        return View(
            FRAME,
            frame,
            rid=rid(TASKS_APP, "task_list_coordinator"),
            children=[toolbar, listing, fab],
        )


class TaskEditPage(Page):
    """A new task, or an existing one; Save or back keeps what was entered."""

    def __init__(self, phone: Phone, task: TodoTask | None) -> None:
        super().__init__(phone, TASKS_APP)
        self.task = task
        self.title = Field(text=task.title if task else "", hint="Task name")
        self.notes = Field(text=task.notes if task else "", hint="Description")
        self.due = task.due if task else ""
        self.priority: str = task.priority if task else "none"
        self.scroll = ScrollState()
        if task is None:
            phone.focus_field(self.title, self)

    def _save(self) -> None:
        title = self.title.text.strip()
        if title:
            fields = {
                "title": title,
                "due": self.due,
                "priority": self.priority,
                "notes": self.notes.text.strip(),
            }
            if self.task is None:
                self.state.todo_tasks = [*self.state.todo_tasks, TodoTask(**fields)]
            else:
                for key, value in fields.items():
                    setattr(self.task, key, value)
        self.phone.pop(self)

    def on_back(self) -> bool:
        self._save()
        return True

    def _delete(self) -> None:
        task = self.task

        def remove() -> None:
            self.state.todo_tasks = [t for t in self.state.todo_tasks if t is not task]

        ask_to_delete(self, "", "Delete this task?", remove)

    def _more(self) -> None:
        items: list[tuple[str, Callable[[], None]]] = [("Copy", lambda: None)]
        if self.task is not None:
            items.append(("Delete task", self._delete))
        self.phone.open_dialog(PopupMenu(self.phone, TASKS_APP, items))

    def _pick_due(self) -> None:
        def chosen(day: dt.date) -> None:
            self.due = day.isoformat()

        start = dt.date.fromisoformat(self.due or self.state.date)
        self.phone.open_dialog(DatePickerDialog(self.phone, TASKS_APP, start, chosen))

    def _set_priority(self, priority: str) -> None:
        self.priority = priority
        self.phone.changes += 1

    def content(self, frame: Rect) -> View:
        bar = Rect(0, frame.y1, WIDTH, frame.y1 + _BAR)
        focus = self.phone.focus
        y = bar.y2 + 20
        title_box = Rect(63, y, 1017, y + 160)
        y = title_box.y2 + 40
        due_text = "No due date"
        if self.due:
            day = dt.date.fromisoformat(self.due)
            due_text = f"{day.strftime('%a, %b')} {day.day}"
        due_row = View(
            LINEAR,
            Rect(0, y, WIDTH, y + 160),
            rid=rid(TASKS_APP, "due_date_row"),
            clickable=True,
            focusable=True,
            on_tap=self._pick_due,
            children=[
                View(IMAGE, Rect(63, y + 50, 126, y + 113), rid=rid(TASKS_APP, "icon")),
                text(due_text, 189, y + 50, 46, 1000, rid=rid(TASKS_APP, "due_date")),
            ],
        )
        y += 180
        width = (WIDTH - 230) // len(PRIORITIES)
        radios = [
            View(
                RADIO,
                Rect(210 + i * width, y + 20, 210 + (i + 1) * width, y + 140),
                rid=rid(TASKS_APP, f"priority_{name}"),
                text=name.capitalize(),
                checkable=True,
                checked=self.priority == name,
                clickable=True,
                focusable=True,
                on_tap=partial(self._set_priority, name),
            )
            for i, name in enumerate(PRIORITIES)
        ]
        priority_row = View(
            LINEAR,
            Rect(0, y, WIDTH, y + 160),
            rid=rid(TASKS_APP, "priority_row"),
            children=[
                text("Priority", 63, y + 55, 40, 200),
                View(
                    "android.widget.RadioGroup", Rect(210, y, WIDTH - 20, y + 160), children=radios
                ),
            ],
        )
        y += 180
        notes = edit_text(
            self.notes,
            Rect(63, y, 1017, y + 200),
            focus is self.notes,
            self.phone.focuser(self.notes, self),
            rid(TASKS_APP, "notes"),
        )
        toolbar = View(
            VIEW_GROUP,
            bar,
            rid=rid(TASKS_APP, "toolbar"),
            children=[
                icon_button(
                    "Save",
                    Rect(0, bar.y1 + 10, 147, bar.y2 - 10),
                    self._save,
                    rid(TASKS_APP, "save"),
                ),
                overflow_button(Rect(933, bar.y1 + 10, 1080, bar.y2 - 10), self._more),
            ],
        )
        title = edit_text(
            self.title,
            title_box,
            focus is self.title,
            self.phone.focuser(self.title, self),
            rid(TASKS_APP, "title"),
        )
        return View(
            FRAME,
            frame,
            rid=rid(TASKS_APP, "task_edit_root"),
            children=[toolbar, title, due_row, priority_row, notes],
        )


def tasks_root(phone: Phone) -> Page:
    return TaskListPage(phone)
