"""The simulator task suite: goals, starting states, success checks and oracle plans.

A task is parameterised by a seed (which contact, which time, which text). Its success
predicate reads the simulator's state dict, never the screen; question tasks also compare the
answer given to `task_complete(answer=...)`. Its oracle plan is the action sequence a perfect
agent would take, written as tool calls on element labels (`{"tool": "tap", "target":
"Wi-Fi"}`), which evals resolve against the live screen: it proves the task solvable from what
the agent sees.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from simulator.state import CALENDAR, CLOCK, CONTACTS, LAUNCHER, MESSAGES, SETTINGS

Params = dict[str, Any]
State = Mapping[str, Any]


class PlanStep(BaseModel):
    """One oracle action. `target` is an element label on the screen at that moment; `near`
    picks, among several elements with that label, the one closest to the element `near`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: Literal[
        "tap", "long_press", "type_text", "swipe", "press_key", "open_app", "task_complete"
    ]
    target: str | None = None
    near: str | None = None
    text: str | None = None
    clear: bool = False
    submit: bool = False
    direction: Literal["up", "down", "left", "right"] | None = None
    key: str | None = None
    app: str | None = None
    answer: str | None = None


def tap(target: str, near: str | None = None) -> PlanStep:
    return PlanStep(tool="tap", target=target, near=near)


def type_in(target: str | None, text: str, clear: bool = False, submit: bool = False) -> PlanStep:
    return PlanStep(tool="type_text", target=target, text=text, clear=clear, submit=submit)


def swipe(direction: Literal["up", "down", "left", "right"] = "up") -> PlanStep:
    return PlanStep(tool="swipe", direction=direction)


def key(name: str) -> PlanStep:
    return PlanStep(tool="press_key", key=name)


def open_app(name: str) -> PlanStep:
    return PlanStep(tool="open_app", app=name)


def done(answer: str | None = None) -> PlanStep:
    return PlanStep(tool="task_complete", answer=answer)


@dataclass(frozen=True)
class Task:
    """One task of the suite; every method takes the seed that picks its parameters."""

    name: str
    app: str
    family: str
    template: str
    plan: Callable[[Params], list[PlanStep]]
    check: Callable[[State, Params, str | None], bool]
    setup: Callable[[Params], dict[str, Any]] = field(default=lambda p: {})
    sample: Callable[[random.Random], Params] = field(default=lambda rng: {})
    max_steps: int = 15

    def params(self, seed: int = 0) -> Params:
        return self.sample(random.Random(f"{self.name}/{seed}"))

    def goal(self, seed: int = 0) -> str:
        return self.template.format(**self.params(seed))

    def initial_state(self, seed: int = 0) -> dict[str, Any]:
        return self.setup(self.params(seed))

    def success(self, state: State, seed: int = 0, answer: str | None = None) -> bool:
        return self.check(state, self.params(seed), answer)

    def oracle(self, seed: int = 0) -> list[PlanStep]:
        return self.plan(self.params(seed))


# ---------------------------------------------------------------------------------------------
# Answer comparison


def normalize_text(value: str) -> str:
    value = unicodedata.normalize("NFC", value).casefold()
    value = re.sub(r"\s+", " ", value).strip()
    return value.strip(" .!?\"'“”")


def same_digits(given: str | None, expected: str) -> bool:
    """Phone numbers and counts: the digits must match (a leading country code may be left out)."""
    if given is None:
        return False
    got = re.sub(r"\D", "", given)
    want = re.sub(r"\D", "", expected)
    return bool(got) and (got == want or (len(got) >= 7 and want.endswith(got)))


def parse_clock_time(value: str) -> int | None:
    """Minutes after midnight of "7:05 PM", "19:05", "7:05pm"; None when it is not a time."""
    match = re.search(r"(\d{1,2})[:.h](\d{2})\s*([ap])?\.?\s*m?\.?", value.casefold())
    if match is None:
        return None
    hour, minute = int(match.group(1)), int(match.group(2))
    if match.group(3):
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if match.group(3) == "p" else 0)
    if hour > 23 or minute > 59:
        return None
    return hour * 60 + minute


def same_time(given: str | None, expected_hhmm: str) -> bool:
    if given is None:
        return False
    return parse_clock_time(given) == parse_clock_time(expected_hhmm)


def same_text(given: str | None, expected: str) -> bool:
    return given is not None and normalize_text(given) == normalize_text(expected)


def twelve_hour(hhmm: str) -> str:
    hour, minute = (int(part) for part in hhmm.split(":"))
    return f"{hour % 12 or 12}:{minute:02d} {'PM' if hour >= 12 else 'AM'}"


# ---------------------------------------------------------------------------------------------
# Parameter pools (with names and texts in many scripts)

PEOPLE = (
    ("Zoë", "Ñúñez", "+34 655 010 203"),
    ("李", "雷", "+86 138 0013 8000"),
    ("سارة", "أحمد", "+971 50 123 4567"),
    ("Léa", "Dubois", "+33 6 12 34 56 78"),
    ("Ngozi", "Okonkwo", "+234 803 555 0199"),
    ("Иван", "Петров", "+7 912 345 67 89"),
)
TEXTS = (
    "See you at 7 🙂",
    "¿Llegas a tiempo?",
    "明天见",
    "شكرا جزيلا",
    "Running 10 min late",
    "Ça marche, à demain !",
)
ALARM_TIMES = ("06:15", "06:45", "07:30", "08:05", "13:20", "21:40", "05:50", "22:10")
LABELS = ("Gym", "Medicine", "Café ☕", "Pick up Mia", "Standup")
EVENTS = ("Dentist", "Team sync", "Yoga", "Call with Zoë", "Lunch with Léa")
EXTRA_CONTACTS = [
    {"name": name, "phone": phone}
    for name, phone in (
        ("Aaron Blake", "+1 212-555-0110"),
        ("Beatriz Souza", "+55 11 91234-5678"),
        ("Chen Jing", "+86 139 1234 5678"),
        ("Dmitri Volkov", "+7 921 555 0101"),
        ("Emma Schmidt", "+49 151 2345 6789"),
        ("Fatima Zahra", "+212 612 345 678"),
        ("George Miller", "+1 303-555-0177"),
        ("Hana Kobayashi", "+81 90 1234 5678"),
        ("Ines García", "+34 699 111 222"),
        ("Jonas Berg", "+46 70 123 45 67"),
        ("Kofi Mensah", "+233 24 123 4567"),
        ("Zack Young", "+1 646-555-0199"),
    )
]
DEFAULT_CONTACTS = [
    {"name": "Alice Martin", "phone": "+1 415-555-0101"},
    {"name": "Bob Chen", "phone": "+1 415-555-0102"},
    {"name": "Carmen López", "phone": "+34 612 345 678"},
    {"name": "David Okafor", "phone": "+44 7700 900123"},
]


def _person(rng: random.Random) -> Params:
    first, last, phone = rng.choice(PEOPLE)
    return {"first": first, "last": last, "name": f"{first} {last}", "phone": phone}


def _alarm_time(rng: random.Random) -> Params:
    hhmm = rng.choice(ALARM_TIMES)
    return {"hhmm": hhmm, "time": twelve_hour(hhmm)}


# ---------------------------------------------------------------------------------------------
# Plans shared by several tasks

# System sits below the first screenful of Settings, Developer options at the bottom of System.
DEVELOPER_OPTIONS_PATH = [
    swipe("up"),
    swipe("up"),
    tap("System"),
    swipe("up"),
    tap("Developer options"),
]

SETTINGS_PATHS: dict[str, list[PlanStep]] = {
    "wifi": [tap("Network & internet"), tap("Internet"), tap("Wi-Fi")],
    "airplane_mode": [tap("Network & internet"), tap("Airplane mode")],
    "bluetooth": [
        tap("Connected devices"),
        tap("Connection preferences"),
        tap("Bluetooth"),
        tap("Use Bluetooth"),
    ],
    "dark_theme": [tap("Display"), tap("Dark theme")],
    "battery_saver": [tap("Battery"), tap("Battery Saver"), tap("Use Battery Saver")],
    "battery_percentage": [tap("Battery"), tap("Battery percentage")],
    "do_not_disturb": [tap("Sound & vibration"), tap("Do Not Disturb")],
    "auto_rotate": [tap("Display"), tap("Auto-rotate screen")],
}
SETTING_NAMES = {
    "wifi": "Wi-Fi",
    "airplane_mode": "airplane mode",
    "bluetooth": "Bluetooth",
    "dark_theme": "dark theme",
    "battery_saver": "Battery Saver",
    "battery_percentage": "the battery percentage in the status bar",
    "do_not_disturb": "Do Not Disturb",
    "auto_rotate": "auto-rotate",
}


def set_alarm_steps(hhmm: str) -> list[PlanStep]:
    """Add an alarm through the time picker's text input mode."""
    hour, minute = (int(part) for part in hhmm.split(":"))
    return [
        tap("Add alarm"),
        tap("Switch to text input mode for the time input."),
        type_in(None, f"{hour % 12 or 12:02d}"),
        type_in(None, f"{minute:02d}"),
        tap("PM" if hour >= 12 else "AM"),
        tap("OK"),
    ]


def open_messages() -> list[PlanStep]:
    """Messages asks for the notification permission on its first launch."""
    return [open_app("Messages"), tap("Allow")]


def send_text_steps(name: str, text: str) -> list[PlanStep]:
    return [
        tap("Start chat"),
        type_in(None, name),
        tap(name),
        type_in("Text message", text),
        tap("Send SMS"),
    ]


def add_contact_steps(first: str, last: str, phone: str) -> list[PlanStep]:
    return [
        tap("Create contact"),
        type_in("First name", first),
        type_in("Last name", last),
        type_in("Phone", phone),
        tap("Save"),
    ]


# ---------------------------------------------------------------------------------------------
# Task factories


def toggle_task(setting: str, on: bool) -> Task:
    word = "on" if on else "off"
    return Task(
        name=f"settings_{setting}_{word}",
        app=SETTINGS,
        family="toggle",
        template=f"Turn {word} {SETTING_NAMES[setting]}.",
        setup=lambda p: {setting: not on},
        plan=lambda p: [open_app("Settings"), *SETTINGS_PATHS[setting], done()],
        check=lambda s, p, a: s[setting] is on,
        max_steps=10,
    )


def already_done_task(setting: str, on: bool) -> Task:
    word = "on" if on else "off"
    return Task(
        name=f"already_{setting}_{word}",
        app=SETTINGS,
        family="already_done",
        template=f"Make sure {SETTING_NAMES[setting]} is {word}.",
        setup=lambda p: {setting: on},
        plan=lambda p: [done()],
        check=lambda s, p, a: s[setting] is on,
        max_steps=6,
    )


def _alarm_matches(state: State, hhmm: str, enabled: bool | None = None, label: str = "") -> bool:
    return any(
        alarm["time"] == hhmm
        and (enabled is None or alarm["enabled"] is enabled)
        and (not label or normalize_text(alarm["label"]) == normalize_text(label))
        for alarm in state["alarms"]
    )


def _has_contact(state: State, name: str, phone: str) -> bool:
    return any(
        normalize_text(c["name"]) == normalize_text(name) and same_digits(c["phone"], phone)
        for c in state["contacts"]
    )


def _sent(state: State, to: str, text: str) -> bool:
    return any(
        normalize_text(m["to"]) == normalize_text(to)
        and normalize_text(m["text"]) == normalize_text(text)
        for m in state["messages"]
    )


def _with_person(p: Params) -> dict[str, Any]:
    return {"contacts": [*DEFAULT_CONTACTS, {"name": p["name"], "phone": p["phone"]}]}


def _pick(pool: tuple[str, ...], name: str) -> Callable[[random.Random], Params]:
    return lambda rng: {name: rng.choice(pool)}


def _both(*samplers: Callable[[random.Random], Params]) -> Callable[[random.Random], Params]:
    def sample(rng: random.Random) -> Params:
        merged: Params = {}
        for sampler in samplers:
            merged.update(sampler(rng))
        return merged

    return sample


def _build_tasks() -> list[Task]:
    tasks: list[Task] = []
    for setting, on in (
        ("wifi", True),
        ("wifi", False),
        ("bluetooth", True),
        ("bluetooth", False),
        ("airplane_mode", True),
        ("airplane_mode", False),
        ("dark_theme", True),
        ("dark_theme", False),
        ("battery_saver", True),
        ("do_not_disturb", True),
        ("battery_percentage", True),
        ("auto_rotate", False),
    ):
        tasks.append(toggle_task(setting, on))
    for setting, on in (
        ("wifi", True),
        ("bluetooth", False),
        ("dark_theme", True),
        ("airplane_mode", False),
    ):
        tasks.append(already_done_task(setting, on))

    tasks += [
        Task(
            name="settings_unlock_developer_options",
            app=SETTINGS,
            family="scroll",
            template="Enable developer options on this phone.",
            plan=lambda p: [
                open_app("Settings"),
                swipe("up"),
                swipe("up"),
                tap("About phone"),
                swipe("up"),
                *[tap("Build number")] * 7,
                done(),
            ],
            check=lambda s, p, a: s["developer_options"] is True,
            max_steps=20,
        ),
        Task(
            name="settings_usb_debugging_on",
            app=SETTINGS,
            family="scroll",
            template="Turn on USB debugging.",
            setup=lambda p: {"developer_options": True},
            plan=lambda p: [
                open_app("Settings"),
                *DEVELOPER_OPTIONS_PATH,
                tap("USB debugging"),
                tap("OK"),
                done(),
            ],
            check=lambda s, p, a: s["usb_debugging"] is True,
            max_steps=14,
        ),
        Task(
            name="settings_stay_awake_on",
            app=SETTINGS,
            family="scroll",
            template="Keep the screen awake while charging (developer options are enabled).",
            setup=lambda p: {"developer_options": True},
            plan=lambda p: [
                open_app("Settings"),
                *DEVELOPER_OPTIONS_PATH,
                tap("Stay awake"),
                done(),
            ],
            check=lambda s, p, a: s["stay_awake"] is True,
            max_steps=14,
        ),
        Task(
            name="multi_wifi_off_bluetooth_on",
            app=SETTINGS,
            family="multi_step",
            template="Turn off Wi-Fi and turn on Bluetooth.",
            plan=lambda p: [
                open_app("Settings"),
                *SETTINGS_PATHS["wifi"],
                key("back"),
                key("back"),
                *SETTINGS_PATHS["bluetooth"],
                done(),
            ],
            check=lambda s, p, a: s["wifi"] is False and s["bluetooth"] is True,
            max_steps=16,
        ),
        Task(
            name="question_android_version",
            app=SETTINGS,
            family="question",
            template="What Android version is this phone on?",
            sample=_pick(("12", "13", "14", "15"), "version"),
            setup=lambda p: {"android_version": p["version"]},
            plan=lambda p: [
                open_app("Settings"),
                swipe("up"),
                swipe("up"),
                tap("About phone"),
                done(answer=p["version"]),
            ],
            check=lambda s, p, a: same_text(a, p["version"]),
            max_steps=10,
        ),
        Task(
            name="question_battery_level",
            app=SETTINGS,
            family="question",
            template="How charged is the battery, in percent?",
            sample=lambda rng: {"level": rng.randrange(12, 99)},
            setup=lambda p: {"battery_level": p["level"]},
            plan=lambda p: [open_app("Settings"), done(answer=f"{p['level']}%")],
            check=lambda s, p, a: same_digits(a, str(p["level"])),
            max_steps=8,
        ),
        Task(
            name="question_device_model",
            app=SETTINGS,
            family="question",
            template="What is the model name of this phone?",
            sample=_pick(("Pixel 7", "Pixel 8 Pro", "Pixel 6a"), "model"),
            setup=lambda p: {"device_model": p["model"]},
            plan=lambda p: [
                open_app("Settings"),
                swipe("up"),
                swipe("up"),
                tap("About phone"),
                done(answer=p["model"]),
            ],
            check=lambda s, p, a: same_text(a, p["model"]),
            max_steps=10,
        ),
        Task(
            name="open_settings_from_drawer",
            app=LAUNCHER,
            family="navigation",
            template="Open the Settings app from the app drawer.",
            plan=lambda p: [swipe("up"), tap("Settings"), done()],
            check=lambda s, p, a: s["foreground"] == SETTINGS,
            max_steps=6,
        ),
    ]

    # Clock
    tasks += [
        Task(
            name="clock_add_alarm",
            app=CLOCK,
            family="alarm",
            template="Set an alarm for {time}.",
            sample=_alarm_time,
            plan=lambda p: [open_app("Clock"), *set_alarm_steps(p["hhmm"]), done()],
            check=lambda s, p, a: _alarm_matches(s, p["hhmm"], enabled=True),
            max_steps=12,
        ),
        Task(
            name="clock_add_labelled_alarm",
            app=CLOCK,
            family="alarm",
            template='Set an alarm for {time} with the label "{label}".',
            sample=_both(_alarm_time, _pick(LABELS, "label")),
            plan=lambda p: [
                open_app("Clock"),
                *set_alarm_steps(p["hhmm"]),
                tap("Add label"),
                type_in(None, p["label"]),
                tap("OK"),
                done(),
            ],
            check=lambda s, p, a: _alarm_matches(s, p["hhmm"], enabled=True, label=p["label"]),
            max_steps=15,
        ),
        Task(
            name="clock_disable_alarm",
            app=CLOCK,
            family="alarm",
            template="Turn off the {time} alarm.",
            sample=_alarm_time,
            setup=lambda p: {
                "alarms": [
                    {"time": p["hhmm"], "enabled": True, "label": ""},
                    {"time": "23:55", "enabled": True, "label": "Late"},
                ]
            },
            plan=lambda p: [open_app("Clock"), tap(f"{p['time']} alarm"), done()],
            check=lambda s, p, a: (
                _alarm_matches(s, p["hhmm"], enabled=False)
                and _alarm_matches(s, "23:55", enabled=True)
            ),
            max_steps=8,
        ),
        Task(
            name="clock_enable_alarm",
            app=CLOCK,
            family="alarm",
            template="Switch on my {time} alarm.",
            sample=_alarm_time,
            setup=lambda p: {"alarms": [{"time": p["hhmm"], "enabled": False, "label": ""}]},
            plan=lambda p: [open_app("Clock"), tap(f"{p['time']} alarm"), done()],
            check=lambda s, p, a: _alarm_matches(s, p["hhmm"], enabled=True),
            max_steps=8,
        ),
        Task(
            name="clock_delete_alarm",
            app=CLOCK,
            family="alarm",
            template="Delete the {time} alarm and keep the others.",
            sample=_alarm_time,
            setup=lambda p: {
                "alarms": [
                    {"time": "04:00", "enabled": False, "label": ""},
                    {"time": p["hhmm"], "enabled": True, "label": ""},
                    {"time": "23:55", "enabled": True, "label": ""},
                ]
            },
            plan=lambda p: [
                open_app("Clock"),
                tap("Expand alarm", near=p["time"]),
                tap("Delete"),
                done(),
            ],
            check=lambda s, p, a: not _alarm_matches(s, p["hhmm"]) and len(s["alarms"]) == 2,
            max_steps=10,
        ),
        Task(
            name="already_alarm_off",
            app=CLOCK,
            family="already_done",
            template="Make sure the {time} alarm is off.",
            sample=_alarm_time,
            setup=lambda p: {"alarms": [{"time": p["hhmm"], "enabled": False, "label": ""}]},
            plan=lambda p: [done()],
            check=lambda s, p, a: _alarm_matches(s, p["hhmm"], enabled=False),
            max_steps=6,
        ),
        Task(
            name="question_alarm_time",
            app=CLOCK,
            family="question",
            template='At what time is my "{label}" alarm set?',
            sample=_both(_alarm_time, _pick(LABELS, "label")),
            setup=lambda p: {"alarms": [{"time": p["hhmm"], "enabled": True, "label": p["label"]}]},
            plan=lambda p: [open_app("Clock"), done(answer=p["time"])],
            check=lambda s, p, a: same_time(a, p["hhmm"]),
            max_steps=8,
        ),
    ]

    # Contacts
    tasks += [
        Task(
            name="contacts_add",
            app=CONTACTS,
            family="contact",
            template="Add a contact named {name} with the phone number {phone}.",
            sample=_person,
            plan=lambda p: [
                open_app("Contacts"),
                *add_contact_steps(p["first"], p["last"], p["phone"]),
                done(),
            ],
            check=lambda s, p, a: _has_contact(s, p["name"], p["phone"]),
            max_steps=12,
        ),
        Task(
            name="contacts_edit_phone",
            app=CONTACTS,
            family="contact",
            template="Change {name}'s phone number to {new_phone}.",
            sample=lambda rng: {**_person(rng), "new_phone": f"+1 555-01{rng.randrange(10, 99)}"},
            setup=_with_person,
            plan=lambda p: [
                open_app("Contacts"),
                tap(p["name"]),
                tap("Edit contact"),
                type_in(p["phone"], p["new_phone"], clear=True),
                tap("Save"),
                done(),
            ],
            check=lambda s, p, a: (
                _has_contact(s, p["name"], p["new_phone"])
                and len(s["contacts"]) == len(DEFAULT_CONTACTS) + 1
            ),
            max_steps=12,
        ),
        Task(
            name="contacts_search_phone",
            app=CONTACTS,
            family="question",
            template="Look up {name} in Contacts. What is their phone number?",
            sample=lambda rng: dict(
                zip(
                    ("name", "phone"),
                    rng.choice([(c["name"], c["phone"]) for c in EXTRA_CONTACTS[8:]]),
                    strict=True,
                )
            ),
            setup=lambda p: {"contacts": [*DEFAULT_CONTACTS, *EXTRA_CONTACTS]},
            plan=lambda p: [
                open_app("Contacts"),
                tap("Search contacts"),
                type_in(None, p["name"].split()[0]),
                tap(p["name"]),
                done(answer=p["phone"]),
            ],
            check=lambda s, p, a: same_digits(a, p["phone"]),
            max_steps=12,
        ),
        Task(
            name="contacts_scroll_phone",
            app=CONTACTS,
            family="scroll",
            template="Open the contact card of {name}.",
            sample=lambda rng: {"name": rng.choice(("Zack Young", "Kofi Mensah", "Jonas Berg"))},
            setup=lambda p: {"contacts": [*DEFAULT_CONTACTS, *EXTRA_CONTACTS]},
            plan=lambda p: [open_app("Contacts"), swipe("up"), swipe("up"), tap(p["name"]), done()],
            check=lambda s, p, a: s["foreground"] == CONTACTS,
            max_steps=10,
        ),
    ]

    # Messages
    tasks += [
        Task(
            name="messages_send",
            app=MESSAGES,
            family="message",
            template='Send a text to {name} saying "{text}".',
            sample=_both(_person, _pick(TEXTS, "text")),
            setup=_with_person,
            plan=lambda p: [*open_messages(), *send_text_steps(p["name"], p["text"]), done()],
            check=lambda s, p, a: _sent(s, p["name"], p["text"]),
            max_steps=14,
        ),
        Task(
            name="messages_reply",
            app=MESSAGES,
            family="message",
            template='Reply "{text}" to Bob Chen\'s message.',
            sample=_pick(TEXTS, "text"),
            plan=lambda p: [
                *open_messages(),
                tap("Bob Chen"),
                type_in("Text message", p["text"]),
                tap("Send SMS"),
                done(),
            ],
            check=lambda s, p, a: _sent(s, "Bob Chen", p["text"]),
            max_steps=10,
        ),
        Task(
            name="messages_to_number",
            app=MESSAGES,
            family="message",
            template='Text {number} with the message "{text}".',
            sample=_both(
                _pick(("+1 650-555-0188", "+44 7700 900777"), "number"), _pick(TEXTS, "text")
            ),
            plan=lambda p: [
                *open_messages(),
                tap("Start chat"),
                type_in(None, p["number"], submit=True),
                type_in("Text message", p["text"]),
                tap("Send SMS"),
                done(),
            ],
            check=lambda s, p, a: any(
                same_digits(m["to"], p["number"]) and same_text(m["text"], p["text"])
                for m in s["messages"]
            ),
            max_steps=12,
        ),
        Task(
            name="question_last_text",
            app=MESSAGES,
            family="question",
            template="What did Alice Martin text me? Answer with her message.",
            sample=_pick(
                ("Lunch at 12:30?", "Bring the charger please", "Feliz cumpleaños 🎉"), "text"
            ),
            setup=lambda p: {
                "inbox": [
                    {"from": "Alice Martin", "text": p["text"]},
                    {"from": "Bob Chen", "text": "The parcel arrived"},
                ]
            },
            plan=lambda p: [*open_messages(), done(answer=p["text"])],
            check=lambda s, p, a: same_text(a, p["text"]),
            max_steps=8,
        ),
    ]

    # Calendar
    tasks += [
        Task(
            name="calendar_add_event",
            app=CALENDAR,
            family="calendar",
            template='Create a calendar event "{title}" today at {time}.',
            sample=_both(_pick(EVENTS, "title"), _alarm_time),
            plan=lambda p: [
                open_app("Calendar"),
                tap("Allow"),
                tap("Create new event"),
                type_in(None, p["title"]),
                tap("10:00 AM"),
                tap("Switch to text input mode for the time input."),
                type_in(None, f"{int(p['hhmm'][:2]) % 12 or 12:02d}"),
                type_in(None, p["hhmm"][3:]),
                tap("PM" if int(p["hhmm"][:2]) >= 12 else "AM"),
                tap("OK"),
                tap("Save"),
                done(),
            ],
            check=lambda s, p, a: any(
                normalize_text(e["title"]) == normalize_text(p["title"])
                and e["time"] == p["hhmm"]
                and e["date"] == s["date"]
                for e in s["events"]
            ),
            max_steps=16,
        ),
        Task(
            name="calendar_delete_event",
            app=CALENDAR,
            family="calendar",
            template='Delete the event "{title}" from my calendar.',
            sample=_pick(EVENTS, "title"),
            setup=lambda p: {
                "events": [
                    {"title": p["title"], "date": "2024-10-15", "time": "15:00"},
                    {"title": "Flight to Oslo", "date": "2024-10-17", "time": "08:10"},
                ]
            },
            plan=lambda p: [
                open_app("Calendar"),
                tap("Allow"),
                tap(p["title"]),
                tap("Delete event"),
                tap("Delete"),
                done(),
            ],
            check=lambda s, p, a: [e["title"] for e in s["events"]] == ["Flight to Oslo"],
            max_steps=10,
        ),
        Task(
            name="question_event_time",
            app=CALENDAR,
            family="question",
            template='At what time does "{title}" start on Thursday?',
            sample=_both(_pick(EVENTS, "title"), _alarm_time),
            setup=lambda p: {
                "events": [
                    {"title": p["title"], "date": "2024-10-17", "time": p["hhmm"]},
                    {"title": "Standup", "date": "2024-10-15", "time": "09:30"},
                ]
            },
            plan=lambda p: [open_app("Calendar"), tap("Allow"), done(answer=p["time"])],
            check=lambda s, p, a: same_time(a, p["hhmm"]),
            max_steps=8,
        ),
        Task(
            name="question_event_count",
            app=CALENDAR,
            family="question",
            template="How many events do I have today?",
            sample=lambda rng: {"count": rng.randrange(1, 4)},
            setup=lambda p: {
                "events": [
                    {"title": f"Meeting {i + 1}", "date": "2024-10-15", "time": f"1{i}:00"}
                    for i in range(p["count"])
                ]
                + [{"title": "Dinner", "date": "2024-10-16", "time": "19:00"}]
            },
            plan=lambda p: [open_app("Calendar"), tap("Allow"), done(answer=str(p["count"]))],
            check=lambda s, p, a: same_digits(a, str(p["count"])),
            max_steps=8,
        ),
    ]

    # Across apps
    tasks += [
        Task(
            name="multi_add_contact_then_text",
            app=CONTACTS,
            family="multi_app",
            template='Add {name} ({phone}) to my contacts, then text them "{text}".',
            sample=_both(_person, _pick(TEXTS, "text")),
            plan=lambda p: [
                open_app("Contacts"),
                *add_contact_steps(p["first"], p["last"], p["phone"]),
                tap("Text"),
                tap("Allow"),
                type_in("Text message", p["text"]),
                tap("Send SMS"),
                done(),
            ],
            check=lambda s, p, a: (
                _has_contact(s, p["name"], p["phone"]) and _sent(s, p["name"], p["text"])
            ),
            max_steps=18,
        ),
        Task(
            name="multi_alarm_from_message",
            app=MESSAGES,
            family="multi_app",
            template="Alice Martin texted me a wake-up time. Set an alarm for that time.",
            sample=_alarm_time,
            setup=lambda p: {
                "inbox": [
                    {"from": "Alice Martin", "text": f"Can you set an alarm for {p['time']}?"}
                ]
            },
            plan=lambda p: [
                *open_messages(),
                tap("Alice Martin"),
                open_app("Clock"),
                *set_alarm_steps(p["hhmm"]),
                done(),
            ],
            check=lambda s, p, a: _alarm_matches(s, p["hhmm"], enabled=True),
            max_steps=16,
        ),
        Task(
            name="multi_text_contact_phone",
            app=MESSAGES,
            family="multi_app",
            template="Text Bob Chen the phone number of {name}.",
            sample=_person,
            setup=_with_person,
            plan=lambda p: [
                open_app("Contacts"),
                tap(p["name"]),
                *open_messages(),
                *send_text_steps("Bob Chen", p["phone"]),
                done(),
            ],
            check=lambda s, p, a: any(
                m["to"] == "Bob Chen" and same_digits(m["text"], p["phone"]) for m in s["messages"]
            ),
            max_steps=16,
        ),
        Task(
            name="multi_dark_theme_and_alarm",
            app=SETTINGS,
            family="multi_app",
            template="Turn on dark theme, then set an alarm for {time}.",
            sample=_alarm_time,
            plan=lambda p: [
                open_app("Settings"),
                *SETTINGS_PATHS["dark_theme"],
                open_app("Clock"),
                *set_alarm_steps(p["hhmm"]),
                done(),
            ],
            check=lambda s, p, a: (
                s["dark_theme"] is True and _alarm_matches(s, p["hhmm"], enabled=True)
            ),
            max_steps=16,
        ),
        Task(
            name="multi_event_from_contact",
            app=CALENDAR,
            family="multi_app",
            template='Create an event today at {time} titled "Call" followed by Carmen '
            "López's phone number.",
            sample=_alarm_time,
            plan=lambda p: [
                open_app("Contacts"),
                tap("Carmen López"),
                open_app("Calendar"),
                tap("Allow"),
                tap("Create new event"),
                type_in(None, "Call +34 612 345 678"),
                tap("10:00 AM"),
                tap("Switch to text input mode for the time input."),
                type_in(None, f"{int(p['hhmm'][:2]) % 12 or 12:02d}"),
                type_in(None, p["hhmm"][3:]),
                tap("PM" if int(p["hhmm"][:2]) >= 12 else "AM"),
                tap("OK"),
                tap("Save"),
                done(),
            ],
            check=lambda s, p, a: any(
                e["title"].startswith("Call")
                and same_digits(e["title"], "+34 612 345 678")
                and e["time"] == p["hhmm"]
                for e in s["events"]
            ),
            max_steps=18,
        ),
    ]
    return tasks


TASKS: list[Task] = _build_tasks()
TASKS_BY_NAME: dict[str, Task] = {task.name: task for task in TASKS}
