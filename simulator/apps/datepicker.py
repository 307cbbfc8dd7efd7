"""The Material date picker: a month of days to tap, or (after the mode button) a typed date."""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Callable
from functools import partial

from simulator.apps.dialogs import TextModePicker
from simulator.runtime import Phone
from simulator.view import FRAME, LINEAR, TEXT, VIEW_GROUP, Rect, View
from simulator.widgets import Field, button, dialog_frame, edit_text, icon_button, text

TEXT_MODE_DESC = "Switch to text input mode"
CALENDAR_MODE_DESC = "Switch to calendar input mode"
_WEEKDAYS = ("S", "M", "T", "W", "T", "F", "S")
_CELL = 120


def day_description(day: dt.date) -> str:
    """How the picker names a day to accessibility: "Friday, October 18, 2024"."""
    return f"{day.strftime('%A')}, {day.strftime('%B')} {day.day}, {day.year}"


def _short(day: dt.date) -> str:
    return f"{day.strftime('%a')}, {day.strftime('%b')} {day.day}"


class DatePickerDialog(TextModePicker):
    """Picks a day; `on_set(date)` runs on OK."""

    def __init__(
        self, phone: Phone, package: str, initial: dt.date, on_set: Callable[[dt.date], None]
    ) -> None:
        super().__init__(phone, package)
        self.selected = initial
        self.month = initial.replace(day=1)
        self.on_set = on_set
        self.typed = Field(hint="mm/dd/yyyy", on_enter=self._ok)

    def _pick(self, day: dt.date) -> None:
        self.selected = day
        self._changed()

    def _shift_month(self, months: int) -> None:
        index = self.month.year * 12 + self.month.month - 1 + months
        self.month = dt.date(index // 12, index % 12 + 1, 1)
        self._changed()

    def _read_input(self) -> bool:
        try:
            self.selected = dt.datetime.strptime(self.typed.text.strip(), "%m/%d/%Y").date()
        except ValueError:
            self.error = "Invalid format."
            return False
        self.error = ""
        self.month = self.selected.replace(day=1)
        return True

    def _may_leave_text_mode(self) -> bool:
        # an emptied input keeps the day picked before
        return not self.typed.text.strip() or self._read_input()

    def _start_typing(self) -> None:
        self.typed.set(self.selected.strftime("%m/%d/%Y"))
        self.phone.focus_field(self.typed, self)

    def _deliver(self) -> None:
        self.on_set(self.selected)

    # -- rendering --------------------------------------------------------------------------

    def window(self) -> View:
        box = Rect(77, 600, 1003, 1450) if self.text_mode else Rect(77, 440, 1003, 1960)
        inner = box.inset(42, 42)
        header_desc = CALENDAR_MODE_DESC if self.text_mode else TEXT_MODE_DESC
        header = View(
            LINEAR,
            Rect(inner.x1, inner.y1, inner.x2, inner.y1 + 300),
            rid=self._id("mtrl_picker_header"),
            children=[
                text(
                    "Select date",
                    inner.x1 + 63,
                    inner.y1 + 40,
                    37,
                    inner.x2,
                    rid=self._id("mtrl_picker_header_title_text"),
                ),
                text(
                    _short(self.selected),
                    inner.x1 + 63,
                    inner.y1 + 130,
                    84,
                    inner.x2 - 160,
                    rid=self._id("mtrl_picker_header_selection_text"),
                ),
                icon_button(
                    header_desc,
                    Rect(inner.x2 - 160, inner.y1 + 140, inner.x2 - 30, inner.y1 + 270),
                    self._toggle_mode,
                    self._id("mtrl_picker_header_toggle"),
                ),
            ],
        )
        body = self._typed_body(inner) if self.text_mode else self._month_body(inner)
        y = inner.y2 - 140
        buttons = View(
            LINEAR,
            Rect(inner.x1, y, inner.x2, inner.y2),
            children=[
                button(
                    "Cancel",
                    Rect(inner.x2 - 480, y + 10, inner.x2 - 250, y + 136),
                    self.cancel,
                    self._id("cancel_button"),
                ),
                button(
                    "OK",
                    Rect(inner.x2 - 230, y + 10, inner.x2 - 30, y + 136),
                    self._ok,
                    self._id("confirm_button"),
                ),
            ],
        )
        panel = View(LINEAR, inner, children=[header, body, buttons])
        return dialog_frame(box, panel, self.cancel)

    def _typed_body(self, inner: Rect) -> View:
        y = inner.y1 + 330
        children = [
            text(
                "Date", inner.x1 + 63, y, 37, inner.x2, rid=self._id("mtrl_picker_text_input_date")
            ),
            edit_text(
                self.typed,
                Rect(inner.x1 + 63, y + 60, inner.x2 - 63, y + 200),
                self.phone.focus is self.typed,
                self.phone.focuser(self.typed, self),
                self._id("mtrl_picker_text_input_date_edit"),
            ),
        ]
        if self.error:
            children.append(text(self.error, inner.x1 + 63, y + 215, 37, inner.x2))
        return View(FRAME, Rect(inner.x1, y, inner.x2, y + 260), children=children)

    def _month_body(self, inner: Rect) -> View:
        y = inner.y1 + 320
        month_name = f"{self.month.strftime('%B')} {self.month.year}"
        navigation = View(
            LINEAR,
            Rect(inner.x1, y, inner.x2, y + 130),
            rid=self._id("month_navigation_bar"),
            children=[
                View(
                    "com.google.android.material.button.MaterialButton",
                    Rect(inner.x1 + 30, y + 10, inner.x1 + 500, y + 120),
                    rid=self._id("month_navigation_fragment_toggle"),
                    text=month_name,
                    desc=f"Change to year view, {month_name}",
                    clickable=True,
                    focusable=True,
                    on_tap=lambda: None,
                ),
                icon_button(
                    "Change to previous month",
                    Rect(inner.x2 - 280, y + 5, inner.x2 - 155, y + 125),
                    partial(self._shift_month, -1),
                    self._id("month_navigation_previous"),
                ),
                icon_button(
                    "Change to next month",
                    Rect(inner.x2 - 150, y + 5, inner.x2 - 25, y + 125),
                    partial(self._shift_month, 1),
                    self._id("month_navigation_next"),
                ),
            ],
        )
        left = inner.x1 + (inner.width - 7 * _CELL) // 2
        weekdays = View(
            "android.widget.GridView",
            Rect(left, y + 150, left + 7 * _CELL, y + 210),
            rid=self._id("mtrl_calendar_days_of_week"),
            children=[
                View(
                    TEXT,
                    Rect(left + i * _CELL, y + 150, left + (i + 1) * _CELL, y + 210),
                    text=letter,
                )
                for i, letter in enumerate(_WEEKDAYS)
            ],
        )
        first_column = (self.month.weekday() + 1) % 7  # the grid's weeks start on Sunday
        days: list[View] = []
        days_in_month = calendar.monthrange(self.month.year, self.month.month)[1]
        for number in range(1, days_in_month + 1):
            day = self.month.replace(day=number)
            row, column = divmod(first_column + number - 1, 7)
            cell = Rect(
                left + column * _CELL,
                y + 230 + row * _CELL,
                left + (column + 1) * _CELL,
                y + 230 + (row + 1) * _CELL,
            )
            days.append(
                View(
                    TEXT,
                    cell,
                    text=str(number),
                    desc=day_description(day),
                    clickable=True,
                    focusable=True,
                    selected=day == self.selected,
                    on_tap=partial(self._pick, day),
                )
            )
        grid = View(
            "android.widget.GridView",
            Rect(left, y + 230, left + 7 * _CELL, y + 230 + 6 * _CELL),
            rid=self._id("month_grid"),
            children=days,
        )
        return View(
            VIEW_GROUP,
            Rect(inner.x1, y, inner.x2, y + 230 + 6 * _CELL),
            rid=self._id("mtrl_calendar_main_pane"),
            children=[navigation, weekdays, grid],
        )
