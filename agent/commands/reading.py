"""The input of a command that reads a file or standard input: bounded in size, one-line errors."""

from __future__ import annotations

import sys

from devices.errors import UsageError

STDIN = "-"


def read_input(name: str, limit: int, kind: str) -> bytes:
    """The bytes of file `name`, or of standard input for "-", refused past `limit` bytes
    (`kind` says what the input should be, for the message) without reading any further."""
    shown = "standard input" if name == STDIN else name
    try:
        if name == STDIN:
            if sys.stdin is None:
                raise UsageError("standard input is closed; give a file")
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with open(name, "rb") as stream:
                data = stream.read(limit + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {shown}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise UsageError(f"{shown}: more than {limit / 2**20:g} MiB, far more than {kind} holds")
    return data
