"""`settings get` and `getprop`: what the phone reports of its configuration."""

from __future__ import annotations

from typing import Any

from simulator.adbd.ime import InputMethods
from simulator.adbd.phone import ServedPhone
from simulator.adbd.sh import CommandFunction, Invocation


class SystemSettings:
    """Settings read from the phone's state, input methods included, and its build properties."""

    def __init__(self, phone: ServedPhone, input_methods: InputMethods, sdk_level: int) -> None:
        self._phone = phone
        self._input_methods = input_methods
        self._sdk_level = sdk_level

    def commands(self) -> dict[str, CommandFunction]:
        return {"settings": self._settings, "getprop": self._getprop}

    def _settings(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        if len(args) != 3 or args[0] != "get" or args[1] not in ("system", "secure", "global"):
            invocation.err("usage: settings get {system|secure|global} NAME\n")
            return 1
        _, namespace, name = args
        state = self._phone.state
        values: dict[tuple[str, str], str] = {
            ("global", "wifi_on"): _flag(state.get("wifi")),
            ("global", "bluetooth_on"): _flag(state.get("bluetooth")),
            ("global", "airplane_mode_on"): _flag(state.get("airplane_mode")),
            ("secure", "default_input_method"): self._input_methods.current,
            ("secure", "enabled_input_methods"): ":".join(self._input_methods.enabled),
        }
        invocation.out(values.get((namespace, name), "null") + "\n")
        return 0

    def _getprop(self, invocation: Invocation) -> int:
        state = self._phone.state
        properties = {
            "ro.build.version.release": str(state.get("android_version", "14")),
            "ro.build.version.sdk": str(self._sdk_level),
            "ro.product.model": str(state.get("device_model", "Pixel 7")),
            "ro.product.manufacturer": "Google",
            "ro.serialno": self._phone.serial,
            "ro.kernel.qemu": "1",
        }
        if len(invocation.argv) > 1:
            invocation.out(properties.get(invocation.argv[1], "") + "\n")
        else:
            invocation.out("".join(f"[{key}]: [{value}]\n" for key, value in properties.items()))
        return 0


def _flag(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return "1" if value.lower() in ("1", "on", "true", "yes") else "0"
    return "1" if value else "0"
