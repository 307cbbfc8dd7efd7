"""`Simulator`: a scripted Android phone that implements the Device protocol."""

from __future__ import annotations

import difflib
import random
from collections.abc import Callable, Mapping
from typing import Any

from pydantic import ValidationError

from devices.base import KEYCODES, AppNotFound, DeviceError
from simulator.apps import APPS
from simulator.apps.dialogs import RateAppDialog
from simulator.apps.launcher import OverviewPage
from simulator.apps.names import AmbiguousAppName, find_app
from simulator.display import HEIGHT, SCREEN, WIDTH
from simulator.faults import DUMP_ERRORS, FaultConfig
from simulator.runtime import Phone, SystemWindows
from simulator.state import LAUNCHER, StateError, build_state
from simulator.system_ui.dialogs import BatteryWarningDialog, NotificationPermissionDialog
from simulator.system_ui.keyboard import KEYBOARD
from simulator.system_ui.shade import NotificationShade
from simulator.view import (
    Handler,
    View,
    Window,
    dump,
    find_target,
    is_long_touchable,
    is_touchable,
    shifted,
    visible,
)

# How far a new window has slid in when a dump catches it mid-transition.
_TRANSITION_OFFSET = 430

_SYSTEM_WINDOWS = SystemWindows(
    shade=NotificationShade, permission_prompt=NotificationPermissionDialog
)


class Simulator:
    """A phone in memory: its screen is real-looking uiautomator XML built from `state`.

    `state` overrides the documented defaults (see `simulator.state`); `seed` drives fault
    injection; `faults` is off by default. `adb_keyboard` says whether the ADB Keyboard IME is
    installed, which on a real phone is what makes typing non-ASCII text possible.
    """

    def __init__(
        self,
        state: Mapping[str, Any] | None = None,
        seed: int = 0,
        faults: FaultConfig | None = None,
        serial: str = "emulator-5554",
        adb_keyboard: bool = True,
    ) -> None:
        self.serial = serial
        self.seed = seed
        self.adb_keyboard_installed = adb_keyboard
        self.faults = faults or FaultConfig()
        self._random = random.Random(seed)
        self._state = build_state(state)
        self._phone = Phone(self._state, list(APPS), LAUNCHER, _SYSTEM_WINDOWS)
        self._stale: list[str] = []  # dumps still showing the previous screen
        self._sliding = False  # the next dump catches a window mid-transition
        if self._state.foreground != LAUNCHER:
            self._launch(self._state.foreground)

    # -- state ------------------------------------------------------------------------------

    @property
    def state(self) -> dict[str, Any]:
        """A copy of the flat state dict (DESIGN §2.5)."""
        return self._state.flat()

    def set_state(self, key: str, value: Any) -> None:
        """Change one state key, validated as at construction; `foreground` launches the app."""
        if key == "foreground":
            self._launch(str(value))
            return
        if key not in type(self._state).model_fields:
            build_state({key: value})  # raises StateError naming the known keys
        try:
            setattr(self._state, key, value)
        except ValidationError as exc:
            raise StateError(f"invalid state value for {key}: {exc.errors()[0]['msg']}") from None
        self._phone.changes += 1

    def installed_apps(self) -> dict[str, str]:
        """Package -> launcher label of every app on the phone."""
        return {package: app.label for package, app in self._phone.apps.items()}

    # -- screen -----------------------------------------------------------------------------

    def visible_windows(self) -> list[Window]:
        """The windows on screen, bottom to top, clipped to what a user can see."""
        windows = []
        for window in self._phone.windows():
            root = visible(window.root, SCREEN)
            if root is not None:
                windows.append(Window(window.package, root, window.modal, window.touchable))
        return windows

    def dumped_windows(self) -> list[Window]:
        """The windows `uiautomator dump` shows. With a dialog up it dumps the dialog's window,
        as real dumps of a dialog do, and not the page under it (which takes no touch while
        the dialog shows) nor the status bar; the keyboard and a toast drawn above it stay."""
        windows = self.visible_windows()
        modal = [z for z, window in enumerate(windows) if window.modal]
        if not modal:
            return windows
        return [
            window
            for window in windows[modal[-1] :]
            if window.modal or window.package == KEYBOARD or not window.touchable
        ]

    def dump_xml(self) -> str:
        if self.faults.dump_failure and self._random.random() < self.faults.dump_failure:
            raise DeviceError(self._random.choice(DUMP_ERRORS))
        if self._stale:
            return self._stale.pop(0)
        windows = self.dumped_windows()
        if self._sliding:
            self._sliding = False
            windows = self._mid_transition(windows)
        return dump(windows)

    @staticmethod
    def _mid_transition(windows: list[Window]) -> list[Window]:
        app = windows[0]
        moved = visible(shifted(app.root, _TRANSITION_OFFSET), SCREEN)
        return [Window(app.package, moved), *windows[1:]] if moved is not None else windows[1:]

    def screen_size(self) -> tuple[int, int]:
        return WIDTH, HEIGHT

    def foreground_app(self) -> str:
        return self._phone.input_package()

    def screenshot_png(self) -> bytes | None:
        return None

    # -- input ------------------------------------------------------------------------------

    def _check_point(self, x: int, y: int) -> None:
        if not (0 <= x < WIDTH and 0 <= y < HEIGHT):
            raise DeviceError(f"point ({x}, {y}) is outside the {WIDTH}x{HEIGHT} screen")

    def _touch(self, x: int, y: int, want: Callable[[View], bool], long: bool) -> None:
        self._check_point(x, y)
        for window in reversed(self.visible_windows()):
            root = window.root
            if not window.touchable:
                continue
            if root.bounds.contains(x, y):
                target = find_target(root, x, y, want)
                handler: Handler | None = None
                if target is not None:
                    handler = target.on_long_press if long else target.on_tap
                if handler is not None:
                    self._act(handler)
                return
            if window.modal:
                if root.on_outside_tap is not None and not long:
                    self._act(root.on_outside_tap)
                return

    def tap(self, x: int, y: int) -> None:
        self._touch(x, y, is_touchable, long=False)

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        if duration_ms < 400:  # shorter than the long-press timeout: Android sees a tap
            self.tap(x, y)
            return
        self._touch(x, y, is_long_touchable, long=True)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        """Content follows the finger: moving the finger up scrolls a list to later items."""
        self._check_point(x1, y1)
        self._check_point(min(max(x2, 0), WIDTH - 1), min(max(y2, 0), HEIGHT - 1))
        dx, dy = x2 - x1, y2 - y1
        for window in reversed(self.visible_windows()):
            if not window.touchable:
                continue
            if not window.root.bounds.contains(x1, y1):
                if window.modal:
                    return
                continue
            if abs(dy) >= abs(dx):
                container = find_target(window.root, x1, y1, lambda v: v.scroll is not None)
                if container is not None and container.scroll is not None:
                    state = container.scroll
                    if state.scroll_by(-dy):
                        self._phone.changes += 1
                        return
            if not window.modal:
                self._act(lambda: self._phone.swipe(y1, dx, dy))
            return

    def type_text(self, text: str) -> None:
        if not self.adb_keyboard_installed and not text.isascii():
            raise DeviceError("cannot type non-ASCII text: the ADB Keyboard IME is not installed")
        self._phone.type_text(text)

    def clear_text(self) -> None:
        field = self._phone.focus
        if field is not None:
            field.set("")
            field.selected = False
            self._phone.changes += 1

    def press_key(self, key: str) -> None:
        name = key.strip().lower()
        if name not in KEYCODES:
            raise DeviceError(f"unknown key {key!r}; known keys: {', '.join(sorted(KEYCODES))}")
        phone = self._phone
        field = phone.focus
        editing: dict[str, Callable[[], None]] = {}
        if field is not None:
            editing = {
                "delete": field.backspace,
                "forward_delete": field.forward_delete,
                "dpad_left": lambda: field.move_cursor(field.cursor - 1),
                "dpad_right": lambda: field.move_cursor(field.cursor + 1),
                "move_home": lambda: field.move_cursor(0),
                "move_end": lambda: field.move_cursor(len(field.text)),
                "space": lambda: phone.type_text(" "),
            }
        actions: dict[str, Callable[[], None]] = {
            "back": phone.back,
            "escape": phone.back,
            "home": phone.go_home,
            "recent_apps": self._toggle_overview,
            "app_switch": self._toggle_overview,
            "enter": phone.enter,
            **editing,
        }
        action = actions.get(name)
        if action is not None:  # other keys (volume, media, dpad...) change nothing here
            self._act(action)

    def _toggle_overview(self) -> None:
        phone = self._phone
        if phone.overview is not None:
            phone.overview = None
            phone.changes += 1
        else:
            phone.show_overview(OverviewPage(phone))
            phone.navigations += 1

    def open_app(self, name: str) -> str:
        package = self._resolve_app(name)
        self._act(lambda: self._launch(package))
        return package

    def _resolve_app(self, name: str) -> str:
        """The package `name` names: a package, a launcher label or another name people use
        for the app (`simulator.apps.names`), in any case and spacing."""
        wanted = name.strip()
        apps = self.installed_apps()
        try:
            package = find_app(wanted, apps)
        except AmbiguousAppName as exc:
            raise AppNotFound(str(exc)) from None
        if package is not None:
            return package
        names = [*apps.values(), *apps]
        close = difflib.get_close_matches(wanted, names, n=3, cutoff=0.5)
        close += [n for n in names if wanted.casefold() in n.casefold() and n not in close]
        hint = f"; did you mean {', '.join(repr(c) for c in close[:3])}?" if close else ""
        raise AppNotFound(f"no app named {name!r} is installed{hint}")

    def _launch(self, package: str) -> None:
        if package not in self._phone.apps:
            raise StateError(f"unknown app package {package!r}")
        if package == LAUNCHER:
            self._phone.go_home()
        else:
            self._phone.launch(package)

    # -- faults around every action -----------------------------------------------------------

    def _act(self, action: Callable[[], object]) -> None:
        """Run an input's effect, then roll the faults that follow a change of screen."""
        before_xml = dump(self.dumped_windows()) if self.faults.slow_transition else ""
        navigations = self._phone.navigations
        foreground = self._phone.foreground
        action()
        if self._phone.navigations == navigations or not self.faults.any():
            return
        draw = self._random.random
        launched = self._phone.foreground not in (foreground, LAUNCHER)
        if launched and self.faults.popup and draw() < self.faults.popup:
            self._popup()
        if self.faults.slow_transition and draw() < self.faults.slow_transition:
            self._stale = [before_xml] * self.faults.slow_transition_dumps
        elif self.faults.mid_transition and draw() < self.faults.mid_transition:
            self._sliding = True

    def _popup(self) -> None:
        phone = self._phone
        if self._random.random() < 0.5:
            app = phone.apps[phone.foreground]
            phone.open_dialog(RateAppDialog(phone, app.package, app.label))
        elif phone.system_dialog is None:
            phone.system_dialog = BatteryWarningDialog(phone)
            phone.changes += 1

    # -- conveniences for tests ---------------------------------------------------------------

    def find_views(self, label: str) -> list[View]:
        """Visible views whose text or content description is exactly `label`, top-most last."""
        return [
            view
            for window in self.visible_windows()
            for view in window.root.walk()
            if label in (view.text, view.desc) and not view.bounds.is_empty()
        ]

    def tap_on(self, label: str) -> None:
        """Tap the centre of the top-most visible view labelled `label` (LookupError if none)."""
        views = self.find_views(label)
        if not views:
            raise LookupError(f"nothing labelled {label!r} on screen")
        self.tap(*views[-1].bounds.center)
