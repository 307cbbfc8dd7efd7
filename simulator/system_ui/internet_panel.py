"""The panel the quick-settings Internet tile opens."""

from __future__ import annotations

from simulator.apps.settings import open_settings_page
from simulator.runtime import Dialog, Phone
from simulator.system_ui import SYSTEM_UI
from simulator.view import LINEAR, SWITCH, Handler, Rect, View, rid
from simulator.widgets import alert_dialog, no_effect, text


class InternetDialog(Dialog):
    """The Internet tile's panel (Android 12+): mobile data, the Wi-Fi switch, the network in
    use, See all (Settings > Internet) and Done."""

    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, SYSTEM_UI)

    def _toggle_wifi(self) -> None:
        self.phone.state.wifi = not self.phone.state.wifi
        self.phone.changes += 1

    def _see_all(self) -> None:
        self.cancel()
        open_settings_page(self.phone, "Internet")

    def window(self) -> View:
        s = self.phone.state

        def row(
            box: Rect,
            name: str,
            title: str,
            summary: str,
            on_tap: Handler,
            switch: bool | None = None,
        ) -> View:
            texts = [text(title, 105, box.y1 + 30, 48, 850, rid=rid(SYSTEM_UI, f"{name}_title"))]
            if summary:
                texts.append(
                    text(summary, 105, box.y1 + 95, 37, 850, rid=rid(SYSTEM_UI, f"{name}_summary"))
                )
            children = [View(LINEAR, box.with_x(105, 850), children=texts)]
            if switch is not None:
                cy = box.y1 + box.height // 2
                children.append(
                    View(
                        SWITCH,
                        Rect(870, cy - 50, 1000, cy + 50),
                        rid=rid(SYSTEM_UI, "wifi_toggle"),
                        checkable=True,
                        checked=switch,
                        focusable=True,
                    )
                )
            return View(
                LINEAR,
                box,
                rid=rid(SYSTEM_UI, f"{name}_layout"),
                clickable=True,
                focusable=True,
                on_tap=on_tap,
                children=children,
            )

        def body(box: Rect) -> View:
            rows: list[View] = []
            y = box.y1
            if not s.airplane_mode:
                rows.append(
                    row(
                        Rect(box.x1, y, box.x2, y + 168),
                        "mobile",
                        "T-Mobile",
                        "Connected / 3G" if not s.wifi else "Mobile data",
                        no_effect,
                    )
                )
                y += 168
            rows.append(
                row(
                    Rect(box.x1, y, box.x2, y + 147),
                    "turn_on_wifi",
                    "Wi‑Fi",
                    "",
                    self._toggle_wifi,
                    s.wifi,
                )
            )
            y += 147
            if s.wifi:
                rows.append(
                    row(
                        Rect(box.x1, y, box.x2, y + 168),
                        "wifi_connected",
                        "AndroidWifi",
                        "Connected",
                        no_effect,
                    )
                )
            return View(LINEAR, box, rid=rid(SYSTEM_UI, "internet_list"), children=rows)

        height = (0 if s.airplane_mode else 168) + 147 + (168 if s.wifi else 0)
        subtitle = "Tap a network to connect" if s.wifi else "Networks available"
        return alert_dialog(
            "Internet",
            subtitle,
            [("See all", self._see_all), ("Done", self.cancel)],
            on_cancel=self.cancel,
            body=body,
            body_height=height,
        )
