"""The simulated phone's state: one flat dict of documented keys (DESIGN §2.5).

Task success predicates read this state and nothing else. Every key, its type and default:

======================  ===================  ===================================================
key                     type                 meaning (default)
======================  ===================  ===================================================
wifi                    bool                 Wi-Fi radio on (True)
bluetooth               bool                 Bluetooth radio on (False)
airplane_mode           bool                 Airplane mode on (False)
dark_theme              bool                 Display > Dark theme (False)
battery_saver           bool                 Battery > Battery Saver (False)
battery_percentage      bool                 percentage shown in the status bar (False)
do_not_disturb          bool                 Sound > Do Not Disturb (False)
auto_rotate             bool                 Display > Auto-rotate screen (True)
flashlight              bool                 the quick-settings Flashlight tile (False)
developer_options       bool                 unlocked by tapping Build number 7 times (False)
usb_debugging           bool                 Developer options > USB debugging (False)
stay_awake              bool                 Developer options > Stay awake (False)
battery_level           int                  0-100, shown in Settings and the status bar (85)
android_version         str                  About phone > Android version ("14")
device_model            str                  About phone > Model ("Pixel 7")
build_number            str                  About phone > Build number ("UQ1A.240205.004")
phone_number            str                  About phone > Phone number ("+1 650-555-0142")
time                    str                  clock time "HH:MM", 24-hour ("09:41")
date                    str                  today, "YYYY-MM-DD" ("2024-10-15")
alarms                  list of objects      {time "HH:MM" 24-hour, enabled, label} ([])
contacts                list of objects      {name, phone} (a few people)
messages                list of objects      sent texts {to: contact name or number, text} ([])
inbox                   list of objects      received texts {from, text} (two texts)
events                  list of objects      calendar {title, date "YYYY-MM-DD", time "HH:MM"}
files                   object               shared storage: path below the storage root
                                             ("Documents/Markor/todo.md") -> text content
                                             (a few downloads, photos and one note)
folders                 list of str          folders of the shared storage besides those that
                                             hold files (the standard top-level ones)
expenses                list of objects      Pro Expense {name, amount, category, date
                                             "YYYY-MM-DD", note} ([])
todo_tasks              list of objects      Tasks {title, due "YYYY-MM-DD" or "", priority
                                             high/medium/low/none, completed, notes} ([])
recipes                 list of objects      Broccoli {title, description, servings,
                                             prep_time, ingredients, directions} ([])
stopwatch               object               Clock {running, elapsed seconds at the last
                                             pause, laps: seconds of each lap} (stopped at 0)
timer                   object               Clock {entry: keypad digits, duration seconds of
                                             the started timer (0: none), running} (none)
permission_prompts      list of str          packages that ask for notification permission
                                             on their next launch (Messages, Calendar)
notifications_allowed   list of str          packages granted notification permission ([])
foreground              str                  package in front; set it to start in that app
                                             (the launcher)
======================  ===================  ===================================================
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Literal, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from devices.errors import UsageError

LAUNCHER = "com.google.android.apps.nexuslauncher"
SETTINGS = "com.android.settings"
CLOCK = "com.google.android.deskclock"
CONTACTS = "com.google.android.contacts"
MESSAGES = "com.google.android.apps.messaging"
CALENDAR = "com.google.android.calendar"
MARKOR = "net.gsantner.markor"
FILES = "com.google.android.documentsui"
EXPENSE = "com.arduia.expense"
TASKS_APP = "org.tasks"
BROCCOLI = "com.flauschcode.broccoli"

_HHMM = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class StateError(UsageError, ValueError):
    """A state key or value the simulator does not accept."""


def _check_hhmm(value: str) -> str:
    if not _HHMM.match(value):
        raise ValueError(f"time must be HH:MM on a 24-hour clock, got {value!r}")
    return value


def twelve_hour(hhmm: str) -> tuple[str, str]:
    """A state time as the phone shows it: "15:17" -> ("3:17", "PM")."""
    hour, minute = (int(part) for part in hhmm.split(":"))
    return f"{hour % 12 or 12}:{minute:02d}", "PM" if hour >= 12 else "AM"


class Alarm(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)
    time: str
    enabled: bool = True
    label: str = ""

    _valid_time = field_validator("time")(_check_hhmm)


class Contact(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)
    name: str
    phone: str = ""

    def matches(self, query: str) -> bool:
        """Whether a contacts search for `query` finds this contact, in Contacts or Messages:
        any part of the name (case-insensitive) or digits of the number."""
        query = query.strip()
        if not query:
            return True
        if query.casefold() in self.name.casefold():
            return True
        digits = "".join(char for char in query if char.isdigit())
        return bool(digits) and digits in "".join(char for char in self.phone if char.isdigit())


class SentMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    to: str
    text: str


class ReceivedMessage(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    sender: str = Field(alias="from")
    text: str


class Event(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str
    date: str
    time: str

    _valid_time = field_validator("time")(_check_hhmm)


def _check_date(value: str) -> str:
    if not _DATE.match(value):
        raise ValueError(f"date must be YYYY-MM-DD, got {value!r}")
    return value


def _check_storage_path(value: str) -> str:
    parts = value.split("/")
    if not value or value.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"a storage path is relative, like Download/a.pdf, got {value!r}")
    return value


EXPENSE_CATEGORIES = (
    "Food",
    "Transportation",
    "Housing",
    "Clothes",
    "Health Care",
    "Education",
    "Entertainment",
    "Social",
    "Donation",
    "Income",
    "Others",
)


class Expense(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)
    name: str
    amount: float = Field(ge=0)
    category: str = "Others"
    date: str
    note: str = ""

    _valid_date = field_validator("date")(_check_date)

    @field_validator("category")
    @classmethod
    def _known_category(cls, value: str) -> str:
        if value not in EXPENSE_CATEGORIES:
            raise ValueError(f"category must be one of {', '.join(EXPENSE_CATEGORIES)}")
        return value


class TodoTask(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)
    title: str
    due: str = ""
    priority: Literal["high", "medium", "low", "none"] = "none"
    completed: bool = False
    notes: str = ""

    @field_validator("due")
    @classmethod
    def _due_date_or_none(cls, value: str) -> str:
        return value and _check_date(value)


class Recipe(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)
    title: str
    description: str = ""
    servings: str = ""
    prep_time: str = ""
    ingredients: str = ""
    directions: str = ""


class Stopwatch(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)
    running: bool = False
    elapsed: int = Field(default=0, ge=0)
    laps: list[int] = Field(default_factory=list)


class Timer(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)
    entry: str = Field(default="", pattern=r"^\d{0,6}$")
    duration: int = Field(default=0, ge=0)
    running: bool = False


STANDARD_FOLDERS = (
    "Alarms",
    "Audiobooks",
    "DCIM",
    "Documents",
    "Download",
    "Movies",
    "Music",
    "Notifications",
    "Pictures",
    "Podcasts",
    "Recordings",
    "Ringtones",
)


def _default_files() -> dict[str, str]:
    return {
        "Download/boarding_pass.pdf": "",
        "Download/sample_pdf.pdf": "",
        "DCIM/Camera/PXL_20241012_181233.jpg": "",
        "Documents/Markor/shopping_list.md": "- eggs\n- milk\n- bread",
        "Music/road_trip_mix.mp3": "",
    }


def _default_contacts() -> list[Contact]:
    return [
        Contact(name="Alice Martin", phone="+1 415-555-0101"),
        Contact(name="Bob Chen", phone="+1 415-555-0102"),
        Contact(name="Carmen López", phone="+34 612 345 678"),
        Contact(name="David Okafor", phone="+44 7700 900123"),
    ]


def _default_inbox() -> list[ReceivedMessage]:
    return [
        ReceivedMessage.model_validate({"from": "Alice Martin", "text": "Lunch at 12:30?"}),
        ReceivedMessage.model_validate({"from": "Bob Chen", "text": "The parcel arrived"}),
    ]


class DeviceState(BaseModel):
    """The live state; `model_dump(by_alias=True)` is the flat dict users and tasks see."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    wifi: bool = True
    bluetooth: bool = False
    airplane_mode: bool = False
    dark_theme: bool = False
    battery_saver: bool = False
    battery_percentage: bool = False
    do_not_disturb: bool = False
    auto_rotate: bool = True
    flashlight: bool = False
    developer_options: bool = False
    usb_debugging: bool = False
    stay_awake: bool = False
    battery_level: int = Field(default=85, ge=0, le=100)
    android_version: str = "14"
    device_model: str = "Pixel 7"
    build_number: str = "UQ1A.240205.004"
    phone_number: str = "+1 650-555-0142"
    time: str = "09:41"
    date: str = "2024-10-15"
    alarms: list[Alarm] = Field(default_factory=list)
    contacts: list[Contact] = Field(default_factory=_default_contacts)
    messages: list[SentMessage] = Field(default_factory=list)
    inbox: list[ReceivedMessage] = Field(default_factory=_default_inbox)
    events: list[Event] = Field(default_factory=list)
    files: dict[str, str] = Field(default_factory=_default_files)
    folders: list[str] = Field(default_factory=lambda: [*STANDARD_FOLDERS, "Documents/Markor"])
    expenses: list[Expense] = Field(default_factory=list)
    todo_tasks: list[TodoTask] = Field(default_factory=list)
    recipes: list[Recipe] = Field(default_factory=list)
    stopwatch: Stopwatch = Field(default_factory=Stopwatch)
    timer: Timer = Field(default_factory=Timer)
    permission_prompts: list[str] = Field(default_factory=lambda: [MESSAGES, CALENDAR])
    notifications_allowed: list[str] = Field(default_factory=list)
    foreground: str = LAUNCHER

    _valid_time = field_validator("time")(_check_hhmm)
    _valid_date = field_validator("date")(_check_date)

    @field_validator("files")
    @classmethod
    def _valid_files(cls, value: dict[str, str]) -> dict[str, str]:
        for path in value:
            _check_storage_path(path)
        return value

    @field_validator("folders")
    @classmethod
    def _valid_folders(cls, value: list[str]) -> list[str]:
        for path in value:
            _check_storage_path(path)
        return value

    def flat(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True)


STATE_KEYS: tuple[str, ...] = tuple(DeviceState.model_fields)

_TRUE = {"on", "true", "yes", "1", "enabled"}
_FALSE = {"off", "false", "no", "0", "disabled"}


def build_state(overrides: Mapping[str, Any] | None = None) -> DeviceState:
    """Defaults with `overrides` applied; unknown keys or bad values raise StateError."""
    values = dict(overrides or {})
    unknown = sorted(set(values) - set(STATE_KEYS))
    if unknown:
        raise StateError(f"unknown state key {unknown[0]!r}; known keys: {', '.join(STATE_KEYS)}")
    try:
        return DeviceState.model_validate(values)
    except ValidationError as exc:
        raise StateError(_first_error(exc)) from None


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    return f"invalid state value for {where}: {error['msg']}"


def coerce_value(key: str, raw: str) -> Any:
    """Turn the text of `KEY=VALUE` into the type the key holds."""
    if key not in DeviceState.model_fields:
        raise StateError(f"unknown state key {key!r}; known keys: {', '.join(STATE_KEYS)}")
    annotation = DeviceState.model_fields[key].annotation
    text = raw.strip()
    if annotation is bool:
        lowered = text.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise StateError(f"{key} takes on/off/true/false, got {raw!r}")
    if annotation is int:
        try:
            return int(text)
        except ValueError:
            raise StateError(f"{key} takes a whole number, got {raw!r}") from None
    if annotation is str:
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        shape = "a list" if get_origin(annotation) is list else "an object"
        raise StateError(f"{key} takes JSON ({shape}), {exc.msg} at column {exc.colno}") from None


def parse_state_assignment(assignment: str) -> tuple[str, Any]:
    """Parse `KEY=VALUE` (as given to `--sim-state`) into a key and a typed, validated value."""
    key, sep, raw = assignment.partition("=")
    key = key.strip()
    if not sep or not key:
        raise StateError(f"expected KEY=VALUE, got {assignment!r}")
    value = coerce_value(key, raw)
    build_state({key: value})  # validates the value against the key's schema
    return key, value


def parse_state_assignments(assignments: list[str]) -> dict[str, Any]:
    """Several `KEY=VALUE` strings into one overrides dict (later ones win)."""
    return dict(parse_state_assignment(item) for item in assignments)
