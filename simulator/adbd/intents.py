"""Intents and components as `am` and `pm` read them from a command line."""

from __future__ import annotations

from collections.abc import Mapping

# Every simulated app has one launcher activity, PACKAGE.MainActivity.
LAUNCHER_ACTIVITY = ".MainActivity"

_EXTRA_FLAGS = ("--es", "--ei", "--ez", "--el", "--ef", "--eu")
_VALUE_FLAGS = ("-a", "-c", "-n", "-d", "-t", "-f", "-p", "--user")


def intent_options(args: list[str]) -> dict[str, str]:
    """`-a ACTION -c CATEGORY -n COMPONENT --es KEY VALUE ... [PACKAGE]` as a flat dict."""
    options: dict[str, str] = {}
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in _EXTRA_FLAGS and index + 2 < len(args):
            options[args[index + 1]] = args[index + 2]
            index += 3
        elif arg in _VALUE_FLAGS and index + 1 < len(args):
            options[arg] = args[index + 1]
            index += 2
        elif arg.startswith("-"):
            index += 1
        else:
            options["package"] = arg
            index += 1
    return options


def describe_intent(options: Mapping[str, str]) -> str:
    """The `Intent { ... }` summary `am` prints."""
    fields = [f"act={options['-a']}"] if "-a" in options else []
    fields += [f"cat=[{options['-c']}]"] if "-c" in options else []
    fields += [f"cmp={options['-n']}"] if "-n" in options else []
    extras = any(key not in (*_VALUE_FLAGS, "package") for key in options)
    fields += ["flg=0x400000"] if "-a" in options and "-n" not in options else []
    fields += ["(has extras)"] if extras else []
    return "Intent { " + " ".join(fields) + " }"
