"""Reading uiautomator dumps, as devices and capture scripts really produce them, into node trees.

A clean dump goes straight to lxml. Only when that fails do we repair what real captures get wrong
(text around the document, a byte-order mark, UTF-16 from a shell redirect whose declaration still
says UTF-8) and parse once more, strictly: a dump that is still not well-formed, or an input holding
several dumps, is refused rather than guessed at.

Size. A dump larger than `MAX_DUMP_BYTES` or with more than `MAX_WINDOWS` windows is refused
before it is read into nodes: real dumps are a few hundred kilobytes with a handful of windows
(the largest we know: 170 KB, 6 windows), and a device that sends more must not stall the agent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import cast

from lxml import etree

from devices.errors import UsageError

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_HIERARCHY_OPEN = re.compile(r"<hierarchy[\s>/]")
_HIERARCHY_SELF_CLOSED = re.compile(r"<hierarchy\b[^<>]*/>")
_HIERARCHY_CLOSE = "</hierarchy>"
_TEXT_FIELD_CLASSES = ("EditText", "AutoCompleteTextView", "SearchAutoComplete")
MAX_DUMP_BYTES = 8 * 1024 * 1024
MAX_WINDOWS = 32

Bounds = tuple[int, int, int, int]


class ScreenParseError(UsageError, ValueError):
    """The input is not a usable uiautomator dump; the message is one line for a user."""


class Node:
    """One `<node>` of a dump with the attributes element extraction reads.

    Built from the parser's attribute mapping directly: a dump has hundreds of nodes and this
    runs on every step, so the fields are filled here rather than through keyword arguments.
    """

    __slots__ = (
        "bounds",
        "checkable",
        "checked",
        "children",
        "class_name",
        "clickable",
        "desc",
        "editable",
        "enabled",
        "focused",
        "hint",
        "long_clickable",
        "package",
        "password",
        "resource_id",
        "scrollable",
        "selected",
        "text",
    )

    def __init__(self, attrib: Mapping[str, str]) -> None:
        get = attrib.get
        self.text: str = get("text", "")
        self.desc: str = get("content-desc", "")
        self.hint: str = get("hint", "")
        self.resource_id: str = get("resource-id", "")
        self.class_name: str = get("class", "")
        self.package: str = get("package", "")
        match = _BOUNDS.fullmatch(get("bounds", ""))
        self.bounds: Bounds = (
            (int(match[1]), int(match[2]), int(match[3]), int(match[4])) if match else (0, 0, 0, 0)
        )
        self.clickable: bool = get("clickable") == "true"
        self.long_clickable: bool = get("long-clickable") == "true"
        self.checkable: bool = get("checkable") == "true"
        self.checked: bool = get("checked") == "true"
        self.enabled: bool = get("enabled") != "false"
        self.focused: bool = get("focused") == "true"
        self.selected: bool = get("selected") == "true"
        self.password: bool = get("password") == "true"
        self.scrollable: bool = get("scrollable") == "true"
        self.editable: bool = get("editable") == "true" or self.class_name.endswith(
            _TEXT_FIELD_CLASSES
        )
        self.children: list[Node] = []


@dataclass(slots=True)
class Hierarchy:
    rotation: int
    windows: list[Node]  # top-level nodes in dump order, taken as bottom-to-top drawing order


def parse_hierarchy(data: bytes | str) -> Hierarchy:
    """Parse a dump, repairing the capture mistakes real devices and shells make."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if len(raw) > MAX_DUMP_BYTES:
        raise ScreenParseError(
            f"the dump is {len(raw) / 2**20:.1f} MiB, more than the {MAX_DUMP_BYTES >> 20} MiB "
            "a uiautomator dump could need"
        )
    try:
        return _build(raw)
    except etree.XMLSyntaxError:
        return _build_repaired(_decode(raw))


class _TreeBuilder:
    """lxml parser target: builds our nodes straight from the parser's events, which costs
    far less than building lxml's own tree and reading every attribute back from it."""

    def __init__(self) -> None:
        self.root_tag: str | None = None
        self.rotation = 0
        self.windows: list[Node] = []
        # For each open element, the list its child nodes go to (None: children are ignored).
        self._open: list[list[Node] | None] = []

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        if self.root_tag is None:
            self.root_tag = tag
            self.rotation = _int(attrib.get("rotation"))
            self._open.append(self.windows)
            return
        siblings = self._open[-1]
        if tag == "node" and siblings is not None:
            node = Node(attrib)
            siblings.append(node)
            self._open.append(node.children)
        else:
            self._open.append(None)

    def end(self, tag: str) -> None:
        self._open.pop()

    def close(self) -> _TreeBuilder:
        # lxml calls this even after a syntax error, which it raises next: nothing to check yet.
        return self


def _build(raw: bytes) -> Hierarchy:
    # Character references must resolve ("&#38;" is "&"); entities from outside the document
    # never (a dump has no business reading local files). The lxml stubs predate both the
    # "internal" setting and duck-typed targets, hence the ignores.
    parser = etree.XMLParser(
        target=_TreeBuilder(),  # type: ignore[arg-type]
        resolve_entities="internal",  # type: ignore[arg-type]
        no_network=True,
        load_dtd=False,
    )
    builder = cast(_TreeBuilder, etree.fromstring(raw, parser))
    if builder.root_tag != "hierarchy":
        raise ScreenParseError(f"not a uiautomator dump: the root element is <{builder.root_tag}>")
    if len(builder.windows) > MAX_WINDOWS:
        raise ScreenParseError(
            f"not a phone screen: the dump lists {len(builder.windows)} windows "
            f"(a phone shows a handful; the limit is {MAX_WINDOWS})"
        )
    return Hierarchy(rotation=builder.rotation, windows=builder.windows)


def _decode(raw: bytes) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16", errors="replace")
    head = raw[:64]
    if b"<\x00" in head:
        return raw.decode("utf-16-le", errors="replace")
    if b"\x00<" in head:
        return raw.decode("utf-16-be", errors="replace")
    return raw.decode("utf-8-sig", errors="replace")


def _build_repaired(text: str) -> Hierarchy:
    openings = len(_HIERARCHY_OPEN.findall(text))
    if openings == 0:
        raise ScreenParseError("not a uiautomator dump: no <hierarchy> element found")
    if openings > 1:
        raise ScreenParseError(
            f"the input holds {openings} uiautomator dumps; give one dump per file"
        )
    start = _HIERARCHY_OPEN.search(text)
    assert start is not None  # counted above
    end = text.rfind(_HIERARCHY_CLOSE)
    if end >= 0:
        document = text[start.start() : end + len(_HIERARCHY_CLOSE)]
    else:
        empty = _HIERARCHY_SELF_CLOSED.match(text, start.start())
        if empty is None:
            raise ScreenParseError("the uiautomator dump is cut short: no closing </hierarchy>")
        document = empty.group(0)
    try:
        return _build(document.encode("utf-8"))
    except etree.XMLSyntaxError as exc:
        reason = (exc.msg or "syntax error").splitlines()[0]
        raise ScreenParseError(f"the uiautomator dump is not well-formed XML: {reason}") from None


def _int(value: str | None) -> int:
    try:
        return int(value or 0)
    except ValueError:
        return 0
