"""Devices: the Device protocol and the real ADB device. Knows nothing of agents."""

from devices.base import (
    KEYCODES,
    AppNotFound,
    Device,
    DeviceError,
    InputNotApplied,
    RecoverableDeviceError,
)

__all__ = [
    "KEYCODES",
    "AppNotFound",
    "Device",
    "DeviceError",
    "InputNotApplied",
    "RecoverableDeviceError",
]
