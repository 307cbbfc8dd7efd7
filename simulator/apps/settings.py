"""Settings: preference screens built from tables of rows, wired to the device state.

Pages are registered by title in `PAGES`; a row that opens a page names it, which is also how
search finds every row the phone can reach. Rows and their summaries follow Android 14 on a
Pixel (`../shared/corpus/uiautomator/00[1-4]_*.xml`). Switches without a state key (NFC, Data
Saver, most developer options) keep their position for as long as the Settings task lives.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

from simulator.apps.dialogs import ConfirmDialog
from simulator.display import WIDTH
from simulator.runtime import Page, Phone
from simulator.state import SETTINGS
from simulator.view import (
    CARD,
    FRAME,
    IMAGE,
    IMAGE_BUTTON,
    LINEAR,
    RECYCLER,
    RELATIVE,
    SCROLL,
    VIEW_GROUP,
    Rect,
    ScrollState,
    View,
    rid,
)
from simulator.widgets import (
    SMALL_SIZE,
    TITLE_SIZE,
    Field,
    Pref,
    edit_text,
    icon_button,
    main_switch_bar,
    no_effect,
    on_off,
    pref_height,
    pref_row,
    recycler,
    settings_page,
    text,
)

BUILD_TAPS_TO_UNLOCK = 7
HOME = "Settings"
PrefBuilder = Callable[["PrefsPage"], list[Pref]]


@dataclass(frozen=True)
class PageSpec:
    """How a page is built: its rows, whether rows carry icons, an optional main switch bar
    (label, then a state key or a local switch name), and toolbar actions by description."""

    rows: PrefBuilder
    icons: bool = False
    main_switch: tuple[str, str] | None = None
    actions: tuple[str, ...] = ()


@dataclass
class SettingsMemory:
    """What one Settings task remembers beyond the device state: local switches."""

    switches: dict[str, bool] = field(default_factory=dict)


class PrefsPage(Page):
    """A preference screen: title, optional main switch, rows computed from state each frame."""

    def __init__(self, phone: Phone, title: str, memory: SettingsMemory) -> None:
        super().__init__(phone, SETTINGS)
        self.title = title
        self.memory = memory
        self.scroll = ScrollState()
        self.build_taps = 0  # About phone: taps on Build number towards developer options
        self.links: dict[str, str] = {}  # row title -> the page it opens (filled as rows build)

    @property
    def spec(self) -> PageSpec:
        return PAGES[self.title]

    def rows(self) -> list[Pref]:
        self.links = {}
        return self.spec.rows(self)

    # -- row helpers used by the page tables --------------------------------------------------

    def open(self, title: str) -> Callable[[], None]:
        return lambda: self.phone.push(PrefsPage(self.phone, title, self.memory))

    def link(self, title: str, summary: str = "", icon: bool | None = None, desc: str = "") -> Pref:
        """A row that opens the page of the same title."""
        self.links[title] = title
        return Pref(title, summary, self.open(title), icon=icon, desc=desc)

    def toggle(self, key: str) -> Callable[[], None]:
        def flip() -> None:
            setattr(self.state, key, not getattr(self.state, key))
            self.phone.changes += 1

        return flip

    def is_on(self, key: str, default: bool = False) -> bool:
        """A state key, or a local switch of this Settings task."""
        if key in type(self.state).model_fields:
            return bool(getattr(self.state, key))
        return self.memory.switches.get(key, default)

    def flip(self, key: str, default: bool = False) -> Callable[[], None]:
        if key in type(self.state).model_fields:
            return self.toggle(key)

        def flip_local() -> None:
            self.memory.switches[key] = not self.memory.switches.get(key, default)
            self.phone.changes += 1

        return flip_local

    def switch(self, title: str, summary: str = "", default: bool = False) -> Pref:
        """A switch row with no state key behind it: it remembers its position locally."""
        key = f"{self.title}/{title}"
        return Pref(title, summary, self.flip(key, default), switch=self.is_on(key, default))

    # -- rendering ----------------------------------------------------------------------------

    def _main_switch(self, box: Rect) -> View:
        assert self.spec.main_switch is not None
        label, key = self.spec.main_switch
        return main_switch_bar(SETTINGS, label, self.is_on(key), self.flip(key), box)

    def content(self, frame: Rect) -> View:
        spec = self.spec
        has_switch = spec.main_switch is not None
        return settings_page(
            SETTINGS,
            self.title,
            self.rows(),
            frame,
            self.scroll,
            lambda: self.phone.pop(self),
            spec.icons,
            self._main_switch if has_switch else None,
            210 if has_switch else 0,
            [(desc, no_effect) for desc in spec.actions],
        )


class SettingsHome(PrefsPage):
    """The Settings homepage: a big title and search bar that scroll away with the list."""

    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, HOME, SettingsMemory())

    def _app_bar(self, box: Rect) -> View:
        search = Rect(44, box.y1 + 484, 1036, box.y1 + 627)
        return View(
            LINEAR,
            box,
            rid=rid(SETTINGS, "app_bar"),
            children=[
                View(
                    LINEAR,
                    box,
                    rid=rid(SETTINGS, "app_bar_container"),
                    children=[
                        View(
                            LINEAR,
                            box,
                            rid=rid(SETTINGS, "homepage_app_bar_regular_phone_view"),
                            children=[
                                View(
                                    IMAGE,
                                    Rect(882, box.y1 + 154, 1014, box.y1 + 286),
                                    rid=rid(SETTINGS, "account_avatar"),
                                    desc="Profile picture, double tap to open Google Account",
                                    clickable=True,
                                    focusable=True,
                                    on_tap=no_effect,
                                ),
                                text(
                                    "Settings",
                                    66,
                                    box.y1 + 286,
                                    97,
                                    600,
                                    rid=rid(SETTINGS, "homepage_title"),
                                ),
                                View(LINEAR, search, children=[self._search_bar(search)]),
                            ],
                        ),
                    ],
                ),
            ],
        )

    def _search_bar(self, search: Rect) -> View:
        return View(
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
                    on_tap=lambda: self.phone.push(SearchPage(self.phone, self.memory)),
                    children=[
                        View(IMAGE_BUTTON, search.with_x(55, 209), focusable=True),
                        text(
                            "Search settings",
                            209,
                            search.y1 + 34,
                            54,
                            900,
                            rid=rid(SETTINGS, "search_action_bar_title"),
                        ),
                    ],
                ),
            ],
        )

    def content(self, frame: Rect) -> View:
        prefs = self.rows()
        bar_height = 671
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
        shown_list = Rect(0, max(list_box.y1, frame.y1), WIDTH, frame.y2)

        body = View(
            RECYCLER,
            list_box,
            rid=rid(SETTINGS, "recycler_view"),
            focusable=True,
            recycler=True,
            children=rows,
        )
        for wrapper, cls in (
            ("list_container", FRAME),
            ("container_material", LINEAR),
            ("main_content", FRAME),
            ("homepage_container", LINEAR),
        ):
            body = View(cls, list_box, rid=rid(SETTINGS, wrapper), children=[body])
        return View(
            SCROLL,
            frame,
            rid=rid(SETTINGS, "settings_homepage_container"),
            scrollable=True,
            focusable=True,
            scroll=self.scroll,
            children=[
                self._app_bar(Rect(0, top, WIDTH, top + bar_height)),
                View(
                    SCROLL,
                    shown_list,
                    rid=rid(SETTINGS, "main_content_scrollable_container"),
                    scrollable=True,
                    focusable=True,
                    scroll=self.scroll,
                    children=[body],
                ),
            ],
        )


# ---------------------------------------------------------------------------------------------
# Search


@dataclass(frozen=True)
class SearchHit:
    title: str
    summary: str
    breadcrumb: str  # "Network & internet > Internet": where the row lives
    opens: str  # the page a tap opens: the row's own page, or the page holding the row


def search_index(phone: Phone, memory: SettingsMemory) -> list[SearchHit]:
    """Every row reachable from the homepage, with the path to it, in page order."""
    hits: list[SearchHit] = []
    seen: set[str] = set()

    def walk(title: str, trail: tuple[str, ...]) -> None:
        seen.add(title)
        page = PrefsPage(phone, title, memory)
        for pref in page.rows():
            if pref.header or not pref.title or not pref.selectable:
                continue
            target = page.links.get(pref.title, title)
            crumb = " > ".join(trail) if trail else "Settings"
            hits.append(SearchHit(pref.title, pref.summary, crumb, target))
            if target != title and target not in seen:
                walk(target, (*trail, target))

    walk(HOME, ())
    return hits


class SearchPage(Page):
    """Search settings: a focused query field; each hit opens the page that holds it."""

    def __init__(self, phone: Phone, memory: SettingsMemory) -> None:
        super().__init__(phone, SETTINGS)
        self.memory = memory
        self.query = Field(hint="Search settings", on_change=self._rescroll)
        self.scroll = ScrollState()
        phone.focus_field(self.query, self)

    def _rescroll(self) -> None:
        self.scroll.offset = 0

    def on_resume(self) -> None:
        self.phone.focus_field(self.query, self, keyboard=False)

    def hits(self) -> list[SearchHit]:
        query = " ".join(self.query.text.split()).casefold()
        if not query:
            return []
        found = [
            hit
            for hit in search_index(self.phone, self.memory)
            if query in hit.title.casefold() or query in hit.summary.casefold()
        ]
        # titles that start with the query first, as Settings ranks them
        return sorted(found, key=lambda hit: not hit.title.casefold().startswith(query))

    def _result(self, hit: SearchHit) -> Callable[[Rect], View]:
        def build(box: Rect) -> View:
            return View(
                LINEAR,
                box,
                clickable=True,
                focusable=True,
                on_tap=lambda: self.phone.push(PrefsPage(self.phone, hit.opens, self.memory)),
                children=[
                    View(
                        RELATIVE,
                        box.with_x(189, 1038),
                        children=[
                            text(
                                hit.title,
                                189,
                                box.y1 + 42,
                                TITLE_SIZE,
                                1038,
                                rid="android:id/title",
                            ),
                            text(
                                hit.breadcrumb,
                                189,
                                box.y1 + 113,
                                SMALL_SIZE,
                                1038,
                                rid="android:id/summary",
                            ),
                        ],
                    ),
                ],
            )

        return build

    def content(self, frame: Rect) -> View:
        bar = Rect(0, frame.y1, WIDTH, frame.y1 + 190)
        header = View(
            LINEAR,
            bar,
            rid=rid(SETTINGS, "search_toolbar"),
            children=[
                icon_button(
                    "Navigate up",
                    Rect(0, bar.y1 + 20, 147, bar.y2 - 20),
                    lambda: self.phone.pop(self),
                ),
                edit_text(
                    self.query,
                    Rect(160, bar.y1 + 30, 1038, bar.y2 - 30),
                    self.phone.focus is self.query,
                    self.phone.focuser(self.query, self),
                    rid(SETTINGS, "search_src_text"),
                ),
            ],
        )
        body = Rect(0, bar.y2, WIDTH, frame.y2)
        hits = self.hits()
        children = [header]
        if hits:
            rows = [(206, self._result(hit)) for hit in hits]
            children.append(recycler(body, rows, self.scroll, rid(SETTINGS, "list_results")))
        elif self.query.text.strip():
            children.append(
                text(
                    "No results",
                    63,
                    body.y1 + 80,
                    TITLE_SIZE,
                    1038,
                    rid=rid(SETTINGS, "no_results"),
                )
            )
        return View(FRAME, frame, rid=rid(SETTINGS, "search_panel"), children=children)


# ---------------------------------------------------------------------------------------------
# Pages as tables


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
        ("System", "2.1 GB"),
        ("Apps", "1.1 GB"),
        ("Images", "0.2 GB"),
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
    "Calls & SMS": [("Calls preference", "T-Mobile"), ("SMS preference", "T-Mobile")],
    "VPN": [("No VPNs added", "")],
    "Saved networks": [("AndroidWifi", "")],
    "AndroidWifi": [
        ("Signal strength", "Excellent"),
        ("Frequency", "2.4 GHz"),
        ("Security", "None"),
        ("Network usage", "Detect automatically"),
        ("Privacy", "Use randomized MAC"),
    ],
    "Reset options": [
        ("Reset Mobile Network Settings", ""),
        ("Reset Bluetooth & Wi‑Fi", ""),
        ("Reset app preferences", ""),
        ("Erase all data (factory reset)", ""),
    ],
    "Languages": [("System languages", "English (United States)"), ("App languages", "")],
    "Date & time": [("Time zone", "GMT-07:00 Pacific Daylight Time"), ("Use 24-hour format", "")],
}


def home_rows(page: PrefsPage) -> list[Pref]:
    s = page.state
    return [
        page.link("Network & internet", "Mobile, Wi‑Fi, hotspot"),
        page.link("Connected devices", "Bluetooth, pairing"),
        page.link("Apps", "Assistant, recent apps, default apps"),
        page.link("Notifications", "Notification history, conversations"),
        page.link("Battery", f"{s.battery_level}%"),
        page.link("Storage", "41% used - 4.75 GB free"),
        page.link("Sound & vibration", "Volume, haptics, Do Not Disturb"),
        page.link("Display", "Dark theme, font size, brightness"),
        page.link("Wallpaper & style", "Colors, themed icons, app grid"),
        page.link("Accessibility", "Display, interaction, audio"),
        page.link("Security & privacy", "App security, device lock, permissions"),
        page.link("Location", "On - 2 apps have access to location"),
        page.link("Safety & emergency", "Emergency SOS, medical info, alerts"),
        page.link("Passwords & accounts", "Saved passwords, autofill, synced accounts"),
        page.link("Digital Wellbeing & parental controls", "Screen time, app timers, bedtime"),
        page.link("Google", "Services & preferences"),
        page.link("System", "Languages, gestures, time, backup"),
        page.link("About phone", s.device_model),
        page.link("Tips & support", "Help articles, phone & chat"),
    ]


def network_rows(page: PrefsPage) -> list[Pref]:
    s = page.state
    if s.wifi:
        internet = "AndroidWifi"
    elif s.airplane_mode:
        internet = "Airplane mode"
    else:
        internet = "T-Mobile"
    return [
        page.link("Internet", internet),
        page.link("Calls & SMS", "T-Mobile"),
        page.link("SIMs", "T-Mobile"),
        Pref("Airplane mode", switch=s.airplane_mode, on_tap=page.toggle("airplane_mode")),
        page.link("Hotspot & tethering", "Off"),
        page.link("Data Saver", on_off(page.is_on(DATA_SAVER))),
        page.link("VPN", "None"),
        Pref("Mobile plan", icon=False),
        Pref("Private DNS", "Automatic", icon=False),
        page.link("Adaptive connectivity", icon=False),
    ]


DATA_SAVER = "Data Saver/Use Data Saver"


def _usage_cycle(today: str) -> str:
    """The data-usage cycle ending today, as Settings writes it: "Oct 15 – Nov 12"."""
    end = dt.date.fromisoformat(today)
    start = end - dt.timedelta(days=28)
    return f"{start:%b} {start.day}\u2009–\u2009{end:%b} {end.day}"


def internet_rows(page: PrefsPage) -> list[Pref]:
    s = page.state
    rows = [
        Pref(
            "T-Mobile",
            "Airplane mode" if s.airplane_mode else "Connected / 3G",
            no_effect,  # it asks for the carrier's network, which is the one in use
            enabled=not s.airplane_mode,
            icon=True,
            gear=page.open("SIMs"),
        ),
        Pref("Wi-Fi", switch=s.wifi, on_tap=page.toggle("wifi")),
    ]
    if s.wifi:
        rows += [
            page.link(
                "AndroidWifi",
                "Connected",
                icon=True,
                desc="AndroidWifi,Connected,Wifi signal full.,Open network",
            ),
            Pref("Pixel Guest", icon=True, desc="Pixel Guest,Wifi signal strong.,Secure network"),
            Pref("Add network", icon=True),
        ]
    else:
        rows.append(Pref("", "To see available networks, turn Wi‑Fi on", selectable=False))
    saved = [
        page.link("Network preferences", "Wi‑Fi turns back on automatically"),
        page.link("Saved networks", "1 network"),
        Pref("Non-carrier data usage", f"0 B used {_usage_cycle(s.date)}", enabled=False),
    ]
    return rows + saved


def sims_rows(page: PrefsPage) -> list[Pref]:
    return [
        Pref("T-Mobile", header=True),
        page.switch("Mobile data", "Access data using mobile network", default=True),
        page.switch("Roaming", "Connect to data services when roaming"),
        Pref("Data warning & limit"),
        Pref("Preferred network type", "5G (recommended)"),
    ]


def hotspot_rows(page: PrefsPage) -> list[Pref]:
    return [
        Pref("Wi‑Fi hotspot", "Off"),
        Pref("USB tethering", "USB not connected", switch=False, enabled=False),
        page.switch("Bluetooth tethering", "Not sharing internet connection"),
        Pref("Ethernet tethering", "Ethernet not connected", switch=False, enabled=False),
    ]


def data_saver_rows(page: PrefsPage) -> list[Pref]:
    return [Pref("Unrestricted data", "0 apps allowed to use unrestricted data")]


def adaptive_connectivity_rows(page: PrefsPage) -> list[Pref]:
    return [
        page.switch(
            "Adaptive connectivity",
            "Extends battery life and improves device performance by automatically managing "
            "your network connections",
            default=True,
        )
    ]


def network_preferences_rows(page: PrefsPage) -> list[Pref]:
    return [
        page.switch(
            "Turn on Wi‑Fi automatically",
            "Wi‑Fi will turn back on near high‑quality saved networks, like your home network",
            default=True,
        ),
        page.switch(
            "Notify for public networks", "Notify when a high‑quality public network is available"
        ),
        Pref("Install certificates"),
    ]


def connected_rows(page: PrefsPage) -> list[Pref]:
    return [
        page.link("Pair new device", icon=True),
        page.link("Saved devices", "See all", icon=True),
        page.link("Connection preferences", "Bluetooth, NFC", icon=True),
    ]


def pair_rows(page: PrefsPage) -> list[Pref]:
    return [
        Pref("Device name", page.state.device_model),
        Pref("Available devices", header=True),
    ]


def connection_rows(page: PrefsPage) -> list[Pref]:
    return [
        page.link("Bluetooth", on_off(page.state.bluetooth)),
        page.link("NFC", on_off(page.is_on(NFC, default=True))),
        Pref("Cast", "Not connected"),
        Pref("Printing", "1 print service on"),
        Pref("Android Auto", "Use apps on your car screen"),
    ]


NFC = "NFC/Use NFC"


def bluetooth_rows(page: PrefsPage) -> list[Pref]:
    if not page.state.bluetooth:
        return [
            Pref(
                "When Bluetooth is turned on, your device can communicate with other "
                "nearby Bluetooth devices.",
                header=True,
            )
        ]
    return [page.link("Pair new device"), Pref("Device name", page.state.device_model)]


def nfc_rows(page: PrefsPage) -> list[Pref]:
    return [
        Pref("Require device unlock for NFC", switch=True),
        Pref("Contactless payments", "Google Wallet"),
    ]


def battery_rows(page: PrefsPage) -> list[Pref]:
    s = page.state
    return [
        Pref(f"{s.battery_level}%", "About 1 day left", selectable=False),
        Pref("Battery usage", "View usage for past 24 hours"),
        page.link("Battery Saver", on_off(s.battery_saver)),
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
        page.switch("Turn off when charged", default=True),
    ]


def sound_rows(page: PrefsPage) -> list[Pref]:
    s = page.state
    return [
        Pref("Media volume", "60%"),
        Pref("Call volume", "80%"),
        Pref("Ring & notification volume", "80%"),
        Pref(
            "Do Not Disturb",
            on_off(s.do_not_disturb),
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
        page.switch("Adaptive brightness", "Optimize brightness for available light", default=True),
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
        page.link("Languages", "English (United States)"),
        Pref("Keyboard", "Gboard"),
        Pref("Gestures"),
        Pref("Navigation mode", "Gesture navigation"),
        page.link("Date & time", "GMT-07:00 Pacific Daylight Time"),
        Pref("Backup", "Off"),
        page.link("Reset options"),
        Pref("Multiple users", "Signed in as Owner"),
        Pref("Regulatory labels"),
        Pref("System update", f"Updated to Android {s.android_version}"),
    ]
    if s.developer_options:
        rows.append(page.link("Developer options"))
    return rows


def developer_rows(page: PrefsPage) -> list[Pref]:
    s = page.state
    if not s.developer_options:
        return []

    def allow() -> None:
        s.usb_debugging = True

    def usb() -> None:
        if s.usb_debugging:
            s.usb_debugging = False
        else:
            page.phone.open_dialog(
                ConfirmDialog(
                    page.phone,
                    SETTINGS,
                    "Allow USB debugging?",
                    "USB debugging is intended for development purposes only. Use it to copy "
                    "data between your computer and your device.",
                    "OK",
                    allow,
                )
            )

    return [
        Pref("Memory", "Avg 2.1 GB of 7.6 GB memory used"),
        Pref("Bug report"),
        Pref("Desktop backup password", "Desktop full backups aren’t currently protected"),
        Pref(
            "Stay awake",
            "Screen will never sleep while charging",
            switch=s.stay_awake,
            on_tap=page.toggle("stay_awake"),
        ),
        Pref("Enable Bluetooth HCI snoop log", "Disabled"),
        page.switch("OEM unlocking", "Allow the bootloader to be unlocked"),
        Pref("Running services", "View and control currently running services"),
        page.switch("Picture color mode", "Use sRGB"),
        Pref("WebView implementation", "Android System WebView"),
        page.switch("Automatic system updates", "Apply updates when device restarts", True),
        Pref("DSU Loader", "Load a Dynamic System Update Image"),
        Pref("System UI demo mode"),
        Pref("Quick settings developer tiles"),
        Pref("Debugging", header=True),
        Pref(
            "USB debugging", "Debug mode when USB is connected", switch=s.usb_debugging, on_tap=usb
        ),
        Pref("Revoke USB debugging authorizations"),
        page.switch("Wireless debugging", "Debug mode when Wi‑Fi is connected"),
        page.switch(
            "Disable adb authorization timeout",
            "Disable automatic revocation of adb authorizations for systems that have not "
            "reconnected within the default (seven days) or user-configured (minimum one day) "
            "amount of time.",
        ),
        page.switch(
            "Bug report shortcut", "Show a button in the power menu for taking a bug report"
        ),
        page.switch(
            "Enable verbose vendor logging",
            "Include additional device-specific vendor logs in bug reports",
        ),
        page.switch("Enable view attribute inspection"),
        Pref("Select debug app", "No debug application set"),
        Pref(
            "Wait for debugger",
            "Debugged application waits for debugger to attach",
            switch=False,
            enabled=False,
        ),
        page.switch(
            "Verify apps over USB", "Check apps installed via ADB/ADT for harmful behavior", True
        ),
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


PAGES: dict[str, PageSpec] = {
    **{title: PageSpec(_static(rows)) for title, rows in STATIC_PAGES.items()},
    HOME: PageSpec(home_rows, icons=True),
    "Network & internet": PageSpec(network_rows, icons=True),
    "Internet": PageSpec(internet_rows, actions=("Fix connectivity",)),
    "SIMs": PageSpec(sims_rows),
    "Hotspot & tethering": PageSpec(hotspot_rows),
    "Data Saver": PageSpec(data_saver_rows, main_switch=("Use Data Saver", DATA_SAVER)),
    "Adaptive connectivity": PageSpec(adaptive_connectivity_rows),
    "Network preferences": PageSpec(network_preferences_rows),
    "Connected devices": PageSpec(connected_rows),
    "Pair new device": PageSpec(pair_rows),
    "Saved devices": PageSpec(_static([("No saved devices", "")])),
    "Connection preferences": PageSpec(connection_rows, icons=True),
    "Bluetooth": PageSpec(bluetooth_rows, main_switch=("Use Bluetooth", "bluetooth")),
    "NFC": PageSpec(nfc_rows, main_switch=("Use NFC", NFC)),
    "Battery": PageSpec(battery_rows),
    "Battery Saver": PageSpec(saver_rows, main_switch=("Use Battery Saver", "battery_saver")),
    "Sound & vibration": PageSpec(sound_rows),
    "Display": PageSpec(display_rows),
    "System": PageSpec(system_rows, icons=True),
    "Developer options": PageSpec(
        developer_rows, main_switch=("Use developer options", "developer_options")
    ),
    "About phone": PageSpec(about_rows),
}


def settings_root(phone: Phone) -> Page:
    return SettingsHome(phone)


def open_settings_page(phone: Phone, title: str) -> None:
    """Bring Settings to the front on the page `title` (from a quick-settings tile)."""
    phone.launch(SETTINGS)
    root = phone.stacks[SETTINGS][0]
    memory = root.memory if isinstance(root, PrefsPage) else SettingsMemory()
    phone.push(PrefsPage(phone, title, memory))
