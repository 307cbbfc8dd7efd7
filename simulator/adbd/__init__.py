"""The simulated phone behind the real ADB host protocol, so `devices.adb` is tested end to end.

`AdbServer` speaks the protocol of the ADB server (what adbutils and the `adb` binary talk to);
each served phone runs `adb shell` command lines through a small POSIX shell against the
Android commands in `simulator.adbd.android`.
"""

from simulator.adbd.android import (
    ADB_KEYBOARD_IME,
    LATIN_IME,
    DumpFault,
    PhoneSession,
    ServedPhone,
    decode_input_text,
)
from simulator.adbd.server import AdbServer

__all__ = [
    "ADB_KEYBOARD_IME",
    "LATIN_IME",
    "AdbServer",
    "DumpFault",
    "PhoneSession",
    "ServedPhone",
    "decode_input_text",
]
