"""Devices: the Device protocol and the real ADB device. Knows nothing of agents."""

from devices.base import KEYCODES, Device, DeviceError, InputNotApplied

__all__ = ["KEYCODES", "Device", "DeviceError", "InputNotApplied"]
