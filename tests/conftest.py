"""Shared test fixtures. Tests read the real-dump corpus in place and skip where it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DIR = REPO_ROOT.parent / "shared"
CORPUS_DIR = SHARED_DIR / "corpus" / "uiautomator"


def corpus_files() -> list[Path]:
    """The complete real dumps (not the broken ones), sorted; empty where the corpus is absent."""
    return sorted(CORPUS_DIR.glob("*.xml")) if CORPUS_DIR.is_dir() else []


@pytest.fixture
def corpus_dir() -> Path:
    if not CORPUS_DIR.is_dir():
        pytest.skip(f"real-dump corpus not found beside the checkout ({CORPUS_DIR.name} missing)")
    return CORPUS_DIR


# Speed is measured by `phone-agent bench`, not by tests: on a loaded two-core machine an
# example may take seconds, and hypothesis's per-example deadline would fail it for no reason.
settings.register_profile("phone-agent", deadline=None)
settings.load_profile("phone-agent")
