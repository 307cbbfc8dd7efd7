"""Label text: what the model reads must be clean, short and free of invisible characters."""

from __future__ import annotations

import re

MAX_LABEL_CHARS = 80
ELLIPSIS = "…"
MIN_ID_CHARS = 4  # shorter resource ids are minified ("fo8", "nx4"), not names

# Bidi controls, zero-width characters, the BOM and soft hyphens render as nothing on a phone but
# would cost tokens and break string comparisons with the goal; dash and space variants become
# their plain forms so "Wi‑Fi" (non-breaking hyphen) reads as the "Wi-Fi" a goal would say.
_TRANSLATION = str.maketrans(
    {
        **dict.fromkeys(
            [0x00AD, 0x061C, 0x180E, 0xFEFF, *range(0x200B, 0x2010), *range(0x202A, 0x202F)],
            None,
        ),
        **dict.fromkeys(range(0x2060, 0x2070), None),
        **dict.fromkeys([0x2010, 0x2011], "-"),
        **dict.fromkeys([0x00A0, 0x2007, 0x2009, 0x202F, 0x205F, 0x3000], " "),
    }
)
_WHITESPACE = re.compile(r"\s+")
_RTL_CHARS = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
_WORDY_ID = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_HEX_RUN = re.compile(r"[0-9a-f]{6,}", re.IGNORECASE)


def clean(text: str) -> str:
    """Visible text on one line: invisible characters removed, whitespace collapsed."""
    if not text:
        return ""
    text = text.translate(_TRANSLATION)
    if not text.isprintable() or "  " in text:
        text = _WHITESPACE.sub(" ", text)
        text = "".join(ch for ch in text if ch.isprintable())
    return text.strip()


def truncate(text: str, limit: int = MAX_LABEL_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 1].rstrip(" ,;:." + ELLIPSIS) + ELLIPSIS


def join_pieces(pieces: list[str]) -> str:
    return truncate(", ".join(pieces))


def label_from_resource_id(resource_id: str) -> str:
    """`pkg:id/settings_button` -> "settings button"; generated or minified ids give ""."""
    name = resource_id.rpartition("/")[2]
    if len(name) < MIN_ID_CHARS or not _WORDY_ID.fullmatch(name) or _HEX_RUN.search(name):
        return ""
    return _CAMEL_BOUNDARY.sub(" ", name).replace("_", " ").strip().lower()


def is_rtl(text: str) -> bool:
    return _RTL_CHARS.search(text) is not None
