"""System windows that appear over apps: the notification-permission prompt and popups."""

from __future__ import annotations

from simulator.runtime import SYSTEM_UI, Dialog, Phone
from simulator.view import BUTTON, IMAGE, LINEAR, SCROLL, TEXT, Rect, View
from simulator.widgets import WIDTH, alert_dialog, dialog_frame, rid

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
                View(
                    BUTTON,
                    Rect(137, 1170, 943, 1324),
                    rid=rid(_PC, "permission_allow_button"),
                    text="Allow",
                    clickable=True,
                    focusable=True,
                    on_tap=lambda: self.answer(True),
                ),
                View(
                    BUTTON,
                    Rect(137, 1336, 943, 1490),
                    rid=rid(_PC, "permission_deny_button"),
                    text="Don’t allow",
                    clickable=True,
                    focusable=True,
                    on_tap=lambda: self.answer(False),
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


class RateAppDialog(Dialog):
    """An in-app "rate us" popup, injected as a fault; it changes nothing when dismissed."""

    def __init__(self, phone: Phone, package: str, label: str) -> None:
        super().__init__(phone, package)
        self.label = label

    def window(self) -> View:
        return alert_dialog(
            f"Enjoying {self.label}?",
            "Tap a star to rate it on Google Play.",
            [("Not now", self.cancel), ("Rate", self.cancel)],
            on_cancel=self.cancel,
        )


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
