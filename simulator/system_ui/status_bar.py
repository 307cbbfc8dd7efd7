"""The status bar System UI draws across the top of every app: the clock, the status icons
and the battery."""

from __future__ import annotations

from dataclasses import dataclass

from simulator.display import STATUS_BAR, WIDTH
from simulator.state import DeviceState, twelve_hour
from simulator.system_ui import SYSTEM_UI
from simulator.view import FRAME, IMAGE, LINEAR, TEXT, Rect, View, rid


@dataclass(frozen=True)
class StatusIcons:
    clock: str
    wifi: bool
    bluetooth: bool
    airplane: bool
    do_not_disturb: bool
    battery_level: int
    battery_percentage: bool
    battery_saver: bool

    @classmethod
    def of(cls, state: DeviceState) -> StatusIcons:
        """What the status bar shows of `state`."""
        return cls(
            clock=twelve_hour(state.time)[0],
            wifi=state.wifi,
            bluetooth=state.bluetooth,
            airplane=state.airplane_mode,
            do_not_disturb=state.do_not_disturb,
            battery_level=state.battery_level,
            battery_percentage=state.battery_percentage,
            battery_saver=state.battery_saver,
        )


def status_bar_window(icons: StatusIcons) -> View:
    bar = Rect(0, 0, WIDTH, STATUS_BAR)
    clock = View(
        TEXT,
        Rect(42, 0, 42 + len(icons.clock) * 22 + 10, STATUS_BAR),
        rid=rid(SYSTEM_UI, "clock"),
        text=icons.clock,
    )
    status: list[tuple[str, str]] = []
    if icons.do_not_disturb:
        status.append(("", "Do Not Disturb."))
    if icons.bluetooth:
        status.append(("", "Bluetooth on."))
    if icons.airplane:
        status.append(("", "Airplane mode."))
    if icons.battery_saver:
        status.append(("", "Battery Saver is on."))
    if icons.wifi and not icons.airplane:
        status.append((rid(SYSTEM_UI, "wifi_combo"), "Wi‑Fi signal full."))
    battery_width = 130 if icons.battery_percentage else 70
    x = WIDTH - 30 - battery_width - 48 * len(status)
    icon_views: list[View] = []
    for icon_rid, desc in status:
        icon_views.append(
            View(IMAGE if not icon_rid else FRAME, Rect(x, 6, x + 48, 57), rid=icon_rid, desc=desc)
        )
        x += 48
    battery_children = [
        View(
            IMAGE,
            Rect(x, 9, x + 70, 54),
            rid=rid(SYSTEM_UI, "battery_image"),
            desc=f"Battery {icons.battery_level} percent.",
        ),
    ]
    if icons.battery_percentage:
        battery_children.append(
            View(
                TEXT,
                Rect(x + 70, 9, x + battery_width, 54),
                rid=rid(SYSTEM_UI, "battery_percentage_view"),
                text=f"{icons.battery_level}%",
            )
        )
    battery = View(
        LINEAR,
        Rect(x, 6, x + battery_width, 57),
        rid=rid(SYSTEM_UI, "battery"),
        focusable=True,
        children=battery_children,
    )
    system_icons = View(
        LINEAR,
        Rect(WIDTH - 30 - battery_width - 48 * len(status), 6, WIDTH - 30, 57),
        rid=rid(SYSTEM_UI, "system_icons"),
        children=[*icon_views, battery],
    )
    contents = View(
        LINEAR,
        bar,
        rid=rid(SYSTEM_UI, "phone_status_bar_contents_container"),
        children=[
            View(
                FRAME,
                Rect(42, 0, clock.bounds.x2, STATUS_BAR),
                rid=rid(SYSTEM_UI, "clock_container"),
                children=[clock],
            ),
            View(
                LINEAR,
                system_icons.bounds,
                rid=rid(SYSTEM_UI, "system_icon_area"),
                children=[system_icons],
            ),
        ],
    )
    return View(
        FRAME,
        bar,
        children=[
            View(
                FRAME,
                bar,
                rid=rid(SYSTEM_UI, "status_bar_container"),
                children=[
                    View(FRAME, bar, rid=rid(SYSTEM_UI, "status_bar"), children=[contents]),
                ],
            ),
        ],
    )
