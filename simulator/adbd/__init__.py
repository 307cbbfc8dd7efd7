"""The simulated phone behind the real ADB host protocol, so `devices.adb` is tested end to end.

`AdbServer` speaks the protocol of the ADB server (what adbutils and the `adb` binary talk to);
each served phone runs `adb shell` command lines through a small POSIX shell against the
shell builtins and Android services that `simulator.adbd.android` puts together.
"""

from simulator.adbd.android import PhoneSession
from simulator.adbd.ime import ADB_KEYBOARD_IME, LATIN_IME
from simulator.adbd.input import decode_input_text
from simulator.adbd.phone import ServedPhone
from simulator.adbd.screen import DumpFault
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
