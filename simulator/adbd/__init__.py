"""The simulated phone behind the real ADB host protocol, so `devices.adb` is tested end to end.

`AdbServer` speaks the protocol of the ADB server (what adbutils and the `adb` binary talk to);
each served phone runs `adb shell` command lines through a small POSIX shell against the
shell builtins and Android services that `simulator.adbd.android` puts together, and the UI
automation server uiautomator2 ships when a client starts it (`uiautomator_server`).

The names below load on first use, so that listing the `sim` commands stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from simulator.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from simulator.adbd.android import PhoneSession
    from simulator.adbd.ime import ADB_KEYBOARD_IME, LATIN_IME
    from simulator.adbd.input import decode_input_text
    from simulator.adbd.phone import ServedPhone
    from simulator.adbd.screen import DumpFault
    from simulator.adbd.server import AdbServer
    from simulator.adbd.uiautomator_server import UiAutomationOptions

_HOMES = {
    "PhoneSession": "simulator.adbd.android",
    "ADB_KEYBOARD_IME": "simulator.adbd.ime",
    "LATIN_IME": "simulator.adbd.ime",
    "decode_input_text": "simulator.adbd.input",
    "ServedPhone": "simulator.adbd.phone",
    "DumpFault": "simulator.adbd.screen",
    "AdbServer": "simulator.adbd.server",
    "UiAutomationOptions": "simulator.adbd.uiautomator_server",
}

__all__ = [
    "ADB_KEYBOARD_IME",
    "LATIN_IME",
    "AdbServer",
    "DumpFault",
    "PhoneSession",
    "ServedPhone",
    "UiAutomationOptions",
    "decode_input_text",
]


__getattr__ = lazy_exports(__name__, _HOMES)
