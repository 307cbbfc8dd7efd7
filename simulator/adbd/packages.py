"""`pm` and `cmd package`: the installed packages and the launcher activities they resolve to."""

from __future__ import annotations

import base64
import hashlib

from simulator.adbd.ime import ADB_KEYBOARD_PACKAGE, LATIN_IME
from simulator.adbd.intents import LAUNCHER_ACTIVITY, intent_options
from simulator.adbd.phone import ServedPhone
from simulator.adbd.sh import CommandFunction, Invocation

SYSTEM_PACKAGES = ("android", "com.android.shell", "com.android.systemui", LATIN_IME.split("/")[0])


class PackageManager:
    """The package manager's commands, reached as `pm ...` or `cmd package ...`."""

    def __init__(self, phone: ServedPhone) -> None:
        self._phone = phone

    def commands(self) -> dict[str, CommandFunction]:
        return {"pm": self._pm, "cmd": self._cmd}

    def _packages(self) -> list[str]:
        packages = set(self._phone.installed_apps()) | set(SYSTEM_PACKAGES)
        if self._phone.adb_keyboard_installed:
            packages.add(ADB_KEYBOARD_PACKAGE)
        return sorted(packages)

    def _pm(self, invocation: Invocation) -> int:
        return self._package_command(invocation, invocation.argv[1:])

    def _cmd(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        if not args:
            invocation.err("cmd: no service specified\n")
            return 1
        if args[0] != "package":
            invocation.err(f"cmd: Can't find service: {args[0]}\n")
            return 20
        return self._package_command(invocation, args[1:])

    def _package_command(self, invocation: Invocation, args: list[str]) -> int:
        if args[:2] == ["list", "packages"]:
            flags = [arg for arg in args[2:] if arg.startswith("-")]
            filters = [arg for arg in args[2:] if not arg.startswith("-")]
            for package in self._packages():
                if filters and filters[0] not in package:
                    continue
                prefix = f"{_apk_path(package)}=" if "-f" in flags else ""
                invocation.out(f"package:{prefix}{package}\n")
            return 0
        if args[:1] == ["path"] and len(args) == 2:
            if args[1] not in self._packages():
                return 1
            invocation.out(f"package:{_apk_path(args[1])}\n")
            return 0
        if args[:1] in (["resolve-activity"], ["query-activities"]):
            return self._resolve_activities(invocation, args[0], args[1:])
        invocation.err(f"Unknown command: {' '.join(args[:1]) or '(none)'}\n")
        return 1

    def _resolve_activities(self, invocation: Invocation, command: str, args: list[str]) -> int:
        options = intent_options(args)
        brief = "--brief" in args or "--components" in args
        action = options.get("-a", "android.intent.action.MAIN")
        category = options.get("-c", "android.intent.category.LAUNCHER")
        apps = self._phone.installed_apps()
        if action != "android.intent.action.MAIN" or category != "android.intent.category.LAUNCHER":
            matches: list[str] = []
        elif command == "resolve-activity":
            target = options.get("package") or options.get("-p")
            matches = [target] if target is not None and target in apps else []
        else:
            matches = sorted(apps)
        if command == "resolve-activity":
            if not matches:
                invocation.out("No activity found\n")
                return 0
            invocation.out(_resolve_info(matches[0], brief))
            return 0
        if not matches:
            invocation.out("No activities found\n")
            return 0
        invocation.out(f"{len(matches)} activities found:\n")
        for number, package in enumerate(matches):
            invocation.out(f"  Activity #{number}:\n")
            invocation.out(
                "".join(f"    {line}\n" for line in _resolve_info(package, brief).splitlines())
            )
        return 0


def _apk_path(package: str) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(package.encode()).digest()[:16]).decode()
    return f"/data/app/~~{digest[:22]}==/{package}-{digest[:22]}==/base.apk"


def _resolve_info(package: str, brief: bool) -> str:
    header = "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n"
    if brief:
        return f"{header}{package}/{LAUNCHER_ACTIVITY}\n"
    # As on a real phone the label is a resource id: no readable name leaves the phone.
    return (
        header + "ActivityInfo:\n"
        f"  name={package}{LAUNCHER_ACTIVITY}\n"
        f"  packageName={package}\n"
        "  labelRes=0x7f140000 nonLocalizedLabel=null icon=0x7f0f0000\n"
        "  enabled=true exported=true\n"
    )
