"""The notification shade System UI pulls down over everything: the clock, four quick-settings
tiles and the notifications, and all the quick settings when pulled down further."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from simulator.apps.calendar import day_label
from simulator.apps.messages import open_conversation
from simulator.apps.settings import open_settings_page
from simulator.display import HEIGHT, NAV_BAR_TOP, WIDTH
from simulator.runtime import Panel, Phone
from simulator.state import CLOCK, MESSAGES, SETTINGS, DeviceState, ReceivedMessage, twelve_hour
from simulator.system_ui import SYSTEM_UI
from simulator.system_ui.internet_panel import InternetDialog
from simulator.view import (
    BUTTON,
    FRAME,
    IMAGE,
    LINEAR,
    SCROLL,
    SWITCH,
    TEXT,
    VIEW,
    VIEW_GROUP,
    Handler,
    Rect,
    ScrollState,
    View,
    rid,
    text_width,
)
from simulator.widgets import button, centered_text, no_effect, on_off, recycler, text

SEEK_BAR = "android.widget.SeekBar"
PAGER = "androidx.viewpager.widget.ViewPager"


@dataclass(frozen=True)
class Tile:
    """One quick-settings tile: a Switch when it toggles, a plain row when it opens a panel."""

    label: str
    secondary: str
    desc: str
    on_tap: Handler | None  # None: unavailable, not clickable
    checked: bool | None = None  # None: not a toggle
    chevron: bool = False  # opens a dialog or an app rather than toggling
    on_long_press: Handler | None = None


TILE_W, TILE_H, TILE_GAP = 487, 210, 21
TILE_COLUMNS = (42, 550)
TILES_PER_PAGE = 8
QUICK_TILES = 4  # the first tiles, shown above the notifications


def next_alarm(state: DeviceState) -> str:
    """The quick-settings Alarm tile's line: the next enabled alarm, "Wed 7:00 AM"."""
    times = sorted(alarm.time for alarm in state.alarms if alarm.enabled)
    if not times:
        return "No alarm set"
    upcoming = [t for t in times if t > state.time]
    day = dt.date.fromisoformat(state.date)
    if not upcoming:
        day += dt.timedelta(days=1)
    clock, half = twelve_hour((upcoming or times)[0])
    return f"{day:%a} {clock} {half}"


class NotificationShade(Panel):
    """System UI's shade: a first pull shows the clock, four tiles and the notifications (the
    received texts); pulling again shows all quick settings, laid out as a Pixel lays them out
    (`010_systemui_quick_settings_pixel.xml`)."""

    def __init__(self, phone: Phone) -> None:
        super().__init__(phone)
        self.expanded = False
        self.page = 0
        self.scroll = ScrollState()

    # -- what the tiles do --------------------------------------------------------------------

    def _flip(self, key: str) -> Handler:
        def flip() -> None:
            setattr(self.phone.state, key, not getattr(self.phone.state, key))
            self.phone.changes += 1

        return flip

    def _settings(self, page: str) -> Handler:
        return lambda: open_settings_page(self.phone, page)

    def _internet(self) -> None:
        self.phone.close_panel()
        self.phone.system_dialog = InternetDialog(self.phone)

    def _launch(self, package: str) -> Handler:
        return lambda: self.phone.launch(package)

    def tiles(self) -> list[Tile]:
        s = self.phone.state
        if s.wifi:
            internet, connected = "AndroidWifi", True
        elif s.airplane_mode:
            internet, connected = "Off", False
        else:
            internet, connected = "T-Mobile", True
        return [
            Tile(
                "Internet",
                internet,
                f"Internet,{internet}",
                self._internet,
                connected,
                chevron=True,
                on_long_press=self._settings("Internet"),
            ),
            Tile(
                "Bluetooth",
                on_off(s.bluetooth),
                "Bluetooth.",
                self._flip("bluetooth"),
                s.bluetooth,
                on_long_press=self._settings("Bluetooth"),
            ),
            Tile(
                "Flashlight",
                on_off(s.flashlight),
                "Flashlight",
                self._flip("flashlight"),
                s.flashlight,
            ),
            Tile(
                "Do Not Disturb",
                on_off(s.do_not_disturb),
                "Do Not Disturb.",
                self._flip("do_not_disturb"),
                s.do_not_disturb,
                on_long_press=self._settings("Sound & vibration"),
            ),
            Tile("Alarm", next_alarm(s), "", self._launch(CLOCK), chevron=True),
            Tile(
                "Airplane mode",
                on_off(s.airplane_mode),
                "Airplane mode",
                self._flip("airplane_mode"),
                s.airplane_mode,
                on_long_press=self._settings("Network & internet"),
            ),
            Tile("Device controls", "Unavailable", "Device controls", None, chevron=True),
            Tile(
                "Auto-rotate",
                on_off(s.auto_rotate),
                "Auto-rotate screen",
                self._flip("auto_rotate"),
                s.auto_rotate,
            ),
            Tile(
                "Battery Saver",
                on_off(s.battery_saver),
                "Battery Saver",
                self._flip("battery_saver"),
                s.battery_saver,
                on_long_press=self._settings("Battery Saver"),
            ),
            Tile(
                "Dark theme",
                on_off(s.dark_theme),
                "Dark theme",
                self._flip("dark_theme"),
                s.dark_theme,
                on_long_press=self._settings("Display"),
            ),
        ]

    # -- gestures -----------------------------------------------------------------------------

    def on_swipe(self, dx: int, dy: int) -> bool:
        pages = self._page_count()
        if self.expanded and abs(dx) > abs(dy):
            self.page = min(max(self.page + (1 if dx < 0 else -1), 0), pages - 1)
        elif dy > 0:
            self.expanded = True
        elif self.expanded:
            self.expanded = False
        else:
            self.close()
            return True
        self.phone.changes += 1
        return True

    def _page_count(self) -> int:
        return -(-len(self.tiles()) // TILES_PER_PAGE)

    # -- notifications ------------------------------------------------------------------------

    def notifications(self) -> list[ReceivedMessage]:
        """Received texts, newest first, unless Messages was refused notifications."""
        s = self.phone.state
        refused = MESSAGES not in s.notifications_allowed and MESSAGES not in s.permission_prompts
        if refused:
            return []
        return [
            message
            for message in reversed(s.inbox)
            if (message.sender, message.text) not in self.phone.dismissed_notifications
        ]

    def _open_notification(self, message: ReceivedMessage) -> None:
        self.phone.dismissed_notifications.add((message.sender, message.text))
        open_conversation(self.phone, message.sender)

    def _clear_all(self) -> None:
        for message in self.notifications():
            self.phone.dismissed_notifications.add((message.sender, message.text))
        self.close()

    # -- rendering ----------------------------------------------------------------------------

    def window(self) -> View:
        screen = Rect(0, 0, WIDTH, HEIGHT)
        container: list[View] = []
        if self.expanded:
            container += self._quick_settings()
        else:
            container.append(self._quick_tiles())
        stack = Rect(0, 0, WIDTH, NAV_BAR_TOP - 21)
        panel_children = [
            View(
                FRAME,
                screen,
                rid=rid(SYSTEM_UI, "qs_frame"),
                children=[
                    View(
                        FRAME,
                        screen,
                        rid=rid(SYSTEM_UI, "quick_settings_container"),
                        children=container,
                    )
                ],
            ),
        ]
        if not self.expanded:
            panel_children.append(self._notification_stack(stack))
        panel_children.append(self._header())
        return View(
            FRAME,
            screen,
            children=[
                View(
                    VIEW,
                    screen,
                    rid=rid(SYSTEM_UI, "scrim_behind"),
                    clickable=True,
                    on_tap=self.close,
                ),
                View(VIEW, screen, rid=rid(SYSTEM_UI, "scrim_notifications")),
                View(
                    FRAME,
                    screen,
                    rid=rid(SYSTEM_UI, "notification_panel"),
                    children=[
                        View(
                            VIEW_GROUP,
                            screen,
                            rid=rid(SYSTEM_UI, "notification_container_parent"),
                            children=panel_children,
                        )
                    ],
                ),
            ],
        )

    def _header(self) -> View:
        s = self.phone.state
        clock, half = twelve_hour(s.time)
        carrier = "Airplane mode" if s.airplane_mode else "T-Mobile"
        icons: list[View] = []
        if s.wifi:
            icons.append(
                View(
                    FRAME,
                    Rect(814, 254, 860, 312),
                    rid=rid(SYSTEM_UI, "wifi_combo"),
                    children=[
                        View(
                            IMAGE,
                            Rect(821, 263, 860, 302),
                            rid=rid(SYSTEM_UI, "wifi_signal"),
                            desc="Wifi signal full.",
                        )
                    ],
                )
            )
        if not s.airplane_mode:
            icons.append(
                View(
                    FRAME,
                    Rect(860, 254, 899, 312),
                    rid=rid(SYSTEM_UI, "mobile_combo"),
                    desc="Phone signal full.",
                    children=[
                        View(IMAGE, Rect(860, 263, 899, 302), rid=rid(SYSTEM_UI, "mobile_signal"))
                    ],
                )
            )
        return View(
            VIEW_GROUP,
            Rect(0, 0, WIDTH, 315),
            rid=rid(SYSTEM_UI, "split_shade_status_bar"),
            children=[
                View(
                    LINEAR,
                    Rect(42, 126, 1038, 252),
                    rid=rid(SYSTEM_UI, "carrier_group"),
                    children=[
                        View(
                            LINEAR,
                            Rect(1038 - text_width(carrier, 40) - 11, 126, 1038, 252),
                            rid=rid(SYSTEM_UI, "carrier1"),
                            clickable=True,
                            on_tap=self._settings("Internet"),
                            children=[
                                text(
                                    carrier,
                                    1038 - text_width(carrier, 40) - 11,
                                    163,
                                    40,
                                    1027,
                                    rid=rid(SYSTEM_UI, "shade_carrier_text"),
                                )
                            ],
                        )
                    ],
                ),
                View(
                    TEXT,
                    Rect(42, 27, 268, 315),
                    rid=rid(SYSTEM_UI, "clock"),
                    text=f"{clock}\u202f",
                    desc=f"{clock}\u202f{half}",
                    clickable=True,
                    on_tap=self._launch(CLOCK),
                ),
                text(day_label(s.date), 42, 252, 46, 245, rid=rid(SYSTEM_UI, "date")),
                View(
                    LINEAR,
                    Rect(245, 252, 915, 315),
                    rid=rid(SYSTEM_UI, "statusIcons"),
                    children=icons,
                ),
                View(
                    LINEAR,
                    Rect(915, 252, 1038, 315),
                    rid=rid(SYSTEM_UI, "batteryRemainingIcon"),
                    desc=f"Battery {s.battery_level} percent.",
                    children=[
                        View(IMAGE, Rect(915, 266, 935, 300)),
                        View(
                            TEXT,
                            Rect(935, 252, 1038, 315),
                            rid=rid(SYSTEM_UI, "battery_percentage_view"),
                            text=f"{s.battery_level}%",
                        ),
                    ],
                ),
            ],
        )

    def _tile(self, tile: Tile, box: Rect) -> View:
        x1, y1 = box.x1, box.y1
        labels = View(
            LINEAR,
            Rect(x1 + 121, y1 + 54, box.x2 - 58, y1 + 156),
            children=[
                View(
                    TEXT,
                    Rect(x1 + 121, y1 + 54, box.x2 - 58, y1 + 105),
                    rid=rid(SYSTEM_UI, "tile_label"),
                    text=tile.label,
                ),
                View(
                    TEXT,
                    Rect(x1 + 121, y1 + 105, box.x2 - 58, y1 + 156),
                    rid=rid(SYSTEM_UI, "app_label"),
                    text=tile.secondary,
                ),
            ],
        )
        children = [
            View(
                VIEW_GROUP,
                Rect(x1 + 42, y1 + 78, x1 + 95, y1 + 131),
                children=[
                    View(
                        IMAGE, Rect(x1 + 42, y1 + 78, x1 + 95, y1 + 131), rid=rid(SYSTEM_UI, "icon")
                    )
                ],
            ),
            labels,
        ]
        if tile.chevron:
            children.append(
                View(
                    FRAME,
                    Rect(x1 + 402, y1 + 78, x1 + 455, y1 + 131),
                    children=[
                        View(
                            IMAGE,
                            Rect(x1 + 402, y1 + 78, x1 + 455, y1 + 131),
                            rid=rid(SYSTEM_UI, "chevron"),
                        )
                    ],
                )
            )
        return View(
            SWITCH if tile.checked is not None else LINEAR,
            box,
            text=f"{tile.label}, {tile.secondary}",
            desc=tile.desc or f"{tile.label}, {tile.secondary}",
            checkable=tile.checked is not None,
            checked=bool(tile.checked),
            clickable=tile.on_tap is not None,
            focusable=True,
            long_clickable=tile.on_long_press is not None,
            on_tap=tile.on_tap,
            on_long_press=tile.on_long_press,
            children=children,
        )

    def _tile_grid(self, tiles: list[Tile], top: int) -> list[View]:
        views = []
        for position, tile in enumerate(tiles):
            row, column = divmod(position, 2)
            x1 = TILE_COLUMNS[column]
            y1 = top + row * (TILE_H + TILE_GAP)
            views.append(self._tile(tile, Rect(x1, y1, x1 + TILE_W, y1 + TILE_H)))
        return views

    def _quick_tiles(self) -> View:
        tiles = self.tiles()[:QUICK_TILES]
        box = Rect(42, 357, 1038, 357 + 2 * TILE_H + TILE_GAP)
        return View(
            LINEAR,
            box,
            rid=rid(SYSTEM_UI, "quick_qs_panel"),
            children=self._tile_grid(tiles, box.y1),
        )

    def _quick_settings(self) -> list[View]:
        tiles = self.tiles()
        pages = self._page_count()
        self.page = min(self.page, pages - 1)
        shown = tiles[self.page * TILES_PER_PAGE : (self.page + 1) * TILES_PER_PAGE]
        pager = Rect(42, 525, 1038, 1428)
        slider = Rect(42, 357, 1038, 483)
        footer = Rect(47, 1428, 1033, 1554)
        panel = View(
            LINEAR,
            Rect(42, 126, 1038, 1733),
            rid=rid(SYSTEM_UI, "quick_settings_panel"),
            children=[
                View(
                    FRAME,
                    slider,
                    rid=rid(SYSTEM_UI, "brightness_slider"),
                    desc="Display brightness",
                    children=[
                        View(
                            SEEK_BAR,
                            slider,
                            rid=rid(SYSTEM_UI, "slider"),
                            text="Display brightness",
                            focusable=True,
                        )
                    ],
                ),
                View(
                    PAGER,
                    pager,
                    rid=rid(SYSTEM_UI, "qs_pager"),
                    scrollable=True,
                    focusable=True,
                    children=[
                        View(
                            VIEW_GROUP,
                            pager,
                            rid=rid(SYSTEM_UI, "tile_page"),
                            children=self._tile_grid(shown, pager.y1),
                        )
                    ],
                ),
                View(
                    FRAME,
                    footer,
                    rid=rid(SYSTEM_UI, "qs_footer"),
                    children=[
                        View(
                            LINEAR,
                            footer,
                            children=[
                                View(
                                    VIEW_GROUP,
                                    Rect(506, 1480, 573, 1501),
                                    rid=rid(SYSTEM_UI, "footer_page_indicator"),
                                    desc=f"Page {self.page + 1} of {pages}",
                                ),
                                View(
                                    FRAME,
                                    Rect(573, 1428, 1033, 1554),
                                    children=[
                                        View(
                                            IMAGE,
                                            Rect(907, 1428, 1033, 1554),
                                            rid=rid(SYSTEM_UI, "edit"),
                                            desc="Edit order of settings.",
                                            clickable=True,
                                            focusable=True,
                                            on_tap=no_effect,
                                        )
                                    ],
                                ),
                            ],
                        )
                    ],
                ),
            ],
        )

        def action(name: str, desc: str, x: int, on_tap: Handler) -> View:
            return View(
                FRAME,
                Rect(x, 2200, x + 126, 2326),
                rid=rid(SYSTEM_UI, name),
                clickable=True,
                focusable=True,
                on_tap=on_tap,
                children=[
                    View(
                        IMAGE,
                        Rect(x + 36, 2236, x + 89, 2289),
                        rid=rid(SYSTEM_UI, "icon"),
                        desc=desc,
                    )
                ],
            )

        return [
            View(
                SCROLL,
                Rect(42, 0, 1038, 1733),
                rid=rid(SYSTEM_UI, "expanded_qs_scroll_view"),
                children=[panel],
            ),
            View(FRAME, Rect(42, 0, 1038, 526), rid=rid(SYSTEM_UI, "header")),
            View(
                LINEAR,
                Rect(0, 2179, WIDTH, NAV_BAR_TOP),
                rid=rid(SYSTEM_UI, "qs_footer_actions"),
                children=[
                    action("multi_user_switch", "Signed in as Owner", 671, no_effect),
                    action(
                        "settings_button_container", "Open settings.", 797, self._launch(SETTINGS)
                    ),
                    action("pm_lite", "Power menu", 923, no_effect),
                ],
            ),
        ]

    def _notification(self, message: ReceivedMessage) -> Callable[[Rect], View]:
        def build(box: Rect) -> View:
            card = Rect(33, box.y1, 1047, box.y2 - 18)
            column = Rect(176, card.y1 + 55, 893, card.y2 - 55)
            title_right = min(176 + text_width(message.sender, 44), 700)
            return View(
                FRAME,
                card,
                clickable=True,
                focusable=True,
                long_clickable=True,
                on_tap=lambda: self._open_notification(message),
                children=[
                    View(
                        FRAME,
                        card,
                        rid=rid(SYSTEM_UI, "expanded"),
                        children=[
                            View(
                                FRAME,
                                card,
                                rid="android:id/status_bar_latest_event_content",
                                children=[
                                    View(
                                        FRAME,
                                        card.with_x(33, 176),
                                        rid="android:id/alternate_expand_target",
                                        clickable=True,
                                        on_tap=no_effect,
                                    ),
                                    View(
                                        IMAGE,
                                        Rect(77, column.y1 + 26, 143, column.y1 + 92),
                                        rid="android:id/icon",
                                    ),
                                    View(
                                        LINEAR,
                                        card.with_x(176, 1047),
                                        rid="android:id/notification_headerless_view_row",
                                        children=[
                                            View(
                                                LINEAR,
                                                column,
                                                rid="android:id/notification_headerless_view_column",
                                                children=[
                                                    View(
                                                        VIEW_GROUP,
                                                        Rect(176, column.y1, 893, column.y1 + 52),
                                                        rid="android:id/notification_top_line",
                                                        children=[
                                                            View(
                                                                TEXT,
                                                                Rect(
                                                                    176,
                                                                    column.y1,
                                                                    title_right,
                                                                    column.y1 + 52,
                                                                ),
                                                                rid="android:id/title",
                                                                text=message.sender,
                                                            ),
                                                            View(
                                                                TEXT,
                                                                Rect(
                                                                    title_right + 12,
                                                                    column.y1 + 13,
                                                                    title_right + 21,
                                                                    column.y1 + 49,
                                                                ),
                                                                rid="android:id/time_divider",
                                                                text="•",
                                                            ),
                                                            View(
                                                                TEXT,
                                                                Rect(
                                                                    title_right + 33,
                                                                    column.y1 + 13,
                                                                    title_right + 97,
                                                                    column.y1 + 49,
                                                                ),
                                                                rid="android:id/time",
                                                                text="now",
                                                            ),
                                                        ],
                                                    ),
                                                    View(
                                                        TEXT,
                                                        Rect(
                                                            176,
                                                            column.y1 + 61,
                                                            893,
                                                            column.y1 + 108,
                                                        ),
                                                        rid="android:id/text",
                                                        text=message.text,
                                                    ),
                                                ],
                                            ),
                                            View(
                                                FRAME,
                                                card.with_x(893, 1047),
                                                rid="android:id/expand_button_touch_container",
                                                children=[
                                                    View(
                                                        BUTTON,
                                                        card.with_x(893, 1047),
                                                        rid="android:id/expand_button",
                                                        desc="Expand",
                                                        clickable=True,
                                                        on_tap=no_effect,
                                                    )
                                                ],
                                            ),
                                        ],
                                    ),
                                ],
                            )
                        ],
                    )
                ],
            )

        return build

    def _notification_stack(self, box: Rect) -> View:
        top = 357 + 2 * TILE_H + TILE_GAP + 42
        body = Rect(0, top, WIDTH, box.y2)
        notifications = self.notifications()
        rows: list[tuple[int, Callable[[Rect], View]]] = [
            (246, self._notification(message)) for message in notifications
        ]
        if notifications:
            rows.append((168, self._footer))
        else:
            rows.append((168, self._no_notifications))
        return recycler(
            body, rows, self.scroll, rid(SYSTEM_UI, "notification_stack_scroller"), SCROLL
        )

    def _footer(self, box: Rect) -> View:
        return View(
            FRAME,
            box,
            rid=rid(SYSTEM_UI, "notification_footer"),
            children=[
                button(
                    "Manage",
                    Rect(42, box.y1 + 21, 342, box.y2 - 21),
                    self._settings("Notifications"),
                    rid(SYSTEM_UI, "manage_text"),
                ),
                button(
                    "Clear all",
                    Rect(738, box.y1 + 21, 1038, box.y2 - 21),
                    self._clear_all,
                    rid(SYSTEM_UI, "dismiss_text"),
                ),
            ],
        )

    def _no_notifications(self, box: Rect) -> View:
        return View(
            FRAME,
            box,
            rid=rid(SYSTEM_UI, "no_notifications"),
            children=[
                centered_text(
                    "No notifications", box, 44, rid=rid(SYSTEM_UI, "no_notifications_text")
                )
            ],
        )
