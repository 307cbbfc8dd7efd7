"""Turn one Action into device calls, against the screen the model saw.

Element indices become coordinates here: taps go to the element's centre; swipes run inside the
element's bounds (or the middle of the screen) in the direction the finger moves, which is the
way the content moves (`up` brings what is further down into view).

Typed text is read back: after typing, before any Enter, the screen must show a focused text
field (or a keyboard). Without one the text went nowhere, as when `type_text` names a button
whose tap opens a page with a field that is not focused; the execution then says so instead of
passing for done. A device that reads the field's contents back itself (ADB) also catches text
that reached the field only in part.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import assert_never

from agent.actions import (
    Action,
    LongPress,
    OpenApp,
    PressKey,
    Swipe,
    Tap,
    TaskComplete,
    TypeText,
    Wait,
)
from agent.screen import Screen, ScreenParseError
from devices.base import Device, DeviceError, InputNotApplied, RecoverableDeviceError

# Fractions of the region a swipe starts and ends at: far enough to scroll most of a page,
# inside enough to miss the status bar, the navigation bar and an edge-swipe back gesture.
_SWIPE_NEAR, _SWIPE_FAR = 0.25, 0.75
SWIPE_DURATION_MS = 300


@dataclass
class Execution:
    """What was done on the device, in order, as short call descriptions."""

    device_calls: list[str] = field(default_factory=list)
    package: str | None = None  # what open_app started
    # why the action did not take effect although the device is fine (an app that is not
    # installed, text that reached no field): the model may correct it
    error: str | None = None


def execute(
    action: Action,
    screen: Screen,
    device: Device,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> Execution:
    """Run `action` on `device`. Indices must exist on `screen` (the loop checks them first).

    A RecoverableDeviceError ends the action early and is returned as `Execution.error`, with
    the calls made until then; any other DeviceError propagates (the loop ends the episode
    with `device_error`).
    """
    done = Execution()
    try:
        _run(action, screen, device, done, sleep)
    except RecoverableDeviceError as exc:
        done.error = str(exc)
    return done


def _run(
    action: Action,
    screen: Screen,
    device: Device,
    done: Execution,
    sleep: Callable[[float], None],
) -> None:
    match action:
        case Tap(index=index):
            x, y = screen.element(index).center
            device.tap(x, y)
            done.device_calls.append(f"tap({x}, {y})")
        case LongPress(index=index):
            x, y = screen.element(index).center
            device.long_press(x, y)
            done.device_calls.append(f"long_press({x}, {y})")
        case TypeText():
            _type_text(action, screen, device, done)
        case Swipe(direction=direction, index=index):
            region = (
                screen.element(index).bounds
                if index is not None
                else (0, 0, screen.width, screen.height)
            )
            x1, y1, x2, y2 = swipe_path(region, direction)
            device.swipe(x1, y1, x2, y2, SWIPE_DURATION_MS)
            done.device_calls.append(f"swipe({x1}, {y1}, {x2}, {y2})")
        case PressKey(key=key):
            device.press_key(key)
            done.device_calls.append(f"press_key({key})")
        case OpenApp(name=name):
            done.package = device.open_app(name)
            done.device_calls.append(f"open_app({name!r}) -> {done.package}")
        case Wait(seconds=seconds):
            sleep(seconds)
            done.device_calls.append(f"wait({seconds:g})")
        case TaskComplete():
            pass  # ends the episode; nothing runs on the device
        case _:
            assert_never(action)


def _type_text(action: TypeText, screen: Screen, device: Device, done: Execution) -> None:
    """Into the named field (tapped first unless focused) or the focused one; Enter, when
    asked, only once the text is known to have reached a field."""
    if action.index is not None:
        field_element = screen.element(action.index)
        if not field_element.focused:
            x, y = field_element.center
            device.tap(x, y)
            done.device_calls.append(f"tap({x}, {y})")
    if action.clear:
        device.clear_text()
        done.device_calls.append("clear_text()")
    device.type_text(action.text)
    done.device_calls.append(f"type_text({len(action.text)} chars)")
    _read_back_focus(device, action.text)
    if action.submit:
        device.press_key("enter")
        done.device_calls.append("press_key(enter)")


def _read_back_focus(device: Device, text: str) -> None:
    """InputNotApplied when the screen after typing `text` has no field it can have gone to."""
    try:
        after = Screen.parse(device.dump_xml())
    except (ScreenParseError, DeviceError):
        # no verdict without a screen; the loop reads it again next and reports a phone gone
        return
    if after.keyboard or any(
        element.role == "input" and element.focused for element in after.elements
    ):
        return
    raise InputNotApplied(
        f"typed {text!r}, but no text field has focus, so the text went nowhere; "
        "tap the field first (the screen may have changed)"
    )


def swipe_path(region: tuple[int, int, int, int], direction: str) -> tuple[int, int, int, int]:
    """Start and end points of a finger moving `direction` inside `region` (x1, y1, x2, y2)."""
    left, top, right, bottom = region
    width, height = right - left, bottom - top
    cx, cy = left + width // 2, top + height // 2
    near_y, far_y = top + round(height * _SWIPE_NEAR), top + round(height * _SWIPE_FAR)
    near_x, far_x = left + round(width * _SWIPE_NEAR), left + round(width * _SWIPE_FAR)
    paths = {
        "up": (cx, far_y, cx, near_y),
        "down": (cx, near_y, cx, far_y),
        "left": (far_x, cy, near_x, cy),
        "right": (near_x, cy, far_x, cy),
    }
    if direction not in paths:
        raise ValueError(f"swipe direction must be up, down, left or right, not {direction!r}")
    return paths[direction]
