"""Where the tests find the checkout and the data beside it, whichever folder a test is in."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SHARED_DIR = REPO_ROOT.parent / "shared"
CORPUS_DIR = SHARED_DIR / "corpus" / "uiautomator"


def corpus_files() -> list[Path]:
    """The complete real dumps (not the broken ones), sorted; empty where the corpus is absent."""
    return sorted(CORPUS_DIR.glob("*.xml")) if CORPUS_DIR.is_dir() else []
