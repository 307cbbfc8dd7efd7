"""Work measured as lines of Python run: the same on every machine and every run, unlike a
timing, so a test can say that four times the input costs about four times the work."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")


def lines_run(function: Callable[..., T], *args: Any) -> tuple[int, T]:
    """(lines of Python run, result) of `function(*args)`."""
    count = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        count += event == "line"
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        result = function(*args)
    finally:
        sys.settrace(previous)
    return count, result
