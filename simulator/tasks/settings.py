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
# How goals name each setting: the plain name, then another way people say it.
SETTING_NAMES: dict[str, tuple[str, str]] = {
    "wifi": ("Wi-Fi", "WLAN"),
    "airplane_mode": ("airplane mode", "flight mode"),
    "bluetooth": ("Bluetooth", "the Bluetooth radio"),
    "dark_theme": ("dark theme", "dark mode"),
    "battery_saver": ("Battery Saver", "the power-saving mode"),
    "battery_percentage": ("the battery percentage in the status bar", "the battery percentage"),
    "do_not_disturb": ("Do Not Disturb", "Do Not Disturb mode"),
    "auto_rotate": ("auto-rotate", "automatic screen rotation"),
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
    word = "on" if on else "off"
    name, other_name = SETTING_NAMES[setting]
    label = name[0].upper() + name[1:]
    return Task(
        name=toggle_name(setting, on),
        app=SETTINGS,
        family="toggle",
        templates=(
            f"Turn {word} {name}.",
            f"Switch {name} {word}.",
            f"In Settings, set {name} to {word}.",
            f"{label}: {word}.",
            f"Could you flip {name} {word} for me?",
            f"I need {name} {word} right away, so go to Settings and change it.",
            f"Hey, can you turn {name} {word} real quick?",
            f"Before I forget, please have {name} switched {word} in Settings.",
            f"Would you mind toggling {name} {word}?",
            f"It would help if {name} were {word}.",
            f"{label} should end up {word} once you're done.",
            f"Open Settings, then change {name} to {word}.",
            f"{'Enable' if on else 'Disable'} {other_name}.",
        ),
        setup=lambda p: {setting: not on},
        plan=lambda p: [open_app("Settings"), *SETTINGS_PATHS[setting], done()],
        check=lambda s, p, a: s[setting] is on,
        changes=keys(setting),
        max_steps=10,
    )


def already_done_task(setting: str, on: bool) -> Task:
    word = "on" if on else "off"
    name, other_name = SETTING_NAMES[setting]
    label = name[0].upper() + name[1:]
    return Task(
        name=f"{toggle_name(setting, on)}Verify",
        app=SETTINGS,
        family="already_done",
        templates=(
            f"Make sure {name} is {word}.",
            f"Check that {name} is {word}; turn it {word} if it is not.",
            f"{label} should be {word}. If it isn't, switch it {word}.",
            f"In Settings, confirm that {name} is {word} and only change it if needed.",
            f"Is {name} {word}? If not, turn it {word}.",
            f"When you get a moment, verify that {name} is {word}, and fix it if it is not.",
            f"Hey, can you glance at {name} and flip it {word} only if it isn't {word} already?",
            f"Before we start, double-check that {name} is {word} and switch it only if it isn't.",
            f"Would you mind confirming {name} is {word}, toggling it just when necessary?",
            f"{label} ought to be {word} by the end; if it already is, nothing needs changing.",
            f"Settings check: {name} {word}, change only if wrong.",
            f"Open Settings and look at {name}. If it is not {word}, then switch it {word}.",
            f"I want {other_name} {word}. Please see to it.",
        ),
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
        templates=(
            "Enable developer options on this phone.",
            "Unlock the developer options.",
            "Could you turn on the developer options for me?",
            "I need the developer options on this phone, so unlock them.",
            "Developer options: enabled.",
            "Go into Settings and activate the developer options.",
            "Hey, can you get the developer options unlocked real quick?",
            "Before I test my app, please switch on the developer options.",
            "Would you mind unlocking developer options for this device?",
            "It would be great to have the developer options enabled on this phone.",
            "The developer options should end up unlocked.",
            "Open Settings, then turn on the hidden developer options.",
            "Make this phone show Developer options in Settings.",
        ),
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
        templates=(
            "Turn on USB debugging.",
            "Enable USB debugging in the developer options.",
            "USB debugging: on.",
            "Could you switch USB debugging on for me?",
            "I'm about to plug the phone into my laptop for development, "
            "so activate USB debugging.",
            "Using Settings, allow USB debugging on this phone.",
            "Hey, flip on USB debugging real quick, would you?",
            "Before I hook the phone up to Android Studio, please enable USB debugging.",
            "Would you mind activating USB debugging?",
            "USB debugging should end up enabled on this device.",
            "Go to the developer options, then switch on USB debugging.",
            "We need USB debugging turned on; please take care of it.",
            "Let a computer debug this phone over USB.",
        ),
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
        templates=(
            "Keep the screen awake while charging (developer options are enabled).",
            'Turn on "Stay awake" in the developer options.',
            'Could you switch on "Stay awake" for me?',
            "I want the display to stay on whenever the phone is plugged in and charging.",
            'Developer options, "Stay awake": on.',
            "In Settings, make the screen remain lit during charging.",
            'Hey, can you turn "Stay awake" on real quick?',
            "Since I use the phone as a dashboard, keep its screen on while it is charging.",
            'Would you mind enabling the "Stay awake" option in the developer options?',
            'The "Stay awake" setting should end up on.',
            'Open the developer options, then switch "Stay awake" on.',
            "It would be handy if the screen didn't go dark whenever the phone is on the charger.",
            "Stop the screen from sleeping while the phone charges.",
        ),
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
        templates=(
            "Turn off Wi-Fi and turn on Bluetooth.",
            "Switch Wi-Fi off, then switch Bluetooth on.",
            "Wi-Fi: off. Bluetooth: on.",
            "Could you turn Wi-Fi off and Bluetooth on for me?",
            "I'd like Bluetooth on and Wi-Fi off.",
            "I'm heading out with my headphones, so switch Wi-Fi off and Bluetooth on in Settings.",
            "Hey, can you kill the Wi-Fi and get Bluetooth going real quick?",
            "Since I'm pairing a speaker, put Bluetooth on; also switch off the Wi-Fi.",
            "Would you mind switching Bluetooth on and Wi-Fi off?",
            "Wi-Fi should end up off and Bluetooth on.",
            "First turn Wi-Fi off in Settings, then turn on Bluetooth.",
            "We need Wi-Fi switched off and Bluetooth switched on.",
            "Disable WLAN and enable Bluetooth.",
        ),
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
        templates=(
            "What Android version is this phone on?",
            "Which version of Android does this phone run?",
            "Check Settings and say which Android version the phone has.",
            "I need to know the Android version installed on this phone.",
            "Android version of this phone?",
            "Could you find out what version of Android this device runs?",
            "Hey, quick question: which Android release is on this phone?",
            "Before I install an app, I need to know the Android version on here. What is it?",
            "Would you mind finding out which Android version is installed and letting me know?",
            "It would help to know the version of Android running here.",
            "Look in Settings, then report the Android version.",
            "We'd like to learn what Android version this phone uses.",
            "Tell me the phone's Android version.",
        ),
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
        templates=(
            "How charged is the battery, in percent?",
            "What is the battery level?",
            "Check the battery level in Settings and give it as a percentage.",
            "Current battery level, in percent?",
            "I'd like to know what percentage the battery is at.",
            "Using Settings, tell me the battery's charge in percent.",
            "Hey, what's the battery at right now, percentage-wise?",
            "Before I head out, I want to check the charge: what percent is the battery?",
            "Would you mind telling me the battery's charge as a percentage?",
            "It would help to know the current battery percentage.",
            "Battery charge (%)?",
            "Open Settings and read the battery level, then give me the percent.",
            "How much battery is left? Answer in percent.",
        ),
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
        templates=(
            "What is the model name of this phone?",
            "Which phone model is this?",
            "Tell me what model this phone is.",
            "Phone model name, please.",
            "I need the exact model of my phone for a repair form.",
            "In Settings, look up the phone's model name.",
            "Hey, quick one: what model is my phone?",
            "Before I buy a case, I need to know the phone's model name. What is it?",
            "Would you mind letting me know which model this phone is?",
            "It would help to have the model name of this phone.",
            "Open About phone in Settings, then report the model name.",
            "We need the phone's model; what does Settings say it is?",
            "Find out this device's model.",
        ),
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
        templates=(
            "Turn on Wi-Fi, then open the {app} app.",
            "Switch Wi-Fi on and then launch {app}.",
            "Could you switch on Wi-Fi and then start {app}?",
            "Wi-Fi on first, then the {app} app.",
            "I need Wi-Fi on before I use {app}: switch it on, then open {app}.",
            "Go to Settings to turn on Wi-Fi and finish by opening {app}.",
            "Hey, get Wi-Fi on real quick and then pull up {app}.",
            "Since {app} needs a connection, turn the Wi-Fi on first and then open it.",
            "Would you mind turning on Wi-Fi and then bringing up the {app} app?",
            "Wi-Fi should end up on, with {app} open on the screen.",
            "Two things, in order: switch on Wi-Fi, and open {app}.",
            "Let's turn the Wi-Fi on in Settings and then go to {app}.",
            "Enable WLAN; after that, open {app}.",
        ),
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
        templates=(
            "What is this phone's own phone number?",
            "Which number does this phone have?",
            "Tell me the phone number assigned to this device.",
            "I can't remember my own number; please get it from the phone.",
            "This phone's number?",
            "Could you check what number this phone is registered with?",
            "Hey, what's the number of this phone again?",
            "Before I give my number to a friend, I need it: what number does this phone have?",
            "Would you mind checking this device's number and telling me what it is?",
            "It would help to know this handset's own number.",
            "Own number of this device?",
            "Open About phone, then report the phone number shown there.",
            "Look up my phone number in Settings.",
        ),
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
        templates=(
            "What is the build number of this phone?",
            "Which build is this phone running? Give the build number.",
            "Tell me this phone's build number.",
            "I need the phone's build number for a bug report.",
            "Current build number on this device?",
            "Could you check Settings and find the build number for me?",
            "Hey, what build number is this phone on?",
            "Before I file this issue, I must include the build number. What is it on this phone?",
            "Would you mind fetching the phone's build number?",
            "It would help to know which build number the device shows in Settings.",
            "Build number, please.",
            "Go into Settings, scroll to the phone info, then give me the build number.",
            "Read me the build number from About phone.",
        ),
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
