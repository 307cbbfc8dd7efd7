"""Clock: alarms (add with the time picker, switch on/off, label, delete) and other tabs."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from simulator.apps.timepicker import TimePickerDialog
from simulator.runtime import Dialog, Page, Phone
from simulator.state import CLOCK, Alarm
from simulator.view import FRAME, IMAGE_BUTTON, LINEAR, SWITCH, TEXT, Rect, ScrollState, View
from simulator.widgets import (
    WIDTH,
    Field,
    alert_dialog,
    edit_text,
    fab,
    recycler,
    rid,
    text,
)

TABS = ("Alarm", "Clock", "Timer", "Stopwatch", "Bedtime")


def format_time(hhmm: str) -> str:
    """ "19:05" -> "7:05 PM", as the Clock app writes times."""
    hour, minute = (int(part) for part in hhmm.split(":"))
    return f"{hour % 12 or 12}:{minute:02d} {'PM' if hour >= 12 else 'AM'}"


def _cid(name: str) -> str:
    return rid(CLOCK, name)


class LabelDialog(Dialog):
    def __init__(self, phone: Phone, alarm: Alarm) -> None:
        super().__init__(phone, CLOCK)
        self.alarm = alarm
        self.field = Field(text=alarm.label, hint="Label", on_enter=self._ok)
        phone.focus_field(self.field, self)

    def _ok(self) -> None:
        self.alarm.label = self.field.text.strip()
        self.phone.close_dialog(self)

    def window(self) -> View:
        def body(box: Rect) -> View:
            field_box = Rect(box.x1 + 63, box.y1 + 20, box.x2 - 63, box.y1 + 160)
            return View(
                FRAME,
                box,
                children=[
                    edit_text(
                        self.field,
                        field_box,
                        self.phone.focus is self.field,
                        self.phone.focuser(self.field, self),
                        _cid("label_input_field"),
                    ),
                ],
            )

        return alert_dialog(
            "Label",
            "",
            [("Cancel", self.cancel), ("OK", self._ok)],
            on_cancel=self.cancel,
            body=body,
            body_height=200,
        )


class ClockPage(Page):
    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, CLOCK)
        self.tab = "Alarm"
        self.expanded: Alarm | None = None
        self.scroll = ScrollState()

    # -- alarm actions ----------------------------------------------------------------------

    def _add_alarm(self) -> None:
        hour, minute = (int(part) for part in self.state.time.split(":"))
        self.phone.open_dialog(TimePickerDialog(self.phone, CLOCK, hour, minute, self._added))

    def _added(self, hour: int, minute: int) -> None:
        alarm = Alarm(time=f"{hour:02d}:{minute:02d}", enabled=True)
        self.state.alarms = [*self.state.alarms, alarm]
        self.expanded = self.state.alarms[-1]

    def _retime(self, alarm: Alarm) -> None:
        hour, minute = (int(part) for part in alarm.time.split(":"))

        def done(new_hour: int, new_minute: int) -> None:
            alarm.time = f"{new_hour:02d}:{new_minute:02d}"
            alarm.enabled = True

        self.phone.open_dialog(TimePickerDialog(self.phone, CLOCK, hour, minute, done))

    def _toggle(self, alarm: Alarm) -> None:
        alarm.enabled = not alarm.enabled
        self.phone.changes += 1

    def _expand(self, alarm: Alarm) -> None:
        self.expanded = None if self.expanded is alarm else alarm
        self.phone.changes += 1

    def _delete(self, alarm: Alarm) -> None:
        self.state.alarms = [a for a in self.state.alarms if a is not alarm]
        self.expanded = None
        self.phone.changes += 1

    def _tab(self, name: str) -> None:
        self.tab = name
        self.phone.changes += 1

    # -- rendering --------------------------------------------------------------------------

    def content(self, frame: Rect) -> View:
        nav_top = frame.y2 - 210
        body = Rect(0, frame.y1 + 168, WIDTH, nav_top)
        children: list[View] = [
            View(
                LINEAR,
                Rect(0, frame.y1, WIDTH, frame.y1 + 168),
                rid=_cid("toolbar"),
                children=[
                    text(self.tab, 63, frame.y1 + 48, 60, 700, rid=_cid("action_bar_title")),
                    View(
                        IMAGE_BUTTON,
                        Rect(933, frame.y1 + 10, 1080, frame.y1 + 158),
                        desc="More options",
                        clickable=True,
                        focusable=True,
                        on_tap=lambda: None,
                    ),
                ],
            ),
        ]
        if self.tab == "Alarm":
            children.append(self._alarms(body))
            children.append(fab(CLOCK, "Add alarm", self._add_alarm, nav_top, "fab"))
        elif self.tab == "Clock":
            hour_minute = format_time(self.state.time)
            children += [
                text(hour_minute, 300, body.y1 + 200, 150, 1000, rid=_cid("digital_clock")),
                text(self.state.date, 380, body.y1 + 420, 44, 1000, rid=_cid("date")),
            ]
        else:
            message = {
                "Timer": "00h 00m 00s",
                "Stopwatch": "00:00.00",
                "Bedtime": "Set a regular bedtime",
            }[self.tab]
            children.append(text(message, 200, body.y1 + 300, 80, 1000, rid=_cid("timer_text")))
        children.append(self._tabs(Rect(0, nav_top, WIDTH, frame.y2)))
        return View(FRAME, frame, rid=_cid("main_content"), children=children)

    def _tabs(self, box: Rect) -> View:
        width = WIDTH // len(TABS)
        items = []
        for i, name in enumerate(TABS):
            cell = Rect(i * width, box.y1, (i + 1) * width, box.y2)
            items.append(
                View(
                    FRAME,
                    cell,
                    rid=_cid(f"tab_menu_{name.lower()}"),
                    desc=name,
                    clickable=True,
                    focusable=True,
                    selected=self.tab == name,
                    on_tap=partial(self._tab, name),
                    children=[
                        text(
                            name,
                            cell.x1 + 20,
                            cell.y1 + 120,
                            34,
                            cell.x2 - 10,
                            rid=_cid("navigation_bar_item_large_label_view"),
                        )
                    ],
                )
            )
        return View(LINEAR, box, rid=_cid("bottom_navigation"), children=items)

    def _alarms(self, body: Rect) -> View:
        alarms = sorted(self.state.alarms, key=lambda a: a.time)
        if not alarms:
            return View(
                FRAME,
                body,
                children=[
                    text("No alarms", 420, body.y1 + 500, 52, 1000, rid=_cid("alarms_empty_view"))
                ],
            )
        rows = [
            (700 if alarm is self.expanded else 380, self._card_builder(alarm)) for alarm in alarms
        ]
        return recycler(body, rows, self.scroll, _cid("alarm_recycler_view"))

    def _card_builder(self, alarm: Alarm) -> Callable[[Rect], View]:
        return lambda box: self._card(alarm, box)

    def _card(self, alarm: Alarm, box: Rect) -> View:
        card = box.inset(42, 20)
        shown = format_time(alarm.time)
        expanded = alarm is self.expanded
        y = card.y1 + 30
        children: list[View] = []
        if alarm.label and not expanded:
            children.append(text(alarm.label, 84, y, 40, 800, rid=_cid("label")))
        children.append(
            View(
                TEXT,
                Rect(84, y + 60, 600, y + 220),
                rid=_cid("digital_clock"),
                text=shown,
                clickable=True,
                focusable=True,
                on_tap=lambda: self._retime(alarm),
            )
        )
        children.append(
            View(
                SWITCH,
                Rect(850, y + 80, 997, y + 206),
                rid=_cid("onoff"),
                desc=f"{shown} alarm",
                checkable=True,
                checked=alarm.enabled,
                clickable=True,
                focusable=True,
                on_tap=lambda: self._toggle(alarm),
            )
        )
        schedule = "Tomorrow" if alarm.enabled else "Not scheduled"
        children.append(text(schedule, 84, y + 230, 37, 800, rid=_cid("upcoming_instance_label")))
        if expanded:
            label = alarm.label or "Add label"
            children.append(
                View(
                    TEXT,
                    Rect(84, y + 330, 900, y + 430),
                    rid=_cid("edit_label"),
                    text=label,
                    clickable=True,
                    focusable=True,
                    on_tap=lambda: self.phone.open_dialog(LabelDialog(self.phone, alarm)),
                )
            )
            children.append(
                View(
                    TEXT,
                    Rect(84, y + 470, 400, y + 580),
                    rid=_cid("delete"),
                    text="Delete",
                    clickable=True,
                    focusable=True,
                    on_tap=lambda: self._delete(alarm),
                )
            )
        desc = "Collapse alarm" if expanded else "Expand alarm"
        children.append(
            View(
                IMAGE_BUTTON,
                Rect(900, card.y2 - 130, 1020, card.y2 - 10),
                rid=_cid("arrow"),
                desc=desc,
                clickable=True,
                focusable=True,
                on_tap=lambda: self._expand(alarm),
            )
        )
        return View(
            FRAME,
            box,
            children=[
                View(
                    "androidx.cardview.widget.CardView",
                    card,
                    rid=_cid("alarm_card"),
                    children=children,
                )
            ],
        )


def clock_root(phone: Phone) -> Page:
    return ClockPage(phone)
