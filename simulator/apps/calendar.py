"""Calendar: the schedule from today on, event details, and creating events."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from simulator.apps.clock import format_time
from simulator.apps.dialogs import ask_to_delete
from simulator.apps.timepicker import TimePickerDialog
from simulator.display import WIDTH
from simulator.runtime import Page, Phone
from simulator.state import CALENDAR, Event
from simulator.view import FRAME, LINEAR, SWITCH, TEXT, Rect, ScrollState, View, rid
from simulator.widgets import (
    Field,
    button,
    edit_text,
    fab,
    icon_button,
    recycler,
    text,
    toolbar,
)

_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def day_label(iso: str) -> str:
    """ "2024-10-15" -> "Tue, Oct 15"."""
    day = dt.date.fromisoformat(iso)
    return f"{day.strftime('%a')}, {_MONTHS[day.month - 1][:3]} {day.day}"


class SchedulePage(Page):
    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, CALENDAR)
        self.scroll = ScrollState()

    def _event_row(self, event: Event) -> Callable[[Rect], View]:
        def build(box: Rect) -> View:
            desc = f"{event.title}, {day_label(event.date)}, {format_time(event.time)}"
            return View(
                LINEAR,
                box,
                rid=rid(CALENDAR, "event_chip"),
                desc=desc,
                clickable=True,
                focusable=True,
                on_tap=lambda: self.phone.push(EventPage(self.phone, event)),
                children=[
                    text(event.title, 231, box.y1 + 24, 44, 1000, rid=rid(CALENDAR, "title")),
                    text(
                        format_time(event.time),
                        231,
                        box.y1 + 90,
                        37,
                        1000,
                        rid=rid(CALENDAR, "time"),
                    ),
                ],
            )

        return build

    def _day_header(self, iso: str) -> Callable[[Rect], View]:
        return lambda box: View(
            FRAME,
            box,
            children=[
                text(day_label(iso), 63, box.y1 + 30, 40, 1000, rid=rid(CALENDAR, "day_header"))
            ],
        )

    def content(self, frame: Rect) -> View:
        today = dt.date.fromisoformat(self.state.date)
        upcoming = sorted(
            (e for e in self.state.events if e.date >= self.state.date),
            key=lambda e: (e.date, e.time),
        )
        rows: list[tuple[int, Callable[[Rect], View]]] = []
        current = ""
        for event in upcoming:
            if event.date != current:
                current = event.date
                rows.append((110, self._day_header(event.date)))
            rows.append((180, self._event_row(event)))
        body = Rect(0, frame.y1 + 168, WIDTH, frame.y2)
        title = f"{_MONTHS[today.month - 1]} {today.year}"
        children = [
            toolbar(
                CALENDAR,
                title,
                frame,
                None,
                [
                    icon_button(
                        "Jump to Today", Rect(786, frame.y1 + 10, 933, frame.y1 + 158), lambda: None
                    ),
                    icon_button(
                        "More options", Rect(933, frame.y1 + 10, 1080, frame.y1 + 158), None
                    ),
                ],
            ),
        ]
        if rows:
            children.append(recycler(body, rows, self.scroll, rid(CALENDAR, "schedule_list")))
        else:
            children.append(
                text(
                    "Nothing planned. Tap to create.",
                    200,
                    body.y1 + 400,
                    44,
                    1000,
                    rid=rid(CALENDAR, "empty_schedule"),
                )
            )
        children.append(
            fab(
                CALENDAR,
                "Create new event",
                lambda: self.phone.push(EventEditorPage(self.phone)),
                frame.y2,
                "floating_action_button",
            )
        )
        return View(FRAME, frame, rid=rid(CALENDAR, "main_pane"), children=children)


class EventPage(Page):
    def __init__(self, phone: Phone, event: Event) -> None:
        super().__init__(phone, CALENDAR)
        self.event = event

    def _delete(self) -> None:
        event = self.event

        def remove() -> None:
            self.state.events = [e for e in self.state.events if e is not event]

        ask_to_delete(self, "Delete this event?", "", remove)

    def content(self, frame: Rect) -> View:
        e = self.event
        y = frame.y1 + 200
        return View(
            FRAME,
            frame,
            rid=rid(CALENDAR, "event_info"),
            children=[
                toolbar(
                    CALENDAR,
                    "",
                    frame,
                    lambda: self.phone.pop(self),
                    [
                        icon_button(
                            "Delete event",
                            Rect(786, frame.y1 + 10, 933, frame.y1 + 158),
                            self._delete,
                            rid(CALENDAR, "delete"),
                        ),
                    ],
                ),
                text(e.title, 189, y, 64, 1040, rid=rid(CALENDAR, "title")),
                text(
                    f"{day_label(e.date)} · {format_time(e.time)}",
                    189,
                    y + 120,
                    40,
                    1040,
                    rid=rid(CALENDAR, "when_datetime"),
                ),
            ],
        )


class EventEditorPage(Page):
    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, CALENDAR)
        hour = (int(phone.state.time[:2]) + 1) % 24
        self.hour, self.minute = hour, 0
        self.title = Field(hint="Add title")
        phone.focus_field(self.title, self)

    def _pick_time(self) -> None:
        def done(hour: int, minute: int) -> None:
            self.hour, self.minute = hour, minute

        self.phone.open_dialog(TimePickerDialog(self.phone, CALENDAR, self.hour, self.minute, done))

    def _save(self) -> None:
        title = self.title.text.strip()
        if not title:
            return
        event = Event(title=title, date=self.state.date, time=f"{self.hour:02d}:{self.minute:02d}")
        self.state.events = [*self.state.events, event]
        self.phone.pop(self)

    def content(self, frame: Rect) -> View:
        save = button(
            "Save",
            Rect(800, frame.y1 + 30, 1038, frame.y1 + 138),
            self._save,
            rid(CALENDAR, "save"),
        )
        y = frame.y1 + 190
        start = format_time(f"{self.hour:02d}:{self.minute:02d}")
        return View(
            FRAME,
            frame,
            rid=rid(CALENDAR, "edit_event"),
            children=[
                toolbar(CALENDAR, "", frame, lambda: self.phone.pop(self), [save], up_desc="Close"),
                edit_text(
                    self.title,
                    Rect(189, y, 1038, y + 160),
                    self.phone.focus is self.title,
                    self.phone.focuser(self.title, self),
                    rid(CALENDAR, "title_edit_text"),
                ),
                View(
                    LINEAR,
                    Rect(0, y + 200, WIDTH, y + 360),
                    rid=rid(CALENDAR, "all_day_row"),
                    children=[
                        text("All-day", 189, y + 250, 44, 800),
                        View(
                            SWITCH,
                            Rect(891, y + 217, 1038, y + 343),
                            rid=rid(CALENDAR, "all_day_switch"),
                            checkable=True,
                            clickable=True,
                            focusable=True,
                            on_tap=lambda: None,
                        ),
                    ],
                ),
                View(
                    LINEAR,
                    Rect(0, y + 360, WIDTH, y + 520),
                    rid=rid(CALENDAR, "start_row"),
                    children=[
                        text(
                            day_label(self.state.date),
                            189,
                            y + 410,
                            44,
                            700,
                            rid=rid(CALENDAR, "start_date"),
                        ),
                        View(
                            TEXT,
                            Rect(760, y + 380, 1038, y + 500),
                            rid=rid(CALENDAR, "start_time"),
                            text=start,
                            desc=f"Start time: {start}",
                            clickable=True,
                            focusable=True,
                            on_tap=self._pick_time,
                        ),
                    ],
                ),
            ],
        )


def calendar_root(phone: Phone) -> Page:
    return SchedulePage(phone)
