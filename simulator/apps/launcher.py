"""Pixel Launcher: the home screen, the app drawer (swipe up) and the recent-apps overview."""

from __future__ import annotations

from functools import partial

from simulator.apps.calendar import day_label
from simulator.apps.names import search_apps
from simulator.display import HEIGHT, NAV_BAR_TOP, SCREEN, STATUS_BAR, WIDTH
from simulator.runtime import Page, Phone
from simulator.state import LAUNCHER
from simulator.view import FRAME, RECYCLER, SCROLL, TEXT, VIEW, VIEW_GROUP, Rect, View, rid
from simulator.widgets import SMALL_SIZE, Field, app_window, button, edit_text, text

WORKSPACE_APPS = ("Files", "Settings")
HOTSEAT_APPS = ("Messages", "Contacts")
COLUMNS = 4
CELL_W = 240
CELL_H = 300


class HomePage(Page):
    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, LAUNCHER)
        self.drawer_open = False
        self.search = Field(hint="Search your phone and more")

    def _labels(self) -> dict[str, str]:
        return {
            app.label: package for package, app in self.phone.apps.items() if package != LAUNCHER
        }

    def _icon(self, label: str, box: Rect) -> View:
        package = self._labels()[label]
        return View(
            TEXT,
            box,
            text=label,
            desc=label,
            clickable=True,
            focusable=True,
            long_clickable=True,
            on_tap=lambda: self.phone.launch(package),
        )

    def window(self, frame: Rect) -> View:
        return app_window(self.content(SCREEN), SCREEN)

    def content(self, frame: Rect) -> View:
        layer = self._drawer() if self.drawer_open else self._home()
        return View(
            FRAME,
            SCREEN,
            rid=rid(LAUNCHER, "launcher"),
            children=[View(FRAME, SCREEN, rid=rid(LAUNCHER, "drag_layer"), children=layer)],
        )

    def _home(self) -> list[View]:
        glance = Rect(62, 220, 1018, 460)
        cells = [
            self._icon(label, Rect(60 + i * CELL_W, 1580, 60 + i * CELL_W + 200, 1880))
            for i, label in enumerate(WORKSPACE_APPS)
        ]
        workspace = View(
            SCROLL,
            Rect(0, 0, WIDTH, HEIGHT),
            rid=rid(LAUNCHER, "workspace"),
            scrollable=True,
            children=[
                View(
                    VIEW_GROUP,
                    Rect(36, 200, 1044, 1900),
                    children=[
                        View(
                            FRAME,
                            glance,
                            rid=rid(LAUNCHER, "search_container_workspace"),
                            children=[
                                View(
                                    VIEW_GROUP,
                                    glance,
                                    desc="At a glance",
                                    children=[
                                        text(
                                            day_label(self.state.date),
                                            97,
                                            290,
                                            56,
                                            1000,
                                            rid=rid(LAUNCHER, "date_text"),
                                        ),
                                    ],
                                ),
                            ],
                        ),
                        *cells,
                    ],
                )
            ],
        )
        hotseat_y = 2030
        hotseat = View(
            VIEW_GROUP,
            Rect(0, hotseat_y - 60, WIDTH, NAV_BAR_TOP),
            rid=rid(LAUNCHER, "hotseat"),
            children=[
                View(
                    VIEW_GROUP,
                    Rect(60, hotseat_y, 1020, hotseat_y + 150),
                    children=[
                        self._icon(
                            label,
                            Rect(
                                60 + i * CELL_W, hotseat_y, 60 + i * CELL_W + 150, hotseat_y + 150
                            ),
                        )
                        for i, label in enumerate(HOTSEAT_APPS)
                    ],
                ),
                View(
                    FRAME,
                    Rect(60, 2200, 1020, 2320),
                    rid=rid(LAUNCHER, "search_container_hotseat"),
                    desc="Google search",
                    clickable=True,
                    focusable=True,
                    on_tap=self._open_drawer,
                ),
            ],
        )
        return [
            View(VIEW, SCREEN, rid=rid(LAUNCHER, "scrim_view")),
            workspace,
            View(
                VIEW,
                Rect(0, STATUS_BAR, WIDTH, 2300),
                rid=rid(LAUNCHER, "accessibility_action_view"),
                desc="Home",
            ),
            hotseat,
        ]

    def _drawer(self) -> list[View]:
        labels = self._labels()
        # the search answers to the names people use for an app, not only its label
        found = set(search_apps(self.search.text, {p: label for label, p in labels.items()}))
        shown = sorted((label for label, p in labels.items() if p in found), key=str.casefold)
        focused = self.phone.focus is self.search
        search_box = Rect(62, 150, 1018, 282)
        icons: list[View] = []
        for i, label in enumerate(shown):
            row, col = divmod(i, COLUMNS)
            x = 40 + col * 250
            y = 360 + row * CELL_H
            icons.append(self._icon(label, Rect(x, y, x + 250, y + 260)))
        grid_box = Rect(0, 320, WIDTH, NAV_BAR_TOP)
        return [
            View(
                VIEW_GROUP,
                Rect(0, 0, WIDTH, HEIGHT),
                rid=rid(LAUNCHER, "apps_view"),
                children=[
                    View(
                        FRAME,
                        search_box,
                        rid=rid(LAUNCHER, "search_container_all_apps"),
                        children=[
                            edit_text(
                                self.search,
                                search_box,
                                focused,
                                self.phone.focuser(self.search, self),
                                rid(LAUNCHER, "input"),
                            ),
                        ],
                    ),
                    View(
                        RECYCLER,
                        grid_box,
                        rid=rid(LAUNCHER, "apps_list_view"),
                        scrollable=True,
                        focusable=True,
                        children=icons,
                    )
                    if icons
                    else text("No apps found", 330, 500, SMALL_SIZE + 8),
                ],
            )
        ]

    def _open_drawer(self) -> None:
        self.drawer_open = True
        self.search.set("")
        self.phone.changes += 1

    def on_swipe(self, dx: int, dy: int) -> bool:
        if not self.drawer_open and dy < -150:
            self._open_drawer()
            return True
        if self.drawer_open and dy > 150:
            self.drawer_open = False
            self.phone.blur()
            return True
        return False

    def on_back(self) -> bool:
        if self.drawer_open:
            self.drawer_open = False
            return True
        return False

    def on_resume(self) -> None:
        self.drawer_open = False


class OverviewPage(Page):
    """Recent apps: one card per task, most recent first, and Clear all."""

    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, LAUNCHER)

    def window(self, frame: Rect) -> View:
        return app_window(self.content(SCREEN), SCREEN)

    def content(self, frame: Rect) -> View:
        cards: list[View] = []
        for i, package in enumerate(self.phone.recents[:2]):
            label = self.phone.apps[package].label
            x = 140 + i * 860
            card = Rect(x, 420, x + 800, 2000)
            cards.append(
                View(
                    FRAME,
                    card,
                    rid=rid(LAUNCHER, "task"),
                    desc=label,
                    clickable=True,
                    focusable=True,
                    long_clickable=True,
                    on_tap=partial(self.phone.launch, package),
                    children=[
                        View(
                            FRAME,
                            Rect(card.x1, card.y1 - 150, card.x2, card.y1 - 20),
                            rid=rid(LAUNCHER, "task_icon"),
                            desc=label,
                        ),
                    ],
                )
            )
        children: list[View] = [
            View(
                VIEW_GROUP,
                Rect(0, 300, WIDTH, 2100),
                rid=rid(LAUNCHER, "overview_panel"),
                scrollable=bool(cards),
                children=cards,
            )
        ]
        if cards:
            children.append(
                button(
                    "Clear all",
                    Rect(380, 2150, 700, 2280),
                    self.phone.clear_tasks,
                    rid(LAUNCHER, "clear_all"),
                )
            )
        else:
            children.append(text("No recent items", 380, 1150, SMALL_SIZE + 8))
        return View(FRAME, SCREEN, rid=rid(LAUNCHER, "overview_actions_view"), children=children)

    def on_swipe(self, dx: int, dy: int) -> bool:
        return False
