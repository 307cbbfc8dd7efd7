"""Markor: a notebook folder of Markdown and text files in the shared storage, and its editor.

The file list opens a file or a folder on tap and selects on long press (then rename, delete or
move what is selected); the + button creates a file or a folder; the editor saves as you type,
as Markor does when it is left.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from functools import partial

from simulator.apps import storage
from simulator.apps.dialogs import ConfirmDialog, PopupMenu, TextPromptDialog
from simulator.apps.path_selection import MoveTarget, toggle
from simulator.display import WIDTH
from simulator.runtime import Dialog, Page, Phone
from simulator.state import MARKOR
from simulator.view import (
    BUTTON,
    EDIT,
    FRAME,
    IMAGE,
    LINEAR,
    SCROLL,
    TEXT,
    VIEW_GROUP,
    Rect,
    ScrollState,
    View,
    rid,
)
from simulator.widgets import (
    Field,
    Tab,
    alert_dialog,
    edit_text,
    fab,
    icon_button,
    navigation_tabs,
    no_effect,
    recycler,
    scroll_view,
    text,
)

NOTEBOOK = "Documents/Markor"
TODO_FILE = f"{NOTEBOOK}/todo.txt"
QUICKNOTE_FILE = f"{NOTEBOOK}/QuickNote.md"
_BAR = 147  # ?attr/actionBarSize
_ROW = 168
_FILE_TYPES = (("Markdown", ".md"), ("Plain Text", ".txt"), ("todo.txt", ".txt"))
_TEXT_EXTENSIONS = (".md", ".txt", ".markdown", ".text")


def _modified(phone: Phone) -> str:
    return dt.date.fromisoformat(phone.state.date).strftime("%d.%m.%y")


def _action_bar(
    frame: Rect,
    title: str,
    on_up: Callable[[], None] | None,
    actions: list[tuple[str, Callable[[], None]]],
    on_title: Callable[[], None] | None = None,
) -> View:
    """Markor's toolbar: up arrow, title, then icon actions from the right edge inwards."""
    box = Rect(0, frame.y1, WIDTH, frame.y1 + _BAR)
    children: list[View] = []
    x = 42
    if on_up is not None:
        children.append(icon_button("Navigate up", Rect(0, box.y1, _BAR, box.y2), on_up))
        x = 189
    right = WIDTH - len(actions) * 126
    children.append(
        View(
            TEXT,
            Rect(x, box.y1 + 40, min(x + len(title) * 30 + 10, right - 10), box.y1 + 110),
            text=title,
            clickable=on_title is not None,
            focusable=on_title is not None,
            on_tap=on_title,
        )
    )
    for position, (desc, handler) in enumerate(actions):
        x1 = right + position * 126
        children.append(
            View(
                BUTTON if desc != "More options" else IMAGE,
                Rect(x1, box.y1, x1 + 126, box.y2),
                rid=rid(MARKOR, f"action_{desc.lower().replace(' ', '_')}"),
                desc=desc,
                clickable=True,
                focusable=True,
                on_tap=handler,
            )
        )
    return View(
        LINEAR,
        box,
        rid=rid(MARKOR, "appbar"),
        children=[View(VIEW_GROUP, box, rid=rid(MARKOR, "toolbar"), children=children)],
    )


def _ask_new_name(phone: Phone, path: str, renamed: Callable[[str], None]) -> None:
    """Markor's rename prompt for `path`; `renamed(new_path)` runs once the file has it."""

    def rename(name: str) -> str | None:
        problem = storage.rename(phone.state, path, name)
        if problem is None:
            renamed(storage.join(storage.parent(path), name))
        return problem

    phone.open_dialog(
        TextPromptDialog(
            phone, MARKOR, "Rename", storage.name_of(path), "Name", rename, rid(MARKOR, "new_name")
        )
    )


class NewFileDialog(Dialog):
    """Name, extension and type of a new file; Folder makes a folder of that name instead."""

    def __init__(self, page: FileListPage) -> None:
        super().__init__(page.phone, MARKOR)
        self.page = page
        self.name = Field(hint="Title", on_enter=self._ok)
        self.extension = Field(text=".md", hint=".md")
        self.type_index = 0
        self.error = ""
        page.phone.focus_field(self.name, self)

    def _cycle_type(self) -> None:
        self.type_index = (self.type_index + 1) % len(_FILE_TYPES)
        self.extension.set(_FILE_TYPES[self.type_index][1])
        self.phone.changes += 1

    def _fail(self, message: str) -> None:
        self.error = message
        self.phone.changes += 1

    def _target(self) -> str | None:
        name = self.name.text.strip()
        problem = storage.valid_name(name)
        if problem is not None:
            self._fail(problem)
            return None
        return storage.join(self.page.folder, name)

    def _ok(self) -> None:
        target = self._target()
        if target is None:
            return
        if not target.lower().endswith(_TEXT_EXTENSIONS):
            target += self.extension.text.strip()
        if storage.exists(self.phone.state, target):
            self._fail(f"{storage.name_of(target)} already exists")
            return
        storage.write(self.phone.state, target, "")
        self.phone.close_dialog(self)
        self.phone.push(EditorPage(self.phone, target, focus=True))

    def _folder(self) -> None:
        problem = storage.make_folder(self.phone.state, self.page.folder, self.name.text.strip())
        if problem is not None:
            self._fail(problem)
            return
        self.phone.close_dialog(self)

    def window(self) -> View:
        focus = self.phone.focus

        def body(box: Rect) -> View:
            y = box.y1 + 10
            children = [
                text("Name", box.x1 + 63, y, 34, box.x2),
                edit_text(
                    self.name,
                    Rect(box.x1 + 63, y + 50, box.x1 + 600, y + 180),
                    focus is self.name,
                    self.phone.focuser(self.name, self),
                    rid(MARKOR, "new_file_dialog__name"),
                ),
                edit_text(
                    self.extension,
                    Rect(box.x1 + 620, y + 50, box.x2 - 63, y + 180),
                    focus is self.extension,
                    self.phone.focuser(self.extension, self),
                    rid(MARKOR, "new_file_dialog__ext"),
                ),
                text("Type", box.x1 + 63, y + 210, 34, box.x2),
                View(
                    "android.widget.Spinner",
                    Rect(box.x1 + 63, y + 260, box.x2 - 63, y + 380),
                    rid=rid(MARKOR, "new_file_dialog__type"),
                    clickable=True,
                    focusable=True,
                    on_tap=self._cycle_type,
                    children=[
                        text(
                            _FILE_TYPES[self.type_index][0],
                            box.x1 + 90,
                            y + 290,
                            42,
                            box.x2 - 100,
                            rid="android:id/text1",
                        )
                    ],
                ),
            ]
            if self.error:
                children.append(text(self.error, box.x1 + 63, y + 400, 34, box.x2 - 63))
            return View(
                SCROLL,
                box,
                rid=rid(MARKOR, "new_file_dialog__root"),
                children=[View(LINEAR, box, children=children)],
            )

        return alert_dialog(
            "",
            "",
            [("Cancel", self.cancel), ("Folder", self._folder), ("OK", self._ok)],
            on_cancel=self.cancel,
            body=body,
            body_height=470,
        )


class MoveDialog(Dialog):
    """Markor's folder chooser: walk the notebook's folders, OK moves the selection here."""

    def __init__(self, page: FileListPage, paths: list[str]) -> None:
        super().__init__(page.phone, MARKOR)
        self.page = page
        self.target = MoveTarget(page.phone, paths, page.folder)

    def _ok(self) -> None:
        if self.target.move():
            self.phone.close_dialog(self)
            self.page.end_selection()

    def window(self) -> View:
        folder = self.target.folder
        subfolders, _ = storage.listing(self.phone.state, folder)
        entries = ([".."] if folder != storage.ROOT else []) + subfolders

        def body(box: Rect) -> View:
            rows: list[View] = [
                text("/" + folder, box.x1 + 63, box.y1 + 10, 34, box.x2 - 63),
            ]
            for position, name in enumerate(entries[:8]):
                target = storage.parent(folder) if name == ".." else storage.join(folder, name)
                y = box.y1 + 80 + position * 130
                rows.append(
                    View(
                        LINEAR,
                        Rect(box.x1, y, box.x2, y + 130),
                        rid=rid(MARKOR, "ui__filesystem_item__root"),
                        clickable=True,
                        focusable=True,
                        on_tap=partial(self.target.open, target),
                        children=[
                            View(IMAGE, Rect(box.x1 + 63, y + 30, box.x1 + 137, y + 100)),
                            text(name, box.x1 + 170, y + 38, 44, box.x2 - 20),
                        ],
                    )
                )
            if self.target.error:
                rows.append(text(self.target.error, box.x1 + 63, box.y2 - 60, 34, box.x2 - 63))
            return View(LINEAR, box, children=rows)

        return alert_dialog(
            "Move",
            "",
            [("Cancel", self.cancel), ("OK", self._ok)],
            on_cancel=self.cancel,
            body=body,
            body_height=80 + 130 * min(len(entries), 8) + 70,
        )


class FileListPage(Page):
    """The Files tab: the notebook folder, or a folder below it."""

    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, MARKOR)
        self.folder = NOTEBOOK
        self.selected: list[str] = []
        self.scroll = ScrollState()
        storage.create_folder(phone.state, NOTEBOOK)

    # -- actions ----------------------------------------------------------------------------

    def _changed(self) -> None:
        self.phone.changes += 1

    def _open(self, path: str) -> None:
        if self.selected:
            self._toggle(path)
        elif storage.is_folder(self.state, path):
            self.folder = path
            self.scroll.offset = 0
            self._changed()
        else:
            self.phone.push(EditorPage(self.phone, path))

    def _up(self) -> None:
        self.folder = storage.parent(self.folder)
        self.scroll.offset = 0
        self._changed()

    def _toggle(self, path: str) -> None:
        toggle(self.selected, path)
        self._changed()

    def end_selection(self) -> None:
        self.selected = []
        self._changed()

    def _delete(self) -> None:
        paths = list(self.selected)
        names = ", ".join(storage.name_of(p) for p in paths)

        def remove() -> None:
            for path in paths:
                storage.delete(self.state, path)
            self.end_selection()

        self.phone.open_dialog(
            ConfirmDialog(
                self.phone, MARKOR, "Delete", f"Do you really want to delete {names}?", "OK", remove
            )
        )

    def _rename(self) -> None:
        _ask_new_name(self.phone, self.selected[0], lambda _: self.end_selection())

    def _more(self) -> None:
        if self.selected:
            items = [("Move", lambda: self.phone.open_dialog(MoveDialog(self, self.selected)))]
        else:
            items = [("Import", lambda: None), ("Settings", lambda: None)]
        self.phone.open_dialog(PopupMenu(self.phone, MARKOR, items))

    def on_back(self) -> bool:
        if self.selected:
            self.end_selection()
            return True
        if self.folder != NOTEBOOK and self.folder.startswith(NOTEBOOK):
            self._up()
            return True
        return False

    def on_resume(self) -> None:
        if not storage.is_folder(self.state, self.folder):
            self.folder = NOTEBOOK
        self.selected = [p for p in self.selected if storage.exists(self.state, p)]

    # -- rendering --------------------------------------------------------------------------

    def _row(self, name: str, path: str, is_folder: bool) -> Callable[[Rect], View]:
        if name == "..":
            description = ""
        elif is_folder:
            count = storage.item_count(self.state, path)
            description = f"{count} {'item' if count == 1 else 'items'}"
        else:
            size = storage.size_label(storage.size_bytes(path, self.state.files[path]))
            description = f"{_modified(self.phone)}  {size}"

        def build(box: Rect) -> View:
            children = [
                View(
                    IMAGE,
                    Rect(42, box.y1 + 47, 116, box.y1 + 121),
                    rid=rid(MARKOR, "ui__filesystem_item__image"),
                ),
                text(
                    name, 158, box.y1 + 28, 50, 1040, rid=rid(MARKOR, "ui__filesystem_item__title")
                ),
            ]
            if description:
                children.append(
                    text(
                        description,
                        158,
                        box.y1 + 100,
                        39,
                        1040,
                        rid=rid(MARKOR, "ui__filesystem_item__description"),
                    )
                )
            on_tap = self._up if name == ".." else partial(self._open, path)
            return View(
                LINEAR,
                box,
                rid=rid(MARKOR, "ui__filesystem_item__root"),
                clickable=True,
                focusable=True,
                long_clickable=name != "..",
                selected=path in self.selected,
                on_tap=on_tap,
                on_long_press=partial(self._toggle, path) if name != ".." else None,
                children=children,
            )

        return build

    def _toolbar(self, frame: Rect) -> View:
        if self.selected:
            actions: list[tuple[str, Callable[[], None]]] = [("Favourite", lambda: None)]
            if len(self.selected) == 1:
                actions.append(("Rename", self._rename))
            actions += [
                ("Delete", self._delete),
                ("Share", lambda: None),
                ("More options", self._more),
            ]
            return _action_bar(frame, f"{len(self.selected)} selected", self.end_selection, actions)
        title = "Markor" if self.folder == NOTEBOOK else storage.name_of(self.folder)
        actions = [
            ("Go to", lambda: None),
            ("Sort", lambda: None),
            ("Search", lambda: None),
            ("More options", self._more),
        ]
        return _action_bar(frame, title, None, actions)

    def content(self, frame: Rect) -> View:
        state = self.state
        subfolders, files = storage.listing(state, self.folder)
        rows: list[tuple[int, Callable[[Rect], View]]] = []
        if self.folder != NOTEBOOK:
            rows.append((_ROW, self._row("..", storage.parent(self.folder), True)))
        rows += [
            (_ROW, self._row(name, storage.join(self.folder, name), True)) for name in subfolders
        ]
        rows += [(_ROW, self._row(name, storage.join(self.folder, name), False)) for name in files]
        nav_top = frame.y2 - _BAR
        body = Rect(0, frame.y1 + _BAR, WIDTH, nav_top)
        listing: View = recycler(
            body, rows, self.scroll, rid(MARKOR, "ui__filesystem_fragment__recycler_view")
        )
        if not rows:
            listing = View(
                FRAME,
                body,
                children=[
                    text("Empty", 460, body.y1 + 500, 48, 1000, rid=rid(MARKOR, "empty_hint"))
                ],
            )
        new_item = fab(
            MARKOR,
            "Create a new file or folder",
            lambda: self.phone.open_dialog(NewFileDialog(self)),
            nav_top,
            "fab_add_new_item",
        )
        children = [
            self._toolbar(frame),
            listing,
            new_item,
            self._bottom_nav(Rect(0, nav_top, WIDTH, frame.y2)),
        ]
        return View(FRAME, frame, rid=rid(MARKOR, "main_content"), children=children)

    def _bottom_nav(self, box: Rect) -> View:
        tabs = [
            Tab("Files", rid(MARKOR, "nav_notebook"), True, no_effect),
            Tab("To-Do", rid(MARKOR, "nav_todo"), False, partial(self._open_file, TODO_FILE)),
            Tab(
                "QuickNote",
                rid(MARKOR, "nav_quicknote"),
                False,
                partial(self._open_file, QUICKNOTE_FILE),
            ),
            Tab("More", rid(MARKOR, "nav_more"), False, no_effect),
        ]
        items = navigation_tabs(
            box, tabs, rid(MARKOR, "navigation_bar_item_large_label_view"), (40, 90), 32
        )
        return View(FRAME, box, rid=rid(MARKOR, "bottom_navigation_bar"), children=items)

    def _open_file(self, path: str) -> None:
        self.phone.push(EditorPage(self.phone, path, focus=True))


class EditorPage(Page):
    """A document: the file's text in one editor; every change is written to the storage."""

    _ACTIONS = (
        ("Checkbox", "- [ ] "),
        ("Unordered list", "- "),
        ("Bold", "**"),
        ("Italic", "_"),
        ("Header", "# "),
        ("Horizontal line", "\n----\n"),
    )

    def __init__(self, phone: Phone, path: str, focus: bool = False) -> None:
        super().__init__(phone, MARKOR)
        self.path = path
        self.body = Field(text=phone.state.files.get(path, ""), on_change=self._store)
        self.undo: list[str] = []
        self.redo: list[str] = []
        self.saved = self.body.text
        self.viewing = False  # view mode: the document rendered, one block per line
        self.preview_scroll = ScrollState()
        if focus:
            phone.focus_field(self.body, self)

    def _toggle_view(self) -> None:
        self.viewing = not self.viewing
        self.preview_scroll.offset = 0
        self.phone.blur()
        self.phone.changes += 1

    def _store(self) -> None:
        if self.body.text == self.saved:
            return
        self.undo.append(self.saved)
        self.redo.clear()
        self.saved = self.body.text
        storage.write(self.state, self.path, self.body.text)

    def _restore(self, source: list[str], target: list[str]) -> None:
        if not source:
            return
        target.append(self.body.text)
        self.saved = source.pop()
        self.body.text = self.saved
        self.body.cursor = len(self.saved)
        storage.write(self.state, self.path, self.saved)
        self.phone.changes += 1

    def _insert(self, markup: str) -> None:
        if self.phone.focus is not self.body:
            self.phone.focus_field(self.body, self)
        self.phone.type_text(markup)

    def _rename(self) -> None:
        _ask_new_name(self.phone, self.path, self._renamed)

    def _renamed(self, new_path: str) -> None:
        self.path = new_path

    def _preview(self, frame: Rect) -> View:
        bar = _action_bar(
            frame,
            storage.name_of(self.path),
            lambda: self.phone.pop(self),
            [("Edit", self._toggle_view), ("Share", lambda: None), ("More options", lambda: None)],
            on_title=self._rename,
        )
        body = Rect(0, frame.y1 + _BAR, WIDTH, frame.y2)
        rows = [
            ((len(line) // 42 + 1) * 60 + 30, _block(line))
            for line in self.body.text.splitlines()
            if line.strip()
        ]
        page = scroll_view(
            body,
            rows,
            self.preview_scroll,
            rid(MARKOR, "document__fragment_view_webview"),
            cls="android.webkit.WebView",
            holder=VIEW_GROUP,
        )
        return View(FRAME, frame, rid=rid(MARKOR, "document__fragment__view"), children=[bar, page])

    def content(self, frame: Rect) -> View:
        if self.viewing:
            return self._preview(frame)
        bar = _action_bar(
            frame,
            storage.name_of(self.path),
            lambda: self.phone.pop(self),
            [
                ("Undo", partial(self._restore, self.undo, self.redo)),
                ("Redo", partial(self._restore, self.redo, self.undo)),
                ("Save", lambda: storage.write(self.state, self.path, self.body.text)),
                ("View mode", self._toggle_view),
                ("More options", lambda: None),
            ],
            on_title=self._rename,
        )
        actions_top = frame.y2 - 126
        editor = View(
            EDIT,
            Rect(0, frame.y1 + _BAR, WIDTH, actions_top),
            rid=rid(MARKOR, "document__fragment__edit__highlighting_editor"),
            text=self.body.text,
            clickable=True,
            long_clickable=True,
            focusable=True,
            focused=self.phone.focus is self.body,
            on_tap=self.phone.focuser(self.body, self),
        )
        width = WIDTH // len(self._ACTIONS)
        text_actions = [
            View(
                IMAGE,
                Rect(i * width, actions_top, (i + 1) * width, frame.y2),
                desc=desc,
                clickable=True,
                focusable=True,
                long_clickable=True,
                on_tap=partial(self._insert, markup),
            )
            for i, (desc, markup) in enumerate(self._ACTIONS)
        ]
        return View(
            FRAME,
            frame,
            rid=rid(MARKOR, "document__fragment__edit"),
            children=[
                bar,
                View(
                    FRAME,
                    Rect(0, frame.y1 + _BAR, WIDTH, actions_top),
                    rid=rid(MARKOR, "document__fragment__edit__content_editor__scrolling_parent"),
                    children=[editor],
                ),
                View(
                    "android.widget.HorizontalScrollView",
                    Rect(0, actions_top, WIDTH, frame.y2),
                    rid=rid(MARKOR, "document__fragment__edit__text_actions_bar__scrolling_parent"),
                    children=[
                        View(
                            LINEAR,
                            Rect(0, actions_top, WIDTH, frame.y2),
                            rid=rid(MARKOR, "document__fragment__edit__text_actions_bar"),
                            children=text_actions,
                        )
                    ],
                ),
            ],
        )


def _block(line: str) -> Callable[[Rect], View]:
    """One rendered paragraph of the view mode."""
    return lambda box: View(TEXT, Rect(42, box.y1 + 15, 1038, box.y2 - 15), text=line.strip())


def markor_root(phone: Phone) -> Page:
    return FileListPage(phone)
