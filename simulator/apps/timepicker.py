"""The Material time picker: a clock face to tap, or (after the mode button) text inputs."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

from simulator.apps.dialogs import TextModePicker
from simulator.runtime import Phone
from simulator.view import BUTTON, EDIT, FRAME, LINEAR, TEXT, VIEW_GROUP, Rect, View
from simulator.widgets import Field, button, centered_text, dialog_frame, icon_button, text

TEXT_MODE_DESC = "Switch to text input mode for the time input."
CLOCK_MODE_DESC = "Switch to clock mode for the time input."
_FACE_CENTER = (540, 1280)
_FACE_RADIUS = 300


class TimePickerDialog(TextModePicker):
    """Picks a time on a 12-hour clock; `on_set(hour24, minute)` runs on OK."""

    def __init__(
        self, phone: Phone, package: str, hour: int, minute: int, on_set: Callable[[int, int], None]
    ) -> None:
        super().__init__(phone, package)
        self.hour12 = hour % 12 or 12
        self.minute = minute
        self.pm = hour >= 12
        self.on_set = on_set
        self.picking_minutes = False
        self.hour_field = Field(hint="", max_length=2, digits_only=True, select_on_focus=True)
        self.minute_field = Field(hint="", max_length=2, digits_only=True, select_on_focus=True)

    def next_field(self, field: Field) -> Field | None:
        """A full hour input hands further digits to the minute input."""
        return self.minute_field if field is self.hour_field else None

    # -- actions ----------------------------------------------------------------------------

    def _set_pm(self, pm: bool) -> None:
        self.pm = pm
        self._changed()

    def _pick(self, value: int) -> None:
        if self.picking_minutes:
            self.minute = value
        else:
            self.hour12 = value
            self.picking_minutes = True
        self._changed()

    def _choose_unit(self, minutes: bool) -> None:
        self.picking_minutes = minutes
        self._changed()

    def _read_input(self) -> bool:
        hour_text, minute_text = self.hour_field.text, self.minute_field.text
        if not hour_text.isdigit() or not 1 <= int(hour_text) <= 12:
            self.error = "Enter a valid hour (1-12)"
            return False
        if not minute_text.isdigit() or not 0 <= int(minute_text) <= 59:
            self.error = "Enter a valid minute (0-59)"
            return False
        self.hour12, self.minute, self.error = int(hour_text), int(minute_text), ""
        return True

    def _start_typing(self) -> None:
        self.hour_field.set(str(self.hour12))
        self.minute_field.set(f"{self.minute:02d}")
        self.phone.focus_field(self.hour_field, self)

    def _deliver(self) -> None:
        self.on_set(self.hour12 % 12 + (12 if self.pm else 0), self.minute)

    # -- rendering --------------------------------------------------------------------------

    def _period(self, box: Rect) -> View:
        half = box.y1 + box.height // 2
        return View(
            LINEAR,
            box,
            rid=self._id("material_clock_period_toggle"),
            children=[
                View(
                    BUTTON,
                    box.with_y(box.y1, half),
                    rid=self._id("material_clock_period_am_button"),
                    text="AM",
                    checkable=True,
                    checked=not self.pm,
                    clickable=True,
                    focusable=True,
                    on_tap=lambda: self._set_pm(False),
                ),
                View(
                    BUTTON,
                    box.with_y(half, box.y2),
                    rid=self._id("material_clock_period_pm_button"),
                    text="PM",
                    checkable=True,
                    checked=self.pm,
                    clickable=True,
                    focusable=True,
                    on_tap=lambda: self._set_pm(True),
                ),
            ],
        )

    def _buttons(self, y: int) -> list[View]:
        desc = CLOCK_MODE_DESC if self.text_mode else TEXT_MODE_DESC
        return [
            icon_button(
                desc,
                Rect(119, y, 245, y + 126),
                self._toggle_mode,
                self._id("material_timepicker_mode_button"),
            ),
            button(
                "Cancel",
                Rect(560, y, 760, y + 126),
                self.cancel,
                self._id("material_timepicker_cancel_button"),
            ),
            button(
                "OK",
                Rect(780, y, 940, y + 126),
                self._ok,
                self._id("material_timepicker_ok_button"),
            ),
        ]

    def _face(self) -> View:
        cx, cy = _FACE_CENTER
        numbers: list[View] = []
        for position in range(12):
            angle = math.radians(position * 30 - 90)
            x = int(cx + _FACE_RADIUS * math.cos(angle))
            y = int(cy + _FACE_RADIUS * math.sin(angle))
            box = Rect(x - 55, y - 55, x + 55, y + 55)
            if self.picking_minutes:
                value = position * 5
                label, desc, chosen = f"{value:02d}", f"{value} minutes", value == self.minute
            else:
                value = position or 12
                label, desc, chosen = str(value), f"{value} o'clock", value == self.hour12
            numbers.append(
                View(
                    TEXT,
                    box,
                    text=label,
                    desc=desc,
                    clickable=True,
                    selected=chosen,
                    on_tap=partial(self._pick, value),
                )
            )
        face = Rect(cx - 360, cy - 360, cx + 360, cy + 360)
        return View(VIEW_GROUP, face, rid=self._id("material_clock_face"), children=numbers)

    def window(self) -> View:
        return self._text_window() if self.text_mode else self._clock_window()

    def _clock_window(self) -> View:
        box = Rect(77, 420, 1003, 1980)
        hour_box, minute_box = Rect(119, 600, 389, 840), Rect(449, 600, 719, 840)
        display = View(
            LINEAR,
            Rect(119, 600, 961, 840),
            rid=self._id("material_clock_display"),
            children=[
                View(
                    "com.google.android.material.chip.Chip",
                    hour_box,
                    rid=self._id("material_hour_tv"),
                    text=str(self.hour12),
                    checkable=True,
                    checked=not self.picking_minutes,
                    clickable=True,
                    focusable=True,
                    on_tap=lambda: self._choose_unit(False),
                ),
                centered_text(":", Rect(389, 600, 449, 840), 120),
                View(
                    "com.google.android.material.chip.Chip",
                    minute_box,
                    rid=self._id("material_minute_tv"),
                    text=f"{self.minute:02d}",
                    checkable=True,
                    checked=self.picking_minutes,
                    clickable=True,
                    focusable=True,
                    on_tap=lambda: self._choose_unit(True),
                ),
                self._period(Rect(761, 600, 961, 840)),
            ],
        )
        panel = View(
            LINEAR,
            box.inset(42, 42),
            children=[
                text("Select time", 119, 480, 40, 900, rid=self._id("header_title")),
                display,
                self._face(),
                *self._buttons(1780),
            ],
        )
        return dialog_frame(box, panel, self.cancel)

    def _text_window(self) -> View:
        box = Rect(77, 520, 1003, 1500)
        focus = self.phone.focus

        def field_box(field: Field, area: Rect, name: str, label: str) -> View:
            return View(
                FRAME,
                area,
                rid=self._id(name),
                children=[
                    View(
                        EDIT,
                        Rect(area.x1, area.y1, area.x2, area.y1 + 220),
                        rid=self._id("material_timepicker_edit_text"),
                        text=field.text,
                        clickable=True,
                        long_clickable=True,
                        focusable=True,
                        focused=focus is field,
                        on_tap=self.phone.focuser(field, self),
                    ),
                    text(
                        label, area.x1, area.y1 + 230, 37, area.x2, rid=self._id("material_label")
                    ),
                ],
            )

        children = [
            text("Enter time", 119, 580, 40, 900, rid=self._id("header_title")),
            View(
                LINEAR,
                Rect(119, 680, 961, 960),
                rid=self._id("material_textinput_timepicker"),
                children=[
                    field_box(
                        self.hour_field,
                        Rect(119, 680, 389, 960),
                        "material_hour_text_input",
                        "Hour",
                    ),
                    centered_text(":", Rect(389, 680, 449, 900), 120),
                    field_box(
                        self.minute_field,
                        Rect(449, 680, 719, 960),
                        "material_minute_text_input",
                        "Minute",
                    ),
                    self._period(Rect(761, 680, 961, 900)),
                ],
            ),
        ]
        if self.error:
            children.append(text(self.error, 119, 1000, 37, 961, rid=self._id("error_text")))
        children += self._buttons(1300)
        return dialog_frame(box, View(LINEAR, box.inset(42, 42), children=children), self.cancel)
