"""What every task module builds on: the Task and its plan steps, answer comparison, parameter
pools and the plans several apps share.

A task is parameterised by a seed (which contact, which time, which text). Its success
predicate reads the simulator's state dict, never the screen; question tasks also compare the
answer given to `task_complete(answer=...)`. Its scope (`changes`) says what it may change: an
episode that changed anything else has side effects (`simulator.tasks.scope`) and is not
solved, even where the predicate holds. Its oracle plan is the action sequence a perfect
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

from simulator.state import CALENDAR, CLOCK, CONTACTS, MESSAGES, SETTINGS
from simulator.tasks import pools
from simulator.tasks.phrasings import WORDING
from simulator.tasks.scope import Changes, RecordRule, side_effects

Params = dict[str, Any]
State = Mapping[str, Any]
Scope = Callable[[Params], Changes]
Sampler = Callable[[random.Random], Params]


# The agent's tools a plan plays (all but `wait`), and `remember`, a note rather than a call.
PlanTool = Literal[
    "tap", "long_press", "type_text", "swipe", "press_key", "open_app", "task_complete", "remember"
]


class PlanStep(BaseModel):
    """One oracle action. `target` is an element label on the screen at that moment; `near`
    picks, among several elements with that label, the one closest to the element `near`
    (for an answer: the element that must be shown with it).
    An `optional` step is skipped when its target is not on screen (a prompt that only some
    launches show). A `remember` step is no action: where its target (the value) is on
    screen, `text` is written down for later screens, beside the next step's call."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: PlanTool
    target: str | None = None
    near: str | None = None
    text: str | None = None
    clear: bool = False
    submit: bool = False
    direction: Literal["up", "down", "left", "right"] | None = None
    key: str | None = None
    app: str | None = None
    answer: str | None = None
    optional: bool = False


def tap(target: str, near: str | None = None) -> PlanStep:
    return PlanStep(tool="tap", target=target, near=near)


def type_in(target: str | None, text: str, clear: bool = False, submit: bool = False) -> PlanStep:
    return PlanStep(tool="type_text", target=target, text=text, clear=clear, submit=submit)


def remember(shown: str, note: str | None = None) -> PlanStep:
    """Write down `note` on the screen whose element shows `shown`, for a later screen;
    without a note, the element's label as the screen shows it (a long one cut short)."""
    return PlanStep(tool="remember", target=shown, text=note)


def swipe(direction: Literal["up", "down", "left", "right"] = "up") -> PlanStep:
    return PlanStep(tool="swipe", direction=direction)


def key(name: str) -> PlanStep:
    return PlanStep(tool="press_key", key=name)


def open_app(name: str) -> PlanStep:
    return PlanStep(tool="open_app", app=name)


def done(answer: str | None = None, near: str | None = None) -> PlanStep:
    """The end of the plan; an answer is given on a screen that shows it and, when `near` is
    set, the element `near` (the item it is about) too."""
    return PlanStep(tool="task_complete", answer=answer, near=near)


@dataclass(frozen=True)
class Task:
    """One task of the suite; every method takes the seed that picks its parameters.

    `templates` are the goal's phrasings (at least three), each formatted with the task's
    parameters and each naming every parameter. The last one is held out: a policy trained on
    the others can be scored on a wording it never saw. Unless given, they are the phrasings
    `simulator/tasks/phrasings` holds under the task's name.

    `changes` is the task's scope: the state keys it may change, each with the rule naming the
    records it may add, remove or alter (see `simulator.tasks.scope`). By default a task may
    change nothing, as questions and tasks already done must not."""

    name: str
    app: str
    family: str
    plan: Callable[[Params], list[PlanStep]]
    check: Callable[[State, Params, str | None], bool]
    templates: tuple[str, ...] = ()
    setup: Callable[[Params], dict[str, Any]] = field(default=lambda p: {})
    sample: Sampler = field(default=lambda rng: {})
    changes: Scope = field(default=lambda p: {})
    max_steps: int = 15

    def __post_init__(self) -> None:
        if not self.templates:
            object.__setattr__(self, "templates", WORDING.templates(self.name))

    def params(self, seed: int = 0) -> Params:
        return self.sample(random.Random(f"{self.name}/{seed}"))

    @property
    def held_out_phrasing(self) -> int:
        return len(self.templates) - 1

    @property
    def training_phrasings(self) -> range:
        return range(self.held_out_phrasing)

    def goal(self, seed: int = 0, phrasing: int = 0) -> str:
        """The goal in phrasing `phrasing` (an index into `templates`)."""
        return self.templates[phrasing].format(**self.params(seed))

    def initial_state(self, seed: int = 0) -> dict[str, Any]:
        return self.setup(self.params(seed))

    def success(self, state: State, seed: int = 0, answer: str | None = None) -> bool:
        return self.check(state, self.params(seed), answer)

    def oracle(self, seed: int = 0) -> list[PlanStep]:
        return self.plan(self.params(seed))

    def scope(self, seed: int = 0) -> Changes:
        return self.changes(self.params(seed))

    def side_effects(self, before: State, after: State, seed: int = 0) -> list[str]:
        """What changed from `before` to `after` outside the task's scope, one line each."""
        return side_effects(before, after, self.scope(seed))

    def solved(self, before: State, after: State, seed: int = 0, answer: str | None = None) -> bool:
        """The check passes on `after` and nothing outside the scope changed since `before`."""
        return self.success(after, seed, answer) and not self.side_effects(before, after, seed)


# ---------------------------------------------------------------------------------------------
# Scopes


def keys(*names: str) -> Scope:
    """A scope of whole keys that hold no records (`wifi`, the `stopwatch`)."""
    return lambda p: dict.fromkeys(names)


def named(field: str, *names: str) -> RecordRule:
    """Records whose `field` is one of `names`, compared as answers are (case, spacing)."""
    wanted = {normalize_text(name) for name in names}
    return lambda record: normalize_text(str(record[field])) in wanted


def sent_to(*recipients: str) -> RecordRule:
    """Sent texts to one of `recipients`, by name or by number."""
    by_name = named("to", *recipients)
    return lambda record: (
        by_name(record) or any(same_digits(record["to"], recipient) for recipient in recipients)
    )


def paths(*wanted: str) -> RecordRule:
    """Files or folders at one of the paths `wanted`."""
    return lambda path: path in wanted


def under(folder: str) -> RecordRule:
    """Files or folders inside `folder`."""
    return lambda path: path.startswith(folder + "/")


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
# Fixed contacts, scenery times and the samplers of the parameters every app uses

# Times the clock tasks' other alarms ring at, which a sampled time must not take.
SCENERY_TIMES = ("04:00", "23:55")
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


# Apps a goal may name, by the label the launcher shows.
APP_PACKAGES = {
    "Settings": SETTINGS,
    "Clock": CLOCK,
    "Contacts": CONTACTS,
    "Calendar": CALENDAR,
    "Messages": MESSAGES,
}


def person(rng: random.Random) -> Params:
    return pools.person(rng)


def alarm_time(rng: random.Random) -> Params:
    hhmm = pools.clock_time(rng, avoid=SCENERY_TIMES)
    return {"hhmm": hhmm, "time": twelve_hour(hhmm)}


def pick(pool: tuple[str, ...], name: str) -> Sampler:
    return lambda rng: {name: rng.choice(pool)}


def generated(make: Callable[[random.Random], str], name: str) -> Sampler:
    """A sampler of one parameter, `name`, made by `make`."""
    return lambda rng: {name: make(rng)}


def combine(*samplers: Sampler) -> Sampler:
    """One sampler whose parameters are those of all `samplers`."""

    def sample(rng: random.Random) -> Params:
        merged: Params = {}
        for sampler in samplers:
            merged.update(sampler(rng))
        return merged

    return sample


def with_person(p: Params) -> dict[str, Any]:
    """The default contacts plus the sampled person."""
    return {"contacts": [*DEFAULT_CONTACTS, {"name": p["name"], "phone": p["phone"]}]}


# ---------------------------------------------------------------------------------------------
# State predicates and plans shared by several apps


def alarm_matches(state: State, hhmm: str, enabled: bool | None = None, label: str = "") -> bool:
    return any(
        alarm["time"] == hhmm
        and (enabled is None or alarm["enabled"] is enabled)
        and (not label or normalize_text(alarm["label"]) == normalize_text(label))
        for alarm in state["alarms"]
    )


def the_alarm(p: Params) -> Changes:
    """The scope of a task about the alarm at `p["hhmm"]`: that alarm and no other."""
    return {"alarms": named("time", p["hhmm"])}


def has_contact(state: State, name: str, phone: str) -> bool:
    return any(
        normalize_text(c["name"]) == normalize_text(name) and same_digits(c["phone"], phone)
        for c in state["contacts"]
    )


def sent(state: State, to: str, text: str) -> bool:
    return any(
        normalize_text(m["to"]) == normalize_text(to)
        and normalize_text(m["text"]) == normalize_text(text)
        for m in state["messages"]
    )


def time_input_steps(hhmm: str) -> list[PlanStep]:
    """Enter `hhmm` in an open time picker through its text input mode, and confirm."""
    hour, minute = (int(part) for part in hhmm.split(":"))
    return [
        tap("Switch to text input mode for the time input."),
        type_in(None, f"{hour % 12 or 12:02d}"),
        type_in(None, f"{minute:02d}"),
        tap("PM" if hour >= 12 else "AM"),
        tap("OK"),
    ]


def set_alarm_steps(hhmm: str) -> list[PlanStep]:
    """Add an alarm from the Clock's alarm tab."""
    return [tap("Add alarm"), *time_input_steps(hhmm)]


def allow_notifications() -> PlanStep:
    """Messages and Calendar ask for the notification permission on their first launch only."""
    return PlanStep(tool="tap", target="Allow", optional=True)


def open_messages() -> list[PlanStep]:
    return [open_app("Messages"), allow_notifications()]


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


def open_calendar() -> list[PlanStep]:
    return [open_app("Calendar"), allow_notifications()]


def add_event_steps(title: str, hhmm: str) -> list[PlanStep]:
    """Create an event today at `hhmm` from the Calendar's day view."""
    return [
        tap("Create new event"),
        type_in(None, title),
        tap("10:00 AM"),
        *time_input_steps(hhmm),
        tap("Save"),
    ]
