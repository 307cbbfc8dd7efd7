"""Clock: alarms (add with the time picker, switch on/off, label, delete), the timer keypad
and its running timer, and the stopwatch with laps."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from simulator.apps.timepicker import TimePickerDialog
from simulator.display import WIDTH
from simulator.runtime import Dialog, Page, Phone
from simulator.state import CLOCK, Alarm, twelve_hour
from simulator.view import CARD, FRAME, LINEAR, SWITCH, TEXT, Rect, ScrollState, View, rid
from simulator.widgets import (
    Field,
    Tab,
    alert_dialog,
    button,
    edit_text,
    fab,
    icon_button,
    navigation_tabs,
    recycler,
    text,
)

TABS = ("Alarm", "Clock", "Timer", "Stopwatch", "Bedtime")


def format_time(hhmm: str) -> str:
    """ "19:05" -> "7:05 PM", as the Clock app writes times."""
    clock, half = twelve_hour(hhmm)
    return f"{clock} {half}"


def entry_parts(digits: str) -> tuple[int, int, int]:
    """Keypad digits fill the timer from the right: "130" is 0 h 1 m 30 s."""
    padded = digits.rjust(6, "0")
    return int(padded[:2]), int(padded[2:4]), int(padded[4:])


def stopwatch_text(seconds: int) -> str:
    """ "1:05", or "1:02:03" past an hour, as the stopwatch shows whole seconds."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


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
                        rid(CLOCK, "label_input_field"),
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


def alarm_set_message(now: str, alarm: str) -> str:
    """The toast Clock shows for a newly set alarm: "Alarm set for 9 hours and 19 minutes from
    now." (an alarm at the current minute rings tomorrow)."""
    now_hour, now_minute = (int(part) for part in now.split(":"))
    hour, minute = (int(part) for part in alarm.split(":"))
    minutes = (hour * 60 + minute - now_hour * 60 - now_minute) % (24 * 60) or 24 * 60
    days, rest = divmod(minutes, 24 * 60)
    parts = [
        f"{count} {unit}{'' if count == 1 else 's'}"
        for count, unit in ((days, "day"), (rest // 60, "hour"), (rest % 60, "minute"))
        if count
    ]
    spelled = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"Alarm set for {spelled} from now."


class ClockPage(Page):
    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, CLOCK)
        self.tab = "Alarm"
        self.expanded: Alarm | None = None
        self.scroll = ScrollState()
        self.timer_entry = Field(
            text=phone.state.timer.entry,
            max_length=6,
            digits_only=True,
            on_change=self._store_entry,
        )
        self.run_mark = phone.changes

    # -- alarm actions ----------------------------------------------------------------------

    def _add_alarm(self) -> None:
        hour, minute = (int(part) for part in self.state.time.split(":"))
        self.phone.open_dialog(TimePickerDialog(self.phone, CLOCK, hour, minute, self._added))

    def _added(self, hour: int, minute: int) -> None:
        alarm = Alarm(time=f"{hour:02d}:{minute:02d}", enabled=True)
        self.state.alarms = [*self.state.alarms, alarm]
        self.expanded = self.state.alarms[-1]
        self.phone.show_toast(alarm_set_message(self.state.time, alarm.time))

    def _retime(self, alarm: Alarm) -> None:
        hour, minute = (int(part) for part in alarm.time.split(":"))

        def done(new_hour: int, new_minute: int) -> None:
            alarm.time = f"{new_hour:02d}:{new_minute:02d}"
            alarm.enabled = True
            self.phone.show_toast(alarm_set_message(self.state.time, alarm.time))

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
        self._focus_keypad()
        self.phone.changes += 1

    def on_resume(self) -> None:
        self.timer_entry.text = self.state.timer.entry
        self._focus_keypad()

    # -- timer actions ----------------------------------------------------------------------

    def _focus_keypad(self) -> None:
        """The timer's keypad takes typed digits, as the app takes key presses; no keyboard."""
        if self.tab == "Timer" and not self.state.timer.duration:
            self.timer_entry.cursor = len(self.timer_entry.text)
            self.phone.focus = self.timer_entry
            self.phone.focus_owner = self
        elif self.phone.focus is self.timer_entry:
            self.phone.blur()

    def _store_entry(self) -> None:
        self.state.timer.entry = self.timer_entry.text

    def _key(self, digits: str) -> None:
        self._focus_keypad()
        self.phone.type_text(digits)

    def _erase(self) -> None:
        self.timer_entry.backspace()
        self.phone.changes += 1

    def _start_timer(self) -> None:
        hours, minutes, seconds = entry_parts(self.timer_entry.text)
        timer = self.state.timer
        timer.duration = hours * 3600 + minutes * 60 + seconds
        timer.running = True
        self.timer_entry.set("")
        self._focus_keypad()
        self.phone.changes += 1

    def _pause_timer(self) -> None:
        self.state.timer.running = not self.state.timer.running
        self.phone.changes += 1

    def _add_minute(self) -> None:
        self.state.timer.duration += 60
        self.phone.changes += 1

    def _delete_timer(self) -> None:
        self.state.timer.duration = 0
        self.state.timer.running = False
        self._focus_keypad()
        self.phone.changes += 1

    # -- stopwatch actions ------------------------------------------------------------------

    def _elapsed(self) -> int:
        """Seconds on the stopwatch: the phone's clock stands still, so a running stopwatch
        moves on one second for each thing that happens on the phone."""
        watch = self.state.stopwatch
        if not watch.running:
            return watch.elapsed
        return watch.elapsed + max(1, self.phone.changes - self.run_mark)

    def _start_stopwatch(self) -> None:
        watch = self.state.stopwatch
        if watch.running:
            watch.elapsed = self._elapsed()
        self.run_mark = self.phone.changes
        watch.running = not watch.running
        self.phone.changes += 1

    def _lap(self) -> None:
        watch = self.state.stopwatch
        watch.laps = [*watch.laps, self._elapsed() - sum(watch.laps)]
        self.phone.changes += 1

    def _reset_stopwatch(self) -> None:
        watch = self.state.stopwatch
        watch.elapsed, watch.laps, watch.running = 0, [], False
        self.phone.changes += 1

    # -- rendering --------------------------------------------------------------------------

    def content(self, frame: Rect) -> View:
        nav_top = frame.y2 - 210
        body = Rect(0, frame.y1 + 168, WIDTH, nav_top)
        children: list[View] = [
            View(
                LINEAR,
                Rect(0, frame.y1, WIDTH, frame.y1 + 168),
                rid=rid(CLOCK, "toolbar"),
                children=[
                    text(self.tab, 63, frame.y1 + 48, 60, 700, rid=rid(CLOCK, "action_bar_title")),
                    icon_button(
                        "More options", Rect(933, frame.y1 + 10, 1080, frame.y1 + 158), lambda: None
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
                text(hour_minute, 300, body.y1 + 200, 150, 1000, rid=rid(CLOCK, "digital_clock")),
                text(self.state.date, 380, body.y1 + 420, 44, 1000, rid=rid(CLOCK, "date")),
            ]
        elif self.tab == "Timer":
            children += self._timer(body, nav_top)
        elif self.tab == "Stopwatch":
            children += self._stopwatch(body, nav_top)
        else:
            children.append(
                text(
                    "Set a regular bedtime", 200, body.y1 + 300, 60, 1000, rid=rid(CLOCK, "bedtime")
                )
            )
        children.append(self._tabs(Rect(0, nav_top, WIDTH, frame.y2)))
        return View(FRAME, frame, rid=rid(CLOCK, "main_content"), children=children)

    def _timer(self, body: Rect, nav_top: int) -> list[View]:
        timer = self.state.timer
        fab_box = Rect(393, nav_top - 300, 687, nav_top - 90)
        if timer.duration:
            return self._running_timer(body, fab_box)
        hours, minutes, seconds = entry_parts(self.timer_entry.text)
        y = body.y1 + 80
        keys: list[View] = []
        labels = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "00", "0")
        for position, label in enumerate(labels):
            row, column = divmod(position, 3)
            x = 150 + column * 270
            top = y + 330 + row * 210
            keys.append(
                button(
                    label,
                    Rect(x, top, x + 240, top + 190),
                    partial(self._key, label),
                    rid(CLOCK, f"timer_setup_digit_{label}"),
                )
            )
        children: list[View] = [
            View(
                LINEAR,
                Rect(0, y, WIDTH, y + 300),
                rid=rid(CLOCK, "timer_setup"),
                children=[
                    View(
                        TEXT,
                        Rect(120, y + 60, 860, y + 240),
                        rid=rid(CLOCK, "timer_setup_time"),
                        text=f"{hours:02d}h {minutes:02d}m {seconds:02d}s",
                        desc=f"{hours} hours, {minutes} minutes, {seconds} seconds",
                    ),
                    _round_button(
                        "Delete",
                        Rect(880, y + 90, 1010, y + 220),
                        self._erase,
                        "timer_setup_delete",
                    ),
                ],
            ),
            View(
                FRAME,
                Rect(120, y + 330, 960, y + 330 + 4 * 210),
                rid=rid(CLOCK, "timer_setup_digits"),
                children=keys,
            ),
        ]
        if any(char != "0" for char in self.timer_entry.text):
            children.append(_round_button("Start", fab_box, self._start_timer, "fab"))
        return children

    def _running_timer(self, body: Rect, fab_box: Rect) -> list[View]:
        timer = self.state.timer
        card = Rect(42, body.y1 + 60, 1038, body.y1 + 1000)
        remaining = stopwatch_text(timer.duration)
        return [
            View(
                CARD,
                card,
                rid=rid(CLOCK, "timer_view"),
                children=[
                    text("Timer", 84, card.y1 + 40, 40, 700, rid=rid(CLOCK, "timer_label")),
                    View(
                        TEXT,
                        Rect(200, card.y1 + 250, 880, card.y1 + 500),
                        rid=rid(CLOCK, "timer_time_text"),
                        text=remaining,
                    ),
                    text(
                        "Running" if timer.running else "Paused",
                        420,
                        card.y1 + 540,
                        40,
                        900,
                        rid=rid(CLOCK, "timer_state"),
                    ),
                    button(
                        "+1:00",
                        Rect(84, card.y2 - 200, 400, card.y2 - 60),
                        self._add_minute,
                        rid(CLOCK, "reset_add"),
                    ),
                    _round_button(
                        "Delete",
                        Rect(820, card.y1 + 20, 950, card.y1 + 150),
                        self._delete_timer,
                        "delete_timer",
                    ),
                ],
            ),
            _round_button(
                "Pause" if timer.running else "Start",
                fab_box,
                self._pause_timer,
                "fab",
            ),
        ]

    def _stopwatch(self, body: Rect, nav_top: int) -> list[View]:
        watch = self.state.stopwatch
        fab_box = Rect(393, nav_top - 300, 687, nav_top - 90)
        y = body.y1 + 200
        children: list[View] = [
            View(
                TEXT,
                Rect(240, y, 760, y + 240),
                rid=rid(CLOCK, "stopwatch_time_text"),
                text=stopwatch_text(self._elapsed()),
            ),
            text("00", 780, y + 110, 70, 900, rid=rid(CLOCK, "stopwatch_hundredths_text")),
        ]
        for number, lap in reversed(list(enumerate(watch.laps, start=1))):
            row_y = y + 300 + (len(watch.laps) - number) * 110
            if row_y + 110 > fab_box.y1 - 20:
                break
            children.append(
                View(
                    LINEAR,
                    Rect(63, row_y, 1017, row_y + 110),
                    rid=rid(CLOCK, "lap_item"),
                    children=[
                        text(f"# {number}", 84, row_y + 30, 40, 300, rid=rid(CLOCK, "lap_number")),
                        text(
                            stopwatch_text(lap),
                            420,
                            row_y + 30,
                            40,
                            700,
                            rid=rid(CLOCK, "lap_time"),
                        ),
                    ],
                )
            )
        if watch.running:
            children.append(
                _round_button(
                    "Lap",
                    Rect(120, fab_box.y1 + 40, 300, fab_box.y2 - 40),
                    self._lap,
                    "left_button",
                )
            )
        elif watch.elapsed or watch.laps:
            children.append(
                _round_button(
                    "Reset",
                    Rect(120, fab_box.y1 + 40, 300, fab_box.y2 - 40),
                    self._reset_stopwatch,
                    "left_button",
                )
            )
        children.append(
            _round_button(
                "Pause" if watch.running else "Start", fab_box, self._start_stopwatch, "fab"
            )
        )
        return children

    def _tabs(self, box: Rect) -> View:
        tabs = [
            Tab(
                name,
                rid(CLOCK, f"tab_menu_{name.lower()}"),
                self.tab == name,
                partial(self._tab, name),
            )
            for name in TABS
        ]
        items = navigation_tabs(
            box, tabs, rid(CLOCK, "navigation_bar_item_large_label_view"), (20, 120), 34
        )
        return View(LINEAR, box, rid=rid(CLOCK, "bottom_navigation"), children=items)

    def _alarms(self, body: Rect) -> View:
        alarms = sorted(self.state.alarms, key=lambda a: a.time)
        if not alarms:
            return View(
                FRAME,
                body,
                children=[
                    text(
                        "No alarms",
                        420,
                        body.y1 + 500,
                        52,
                        1000,
                        rid=rid(CLOCK, "alarms_empty_view"),
                    )
                ],
            )
        rows = [
            (700 if alarm is self.expanded else 380, self._card_builder(alarm)) for alarm in alarms
        ]
        return recycler(body, rows, self.scroll, rid(CLOCK, "alarm_recycler_view"))

    def _card_builder(self, alarm: Alarm) -> Callable[[Rect], View]:
        return lambda box: self._card(alarm, box)

    def _card(self, alarm: Alarm, box: Rect) -> View:
        card = box.inset(42, 20)
        shown = format_time(alarm.time)
        expanded = alarm is self.expanded
        y = card.y1 + 30
        children: list[View] = []
        if alarm.label and not expanded:
            children.append(text(alarm.label, 84, y, 40, 800, rid=rid(CLOCK, "label")))
        children.append(
            View(
                TEXT,
                Rect(84, y + 60, 600, y + 220),
                rid=rid(CLOCK, "digital_clock"),
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
                rid=rid(CLOCK, "onoff"),
                desc=f"{shown} alarm",
                checkable=True,
                checked=alarm.enabled,
                clickable=True,
                focusable=True,
                on_tap=lambda: self._toggle(alarm),
            )
        )
        schedule = "Tomorrow" if alarm.enabled else "Not scheduled"
        children.append(
            text(schedule, 84, y + 230, 37, 800, rid=rid(CLOCK, "upcoming_instance_label"))
        )
        if expanded:
            label = alarm.label or "Add label"
            children.append(
                View(
                    TEXT,
                    Rect(84, y + 330, 900, y + 430),
                    rid=rid(CLOCK, "edit_label"),
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
                    rid=rid(CLOCK, "delete"),
                    text="Delete",
                    clickable=True,
                    focusable=True,
                    on_tap=lambda: self._delete(alarm),
                )
            )
        desc = "Collapse alarm" if expanded else "Expand alarm"
        children.append(
            icon_button(
                desc,
                Rect(900, card.y2 - 130, 1020, card.y2 - 10),
                lambda: self._expand(alarm),
                rid(CLOCK, "arrow"),
            )
        )
        return View(
            FRAME,
            box,
            children=[
                View(
                    CARD,
                    card,
                    rid=rid(CLOCK, "alarm_card"),
                    children=children,
                )
            ],
        )


def _round_button(desc: str, box: Rect, on_tap: Callable[[], None], name: str) -> View:
    return icon_button(desc, box, on_tap, rid(CLOCK, name))


def clock_root(phone: Phone) -> Page:
    return ClockPage(phone)
