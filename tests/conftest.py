"""Shared test fixtures. Tests read the real-dump corpus in place and skip where it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

from tests.support.paths import CORPUS_DIR


@pytest.fixture
def corpus_dir() -> Path:
    if not CORPUS_DIR.is_dir():
        pytest.skip(f"real-dump corpus not found beside the checkout ({CORPUS_DIR.name} missing)")
    return CORPUS_DIR


# Speed is measured by `phone-agent bench`, not by tests: on a loaded two-core machine an
# example may take seconds, and hypothesis's per-example deadline would fail it for no reason.
settings.register_profile("phone-agent", deadline=None)
settings.load_profile("phone-agent")
