"""Files (DocumentsUI): recent files, roots in a drawer, folders of the shared storage.

A tap opens a folder; a long press selects, after which taps add to the selection and the
action bar shares, deletes or (under More options) renames, moves or selects all. Moving opens
the picker, where the destination is chosen by walking into it.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from simulator.apps import storage
from simulator.apps.clock import format_time
from simulator.apps.dialogs import ConfirmDialog, PopupMenu, TextPromptDialog
from simulator.apps.path_selection import MoveTarget, toggle
from simulator.display import WIDTH
from simulator.runtime import Page, Phone
from simulator.state import FILES
from simulator.view import (
    FRAME,
    IMAGE,
    LINEAR,
    RECYCLER,
    VIEW_GROUP,
    Rect,
    ScrollState,
    View,
    rid,
)
from simulator.widgets import (
    button,
    icon_button,
    menu_item,
    navigation_drawer,
    overflow_button,
    recycler,
    text,
)

_BAR = 126
_ROW = 192
_CATEGORIES: dict[str, tuple[str, ...]] = {
    "Images": (".jpg", ".jpeg", ".png", ".gif", ".webp"),
    "Videos": (".mp4", ".mkv", ".webm", ".3gp"),
    "Audio": (".mp3", ".m4a", ".wav", ".ogg", ".flac"),
    "Documents": (".pdf", ".md", ".txt", ".doc", ".docx", ".odt", ".csv"),
}
_RECENT = "Recent"
_DOWNLOADS = "Downloads"


@dataclass(frozen=True)
class Location:
    """Where the browser is: a root, and for the device root a folder below it."""

    root: str
    folder: str = storage.ROOT


class BrowserPage(Page):
    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, FILES)
        self.history: list[Location] = [Location(_RECENT)]
        self.chip = ""  # the Recent view's type filter
        self.drawer_open = False
        self.selected: list[str] = []
        self.scroll = ScrollState()

    @property
    def device_root(self) -> str:
        return self.state.device_model

    @property
    def here(self) -> Location:
        return self.history[-1]

    # -- navigation -------------------------------------------------------------------------

    def _changed(self) -> None:
        self.phone.changes += 1

    def go(self, location: Location, replace: bool = False) -> None:
        if replace:
            self.history = [location]
        elif location != self.here:
            self.history.append(location)
        self.drawer_open = False
        self.selected = []
        self.chip = ""
        self.scroll.offset = 0
        self._changed()

    def _open_root(self, root: str) -> None:
        self.go(Location(root), replace=True)

    def _open_folder(self, folder: str) -> None:
        self.go(Location(self.device_root, folder))

    def _toggle_drawer(self) -> None:
        self.drawer_open = not self.drawer_open
        self._changed()

    def on_back(self) -> bool:
        if self.drawer_open:
            self.drawer_open = False
            return True
        if self.selected:
            self.selected = []
            return True
        if len(self.history) > 1:
            self.history.pop()
            self.scroll.offset = 0
            return True
        return False

    def on_resume(self) -> None:
        self.selected = [p for p in self.selected if storage.exists(self.state, p)]
        while self.here.folder and not storage.is_folder(self.state, self.here.folder):
            self.history.pop()

    # -- what is listed ---------------------------------------------------------------------

    def _entries(self) -> list[str]:
        """Paths shown here: folders first, then files."""
        state = self.state
        here = self.here
        if here.root == self.device_root or here.root == _DOWNLOADS:
            folder = "Download" if here.root == _DOWNLOADS else here.folder
            subfolders, files = storage.listing(state, folder)
            return [storage.join(folder, name) for name in subfolders + files]
        if here.root in _CATEGORIES:
            extensions = _CATEGORIES[here.root]
        elif self.chip:
            extensions = _CATEGORIES[self.chip]
        else:
            extensions = ()
        return sorted(
            (
                path
                for path in state.files
                if not extensions or posixpath.splitext(path)[1].lower() in extensions
            ),
            key=lambda p: storage.name_of(p).casefold(),
        )

    def _title(self) -> str:
        here = self.here
        if here.root == self.device_root and here.folder:
            return storage.name_of(here.folder)
        return here.root

    # -- selection actions ------------------------------------------------------------------

    def _tap(self, path: str) -> None:
        if self.selected:
            self._toggle(path)
        elif storage.is_folder(self.state, path):
            self._open_folder(path)

    def _toggle(self, path: str) -> None:
        toggle(self.selected, path)
        self._changed()

    def _select_all(self) -> None:
        self.selected = self._entries()
        self._changed()

    def _delete(self) -> None:
        paths = list(self.selected)
        if len(paths) > 1:
            message = f"Delete {len(paths)} items?"
        elif storage.is_folder(self.state, paths[0]):
            message = f"Delete “{storage.name_of(paths[0])}” and its contents?"
        else:
            message = f"Delete “{storage.name_of(paths[0])}”?"

        def remove() -> None:
            for path in paths:
                storage.delete(self.state, path)
            self.selected = []
            self._changed()

        self.phone.open_dialog(ConfirmDialog(self.phone, FILES, "", message, "OK", remove))

    def _rename(self) -> None:
        path = self.selected[0]

        def rename(name: str) -> str | None:
            problem = storage.rename(self.state, path, name)
            if problem is None:
                self.selected = []
            return problem

        self.phone.open_dialog(
            TextPromptDialog(
                self.phone, FILES, "Rename", storage.name_of(path), "", rename, "android:id/text1"
            )
        )

    def _new_folder(self) -> None:
        create = partial(storage.make_folder, self.state, self.here.folder)
        self.phone.open_dialog(
            TextPromptDialog(
                self.phone, FILES, "New folder", "", "Folder name", create, "android:id/text1"
            )
        )

    def _move(self) -> None:
        self.phone.push(MovePickerPage(self, list(self.selected)))

    def _more(self) -> None:
        items: list[tuple[str, Callable[[], None]]]
        if self.selected:
            items = [("Open with", lambda: None), ("Select all", self._select_all)]
            items += [("Copy to…", lambda: None), ("Move to…", self._move)]
            items.append(("Compress", lambda: None))
            if len(self.selected) == 1:
                items.append(("Rename", self._rename))
            items.append(("Get info", lambda: None))
        else:
            items = []
            if self.here.root == self.device_root:
                items.append(("New folder", self._new_folder))
            items += [("Select all", self._select_all), ("Show hidden files", lambda: None)]
        self.phone.open_dialog(PopupMenu(self.phone, FILES, items))

    def _chip(self, name: str) -> None:
        self.chip = "" if self.chip == name else name
        self.scroll.offset = 0
        self._changed()

    # -- rendering --------------------------------------------------------------------------

    def content(self, frame: Rect) -> View:
        bar = Rect(0, frame.y1, WIDTH, frame.y1 + _BAR)
        y = bar.y2
        header: list[View] = []
        if self.here.root == _RECENT:
            header.append(self._chips(Rect(0, y, WIDTH, y + 126)))
            y += 126
            header.append(text("Recent files", 63, y + 50, 44, 800, rid=rid(FILES, "header_title")))
            header.append(
                menu_item(
                    "Grid view",
                    Rect(890, y + 16, 1017, y + 142),
                    lambda: None,
                    rid(FILES, "sub_menu_grid"),
                )
            )
            y += 158
        elif self.here.root == self.device_root:
            header.append(self._breadcrumb(Rect(0, y, WIDTH, y + 126)))
            y += 126
        body = Rect(0, y, WIDTH, frame.y2)
        entries = self._entries()
        listing: View
        if entries:
            rows = [(_ROW, self._row(path)) for path in entries]
            listing = recycler(body, rows, self.scroll, rid(FILES, "dir_list"))
        else:
            listing = View(
                FRAME,
                body,
                children=[
                    text("No items", 420, body.y1 + 400, 48, 1000, rid=rid(FILES, "message"))
                ],
            )
        if self.drawer_open:  # the open drawer hides the content from accessibility
            return self._drawer(frame)
        children: list[View] = [self._toolbar(bar), *header, listing]
        return View(FRAME, frame, rid=rid(FILES, "coordinator_layout"), children=children)

    def _toolbar(self, bar: Rect) -> View:
        if self.selected:
            return View(
                VIEW_GROUP,
                bar,
                rid=rid(FILES, "action_mode_bar"),
                children=[
                    icon_button(
                        "Done",
                        Rect(0, bar.y1, 147, bar.y2),
                        lambda: self.phone.back(),
                        rid(FILES, "action_mode_close_button"),
                    ),
                    text(f"{len(self.selected)} selected", 189, bar.y1 + 30, 50, 600),
                    icon_button(
                        "Share",
                        Rect(701, bar.y1, 827, bar.y2),
                        lambda: None,
                        rid(FILES, "action_menu_share"),
                    ),
                    icon_button(
                        "Delete",
                        Rect(827, bar.y1, 954, bar.y2),
                        self._delete,
                        rid(FILES, "action_menu_delete"),
                    ),
                    overflow_button(Rect(954, bar.y1, 1080, bar.y2), self._more),
                ],
            )
        return View(
            VIEW_GROUP,
            bar,
            rid=rid(FILES, "toolbar"),
            children=[
                icon_button("Show roots", Rect(0, bar.y1, 147, bar.y2), self._toggle_drawer),
                text(self._title(), 189, bar.y1 + 27, 52, 820),
                menu_item(
                    "Search",
                    Rect(827, bar.y1, 954, bar.y2),
                    lambda: None,
                    rid(FILES, "option_menu_search"),
                ),
                overflow_button(Rect(954, bar.y1, 1080, bar.y2), self._more),
            ],
        )

    def _chips(self, box: Rect) -> View:
        chips = []
        x = 64
        for name in _CATEGORIES:
            width = len(name) * 24 + 110
            chips.append(
                View(
                    "com.google.android.material.chip.Chip",
                    Rect(x, box.y1, x + width, box.y2),
                    text=name,
                    checkable=True,
                    checked=self.chip == name,
                    clickable=True,
                    focusable=True,
                    on_tap=partial(self._chip, name),
                )
            )
            x += width + 22
        return View(
            "android.widget.HorizontalScrollView",
            box,
            children=[View(LINEAR, box, rid=rid(FILES, "search_chip_group"), children=chips)],
        )

    def _breadcrumb(self, box: Rect) -> View:
        folder = self.here.folder
        parts = folder.split("/") if folder else []
        crumbs = [(self.device_root, storage.ROOT)] + [
            (name, "/".join(parts[: i + 1])) for i, name in enumerate(parts)
        ]
        items = []
        x = 42
        for name, target in crumbs:
            width = min(len(name) * 24 + 90, 420)
            items.append(
                View(
                    LINEAR,
                    Rect(x, box.y1, x + width, box.y2),
                    clickable=True,
                    focusable=True,
                    on_tap=partial(self.go, Location(self.device_root, target)),
                    children=[
                        text(
                            name,
                            x + 20,
                            box.y1 + 40,
                            37,
                            x + width - 40,
                            rid=rid(FILES, "breadcrumb_text"),
                        ),
                        View(
                            IMAGE,
                            Rect(x + width - 40, box.y1 + 43, x + width, box.y1 + 83),
                            rid=rid(FILES, "breadcrumb_arrow"),
                        ),
                    ],
                )
            )
            x += width
        return View(
            RECYCLER,
            box,
            rid=rid(FILES, "horizontal_breadcrumb"),
            children=items,
        )

    def _row(self, path: str) -> Callable[[Rect], View]:
        is_folder = storage.is_folder(self.state, path)
        name = storage.name_of(path)
        if is_folder:
            metadata = ""
        else:
            size = storage.size_label(storage.size_bytes(path, self.state.files[path]))
            modified = format_time(self.state.time)
            metadata = f"{modified}, {size}, {storage.kind_label(name)}"

        def build(box: Rect) -> View:
            children: list[View] = [
                View(
                    FRAME,
                    Rect(0, box.y1, 189, box.y2),
                    rid=rid(FILES, "icon"),
                    children=[
                        View(
                            IMAGE,
                            Rect(42, box.y1 + 42, 147, box.y1 + 147),
                            rid=rid(FILES, "icon_mime" if is_folder else "icon_thumb"),
                        )
                    ],
                ),
                View(
                    LINEAR,
                    Rect(189, box.y1 + 39, 849, box.y2 - 39),
                    children=[text(name, 189, box.y1 + 39, 44, 849, rid="android:id/title")]
                    + (
                        [text(metadata, 189, box.y1 + 107, 33, 849, rid=rid(FILES, "metadata"))]
                        if metadata
                        else []
                    ),
                ),
            ]
            if not is_folder:
                children.append(
                    View(
                        FRAME,
                        Rect(891, box.y1, 1080, box.y2),
                        rid=rid(FILES, "preview_icon"),
                        desc=f"Preview the file {name}",
                        clickable=True,
                        focusable=True,
                        on_tap=lambda: None,
                        children=[View(IMAGE, Rect(946, box.y1 + 55, 1025, box.y1 + 134))],
                    )
                )
            return View(
                LINEAR,
                box,
                rid=rid(FILES, "item_root"),
                clickable=True,
                focusable=True,
                long_clickable=True,
                selected=path in self.selected,
                on_tap=partial(self._tap, path),
                on_long_press=partial(self._toggle, path),
                children=[View(LINEAR, box, children=children)],
            )

        return build

    def _drawer(self, frame: Rect) -> View:
        panel = Rect(0, frame.y1, 800, frame.y2)
        roots = [_RECENT, *_CATEGORIES, _DOWNLOADS, self.device_root]
        rows = []
        for position, name in enumerate(roots):
            y = panel.y1 + 150 + position * 147
            rows.append(
                View(
                    LINEAR,
                    Rect(0, y, panel.x2, y + 147),
                    clickable=True,
                    focusable=True,
                    selected=name == self.here.root,
                    on_tap=partial(self._open_root, name),
                    children=[
                        View(IMAGE, Rect(42, y + 42, 105, y + 105), rid="android:id/icon"),
                        text(name, 168, y + 45, 42, panel.x2 - 20, rid="android:id/title"),
                    ],
                )
            )
        roots_panel = View(
            LINEAR,
            panel,
            rid=rid(FILES, "drawer_roots"),
            children=[
                text("Files", 63, panel.y1 + 50, 52, 700),
                View(
                    "android.widget.ListView",
                    Rect(0, panel.y1 + 150, panel.x2, panel.y2),
                    rid=rid(FILES, "roots_list"),
                    children=rows,
                ),
            ],
        )
        return navigation_drawer(frame, roots_panel, self._toggle_drawer)


class MovePickerPage(Page):
    """The "Move to" picker: folders of the device root; Move puts the selection here."""

    def __init__(self, browser: BrowserPage, paths: list[str]) -> None:
        super().__init__(browser.phone, FILES)
        self.browser = browser
        self.target = MoveTarget(browser.phone, paths, storage.ROOT)
        self.scroll = ScrollState()

    def _enter(self, folder: str) -> None:
        self.scroll.offset = 0
        self.target.open(folder)

    def on_back(self) -> bool:
        if self.target.folder:
            self._enter(storage.parent(self.target.folder))
            return True
        return False

    def _move(self) -> None:
        if self.target.move():
            self.browser.selected = []
            self.phone.pop(self)

    def content(self, frame: Rect) -> View:
        folder = self.target.folder
        bar = Rect(0, frame.y1, WIDTH, frame.y1 + _BAR)
        title = storage.name_of(folder) if folder else self.state.device_model
        subfolders, files = storage.listing(self.state, folder)
        save_top = frame.y2 - 168
        body = Rect(0, bar.y2, WIDTH, save_top)

        def folder_row(name: str) -> Callable[[Rect], View]:
            target = storage.join(folder, name)
            moving = target in self.target.paths
            return lambda box: View(
                LINEAR,
                box,
                rid=rid(FILES, "item_root"),
                clickable=not moving,
                focusable=True,
                enabled=not moving,
                on_tap=partial(self._enter, target),
                children=[
                    View(
                        IMAGE, Rect(42, box.y1 + 42, 147, box.y1 + 147), rid=rid(FILES, "icon_mime")
                    ),
                    text(
                        name, 189, box.y1 + 70, 44, 1000, rid="android:id/title", enabled=not moving
                    ),
                ],
            )

        def file_row(name: str) -> Callable[[Rect], View]:
            return lambda box: View(
                LINEAR,
                box,
                rid=rid(FILES, "item_root"),
                enabled=False,
                children=[
                    View(
                        IMAGE,
                        Rect(42, box.y1 + 42, 147, box.y1 + 147),
                        rid=rid(FILES, "icon_thumb"),
                    ),
                    text(name, 189, box.y1 + 70, 44, 1000, rid="android:id/title", enabled=False),
                ],
            )

        rows = [(_ROW, folder_row(n)) for n in subfolders] + [(_ROW, file_row(n)) for n in files]
        children: list[View] = [
            View(
                VIEW_GROUP,
                bar,
                rid=rid(FILES, "toolbar"),
                children=[
                    icon_button(
                        "Navigate up", Rect(0, bar.y1, 147, bar.y2), lambda: self.phone.back()
                    ),
                    text(title, 189, bar.y1 + 27, 52, 820),
                ],
            ),
            recycler(body, rows, self.scroll, rid(FILES, "dir_list")),
        ]
        if self.target.error:
            children.append(text(self.target.error, 63, save_top - 70, 37, 1000))
        children.append(
            View(
                VIEW_GROUP,
                Rect(0, save_top, WIDTH, frame.y2),
                rid=rid(FILES, "container_save"),
                children=[
                    button(
                        "Cancel",
                        Rect(520, save_top + 21, 770, save_top + 147),
                        lambda: self.phone.pop(self),
                        rid(FILES, "button_cancel"),
                    ),
                    button(
                        "Move",
                        Rect(790, save_top + 21, 1038, save_top + 147),
                        self._move,
                        rid(FILES, "button_save"),
                    ),
                ],
            )
        )
        return View(FRAME, frame, rid=rid(FILES, "coordinator_layout"), children=children)


def files_root(phone: Phone) -> Page:
    return BrowserPage(phone)
