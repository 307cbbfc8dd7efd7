"""The screen as the model sees it: `Screen.parse(xml)` -> numbered elements -> compact text.

`render()` gives the text of DESIGN §2.2: a header line, then one line per element,

    app: com.android.settings, keyboard: hidden
    [1] button "Navigate up"
    [2] switch "Wi-Fi" on

and, on a screen with more elements than a prompt should hold (`MAX_ELEMENTS`), a last line that
says how many further down are not listed.

Which nodes become elements, how they are labelled and ordered is documented in
`agent.screen_elements`; how broken captures are repaired, in `agent.screen_xml`.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict

from agent.screen_elements import MAX_ELEMENTS, SYSTEM_UI, Draft, extract
from agent.screen_text import truncate
from agent.screen_xml import ScreenParseError, parse_hierarchy

__all__ = [
    "MAX_ELEMENTS",
    "Element",
    "ElementNotFound",
    "Screen",
    "ScreenDiff",
    "ScreenParseError",
]

# Numbers on system UI change while nobody touches the phone: clock, battery, signal, dates.
_VOLATILE_TEXT = re.compile(r"\d+")
MENTION_CHARS = 40  # an element named in a diff: enough to recognise it


class ElementNotFound(LookupError):
    """An index that is not on the screen; the message names the valid range."""


class Element(BaseModel):
    """One thing on the screen the model can read or act on."""

    model_config = ConfigDict(frozen=True)

    index: int
    role: str
    label: str
    checked: bool | None
    enabled: bool
    focused: bool
    selected: bool
    password: bool
    scrollable: bool
    clickable: bool
    long_clickable: bool
    bounds: tuple[int, int, int, int]
    center: tuple[int, int]
    package: str
    resource_id: str
    class_name: str

    def state_words(self) -> list[str]:
        words = []
        if self.checked is not None:
            words.append("on" if self.checked else "off")
        if self.selected:
            words.append("selected")
        if self.focused:
            words.append("focused")
        if not self.enabled:
            words.append("disabled")
        if self.password:
            words.append("password")
        if self.scrollable:
            words.append("scrollable")
        return words

    def line(self) -> str:
        label = self.label.replace("\\", "\\\\").replace('"', '\\"')
        parts = [f"[{self.index}]", self.role]
        if label:
            parts.append(f'"{label}"')
        parts.extend(self.state_words())
        return " ".join(parts)


class ScreenDiff(BaseModel):
    """What an action changed, in short items meant for the model's feedback."""

    appeared: list[str]
    disappeared: list[str]
    changed: list[str]

    def is_empty(self) -> bool:
        return not (self.appeared or self.disappeared or self.changed)

    def summary(self, max_items: int = 5) -> str:
        """One line, e.g. 'Wi-Fi: off -> on; appeared: "Saved networks"'."""
        if self.is_empty():
            return "no visible change"
        parts: list[str] = []
        budget, hidden = max_items, 0
        for title, items in (
            ("", self.changed),
            ("appeared: ", self.appeared),
            ("disappeared: ", self.disappeared),
        ):
            shown = items[: max(budget, 0)]
            hidden += len(items) - len(shown)
            budget -= len(shown)
            if shown:
                parts.append(title + ", ".join(shown))
        more = f" (+{hidden} more)" if hidden else ""
        return "; ".join(parts) + more


class Screen:
    """A parsed uiautomator dump: foreground app, keyboard, numbered elements."""

    def __init__(
        self,
        app: str,
        keyboard: bool,
        width: int,
        height: int,
        rotation: int,
        elements: list[Element],
        omitted: int = 0,
    ) -> None:
        self.app = app
        self.keyboard = keyboard
        self.width = width
        self.height = height
        self.rotation = rotation
        # Any source of elements (a dump, AndroidWorld's element list) is held to the cap that
        # keeps the prompt in the model's context.
        self.elements = elements[:MAX_ELEMENTS]
        self.omitted = omitted + len(elements) - len(self.elements)
        # Equal for screens the model would read alike: positions are left out (animations,
        # a scroll that shows the same rows) and so are the numbers on system UI (clock,
        # battery); any label, state, app or keyboard change counts.
        self.signature = _signature(app, keyboard, self.elements, self.omitted)

    @classmethod
    def parse(cls, data: bytes | str) -> Screen:
        """Read a dump; raises ScreenParseError (one line) when it cannot be used."""
        hierarchy = parse_hierarchy(data)
        extraction = extract(hierarchy.windows)
        elements = [
            _element(number, draft) for number, draft in enumerate(extraction.drafts, start=1)
        ]
        return cls(
            app=extraction.app,
            keyboard=extraction.keyboard,
            width=extraction.width,
            height=extraction.height,
            rotation=hierarchy.rotation,
            elements=elements,
            omitted=extraction.omitted,
        )

    def header(self) -> str:
        return f"app: {self.app or 'unknown'}, keyboard: {'shown' if self.keyboard else 'hidden'}"

    def render(self) -> str:
        lines = [self.header()]
        lines.extend(element.line() for element in self.elements)
        if not self.elements:
            lines.append("(no elements)")
        if self.omitted:
            lines.append(f"({self.omitted} more elements further down are not listed)")
        return "\n".join(lines)

    def element(self, index: int) -> Element:
        if 1 <= index <= len(self.elements):
            return self.elements[index - 1]
        if not self.elements:
            raise ElementNotFound(f"no element [{index}]: the screen has no elements")
        raise ElementNotFound(f"no element [{index}]: valid indices are 1 to {len(self.elements)}")

    def diff(self, after: Screen) -> ScreenDiff:
        """What differs from `self` (before) to `after`, matching elements by identity."""
        before_by_key = dict(zip(_identities(self.elements), self.elements, strict=True))
        after_by_key = dict(zip(_identities(after.elements), after.elements, strict=True))
        changed: list[str] = []
        if self.app != after.app:
            changed.append(f"app: {self.app or 'unknown'} -> {after.app or 'unknown'}")
        if self.keyboard != after.keyboard:
            changed.append(f"keyboard: {'shown' if after.keyboard else 'hidden'}")
        for key, new in after_by_key.items():
            old = before_by_key.get(key)
            if old is not None:
                changed.extend(_changes(old, new))
        return ScreenDiff(
            appeared=[_mention(e) for k, e in after_by_key.items() if k not in before_by_key],
            disappeared=[_mention(e) for k, e in before_by_key.items() if k not in after_by_key],
            changed=changed,
        )

    def to_json(self) -> dict[str, Any]:
        """The object `phone-agent elements --json` prints."""
        return {
            "app": self.app,
            "keyboard": self.keyboard,
            "signature": self.signature,
            "omitted": self.omitted,
            "elements": [
                {
                    "index": e.index,
                    "label": e.label,
                    "role": e.role,
                    "checked": e.checked,
                    "enabled": e.enabled,
                    "focused": e.focused,
                    "selected": e.selected,
                    "password": e.password,
                    "scrollable": e.scrollable,
                    "bounds": list(e.bounds),
                    "center": list(e.center),
                    "package": e.package,
                    "resource_id": e.resource_id,
                }
                for e in self.elements
            ],
        }


def _element(index: int, draft: Draft) -> Element:
    node, source = draft.node, draft.source
    return Element(
        index=index,
        role=draft.role,
        label=draft.label,
        checked=draft.checked,
        enabled=node.enabled and source.enabled,
        focused=node.focused or source.focused,
        selected=node.selected or source.selected,
        password=source.password,
        scrollable=node.scrollable,
        clickable=node.clickable or source.clickable,
        long_clickable=node.long_clickable or source.long_clickable,
        bounds=node.bounds,
        center=draft.tap,
        package=node.package,
        resource_id=node.resource_id,
        class_name=node.class_name,
    )


def _stable_text(element: Element) -> str:
    if element.package == SYSTEM_UI:
        return _VOLATILE_TEXT.sub("#", element.label)
    return element.label


def _signature(app: str, keyboard: bool, elements: list[Element], omitted: int) -> str:
    digest = hashlib.sha1(f"{app}\x1f{keyboard}".encode(), usedforsecurity=False)
    if omitted:  # (a screen with none keeps the signature it always had)
        digest.update(f"\x1d{omitted}".encode())
    for e in elements:
        record = (
            f"\x1e{e.role}\x1f{_stable_text(e)}\x1f{e.checked}\x1f{e.enabled}\x1f{e.focused}"
            f"\x1f{e.selected}"
        )
        digest.update(record.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:16]


def _identities(elements: list[Element]) -> list[tuple[str, str, int]]:
    """A key per element that survives a state or text change: its resource id when that is
    unique on the screen, else its label; repeats are told apart by their occurrence number."""
    id_counts = Counter(e.resource_id for e in elements if e.resource_id)
    seen: Counter[tuple[str, str]] = Counter()
    keys = []
    for e in elements:
        name = e.resource_id if e.resource_id and id_counts[e.resource_id] == 1 else e.label
        base = (e.role, name)
        keys.append((e.role, name, seen[base]))
        seen[base] += 1
    return keys


def _mention(element: Element) -> str:
    return f'"{truncate(element.label, MENTION_CHARS)}"' if element.label else element.role


def _changes(old: Element, new: Element) -> list[str]:
    name = new.label or old.label or new.role
    items = []
    if old.label != new.label and old.label and new.label:
        items.append(f'"{old.label}" -> "{new.label}"')
    if old.checked != new.checked and new.checked is not None:
        before = "unknown" if old.checked is None else ("on" if old.checked else "off")
        items.append(f"{name}: {before} -> {'on' if new.checked else 'off'}")
    for flag, word in (("selected", "selected"), ("focused", "focused"), ("enabled", "enabled")):
        was, now = getattr(old, flag), getattr(new, flag)
        if was != now:
            items.append(f"{name}: {'now' if now else 'no longer'} {word}")
    return items
