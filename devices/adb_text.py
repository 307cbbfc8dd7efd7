"""Text over ADB: what `input text` can type and how to spell it, and reading a dump back.

Android's `input text ARG` types ARG through the virtual key map after one substitution: every
`%s` becomes a space (the platform's loop is equivalent to `ARG.replace("%s", " ")`). It has no
escape for a literal `%s`, and it refuses the whole string if any character has no key (accents,
CJK, emoji...). So spaces are sent as `%s`, a literal `%` followed by a literal `s` is split
across two commands, and everything else goes through the ADB Keyboard input method instead.
The device shell never sees the text unquoted: callers pass each chunk as one quoted argument.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass

# Printable ASCII plus Enter and Tab: the characters the virtual key map can type.
INPUT_TEXT_CHARS = frozenset(chr(code) for code in range(0x20, 0x7F)) | {"\n", "\t"}
MAX_INPUT_TEXT_CHUNK = 400  # characters per `input text` command; long runs are split

_EDITABLE_CLASS = re.compile(r"EditText|AutoComplete|TextField|TextInput")
_DUMP_START = re.compile(r"<\?xml|<hierarchy")
_DUMP_END = "</hierarchy>"


def typeable_by_input_text(text: str) -> bool:
    """Whether `input text` can type every character of `text`."""
    return all(char in INPUT_TEXT_CHARS for char in text)


def input_text_chunks(text: str) -> list[str]:
    """Arguments for successive `input text` commands that together type `text` exactly.

    `text` must be typeable (see `typeable_by_input_text`). No chunk is empty.
    """
    chunks: list[str] = []
    current: list[str] = []
    length = 0
    for char in text:
        encoded = "%s" if char == " " else char
        # `%` then a literal `s` in one argument would turn into a space: split between them.
        split_here = char == "s" and current and current[-1].endswith("%")
        if split_here or length + len(encoded) > MAX_INPUT_TEXT_CHUNK:
            chunks.append("".join(current))
            current, length = [], 0
        current.append(encoded)
        length += len(encoded)
    if current:
        chunks.append("".join(current))
    return chunks


def extract_hierarchy(data: bytes) -> str:
    """The XML of a dump file, without anything before it or after `</hierarchy>`.

    Raises ValueError naming what is wrong: empty, cut off, or not a uiautomator hierarchy.
    """
    text = data.decode("utf-8", "replace").lstrip("\ufeff")
    if not text.strip():
        raise ValueError("the dump was empty")
    start_match = _DUMP_START.search(text)
    end = text.rfind(_DUMP_END)
    if start_match is None or end < 0:
        first_line = text.strip().splitlines()[0][:120]
        raise ValueError(f"the dump was cut off or not XML (begins {first_line!r})")
    xml = text[start_match.start() : end + len(_DUMP_END)]
    try:
        root = ElementTree.fromstring(xml.encode())
    except ElementTree.ParseError as exc:
        raise ValueError(f"the dump is not well-formed XML ({exc})") from exc
    if root.tag != "hierarchy":
        raise ValueError(f"the dump's root is <{root.tag}>, not <hierarchy>")
    return xml


@dataclass(frozen=True)
class FieldReading:
    """The focused text field of a dump, as far as a dump tells."""

    text: str
    hint: str | None  # the `hint` attribute, when the platform writes one
    password: bool

    @property
    def looks_empty(self) -> bool:
        # Android shows the hint as the text of an empty field; newer dumps say which it is.
        return self.text == "" or (bool(self.hint) and self.text == self.hint)


def focused_field(xml: str) -> FieldReading | None:
    """The innermost focused editable node of a dump, or None when no text field has focus."""
    root = ElementTree.fromstring(xml.encode())
    found: FieldReading | None = None
    for node in root.iter("node"):
        if node.get("focused") != "true":
            continue
        editable = node.get("editable") == "true" or _EDITABLE_CLASS.search(node.get("class", ""))
        if editable:
            found = FieldReading(
                text=node.get("text", ""),
                hint=node.get("hint"),
                password=node.get("password") == "true",
            )
    return found
