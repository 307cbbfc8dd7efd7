"""Package attributes imported from their home modules on first use, so that importing a
package (to list the `sim` commands, or for one small module of it) does not load every
simulated app."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module-level `__getattr__` for `package` that finds each name of `homes` (name ->
    module) in its module."""

    def attribute(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(homes[name]), name)

    return attribute
