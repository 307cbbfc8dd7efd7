"""`am` and `monkey`: starting and stopping apps, and the broadcasts ADB Keyboard listens to."""

from __future__ import annotations

import base64
import binascii
import contextlib

from simulator.adbd.ime import ADB_KEYBOARD_IME, InputMethods
from simulator.adbd.input import FocusedField
from simulator.adbd.intents import LAUNCHER_ACTIVITY, describe_intent, intent_options
from simulator.adbd.phone import ServedPhone
from simulator.adbd.sh import CommandFunction, Invocation


class ActivityManager:
    """The activity manager's commands: `am start|force-stop|broadcast` and `monkey -p`."""

    def __init__(
        self, phone: ServedPhone, field: FocusedField, input_methods: InputMethods
    ) -> None:
        self._phone = phone
        self._field = field
        self._input_methods = input_methods

    def commands(self) -> dict[str, CommandFunction]:
        return {"am": self._am, "monkey": self._monkey}

    def _launch(self, package: str) -> bool:
        if package not in self._phone.installed_apps():
            return False
        self._field.forget_selection()
        self._phone.open_app(package)
        return True

    def _am(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        if not args:
            invocation.err("usage: am [start|force-stop|broadcast] ...\n")
            return 1
        if args[0] in ("start", "start-activity"):
            return self._start(invocation, args[1:])
        if args[0] == "force-stop" and len(args) >= 2:
            # What a user sees of a force-stop: the app in front goes away, to the home screen.
            if self._phone.foreground_app() == args[-1]:
                self._phone.press_key("home")
            return 0
        if args[0] == "broadcast":
            return self._broadcast(invocation, args[1:])
        invocation.err(f"Error: unknown command '{args[0]}'\n")
        return 1

    def _start(self, invocation: Invocation, args: list[str]) -> int:
        options = intent_options(args)
        component = options.get("-n")
        if component is None:
            invocation.err(
                f"Error: Activity not started, unable to resolve {describe_intent(options)}\n"
            )
            return 1
        package, _, activity = component.partition("/")
        expanded = package + activity if activity.startswith(".") else activity
        if expanded != package + LAUNCHER_ACTIVITY or not self._launch(package):
            invocation.out(f"Starting: {describe_intent(options)}\n")
            invocation.err(
                f"Error type 3\nError: Activity class {{{package}/{expanded}}} does not exist.\n"
            )
            return 1
        invocation.out(f"Starting: {describe_intent(options)}\n")
        return 0

    def _broadcast(self, invocation: Invocation, args: list[str]) -> int:
        options = intent_options(args)
        invocation.out(f"Broadcasting: {describe_intent(options)}\nBroadcast completed: result=0\n")
        # ADB Keyboard listens only while it is the current input method, as on a phone.
        if not (
            self._phone.adb_keyboard_installed and self._input_methods.current == ADB_KEYBOARD_IME
        ):
            return 0
        action = options.get("-a")
        message = options.get("msg", "")
        if action == "ADB_INPUT_TEXT":
            self._field.type(message)
        elif action == "ADB_INPUT_B64":
            # The keyboard drops a message it cannot decode.
            with contextlib.suppress(binascii.Error, UnicodeDecodeError):
                self._field.type(base64.b64decode(message, validate=True).decode("utf-8"))
        elif action == "ADB_CLEAR_TEXT":
            self._field.clear()
        return 0

    def _monkey(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        package = args[args.index("-p") + 1] if "-p" in args[:-1] else None
        if package is None or not self._launch(package):
            invocation.err("** No activities found to run, monkey aborted.\n")
            return 1
        invocation.out(
            "Events injected: 1\n"
            "## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)\n"
        )
        return 0
