"""Builds that appear whole or not at all: written beside their place, renamed into it.

A checkpoint, a quantized build or a GGUF file takes seconds to minutes to write. Written in
place, a run killed half-way would leave something later runs trust; written under a name of
its own and renamed when complete, it never does.
"""

from __future__ import annotations

import glob
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_BUILDING = ".building-"


@contextmanager
def build_atomically(target: Path) -> Iterator[Path]:
    """A path beside `target` to write a file or folder into; renamed to `target` when the block
    ends, removed when it raises.

    The path names this process, so two processes building the same target never write into
    each other's; the leftovers of processes that died mid-build are removed first. Where
    another process put `target` in place first, theirs is kept: it is as good as ours.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    for leftover in target.parent.glob(f"{glob.escape(target.name)}{_BUILDING}*"):
        pid = leftover.name.rpartition("-")[2]
        if pid.isdigit() and not _running(int(pid)):
            _remove(leftover)
    building = target.with_name(f"{target.name}{_BUILDING}{os.getpid()}")
    _remove(building)
    try:
        yield building
        try:
            building.rename(target)
        except OSError:
            if not target.exists():
                raise
            _remove(building)
    except BaseException:
        _remove(building)
        raise


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
