"""Dialogs several apps share: an overflow popup menu, a confirmation, the "rate us" popup,
a one-line text prompt, and the input-mode logic of Material's date and time pickers."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Sequence
from functools import partial

from simulator.display import STATUS_BAR, WIDTH
from simulator.runtime import Dialog, Page, Phone
from simulator.view import FRAME, LINEAR, Rect, View, rid
from simulator.widgets import Field, alert_dialog, edit_text, no_effect, text

MenuItems = Sequence[tuple[str, Callable[[], None]]]

_ITEM_HEIGHT = 147


class PopupMenu(Dialog):
    """The list an overflow button drops down at the top right; an item closes it and acts."""

    def __init__(self, phone: Phone, package: str, items: MenuItems, top: int = 0) -> None:
        super().__init__(phone, package)
        self.items = list(items)
        self.top = top or STATUS_BAR + 21

    def _choose(self, action: Callable[[], None]) -> None:
        self.phone.close_dialog(self)
        action()

    def window(self) -> View:
        width = max(560, max(len(label) for label, _ in self.items) * 27 + 130)
        box = Rect(WIDTH - 21 - width, self.top, WIDTH - 21, self.top + 42)
        box = box.with_y(box.y1, box.y1 + 21 + _ITEM_HEIGHT * len(self.items) + 21)
        rows = []
        for position, (label, action) in enumerate(self.items):
            y = box.y1 + 21 + position * _ITEM_HEIGHT
            row = Rect(box.x1, y, box.x2, y + _ITEM_HEIGHT)
            rows.append(
                View(
                    LINEAR,
                    row,
                    clickable=True,
                    focusable=True,
                    on_tap=partial(self._choose, action),
                    children=[
                        View(
                            LINEAR,
                            row.inset(42, 0),
                            children=[
                                text(label, row.x1 + 42, y + 45, 42, row.x2, rid="android:id/title")
                            ],
                        )
                    ],
                )
            )
        return View(
            FRAME,
            box,
            on_outside_tap=self.cancel,
            children=[View("android.widget.ListView", box, children=rows)],
        )


class ConfirmDialog(Dialog):
    """An AlertDialog that asks before something happens; the right button goes ahead."""

    def __init__(
        self,
        phone: Phone,
        package: str,
        title: str,
        message: str,
        confirm: str,
        on_confirm: Callable[[], None],
        dismiss: str = "Cancel",
    ) -> None:
        super().__init__(phone, package)
        self.title = title
        self.message = message
        self.buttons = (dismiss, confirm)
        self.on_confirm = on_confirm

    def _confirm(self) -> None:
        self.phone.close_dialog(self)
        self.on_confirm()

    def window(self) -> View:
        dismiss, confirm = self.buttons
        return alert_dialog(
            self.title,
            self.message,
            [(dismiss, self.cancel), (confirm, self._confirm)],
            on_cancel=self.cancel,
        )


class RateAppDialog(ConfirmDialog):
    """An in-app "rate us" popup, injected as a fault; either button only closes it."""

    def __init__(self, phone: Phone, package: str, label: str) -> None:
        super().__init__(
            phone,
            package,
            f"Enjoying {label}?",
            "Tap a star to rate it on Google Play.",
            "Rate",
            no_effect,
            dismiss="Not now",
        )


def ask_to_delete(page: Page, title: str, message: str, remove: Callable[[], None]) -> None:
    """Ask before deleting what `page` shows; Delete runs `remove` and closes the page."""

    def delete() -> None:
        remove()
        page.phone.pop(page)

    page.phone.open_dialog(
        ConfirmDialog(page.phone, page.package, title, message, "Delete", delete)
    )


class TextPromptDialog(Dialog):
    """A title, one focused text field and Cancel / OK; `on_ok` returns an error to show, or
    None when the dialog may close."""

    def __init__(
        self,
        phone: Phone,
        package: str,
        title: str,
        initial: str,
        hint: str,
        on_ok: Callable[[str], str | None],
        field_id: str,
    ) -> None:
        super().__init__(phone, package)
        self.title = title
        self.on_ok = on_ok
        self.field_id = field_id
        self.error = ""
        self.field = Field(text=initial, hint=hint, on_enter=self._ok)
        phone.focus_field(self.field, self)

    def _ok(self) -> None:
        error = self.on_ok(self.field.text.strip())
        if error is None:
            self.phone.close_dialog(self)
        else:
            self.error = error
            self.phone.changes += 1

    def window(self) -> View:
        def body(box: Rect) -> View:
            children = [
                edit_text(
                    self.field,
                    Rect(box.x1 + 63, box.y1 + 20, box.x2 - 63, box.y1 + 160),
                    self.phone.focus is self.field,
                    self.phone.focuser(self.field, self),
                    self.field_id,
                )
            ]
            if self.error:
                children.append(text(self.error, box.x1 + 63, box.y1 + 175, 37, box.x2 - 63))
            return View(FRAME, box, children=children)

        return alert_dialog(
            self.title,
            "",
            [("Cancel", self.cancel), ("OK", self._ok)],
            on_cancel=self.cancel,
            body=body,
            body_height=240,
        )


class TextModePicker(Dialog):
    """A Material picker that shows either a face to tap or text inputs, swapped by the mode
    button in its header; OK (and leaving text mode) takes the typed value only if it reads."""

    def __init__(self, phone: Phone, package: str) -> None:
        super().__init__(phone, package)
        self.text_mode = False
        self.error = ""

    def _id(self, name: str) -> str:
        return rid(self.package, name)

    def _changed(self) -> None:
        self.phone.changes += 1

    @abstractmethod
    def _read_input(self) -> bool:
        """Take the typed value as the picked one; False, with `error` set, if it does not read."""

    @abstractmethod
    def _start_typing(self) -> None:
        """Fill the text inputs with the picked value and focus the first."""

    @abstractmethod
    def _deliver(self) -> None:
        """Hand the picked value to whoever opened the picker."""

    def _may_leave_text_mode(self) -> bool:
        return self._read_input()

    def _toggle_mode(self) -> None:
        if self.text_mode:
            if not self._may_leave_text_mode():
                self._changed()
                return
            self.text_mode = False
            self.phone.blur()
        else:
            self.text_mode = True
            self._start_typing()
        self._changed()

    def _ok(self) -> None:
        if self.text_mode and not self._read_input():
            self._changed()
            return
        self.phone.close_dialog(self)
        self._deliver()
