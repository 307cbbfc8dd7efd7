"""The phone's UI runtime: app back stacks, dialogs, text focus and the keyboard, windows,
the System UI panel pulled down from the status bar, and toasts.

Apps are sets of pages. A page renders its content from the device state and its own UI
state (scroll offsets, field contents) every frame; handlers attached to views change state.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass

from simulator.display import KEYBOARD_TOP, NAV_BAR_TOP, STATUS_BAR, WIDTH
from simulator.state import DeviceState
from simulator.system_ui import SYSTEM_UI
from simulator.system_ui.keyboard import KEYBOARD, KeyboardActions, keyboard_window
from simulator.system_ui.status_bar import StatusIcons, status_bar_window
from simulator.system_ui.toast import toast_window
from simulator.view import Handler, Rect, View, Window
from simulator.widgets import Field, app_window

# A finger that starts on the status bar and travels this far down pulls the shade.
SHADE_PULL = 150


class Page(ABC):
    """One screen of an app: an activity, or a fragment on the app's back stack."""

    def __init__(self, phone: Phone, package: str) -> None:
        self.phone = phone
        self.package = package
        self.dialog: Dialog | None = None

    @property
    def state(self) -> DeviceState:
        return self.phone.state

    @abstractmethod
    def content(self, frame: Rect) -> View:
        """The page's view tree inside `frame`, the area between the system bars."""

    def window(self, frame: Rect) -> View:
        return app_window(self.content(frame), frame)

    def on_back(self) -> bool:
        """Handle back inside the page (close search, collapse); False lets the stack pop."""
        return False

    def on_resume(self) -> None:  # noqa: B027 (a hook most pages leave empty)
        """Called when the page comes back to the top of its stack."""

    def on_swipe(self, dx: int, dy: int) -> bool:
        """A swipe no scrollable view took (the finger moved by dx, dy); True if handled."""
        return False


class Dialog(ABC):
    """A window over a page: an AlertDialog, a picker, a system prompt."""

    cancelable = True

    def __init__(self, phone: Phone, package: str) -> None:
        self.phone = phone
        self.package = package

    @abstractmethod
    def window(self) -> View:
        """The whole window, decor included, in screen coordinates."""

    def cancel(self) -> None:
        self.phone.close_dialog(self)


class Panel(ABC):
    """A System UI panel over everything: the notification shade and quick settings."""

    def __init__(self, phone: Phone) -> None:
        self.phone = phone

    @abstractmethod
    def window(self) -> View:
        """The whole window, decor included, in screen coordinates."""

    def on_swipe(self, dx: int, dy: int) -> bool:
        """A swipe its scrolling lists did not take; True if handled."""
        return False

    def close(self) -> None:
        self.phone.close_panel()


@dataclass
class Toast:
    """A short message at the bottom of the screen. It lasts until the screen next changes
    after it was first drawn: long enough for the dump that follows the action that raised it,
    gone by the time the next action has done something (a real toast lasts 2 seconds)."""

    text: str
    drawn_at: int | None = None  # the `Phone.changes` count when it was first drawn


@dataclass(frozen=True)
class AppSpec:
    package: str
    label: str
    root: Callable[[Phone], Page]


@dataclass(frozen=True)
class SystemWindows:
    """The windows System UI opens over the apps. They lead into apps (the shade opens
    Messages and Settings pages), so whoever assembles the phone passes them in: the runtime
    stays below the apps and imports none of them."""

    shade: Callable[[Phone], Panel]
    permission_prompt: Callable[[Phone, str, str], Dialog]  # (phone, app package, app label)


class Phone:
    """Navigation and input state of the simulated phone."""

    def __init__(
        self,
        state: DeviceState,
        apps: list[AppSpec],
        launcher: str,
        system_windows: SystemWindows,
    ) -> None:
        self.state = state
        self.apps = {app.package: app for app in apps}
        self.launcher = launcher
        self.system_windows = system_windows
        self.stacks: dict[str, list[Page]] = {}
        self.recents: list[str] = []
        self.system_dialog: Dialog | None = None
        self.overview: Page | None = None
        self.panel: Panel | None = None
        self.toast: Toast | None = None
        # notifications the user cleared or opened: (sender, text) of received texts
        self.dismissed_notifications: set[tuple[str, str]] = set()
        self.focus: Field | None = None
        self.focus_owner: object | None = None
        self.keyboard_shown = False
        self.changes = 0  # bumped whenever what is on screen may have changed
        self.navigations = 0  # bumped when a window or page comes or goes (a transition)
        self._foreground = launcher
        self.stacks[launcher] = [self.apps[launcher].root(self)]

    # -- navigation -------------------------------------------------------------------------

    @property
    def foreground(self) -> str:
        return self._foreground

    def _bring(self, package: str) -> None:
        self._foreground = package
        self.state.foreground = package
        self.overview = None
        self.panel = None
        if package != self.launcher:
            if package in self.recents:
                self.recents.remove(package)
            self.recents.insert(0, package)
        self.blur()
        self.changes += 1
        self.navigations += 1

    def top(self) -> Page:
        return self.stacks[self._foreground][-1]

    def launch(self, package: str) -> None:
        """Start an app, or resume its task where the user left it."""
        if package not in self.stacks:
            self.stacks[package] = [self.apps[package].root(self)]
        self._bring(package)
        self.top().on_resume()
        if package in self.state.permission_prompts and self.system_dialog is None:
            self.system_dialog = self.system_windows.permission_prompt(
                self, package, self.apps[package].label
            )

    def push(self, page: Page) -> None:
        self.stacks[page.package].append(page)
        if self.focus_owner is not page:  # a page may focus its own field as it opens
            self.blur()
        self.changes += 1
        self.navigations += 1

    def pop(self, page: Page) -> None:
        """Finish `page`; finishing an app's last page returns to the launcher."""
        stack = self.stacks[page.package]
        if page in stack:
            stack.remove(page)
        self.blur()
        self.changes += 1
        self.navigations += 1
        if not stack:
            del self.stacks[page.package]
            if page.package in self.recents:
                self.recents.remove(page.package)
            self.go_home()
        else:
            stack[-1].on_resume()

    def go_home(self) -> None:
        self.system_dialog = None
        self._bring(self.launcher)
        self.stacks[self.launcher][-1].on_resume()

    def show_overview(self, page: Page) -> None:
        self.blur()
        self.overview = page
        self.changes += 1

    def clear_tasks(self) -> None:
        for package in list(self.stacks):
            if package != self.launcher:
                del self.stacks[package]
        self.recents.clear()
        self.go_home()

    def back(self) -> None:
        if self.keyboard_shown:
            self.keyboard_shown = False
            self.changes += 1
            return
        if self.panel is not None:
            self.close_panel()
            return
        if self.system_dialog is not None:
            self.system_dialog.cancel()
            return
        if self.overview is not None:
            self.overview = None
            self.changes += 1
            return
        page = self.top()
        if page.dialog is not None:
            if page.dialog.cancelable:
                page.dialog.cancel()
            return
        if page.on_back():
            self.changes += 1
            return
        if self._foreground == self.launcher:
            return
        self.pop(page)

    def input_package(self) -> str:
        """The package of the window that takes input: a panel or system dialog on top, or
        the foreground app."""
        if self.panel is not None:
            return SYSTEM_UI
        if self.system_dialog is not None and self.overview is None:
            return self.system_dialog.package
        return self._foreground

    # -- gestures -----------------------------------------------------------------------------

    def swipe(self, y1: int, dx: int, dy: int) -> None:
        """A swipe no scrolling view took, starting at height y1: a pull from the status bar
        opens the shade; the shade, then the page on top, get the others. On the home screen
        a pull anywhere opens the shade too, as Pixel Launcher does by default."""
        pull = dy >= SHADE_PULL and dy > abs(dx)
        if self.panel is not None:
            self.panel.on_swipe(dx, dy)
        elif y1 < STATUS_BAR and pull:
            self.open_panel()
        elif self.overview is None:
            handled = self.top().on_swipe(dx, dy)
            if not handled and pull and self._foreground == self.launcher:
                self.open_panel()

    def open_panel(self) -> None:
        self.blur()
        self.panel = self.system_windows.shade(self)
        self.changes += 1
        self.navigations += 1

    def close_panel(self) -> None:
        self.panel = None
        self.changes += 1
        self.navigations += 1

    def show_toast(self, message: str) -> None:
        self.toast = Toast(message)
        self.changes += 1

    # -- dialogs ----------------------------------------------------------------------------

    def open_dialog(self, dialog: Dialog) -> None:
        if self.focus_owner is not dialog:  # a dialog may focus its own field as it opens
            self.blur()
        self.top().dialog = dialog
        self.changes += 1
        self.navigations += 1

    def close_dialog(self, dialog: Dialog) -> None:
        if self.system_dialog is dialog:
            self.system_dialog = None
        for stack in self.stacks.values():
            for page in stack:
                if page.dialog is dialog:
                    page.dialog = None
        if self.focus_owner is dialog:
            self.blur()
        self.changes += 1
        self.navigations += 1

    # -- text input -------------------------------------------------------------------------

    def focus_field(self, field: Field, owner: object, keyboard: bool = True) -> None:
        field.cursor = len(field.text)
        field.selected = field.select_on_focus
        self.focus = field
        self.focus_owner = owner
        self.keyboard_shown = keyboard
        self.changes += 1

    def focuser(self, field: Field, owner: object) -> Handler:
        return lambda: self.focus_field(field, owner)

    def blur(self) -> None:
        self.focus = None
        self.focus_owner = None
        self.keyboard_shown = False

    def type_text(self, value: str) -> None:
        field = self.focus
        while field is not None:
            value = field.insert(value)
            # a full time input hands the focus on at once, as Material's time picker does
            field = self._advance(field) if field.full() else None
            if not value:
                break
        self.changes += 1

    def _advance(self, field: Field) -> Field | None:
        """Time inputs move on to the next field when full; others drop the overflow."""
        owner = self.focus_owner
        following = getattr(owner, "next_field", None)
        if callable(following):
            nxt = following(field)
            if isinstance(nxt, Field):
                self.focus_field(nxt, owner)
                return nxt
        return None

    def enter(self) -> None:
        if self.focus is not None and self.focus.on_enter is not None:
            self.focus.on_enter()
        self.changes += 1

    def keyboard_actions(self) -> KeyboardActions:
        def type_char(char: str) -> Handler:
            return lambda: self.type_text(char)

        def delete() -> None:
            if self.focus is not None:
                self.focus.backspace()
                self.changes += 1

        action = "Enter"
        if self.focus is not None and self.focus.on_enter is not None:
            action = "Done"
        return KeyboardActions(
            type_char=type_char, delete=delete, enter=self.enter, action_label=action
        )

    # -- rendering --------------------------------------------------------------------------

    def content_frame(self) -> Rect:
        """The app's area: below the status bar, above the navigation bar or the keyboard."""
        page_has_focus = self.keyboard_shown and isinstance(self.focus_owner, Page)
        return Rect(0, STATUS_BAR, WIDTH, KEYBOARD_TOP if page_has_focus else NAV_BAR_TOP)

    def windows(self) -> list[Window]:
        """Every window on screen, bottom to top."""
        windows: list[Window] = []
        if self.panel is not None:
            # The shade covers the whole screen and draws its own status header.
            windows.append(Window(SYSTEM_UI, self.panel.window()))
        elif self.overview is not None:
            windows.append(Window(self.launcher, self.overview.window(self.content_frame())))
        else:
            page = self.top()
            windows.append(Window(page.package, page.window(self.content_frame())))
            if page.dialog is not None:
                windows.append(Window(page.dialog.package, page.dialog.window(), modal=True))
            if self.system_dialog is not None:
                windows.append(
                    Window(self.system_dialog.package, self.system_dialog.window(), modal=True)
                )
        if self.panel is None:
            windows.append(Window(SYSTEM_UI, status_bar_window(StatusIcons.of(self.state))))
        if self.focus is not None and self.keyboard_shown:
            windows.append(Window(KEYBOARD, keyboard_window(self.keyboard_actions())))
        toast = self._current_toast()
        if toast is not None:
            windows.append(Window(SYSTEM_UI, toast_window(toast.text), touchable=False))
        return windows

    def _current_toast(self) -> Toast | None:
        toast = self.toast
        if toast is not None and toast.drawn_at is None:
            toast.drawn_at = self.changes
        elif toast is not None and toast.drawn_at != self.changes:
            self.toast = None
        return self.toast
