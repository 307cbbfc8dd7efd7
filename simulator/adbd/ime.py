"""`ime`: the phone's input methods, the stock keyboard and (when installed) ADB Keyboard, which
types any Unicode text sent to it as a broadcast."""

from __future__ import annotations

from simulator.adbd.phone import ServedPhone
from simulator.adbd.sh import CommandFunction, Invocation

LATIN_IME = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"
ADB_KEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"
ADB_KEYBOARD_PACKAGE = "com.android.adbkeyboard"


class InputMethods:
    """Which input methods are enabled and which one is current, and the `ime` command."""

    def __init__(self, phone: ServedPhone) -> None:
        self._phone = phone
        self.enabled = [LATIN_IME]
        self.current = LATIN_IME

    def installed(self) -> list[str]:
        return [LATIN_IME, ADB_KEYBOARD_IME] if self._phone.adb_keyboard_installed else [LATIN_IME]

    def commands(self) -> dict[str, CommandFunction]:
        return {"ime": self._ime}

    def _ime(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        if args[:1] == ["list"]:
            imes = self.installed() if "-a" in args else self.enabled
            if "-s" in args:
                invocation.out("".join(f"{ime}\n" for ime in imes))
            else:
                invocation.out(
                    "".join(f"{ime}:\n  mId={ime} mSettingsActivityName=null\n" for ime in imes)
                )
            return 0
        if len(args) == 2 and args[0] in ("enable", "disable", "set"):
            verb, ime = args
            if ime not in self.installed():
                invocation.err(f"Unknown input method {ime} cannot be {verb}d for user #0\n")
                return 1
            if verb == "enable":
                if ime not in self.enabled:
                    self.enabled.append(ime)
                invocation.out(f"Input method {ime}: now enabled for user #0\n")
            elif verb == "disable":
                if ime in self.enabled and len(self.enabled) > 1:
                    self.enabled.remove(ime)
                    if self.current == ime:
                        self.current = self.enabled[0]
                invocation.out(f"Input method {ime}: now disabled for user #0\n")
            else:
                if ime not in self.enabled:
                    invocation.err(f"Input method {ime}: not enabled for user #0\n")
                    return 1
                self.current = ime
                invocation.out(f"Input method {ime} selected for user #0\n")
            return 0
        if args == ["reset"]:
            self.enabled, self.current = [LATIN_IME], LATIN_IME
            invocation.out(f"Reset current and enabled IMEs for user #0\n  Selected: {LATIN_IME}\n")
            return 0
        invocation.err("ime: usage: ime list [-a] [-s] | enable ID | disable ID | set ID | reset\n")
        return 1
