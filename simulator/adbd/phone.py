"""What a phone must offer to be served over ADB: the Device protocol and the few questions that
`adb shell` commands ask of it (settings, installed apps, the ADB Keyboard)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from devices import Device


@runtime_checkable
class ServedPhone(Device, Protocol):
    """A Device that can also answer the settings, package and keyboard questions adb asks."""

    adb_keyboard_installed: bool

    @property
    def state(self) -> Mapping[str, Any]: ...

    def installed_apps(self) -> Mapping[str, str]:
        """Package -> launcher label of every app with a launcher icon."""
        ...
