"""How closely simulated screens match the real phone screens they imitate.

Each pair puts the simulator in the state of the phone a real dump was captured on (its clock,
battery, radios), walks it to the screen the dump shows, and reads both screens through the
agent's own element list, the view the model gets. The score of a pair is the share of the real
screen's actionable elements that the simulated screen shows with the same role and label.

Scope, stated in every report:

- Actionable means an element a tap acts on: every role except `text`, `image` and `list`
  (a scrollable list is labelled by its resource id, not by anything a user reads).
- Labels are compared after case folding, with typographic apostrophes read as plain ones and
  British -ise/-isation spelt -ize/-ization: the simulated phone speaks US English, some
  captures British English, and neither is a modelling error.
- A pair may declare real elements out of scope, each rule with its reason: things the
  simulated page does not imitate at all (another Android release's toolbar, third-party
  widgets, the texts of someone else's conversation). Every element a rule removes is listed
  in the report with the rule's reason; nothing else is left out.
- Elements the simulated screen shows and the real one does not are reported beside the score
  but do not lower it: a taller screen shows more rows.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from agent.screen import Element, Screen
from simulator import Simulator

TARGET = 0.9
SCOPE = (
    "share = real actionable elements (every role but text, image and list) that the "
    "simulated screen shows with the same role and label (case folded, ’ as ', British -ise "
    "as -ize), among those in scope; each pair lists the real elements its rules leave out "
    "and why; simulated elements the real screen lacks are reported, not scored"
)
PASSIVE_ROLES = frozenset({"text", "image", "list"})
PULL_FROM = (540, 20)
PULL_TO = (540, 1000)
MAX_SCROLLS = 40


class FidelityError(RuntimeError):
    """A pair cannot be measured: its dump is missing, or the walk to its screen failed."""


@dataclass(frozen=True)
class Step:
    """One move on the way to the imitated screen.

    open: launch the app labelled `target`; tap: tap the element whose label starts with
    `target`; scroll_to: scroll until that element is the first row of its list; pull: swipe
    down from the status bar (once for the shade, twice for all quick settings).
    """

    kind: Literal["open", "tap", "scroll_to", "pull"]
    target: str = ""

    def describe(self) -> str:
        return f"{self.kind} {self.target}".strip()


@dataclass(frozen=True)
class OutOfScope:
    """Real elements the simulated page does not imitate: labels matching `pattern` (a regular
    expression, searched), or elements of packages other than `package` when it is given."""

    reason: str
    pattern: str = ""
    other_packages_than: str = ""
    not_installed: bool = False  # app icons of apps the simulated phone does not have

    def covers(self, element: Element, installed: set[str]) -> bool:
        if self.other_packages_than and element.package != self.other_packages_than:
            return True
        if self.not_installed and element.label not in installed:
            return True
        return bool(self.pattern) and re.search(self.pattern, element.label) is not None


@dataclass(frozen=True)
class Pair:
    name: str
    dump: str  # file name in the corpus
    steps: tuple[Step, ...]
    state: dict[str, Any] = field(default_factory=dict)
    out_of_scope: tuple[OutOfScope, ...] = ()


class Excluded(BaseModel):
    element: str
    reason: str


class PairResult(BaseModel):
    name: str
    dump: str
    path: list[str]
    state: dict[str, Any]
    real_actionable: int
    in_scope: int
    matched: int
    share: float
    meets_target: bool
    missing: list[str]
    extra: list[str]
    out_of_scope: list[Excluded]


class FidelityReport(BaseModel):
    scope: str
    target: float
    passed: bool
    pairs: list[PairResult]


_DEV_OPTIONS_TOOLBAR = (
    "the toolbar and main switch of the older Settings this capture comes from (Back, a "
    "search icon, the title as a button, a bar reading 'On'); Android 14, which the simulator "
    "imitates, shows Navigate up and 'Use developer options'"
)
_NOT_INSTALLED = "an app the simulated phone does not have"

PAIRS: tuple[Pair, ...] = (
    Pair(
        "Settings home",
        "001_settings_pixel_homepage.xml",
        (Step("open", "Settings"),),
        {"battery_level": 100},
    ),
    Pair(
        "Network & internet",
        "002_settings_pixel_network_internet.xml",
        (Step("open", "Settings"), Step("tap", "Network & internet")),
    ),
    Pair(
        "Internet",
        "003_settings_pixel_internet_wifi_list.xml",
        (Step("open", "Settings"), Step("tap", "Network & internet"), Step("tap", "Internet")),
        {"date": "2024-11-12"},
    ),
    Pair(
        "Developer options",
        "004_settings_developer_options.xml",
        (
            Step("open", "Settings"),
            Step("scroll_to", "System"),
            Step("tap", "System"),
            Step("scroll_to", "Developer options"),
            Step("tap", "Developer options"),
            Step("scroll_to", "Automatic system updates"),
        ),
        {"developer_options": True, "usb_debugging": True},
        (OutOfScope(_DEV_OPTIONS_TOOLBAR, r"^(Back|Search settings|Developer options|On)$"),),
    ),
    Pair(
        "Quick settings",
        "010_systemui_quick_settings_pixel.xml",
        (Step("pull"), Step("pull")),
        {"time": "15:17", "bluetooth": True, "battery_level": 100},
    ),
    Pair(
        "Launcher home",
        "023_launcher_pixel_home_widgets.xml",
        (),
        {},
        (
            OutOfScope(
                "home-screen widgets of other apps the user installed (weather, clocks, a "
                "search bar)",
                other_packages_than="com.google.android.apps.nexuslauncher",
            ),
            OutOfScope("folders the user made", r"^Folder: "),
            OutOfScope(
                "At a glance showing a weather forecast (the simulated phone has no weather; "
                "its At a glance shows the date)",
                r"°F",
            ),
            OutOfScope(_NOT_INSTALLED, not_installed=True),
        ),
    ),
    Pair(
        "Messages conversation",
        "031_messages_google_rcs_chat.xml",
        (Step("open", "Messages"), Step("tap", "A.Keval")),
        {
            "permission_prompts": [],
            "inbox": [{"from": "A.Keval", "text": "Test alert"}],
            "messages": [{"to": "A.Keval", "text": "Test alert"}],
        },
        (
            OutOfScope(
                "the bubbles and time stamps of someone else's conversation: each reads out "
                "its text and send time, which the simulated thread does not keep",
                r"( said |^\d{1,2}:\d{2} [ap]m$)",
            ),
            OutOfScope(
                "the send button of an RCS chat; the simulated phone texts over SMS, where "
                "the same button reads 'Send SMS'",
                r"^Send message$",
            ),
        ),
    ),
    Pair(
        "Permission dialog",
        "017_permission_location_dialog.xml",
        (Step("open", "Messages"),),
        {},
        (
            OutOfScope(
                "choices only a location request offers (precise or approximate, while "
                "using the app, only this time); the simulated prompt asks for notifications",
                r"^(Precise|Approximate|While using the app|Only this time)$",
            ),
        ),
    ),
)


# --- comparing element lists -------------------------------------------------------------------


# British spellings with -is- where US English has -iz- ("authorisation", also when an 80-character
# label is cut inside the word: "authoris…").
_BRITISH_IZ = re.compile(
    r"\b(authori|organi|recogni|customi|optimi|personali|minimi|maximi|priori|synchroni|"
    r"categori|visuali|initiali|locali|summari|stabili)s(?=e|ing|ation|\u2026|$)",
    re.IGNORECASE,
)


def normalise(label: str) -> str:
    label = label.replace("\u2019", "'").replace("\u2018", "'")
    label = _BRITISH_IZ.sub(r"\1z", label)
    return " ".join(label.casefold().split())


def actionable(screen: Screen) -> list[Element]:
    return [e for e in screen.elements if e.role not in PASSIVE_ROLES]


def describe(element: Element) -> str:
    return f'{element.role} "{element.label}"' if element.label else element.role


def compare(
    pair: Pair, real: Screen, simulated: Screen, installed: set[str], path: list[str]
) -> PairResult:
    real_elements = actionable(real)
    excluded: list[Excluded] = []
    in_scope: list[Element] = []
    for element in real_elements:
        rule = next((r for r in pair.out_of_scope if r.covers(element, installed)), None)
        if rule is None:
            in_scope.append(element)
        else:
            excluded.append(Excluded(element=describe(element), reason=rule.reason))

    def key(element: Element) -> tuple[str, str]:
        return element.role, normalise(element.label)

    available = Counter(key(e) for e in actionable(simulated))
    missing: list[str] = []
    for element in in_scope:
        if available[key(element)] > 0:
            available[key(element)] -= 1
        else:
            missing.append(describe(element))
    real_keys = Counter(key(e) for e in real_elements)
    extra: list[str] = []
    for element in actionable(simulated):
        if real_keys[key(element)] > 0:
            real_keys[key(element)] -= 1
        else:
            extra.append(describe(element))
    matched = len(in_scope) - len(missing)
    share = matched / len(in_scope) if in_scope else 1.0
    return PairResult(
        name=pair.name,
        dump=pair.dump,
        path=path,
        state=pair.state,
        real_actionable=len(real_elements),
        in_scope=len(in_scope),
        matched=matched,
        share=round(share, 4),
        meets_target=share >= TARGET,
        missing=missing,
        extra=extra,
        out_of_scope=excluded,
    )


# --- walking the simulator to a screen ---------------------------------------------------------


def _find(screen: Screen, prefix: str) -> Element | None:
    wanted = normalise(prefix)
    labelled = [e for e in screen.elements if normalise(e.label).startswith(wanted)]
    exact = [e for e in labelled if normalise(e.label) == wanted]
    ranked = exact or labelled
    return next((e for e in ranked if e.role != "text"), ranked[0] if ranked else None)


def _innermost_list(screen: Screen, element: Element | None) -> Element | None:
    lists = [e for e in screen.elements if e.role == "list"]
    if element is not None:
        x, y = element.center
        lists = [
            e for e in lists if e.bounds[0] <= x < e.bounds[2] and e.bounds[1] <= y < e.bounds[3]
        ]
    return min(
        lists, key=lambda e: (e.bounds[2] - e.bounds[0]) * (e.bounds[3] - e.bounds[1]), default=None
    )


def _scroll_to(sim: Simulator, label: str) -> None:
    """Scroll until `label` is the first row of the list holding it."""
    for _ in range(MAX_SCROLLS):
        screen = Screen.parse(sim.dump_xml())
        target = _find(screen, label)
        container = _innermost_list(screen, target)
        if container is None:
            raise FidelityError(f"no list to scroll towards {label!r}")
        x = (container.bounds[0] + container.bounds[2]) // 2
        bottom = container.bounds[3] - 10
        if target is None:
            distance = (container.bounds[3] - container.bounds[1]) // 2
        else:
            distance = target.bounds[1] - container.bounds[1]
            if distance <= 0:
                return
        before = screen.signature
        sim.swipe(x, bottom, x, max(bottom - distance, 0))
        if Screen.parse(sim.dump_xml()).signature == before:
            if target is None:
                raise FidelityError(f"scrolled to the end without finding {label!r}")
            return
    raise FidelityError(f"{label!r} not reached after {MAX_SCROLLS} scrolls")


def walk(sim: Simulator, steps: Sequence[Step]) -> None:
    for step in steps:
        if step.kind == "open":
            sim.open_app(step.target)
        elif step.kind == "pull":
            sim.swipe(*PULL_FROM, *PULL_TO)
        elif step.kind == "scroll_to":
            _scroll_to(sim, step.target)
        else:
            screen = Screen.parse(sim.dump_xml())
            element = _find(screen, step.target)
            if element is None:
                raise FidelityError(f"nothing labelled {step.target!r} to tap")
            sim.tap(*element.center)


def measure_pair(pair: Pair, corpus: Path) -> PairResult:
    dump = corpus / pair.dump
    if not dump.is_file():
        raise FidelityError(f"{dump} not found: --corpus names the folder of the real dumps")
    real = Screen.parse(dump.read_bytes())
    sim = Simulator(state=pair.state)
    walk(sim, pair.steps)
    simulated = Screen.parse(sim.dump_xml())
    installed = set(sim.installed_apps().values())
    path = [step.describe() for step in pair.steps] or ["home screen"]
    return compare(pair, real, simulated, installed, path)


def measure(corpus: Path, pairs: Sequence[Pair] = PAIRS) -> FidelityReport:
    results = [measure_pair(pair, corpus) for pair in pairs]
    return FidelityReport(
        scope=SCOPE,
        target=TARGET,
        passed=all(result.meets_target for result in results),
        pairs=results,
    )
