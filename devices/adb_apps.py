"""Which installed package a launcher label names, using only what a phone's shell reveals.

Android's shell does not print app labels: `pm` and `cmd package` give package names, APK
paths and label *resource ids*, never the text under the icon. So a label is matched against
the words of each package name and of its APK's folder (system apps live in folders such as
`/product/app/Chrome/`), with a short table for well-known apps whose package says something
else (Play Store is `com.android.vending`). A package name always works; a label that matches
nothing, or several apps equally well, is an AppNotFound error that says what to pass
instead, naming the installed packages closest to what was asked for.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping

from devices.base import AppNotFound

PACKAGE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+")

# Words that say nothing about which app a package is.
_NOISE = frozenset(
    {"com", "org", "net", "android", "google", "apps", "app", "mobile", "prebuilt", "product",
     "system", "priv", "data", "base", "apk", "gms", "the", "and"}
)  # fmt: skip
# Labels whose packages do not contain them, as they ship on common phones.
_LABEL_WORDS = {
    "play store": ("vending", "phonesky"),
    "google play store": ("vending", "phonesky"),
    "phone": ("dialer", "incallui"),
    "gmail": ("gm",),
    "files": ("documentsui", "files", "filemanager"),
    "messages": ("messaging", "mms", "messages"),
    "clock": ("deskclock", "clock"),
    "camera": ("camera", "camera2", "googlecamera"),
    "photos": ("photos", "gallery"),
    "gallery": ("gallery", "gallery3d"),
    "calculator": ("calculator", "calculator2"),
}


def _words(text: str) -> list[str]:
    """Lower-case alphanumeric runs, camelCase split: `DeskClockGoogle` -> desk, clock, google."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    return [word.lower() for word in re.findall(r"[A-Za-z0-9]+", spaced)]


def _package_words(package: str, apk_path: str | None) -> set[str]:
    words = {word for word in package.lower().split(".") if word not in _NOISE}
    if apk_path and apk_path.count("/") >= 2:
        folder = apk_path.rsplit("/", 2)[-2]
        if not folder.startswith("~~") and "-" not in folder:  # user apps live in random folders
            words.add(folder.lower())
            words.update(word for word in _words(folder) if word not in _NOISE)
    return words


def _score(label: str, words: set[str]) -> int:
    """How well a label names a package with these words (0 = not at all)."""
    label_words = [word for word in _words(label) if word != "app"]
    if not label_words:
        return 0
    joined = "".join(label_words)
    best = 0
    for word in words:
        if word == joined:
            best = max(best, 100)
        elif len(joined) >= 4 and (word.startswith(joined) or word.endswith(joined)):
            best = max(best, 80)  # "clock" in "deskclock", "chrome" in "chromebeta"
        elif len(word) >= 4 and joined.startswith(word):
            best = max(best, 60)
    if any(alias in words for alias in _LABEL_WORDS.get(" ".join(label_words), ())):
        best = max(best, 90)
    if best == 0 and len(label_words) > 1:
        present = [word for word in label_words if word in words]
        if len(present) == len(label_words):
            best = 70
        elif any(len(word) >= 4 for word in present):
            # A store name says more than its package: "Pro Expense" is com.arduia.expense,
            # "Simple Calendar Pro" a calendar. A part of it still names the app, more weakly,
            # and two apps named equally weakly stay ambiguous.
            best = 40
    return best


def _rank(label: str, package: str, apk_path: str | None) -> int:
    """The match score, with a tie-break for the package's own last word.

    `Settings` names `com.android.settings`, not `com.google.android.settings.intelligence`.
    """
    score = _score(label, _package_words(package, apk_path))
    last_word = package.rsplit(".", 1)[-1].lower()
    return score * 10 + (5 if score and _score(label, {last_word}) == score else 0)


def resolve_package(name: str, packages: Mapping[str, str | None]) -> str:
    """The package a name (package or launcher label) means, among `packages` (name -> APK path).

    Raises AppNotFound when nothing matches or several packages match equally well.
    """
    name = name.strip()
    if name in packages:
        return name
    by_lower = {package.lower(): package for package in packages}
    if name.lower() in by_lower:
        return by_lower[name.lower()]
    if PACKAGE_NAME.fullmatch(name):
        close = _closest(name, packages)
        hint = f"; did you mean {_either(close)}?" if close else ""
        raise AppNotFound(f"package {name} is not installed on the phone{hint}")
    ranks = {package: _rank(name, package, apk_path) for package, apk_path in packages.items()}
    best = max(ranks.values(), default=0)
    if best == 0:
        close = _closest(name, packages)
        advice = f"did you mean {_either(close)}?" if close else "name an installed app"
        raise AppNotFound(f"no installed app matches {name!r}; {advice}")
    winners = sorted(package for package, rank in ranks.items() if rank == best)
    if len(winners) > 1:
        choices = ", ".join(winners[:6])
        raise AppNotFound(f"{name!r} could be any of {choices}; pass the package name")
    return winners[0]


def _closest(name: str, packages: Mapping[str, str | None], limit: int = 3) -> list[str]:
    """The packages whose name, words or well-known label are closest to `name` (a misspelt
    label, or a package name with a typo), closest first; none when nothing is close."""
    if PACKAGE_NAME.fullmatch(name):
        wanted, cutoff = name.lower(), 0.9
        spellings = {package: {package.lower()} for package in packages}
    else:
        wanted, cutoff = "".join(_words(name)), 0.75
        spellings = {}
        for package, apk_path in packages.items():
            words = _package_words(package, apk_path)
            labels = {
                label.replace(" ", "")
                for label, aliases in _LABEL_WORDS.items()
                if any(alias in words for alias in aliases)
            }
            spellings[package] = words | labels
    closeness = {
        package: max(difflib.SequenceMatcher(None, wanted, spelling).ratio() for spelling in found)
        for package, found in spellings.items()
        if found
    }
    close = [package for package, ratio in closeness.items() if ratio >= cutoff]
    return sorted(close, key=lambda package: (-closeness[package], package))[:limit]


def _either(choices: list[str]) -> str:
    return choices[0] if len(choices) == 1 else f"{', '.join(choices[:-1])} or {choices[-1]}"
