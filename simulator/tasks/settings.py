"""Settings: toggles, pages below the fold, developer options and questions about the phone."""

from __future__ import annotations

import datetime as dt
import random

from simulator.state import SETTINGS
from simulator.tasks import pools
from simulator.tasks.base import (
    APP_PACKAGES,
    PlanStep,
    Task,
    done,
    generated,
    key,
    keys,
    open_app,
    pick,
    same_digits,
    same_text,
    swipe,
    tap,
)
from simulator.tasks.phrasings import WORDING

# System sits below the first screenful of Settings, Developer options at the bottom of System.
DEVELOPER_OPTIONS_PATH = [
    swipe("up"),
    swipe("up"),
    tap("System"),
    swipe("up"),
    tap("Developer options"),
]
ABOUT_PHONE_PATH = [swipe("up"), swipe("up"), tap("About phone")]

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

DEVICE_MODELS = pools.words(
    "Pixel 6, Pixel 6a, Pixel 6 Pro, Pixel 7, Pixel 7a, Pixel 7 Pro, Pixel 8, Pixel 8a, "
    "Pixel 8 Pro, Pixel 9, Pixel 9 Pro, Pixel 9 Pro XL, Pixel Fold, Pixel Tablet"
)


def build_number(rng: random.Random) -> str:
    """ "AP2A.240805.005": a release branch, the build's date and its number that day."""
    branch = f"{rng.choice('ABTUS')}{rng.choice('PQ')}{rng.randrange(1, 4)}A"
    day = dt.date(2022, 1, 1) + dt.timedelta(days=rng.randrange(3 * 365))
    return f"{branch}.{day:%y%m%d}.{rng.randrange(1, 40):03d}"


def toggle_name(setting: str, on: bool) -> str:
    """AndroidWorld's way: SystemWifiTurnOn, SystemBluetoothTurnOff."""
    camel = "".join(part.capitalize() for part in setting.split("_"))
    return f"System{camel}Turn{'On' if on else 'Off'}"


def toggle_task(setting: str, on: bool) -> Task:
    return Task(
        name=toggle_name(setting, on),
        app=SETTINGS,
        family="toggle",
        # the file's words: how goals name the setting, and the state it is switched to
        templates=WORDING.family("toggle", setting, "on" if on else "off"),
        setup=lambda p: {setting: not on},
        plan=lambda p: [open_app("Settings"), *SETTINGS_PATHS[setting], done()],
        check=lambda s, p, a: s[setting] is on,
        changes=keys(setting),
        max_steps=10,
    )


def already_done_task(setting: str, on: bool) -> Task:
    return Task(
        name=f"{toggle_name(setting, on)}Verify",
        app=SETTINGS,
        family="already_done",
        templates=WORDING.family("already_done", setting, "on" if on else "off"),
        setup=lambda p: {setting: on},
        # the page that shows the switch, and done: the loop takes a claim of success only
        # once a screen showed the setting as asked (the path's last step would flip it)
        plan=lambda p: [open_app("Settings"), *SETTINGS_PATHS[setting][:-1], done()],
        check=lambda s, p, a: s[setting] is on,
        max_steps=6,
    )


TOGGLES = (
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
)
ALREADY_DONE = (
    ("wifi", True),
    ("wifi", False),
    ("bluetooth", True),
    ("bluetooth", False),
    ("dark_theme", True),
    ("airplane_mode", False),
)

TASKS: list[Task] = [
    *(toggle_task(setting, on) for setting, on in TOGGLES),
    *(already_done_task(setting, on) for setting, on in ALREADY_DONE),
    Task(
        name="SystemDeveloperOptionsUnlock",
        app=SETTINGS,
        family="scroll",
        plan=lambda p: [
            open_app("Settings"),
            *ABOUT_PHONE_PATH,
            swipe("up"),
            *[tap("Build number")] * 7,
            done(),
        ],
        check=lambda s, p, a: s["developer_options"] is True,
        changes=keys("developer_options"),
        max_steps=20,
    ),
    Task(
        name="SystemUsbDebuggingTurnOn",
        app=SETTINGS,
        family="scroll",
        setup=lambda p: {"developer_options": True},
        plan=lambda p: [
            open_app("Settings"),
            *DEVELOPER_OPTIONS_PATH,
            tap("USB debugging"),
            tap("OK"),
            done(),
        ],
        check=lambda s, p, a: s["usb_debugging"] is True,
        changes=keys("usb_debugging"),
        max_steps=14,
    ),
    Task(
        name="SystemStayAwakeTurnOn",
        app=SETTINGS,
        family="scroll",
        setup=lambda p: {"developer_options": True},
        plan=lambda p: [
            open_app("Settings"),
            *DEVELOPER_OPTIONS_PATH,
            tap("Stay awake"),
            done(),
        ],
        check=lambda s, p, a: s["stay_awake"] is True,
        changes=keys("stay_awake"),
        max_steps=14,
    ),
    Task(
        name="TurnOffWifiAndTurnOnBluetooth",
        app=SETTINGS,
        family="multi_step",
        plan=lambda p: [
            open_app("Settings"),
            *SETTINGS_PATHS["wifi"],
            key("back"),
            key("back"),
            *SETTINGS_PATHS["bluetooth"],
            done(),
        ],
        check=lambda s, p, a: s["wifi"] is False and s["bluetooth"] is True,
        changes=keys("wifi", "bluetooth"),
        max_steps=16,
    ),
    Task(
        name="SystemAndroidVersion",
        app=SETTINGS,
        family="question",
        sample=pick(("12", "13", "14", "15"), "version"),
        setup=lambda p: {"android_version": p["version"]},
        plan=lambda p: [open_app("Settings"), *ABOUT_PHONE_PATH, done(answer=p["version"])],
        check=lambda s, p, a: same_text(a, p["version"]),
        max_steps=10,
    ),
    Task(
        name="SystemBatteryLevel",
        app=SETTINGS,
        family="question",
        sample=lambda rng: {"level": rng.randrange(12, 99)},
        setup=lambda p: {"battery_level": p["level"]},
        plan=lambda p: [open_app("Settings"), done(answer=f"{p['level']}%")],
        check=lambda s, p, a: same_digits(a, str(p["level"])),
        max_steps=8,
    ),
    Task(
        name="SystemDeviceModel",
        app=SETTINGS,
        family="question",
        sample=pick(DEVICE_MODELS, "model"),
        setup=lambda p: {"device_model": p["model"]},
        plan=lambda p: [open_app("Settings"), *ABOUT_PHONE_PATH, done(answer=p["model"])],
        check=lambda s, p, a: same_text(a, p["model"]),
        max_steps=10,
    ),
    Task(
        name="TurnOnWifiAndOpenApp",
        app=SETTINGS,
        family="multi_step",
        sample=pick(("Clock", "Contacts", "Calendar"), "app"),
        setup=lambda p: {"wifi": False},
        plan=lambda p: [open_app("Settings"), *SETTINGS_PATHS["wifi"], open_app(p["app"]), done()],
        check=lambda s, p, a: s["wifi"] is True and s["foreground"] == APP_PACKAGES[p["app"]],
        changes=keys("wifi"),
        max_steps=10,
    ),
    Task(
        name="SystemPhoneNumber",
        app=SETTINGS,
        family="question",
        sample=generated(pools.phone_number, "number"),
        setup=lambda p: {"phone_number": p["number"]},
        plan=lambda p: [open_app("Settings"), *ABOUT_PHONE_PATH, done(answer=p["number"])],
        check=lambda s, p, a: same_digits(a, p["number"]),
        max_steps=10,
    ),
    Task(
        name="SystemBuildNumber",
        app=SETTINGS,
        family="question",
        sample=generated(build_number, "build"),
        setup=lambda p: {"build_number": p["build"]},
        plan=lambda p: [
            open_app("Settings"),
            *ABOUT_PHONE_PATH,
            swipe("up"),
            done(answer=p["build"]),
        ],
        check=lambda s, p, a: same_text(a, p["build"]),
        max_steps=10,
    ),
]
