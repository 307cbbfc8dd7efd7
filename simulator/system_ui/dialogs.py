"""System dialogs over any app: the notification-permission prompt and the low-battery
warning."""

from __future__ import annotations

from simulator.display import WIDTH
from simulator.runtime import Dialog, Phone
from simulator.system_ui import SYSTEM_UI
from simulator.view import IMAGE, LINEAR, SCROLL, TEXT, Rect, View, rid
from simulator.widgets import alert_dialog, button, dialog_frame

PERMISSION_CONTROLLER = "com.google.android.permissioncontroller"
_PC = "com.android.permissioncontroller"


class NotificationPermissionDialog(Dialog):
    """Android 13+ asks on an app's first launch whether it may post notifications."""

    cancelable = True

    def __init__(self, phone: Phone, app_package: str, app_label: str) -> None:
        super().__init__(phone, PERMISSION_CONTROLLER)
        self.app_package = app_package
        self.app_label = app_label

    def answer(self, allow: bool) -> None:
        state = self.phone.state
        state.permission_prompts = [p for p in state.permission_prompts if p != self.app_package]
        if allow and self.app_package not in state.notifications_allowed:
            state.notifications_allowed = [*state.notifications_allowed, self.app_package]
        self.phone.close_dialog(self)

    def cancel(self) -> None:
        # Dismissing the prompt with back counts as a denial, as on a real phone.
        self.answer(False)

    def window(self) -> View:
        box = Rect(27, 863, WIDTH - 27, 1537)
        inner = box.inset(44, 44)
        message = f"Allow {self.app_label} to send you notifications?"
        buttons = View(
            LINEAR,
            Rect(inner.x1, 1164, inner.x2, 1493),
            children=[
                button(
                    "Allow",
                    Rect(137, 1170, 943, 1324),
                    lambda: self.answer(True),
                    rid(_PC, "permission_allow_button"),
                ),
                button(
                    "Don’t allow",
                    Rect(137, 1336, 943, 1490),
                    lambda: self.answer(False),
                    rid(_PC, "permission_deny_button"),
                ),
            ],
        )
        dialog = View(
            LINEAR,
            box,
            rid=rid(_PC, "grant_dialog"),
            clickable=True,
            children=[
                View(
                    LINEAR,
                    Rect(inner.x1, inner.y1, inner.x2, 1164),
                    rid=rid(_PC, "content_container"),
                    children=[
                        View(
                            LINEAR,
                            Rect(137, 973, 943, 1098),
                            children=[
                                View(
                                    IMAGE, Rect(496, 907, 584, 995), rid=rid(_PC, "permission_icon")
                                ),
                                View(
                                    TEXT,
                                    Rect(137, 1028, 943, 1098),
                                    rid=rid(_PC, "permission_message"),
                                    text=message,
                                ),
                            ],
                        ),
                    ],
                ),
                buttons,
            ],
        )
        singleton = View(
            LINEAR, box, rid=rid(_PC, "grant_singleton"), clickable=True, children=[dialog]
        )
        return dialog_frame(box, View(SCROLL, box, focusable=True, children=[singleton]), None)


class BatteryWarningDialog(Dialog):
    """The low-battery warning System UI shows over any app, injected as a fault."""

    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, SYSTEM_UI)

    def _saver(self) -> None:
        self.phone.state.battery_saver = True
        self.cancel()

    def window(self) -> View:
        level = self.phone.state.battery_level
        return alert_dialog(
            "Battery may run out soon",
            f"{min(level, 15)}% remaining. Turn on Battery Saver to extend battery life.",
            [("Close", self.cancel), ("Turn on Battery Saver", self._saver)],
            on_cancel=self.cancel,
        )
