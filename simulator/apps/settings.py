"""Settings: preference screens built from tables of rows, wired to the device state."""

from __future__ import annotations

from collections.abc import Callable

from simulator.runtime import Dialog, Page, Phone
from simulator.state import SETTINGS
from simulator.view import (
    CARD,
    FRAME,
    IMAGE,
    IMAGE_BUTTON,
    LINEAR,
    RECYCLER,
    SCROLL,
    VIEW_GROUP,
    Rect,
    ScrollState,
    View,
)
from simulator.widgets import (
    WIDTH,
    Pref,
    alert_dialog,
    main_switch_bar,
    pref_height,
    pref_row,
    rid,
    settings_page,
    text,
)

BUILD_TAPS_TO_UNLOCK = 7
PrefBuilder = Callable[["PrefsPage"], list[Pref]]


def _on_off(value: bool) -> str:
    return "On" if value else "Off"


class PrefsPage(Page):
    """A preference screen: title, optional main switch, rows computed from state each frame."""

    def __init__(
        self,
        phone: Phone,
        title: str,
        rows: PrefBuilder,
        icons: bool = False,
        main_switch: tuple[str, str] | None = None,
    ) -> None:
        super().__init__(phone, SETTINGS)
        self.title = title
        self.rows = rows
        self.icons = icons
        self.main_switch = main_switch  # (label, state key)
        self.scroll = ScrollState()
        self.build_taps = 0  # About phone: taps on Build number towards developer options

    def open(
        self,
        title: str,
        rows: PrefBuilder,
        icons: bool = False,
        main_switch: tuple[str, str] | None = None,
    ) -> Callable[[], None]:
        return lambda: self.phone.push(PrefsPage(self.phone, title, rows, icons, main_switch))

    def toggle(self, key: str) -> Callable[[], None]:
        def flip() -> None:
            setattr(self.state, key, not getattr(self.state, key))
            self.phone.changes += 1

        return flip

    def content(self, frame: Rect) -> View:
        top: View | None = None
        top_height = 0
        if self.main_switch is not None:
            label, key = self.main_switch
            top_height = 210
            box = Rect(0, frame.y1 + 470, WIDTH, frame.y1 + 470 + top_height)
            top = main_switch_bar(
                SETTINGS, label, bool(getattr(self.state, key)), self.toggle(key), box
            )
        return settings_page(
            SETTINGS,
            self.title,
            self.rows(self),
            frame,
            self.scroll,
            lambda: self.phone.pop(self),
            self.icons,
            top,
            top_height,
        )


class SettingsHome(PrefsPage):
    """The Settings homepage: a big title and search bar that scroll away with the list."""

    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, "Settings", home_rows, icons=True)

    def content(self, frame: Rect) -> View:
        def app_bar(box: Rect) -> View:
            search = Rect(44, box.y1 + 420, 1036, box.y1 + 563)
            return View(
                LINEAR,
                box,
                rid=rid(SETTINGS, "app_bar"),
                children=[
                    View(
                        LINEAR,
                        box,
                        rid=rid(SETTINGS, "homepage_app_bar_regular_phone_view"),
                        children=[
                            View(
                                IMAGE,
                                Rect(882, box.y1 + 90, 1014, box.y1 + 222),
                                rid=rid(SETTINGS, "account_avatar"),
                                desc="Profile picture, double tap to open Google Account",
                                clickable=True,
                                focusable=True,
                                on_tap=lambda: None,
                            ),
                            text(
                                "Settings",
                                66,
                                box.y1 + 222,
                                100,
                                600,
                                rid=rid(SETTINGS, "homepage_title"),
                            ),
                            View(
                                CARD,
                                search,
                                rid=rid(SETTINGS, "search_bar"),
                                children=[
                                    View(
                                        VIEW_GROUP,
                                        search,
                                        rid=rid(SETTINGS, "search_action_bar"),
                                        clickable=True,
                                        focusable=True,
                                        on_tap=lambda: None,
                                        children=[
                                            View(
                                                IMAGE_BUTTON, search.with_x(55, 209), focusable=True
                                            ),
                                            text(
                                                "Search settings",
                                                209,
                                                search.y1 + 34,
                                                44,
                                                900,
                                                rid=rid(SETTINGS, "search_action_bar_title"),
                                            ),
                                        ],
                                    ),
                                ],
                            ),
                        ],
                    ),
                ],
            )

        prefs = self.rows(self)
        bar_height = 607
        total = bar_height + sum(pref_height(p) for p in prefs)
        self.scroll.max_offset = max(0, total - frame.height)
        self.scroll.offset = min(self.scroll.offset, self.scroll.max_offset)
        top = frame.y1 - self.scroll.offset
        list_box = Rect(0, top + bar_height, WIDTH, top + total)
        rows: list[View] = []
        y = list_box.y1
        for pref in prefs:
            rows.append(pref_row(SETTINGS, pref, Rect(0, y, WIDTH, y + pref_height(pref)), True))
            y += pref_height(pref)
        return View(
            SCROLL,
            frame,
            rid=rid(SETTINGS, "settings_homepage_container"),
            scrollable=True,
            focusable=True,
            scroll=self.scroll,
            children=[
                View(
                    LINEAR,
                    Rect(0, top, WIDTH, top + total),
                    rid=rid(SETTINGS, "homepage_container"),
                    children=[
                        app_bar(Rect(0, top, WIDTH, top + bar_height)),
                        View(
                            FRAME,
                            list_box,
                            rid=rid(SETTINGS, "main_content"),
                            children=[
                                View(
                                    RECYCLER,
                                    list_box,
                                    rid=rid(SETTINGS, "recycler_view"),
                                    focusable=True,
                                    recycler=True,
                                    children=rows,
                                ),
                            ],
                        ),
                    ],
                ),
            ],
        )


# ---------------------------------------------------------------------------------------------
# Screens as tables. Static rows carry a summary and no action.


def _static(rows: list[tuple[str, str]]) -> PrefBuilder:
    return lambda page: [Pref(title, summary) for title, summary in rows]


STATIC_PAGES: dict[str, list[tuple[str, str]]] = {
    "Apps": [
        ("Recently opened apps", ""),
        ("Default apps", "Chrome, Phone, and Messages"),
        ("Screen time", "Today: 1 hr 12 min"),
        ("Special app access", "2 apps can use unrestricted data"),
    ],
    "Notifications": [
        ("App notifications", "All apps can send notifications"),
        ("Notification history", ""),
        ("Conversations", "No priority conversations"),
    ],
    "Storage": [
        ("System", "12 GB"),
        ("Apps", "4.1 GB"),
        ("Images", "1.2 GB"),
        ("Free up space", ""),
    ],
    "Wallpaper & style": [("Wallpaper", ""), ("Color palette", "Wallpaper colors")],
    "Accessibility": [
        ("Display size and text", ""),
        ("Color and motion", ""),
        ("TalkBack", "Off"),
        ("Select to Speak", "Off"),
    ],
    "Security & privacy": [
        ("App security", "Play Protect scanning is on"),
        ("Device unlock", "Add PIN, pattern, or password"),
    ],
    "Location": [
        ("Recent access", "No apps accessed location recently"),
        ("App location permissions", "2 of 9 apps have access to location"),
    ],
    "Safety & emergency": [("Emergency SOS", "Off"), ("Medical information", "")],
    "Passwords & accounts": [
        ("Passwords", "Google Password Manager"),
        ("Accounts", "No accounts added"),
    ],
    "Digital Wellbeing & parental controls": [
        ("Dashboard", "1 hr 12 min today"),
        ("Bedtime mode", "Off"),
    ],
    "Google": [("All services", ""), ("Autofill", "Autofill with Google")],
    "Tips & support": [("Help articles", ""), ("Contact support", "")],
}


def home_rows(page: PrefsPage) -> list[Pref]:
    s = page.state

    def static(title: str) -> Callable[[], None]:
        return page.open(title, _static(STATIC_PAGES[title]))

    return [
        Pref(
            "Network & internet",
            "Mobile, Wi‑Fi, hotspot",
            page.open("Network & internet", network_rows, icons=True),
        ),
        Pref(
            "Connected devices",
            "Bluetooth, pairing",
            page.open("Connected devices", connected_rows, icons=True),
        ),
        Pref("Apps", "Assistant, recent apps, default apps", static("Apps")),
        Pref("Notifications", "Notification history, conversations", static("Notifications")),
        Pref("Battery", f"{s.battery_level}%", page.open("Battery", battery_rows)),
        Pref("Storage", "41% used - 75.2 GB free", static("Storage")),
        Pref(
            "Sound & vibration",
            "Volume, haptics, Do Not Disturb",
            page.open("Sound & vibration", sound_rows),
        ),
        Pref("Display", "Dark theme, font size, brightness", page.open("Display", display_rows)),
        Pref("Wallpaper & style", "Colors, themed icons, app grid", static("Wallpaper & style")),
        Pref("Accessibility", "Display, interaction, audio", static("Accessibility")),
        Pref(
            "Security & privacy",
            "App security, device lock, permissions",
            static("Security & privacy"),
        ),
        Pref("Location", "On - 2 apps have access to location", static("Location")),
        Pref(
            "Safety & emergency",
            "Emergency SOS, medical info, alerts",
            static("Safety & emergency"),
        ),
        Pref(
            "Passwords & accounts",
            "Saved passwords, autofill, synced accounts",
            static("Passwords & accounts"),
        ),
        Pref(
            "Digital Wellbeing & parental controls",
            "Screen time, app timers, bedtime",
            static("Digital Wellbeing & parental controls"),
        ),
        Pref("Google", "Services & preferences", static("Google")),
        Pref(
            "System",
            "Languages, gestures, time, backup",
            page.open("System", system_rows, icons=True),
        ),
        Pref("About phone", s.device_model, page.open("About phone", about_rows)),
        Pref("Tips & support", "Help articles, phone & chat", static("Tips & support")),
    ]


def network_rows(page: PrefsPage) -> list[Pref]:
    s = page.state
    if s.wifi:
        internet = "AndroidWifi"
    elif s.airplane_mode:
        internet = "Airplane mode"
    else:
        internet = "Networks available" if not s.airplane_mode else "Off"
    return [
        Pref("Internet", internet, page.open("Internet", internet_rows)),
        Pref("Calls & SMS", "T-Mobile"),
        Pref("SIMs", "T-Mobile"),
        Pref("Airplane mode", switch=s.airplane_mode, on_tap=page.toggle("airplane_mode")),
        Pref("Hotspot & tethering", "Off"),
        Pref("Data Saver", "Off"),
        Pref("VPN", "None"),
        Pref("Private DNS", "Automatic"),
        Pref("Adaptive connectivity"),
    ]


def internet_rows(page: PrefsPage) -> list[Pref]:
    s = page.state
    rows = [
        Pref(
            "T-Mobile",
            "Airplane mode" if s.airplane_mode else "Connected / 5G",
            enabled=not s.airplane_mode,
        ),
        Pref("Wi-Fi", switch=s.wifi, on_tap=page.toggle("wifi")),
    ]
    if s.wifi:
        rows += [
            Pref("AndroidWifi", "Connected"),
            Pref("Pixel Guest", "Saved"),
            Pref("Add network"),
            Pref("Network preferences", "Wi‑Fi turns back on automatically"),
            Pref("Saved networks", "2 networks"),
        ]
    else:
        rows += [
            Pref("To see available networks, turn Wi‑Fi on", header=True),
            Pref("Network preferences", "Wi‑Fi turns back on automatically"),
        ]
    return rows


def connected_rows(page: PrefsPage) -> list[Pref]:
    return [
        Pref("Pair new device"),
        Pref("Saved devices", "See all"),
        Pref(
            "Connection preferences",
            "Bluetooth, NFC",
            page.open("Connection preferences", connection_rows, icons=True),
        ),
    ]


def connection_rows(page: PrefsPage) -> list[Pref]:
    return [
        Pref(
            "Bluetooth",
            _on_off(page.state.bluetooth),
            page.open("Bluetooth", bluetooth_rows, main_switch=("Use Bluetooth", "bluetooth")),
        ),
        Pref("NFC", "On"),
        Pref("Cast", "Not connected"),
        Pref("Printing", "1 print service on"),
        Pref("Android Auto", "Use apps on your car screen"),
    ]


def bluetooth_rows(page: PrefsPage) -> list[Pref]:
    if not page.state.bluetooth:
        return [
            Pref(
                "When Bluetooth is turned on, your device can communicate with other "
                "nearby Bluetooth devices.",
                header=True,
            )
        ]
    return [Pref("Pair new device"), Pref("Device name", page.state.device_model)]


def battery_rows(page: PrefsPage) -> list[Pref]:
    s = page.state
    return [
        Pref(f"{s.battery_level}%", "About 1 day left"),
        Pref("Battery usage", "View usage for past 24 hours"),
        Pref(
            "Battery Saver",
            _on_off(s.battery_saver),
            page.open(
                "Battery Saver", saver_rows, main_switch=("Use Battery Saver", "battery_saver")
            ),
        ),
        Pref("Adaptive Battery", "On"),
        Pref(
            "Battery percentage",
            "Show battery percentage in status bar",
            switch=s.battery_percentage,
            on_tap=page.toggle("battery_percentage"),
        ),
    ]


def saver_rows(page: PrefsPage) -> list[Pref]:
    return [
        Pref("Set a schedule", "No schedule"),
        Pref("Turn off when charged", switch=True),
    ]


def sound_rows(page: PrefsPage) -> list[Pref]:
    s = page.state
    return [
        Pref("Media volume", "60%"),
        Pref("Call volume", "80%"),
        Pref("Ring & notification volume", "80%"),
        Pref(
            "Do Not Disturb",
            _on_off(s.do_not_disturb),
            switch=s.do_not_disturb,
            on_tap=page.toggle("do_not_disturb"),
        ),
        Pref("Vibration & haptics", "On"),
        Pref("Phone ringtone", "Your New Adventure"),
    ]


def display_rows(page: PrefsPage) -> list[Pref]:
    s = page.state
    return [
        Pref("Brightness", header=True),
        Pref("Brightness level", "64%"),
        Pref("Adaptive brightness", "Optimize brightness for available light", switch=True),
        Pref("Lock display", header=True),
        Pref("Screen timeout", "After 30 seconds of inactivity"),
        Pref("Appearance", header=True),
        Pref(
            "Dark theme",
            "Will never turn on automatically"
            if not s.dark_theme
            else "Will never turn off automatically",
            switch=s.dark_theme,
            on_tap=page.toggle("dark_theme"),
        ),
        Pref("Font size and text", "Default"),
        Pref("Auto-rotate screen", switch=s.auto_rotate, on_tap=page.toggle("auto_rotate")),
    ]


def system_rows(page: PrefsPage) -> list[Pref]:
    s = page.state
    rows = [
        Pref("Languages", "English (United States)"),
        Pref("Keyboard", "Gboard"),
        Pref("Gestures"),
        Pref("Navigation mode", "Gesture navigation"),
        Pref("Date & time", "GMT-07:00 Pacific Daylight Time"),
        Pref("Backup", "Off"),
        Pref("Reset options"),
        Pref("Multiple users", "Signed in as Owner"),
        Pref("Regulatory labels"),
        Pref("System update", f"Updated to Android {s.android_version}"),
    ]
    if s.developer_options:
        rows.append(
            Pref(
                "Developer options",
                "",
                page.open(
                    "Developer options",
                    developer_rows,
                    main_switch=("Use developer options", "developer_options"),
                ),
            )
        )
    return rows


class UsbDebuggingDialog(Dialog):
    def __init__(self, page: PrefsPage) -> None:
        super().__init__(page.phone, SETTINGS)

    def _allow(self) -> None:
        self.phone.state.usb_debugging = True
        self.cancel()

    def window(self) -> View:
        return alert_dialog(
            "Allow USB debugging?",
            "USB debugging is intended for development purposes only. Use it to copy data "
            "between your computer and your device.",
            [("Cancel", self.cancel), ("OK", self._allow)],
            on_cancel=self.cancel,
        )


def developer_rows(page: PrefsPage) -> list[Pref]:
    s = page.state
    if not s.developer_options:
        return []

    def usb() -> None:
        if s.usb_debugging:
            s.usb_debugging = False
        else:
            page.phone.open_dialog(UsbDebuggingDialog(page))

    return [
        Pref("Memory", "Avg 2.1 GB of 7.6 GB memory used"),
        Pref("Bug report"),
        Pref(
            "Stay awake",
            "Screen will never sleep while charging",
            switch=s.stay_awake,
            on_tap=page.toggle("stay_awake"),
        ),
        Pref("Debugging", header=True),
        Pref(
            "USB debugging", "Debug mode when USB is connected", switch=s.usb_debugging, on_tap=usb
        ),
        Pref("Wireless debugging", "Debug mode when Wi‑Fi is connected", switch=False),
    ]


def about_rows(page: PrefsPage) -> list[Pref]:
    s = page.state

    def build_tap() -> None:
        if not s.developer_options:
            page.build_taps += 1
            if page.build_taps >= BUILD_TAPS_TO_UNLOCK:
                s.developer_options = True
        page.phone.changes += 1

    return [
        Pref("Device name", s.device_model),
        Pref("Phone number", s.phone_number),
        Pref("Emergency information", "Medical info, contacts"),
        Pref("Legal information"),
        Pref("SIM status", "T-Mobile"),
        Pref("Model", s.device_model),
        Pref("IMEI", "356938035643809"),
        Pref("Android version", s.android_version),
        Pref("IP address", "10.0.2.16" if s.wifi else "Unavailable"),
        Pref("Wi‑Fi MAC address", "Use randomized MAC"),
        Pref("Device Wi‑Fi MAC address", "02:00:00:44:55:66"),
        Pref("Build number", s.build_number, build_tap),
    ]


def settings_root(phone: Phone) -> Page:
    return SettingsHome(phone)
