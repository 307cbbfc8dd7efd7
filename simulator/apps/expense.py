"""Pro Expense: a week's total and recent records, the full list by day, and the entry form.

A record opens its details on tap; in the list a long press selects records to delete. The
entry form takes a name, an amount, one category, a date (through the date picker) and a note.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from functools import partial

from simulator.apps.datepicker import DatePickerDialog
from simulator.apps.dialogs import ConfirmDialog
from simulator.display import WIDTH
from simulator.runtime import Dialog, Page, Phone
from simulator.state import EXPENSE, EXPENSE_CATEGORIES, Expense
from simulator.view import (
    CARD,
    FRAME,
    IMAGE,
    LINEAR,
    RECYCLER,
    RELATIVE,
    TEXT,
    VIEW,
    VIEW_GROUP,
    Rect,
    ScrollState,
    View,
    rid,
)
from simulator.widgets import (
    Field,
    button,
    edit_text,
    fab,
    icon_button,
    navigation_drawer,
    recycler,
    text,
)

_BAR = 147
_ROW = 200
_HEADER = 110
_DRAWER_ITEMS = ("Home", "Expenses", "Statistics", "Backup", "Settings", "About")


def amount_label(amount: float) -> str:
    return f"{amount:,.2f}"


def date_label(iso: str) -> str:
    """ "2024-10-15" -> "Oct 15, 2024", as the record list heads each day."""
    day = dt.date.fromisoformat(iso)
    return f"{day.strftime('%b')} {day.day}, {day.year}"


def _newest_first(expenses: list[Expense]) -> list[Expense]:
    return sorted(expenses, key=lambda e: e.date, reverse=True)


def _day_header(label: str) -> Callable[[Rect], View]:
    return lambda box: text(label, 52, box.y1 + 40, 37, 1000, rid=rid(EXPENSE, "tv_date_header"))


def _record_row(
    expense: Expense,
    selected: bool,
    on_tap: Callable[[], None],
    on_long_press: Callable[[], None] | None,
) -> Callable[[Rect], View]:
    def build(box: Rect) -> View:
        return View(
            FRAME,
            box,
            clickable=True,
            focusable=True,
            long_clickable=on_long_press is not None,
            selected=selected,
            on_tap=on_tap,
            on_long_press=on_long_press,
            children=[
                View(
                    RELATIVE,
                    box,
                    rid=rid(EXPENSE, "cd_expense"),
                    children=[
                        View(
                            CARD,
                            Rect(52, box.y1 + 48, 183, box.y1 + 179),
                            rid=rid(EXPENSE, "cv_category"),
                            children=[
                                View(
                                    IMAGE,
                                    Rect(78, box.y1 + 74, 157, box.y1 + 153),
                                    rid=rid(EXPENSE, "imv_category"),
                                )
                            ],
                        ),
                        text(expense.name, 246, box.y1 + 48, 44, 760, rid=rid(EXPENSE, "tv_name")),
                        text(
                            f"{expense.category} · {date_label(expense.date)}",
                            246,
                            box.y1 + 118,
                            33,
                            760,
                            rid=rid(EXPENSE, "tv_date"),
                        ),
                        View(
                            LINEAR,
                            Rect(780, box.y1 + 70, 1017, box.y1 + 140),
                            rid=rid(EXPENSE, "linear_amount"),
                            children=[
                                text(
                                    amount_label(expense.amount),
                                    780,
                                    box.y1 + 70,
                                    46,
                                    980,
                                    rid=rid(EXPENSE, "tv_amount"),
                                ),
                                text(
                                    "$",
                                    985,
                                    box.y1 + 70,
                                    33,
                                    1017,
                                    rid=rid(EXPENSE, "tv_currency_symbol"),
                                ),
                            ],
                        ),
                    ],
                )
            ],
        )

    return build


class ExpenseDetailSheet(Dialog):
    """The bottom sheet a record opens: what was recorded, and Edit."""

    def __init__(self, phone: Phone, expense: Expense) -> None:
        super().__init__(phone, EXPENSE)
        self.expense = expense

    def _edit(self) -> None:
        self.phone.close_dialog(self)
        self.phone.push(ExpenseEntryPage(self.phone, self.expense))

    def window(self) -> View:
        e = self.expense
        top = 1180
        box = Rect(0, top, WIDTH, 2337)
        lines = [
            ("Name", e.name, "tv_name_value"),
            ("Amount", f"$ {amount_label(e.amount)}", "tv_amount_value"),
            ("Category", e.category, "tv_category_value"),
            ("Date", date_label(e.date), "tv_date_value"),
            ("Note", e.note or "-", "tv_note_value"),
        ]
        children: list[View] = [
            text("Expense Detail", 42, top + 42, 52, 800, rid=rid(EXPENSE, "tv_expense_detail")),
            icon_button(
                "Close",
                Rect(933, top + 21, 1059, top + 147),
                self.cancel,
                rid(EXPENSE, "btn_close"),
            ),
        ]
        for position, (label, value, name) in enumerate(lines):
            y = top + 180 + position * 130
            children.append(text(label, 84, y, 37, 330))
            children.append(text(value, 360, y, 42, 1000, rid=rid(EXPENSE, name)))
        children.append(
            button(
                "Edit",
                Rect(42, box.y2 - 200, 1038, box.y2 - 60),
                self._edit,
                rid(EXPENSE, "btn_edit"),
            )
        )
        screen = Rect(0, 0, WIDTH, 2400)
        return View(
            FRAME,
            screen,
            children=[
                View(VIEW, screen, rid=rid(EXPENSE, "touch_outside"), on_tap=self.cancel),
                View(
                    FRAME,
                    box,
                    rid=rid(EXPENSE, "design_bottom_sheet"),
                    on_tap=lambda: None,
                    children=[View(VIEW_GROUP, box, children=children)],
                ),
            ],
        )


class ExpenseEntryPage(Page):
    """New record, or an existing one being edited."""

    def __init__(self, phone: Phone, expense: Expense | None = None) -> None:
        super().__init__(phone, EXPENSE)
        self.expense = expense
        self.name = Field(text=expense.name if expense else "", hint="Name", max_length=20)
        self.amount = Field(
            text=amount_label(expense.amount).replace(",", "") if expense else "",
            hint="Amount",
            max_length=10,
        )
        self.note = Field(text=expense.note if expense else "", hint="Note", max_length=100)
        self.category = expense.category if expense else EXPENSE_CATEGORIES[0]
        self.date = dt.date.fromisoformat(expense.date if expense else phone.state.date)
        self.error = ""
        phone.focus_field(self.name, self)

    def _choose(self, category: str) -> None:
        self.category = category
        self.phone.changes += 1

    def _pick_date(self) -> None:
        def chosen(day: dt.date) -> None:
            self.date = day

        self.phone.open_dialog(DatePickerDialog(self.phone, EXPENSE, self.date, chosen))

    def _save(self) -> None:
        name = self.name.text.strip()
        try:
            amount = float(self.amount.text.replace(",", "").strip())
        except ValueError:
            amount = -1.0
        if not name:
            self.error = "Name is required"
        elif amount <= 0:
            self.error = "Amount is required"
        else:
            self.error = ""
        if self.error:
            self.phone.changes += 1
            return
        fields = {
            "name": name,
            "amount": round(amount, 2),
            "category": self.category,
            "date": self.date.isoformat(),
            "note": self.note.text.strip(),
        }
        if self.expense is None:
            self.state.expenses = [*self.state.expenses, Expense(**fields)]
        else:
            for key, value in fields.items():
                setattr(self.expense, key, value)
        self.phone.pop(self)

    def content(self, frame: Rect) -> View:
        title = "Expense Entry" if self.expense is None else "Update Expense"
        bar = Rect(0, frame.y1, WIDTH, frame.y1 + _BAR)
        focus = self.phone.focus
        y = bar.y2 + 26
        children: list[View] = [
            View(
                FRAME,
                bar,
                rid=rid(EXPENSE, "tb_entry"),
                children=[
                    text(title, 42, bar.y1 + 40, 52, 800, rid=rid(EXPENSE, "tv_entry_title")),
                    icon_button(
                        "Close",
                        Rect(933, bar.y1 + 10, 1059, bar.y2 - 10),
                        lambda: self.phone.pop(self),
                        rid(EXPENSE, "btn_entry_close"),
                    ),
                ],
            )
        ]
        for field, name in ((self.name, "edt_name"), (self.amount, "edt_amount")):
            children.append(
                edit_text(
                    field,
                    Rect(42, y, 1038, y + 150),
                    focus is field,
                    self.phone.focuser(field, self),
                    rid(EXPENSE, name),
                )
            )
            y += 176
        children.append(self._categories(Rect(0, y, WIDTH, y + 3 * 110)))
        y += 3 * 110 + 20
        shown = self.date.strftime("%m/%d/%Y")
        children.append(
            View(
                LINEAR,
                Rect(42, y, 1038, y + 130),
                rid=rid(EXPENSE, "ll_date"),
                clickable=True,
                focusable=True,
                on_tap=self._pick_date,
                children=[
                    text("Date", 84, y + 40, 40, 300),
                    text(shown, 640, y + 40, 44, 1000, rid=rid(EXPENSE, "tv_date")),
                ],
            )
        )
        y += 150
        children.append(
            edit_text(
                self.note,
                Rect(42, y, 1038, y + 150),
                focus is self.note,
                self.phone.focuser(self.note, self),
                rid(EXPENSE, "edt_note"),
            )
        )
        y += 176
        if self.error:
            children.append(text(self.error, 63, y - 20, 37, 1000, rid=rid(EXPENSE, "tv_error")))
            y += 40
        children.append(
            button("Save", Rect(42, y, 1038, y + 140), self._save, rid(EXPENSE, "btn_save"))
        )
        return View(
            VIEW_GROUP,
            frame,
            children=[
                View(
                    "androidx.core.widget.NestedScrollView",
                    Rect(0, bar.y2, WIDTH, frame.y2),
                    rid=rid(EXPENSE, "sv_entry"),
                    children=[
                        View(RELATIVE, Rect(0, bar.y2, WIDTH, frame.y2), children=children[1:])
                    ],
                ),
                children[0],
            ],
        )

    def _categories(self, box: Rect) -> View:
        columns = 4
        width = (box.width - 84) // columns
        items = []
        for position, name in enumerate(EXPENSE_CATEGORIES):
            row, column = divmod(position, columns)
            cell = Rect(
                42 + column * width,
                box.y1 + row * 110,
                42 + (column + 1) * width,
                box.y1 + (row + 1) * 110,
            )
            items.append(
                View(
                    CARD,
                    cell.inset(8, 8),
                    rid=rid(EXPENSE, "cv_category"),
                    clickable=True,
                    focusable=True,
                    selected=name == self.category,
                    on_tap=partial(self._choose, name),
                    children=[
                        text(
                            name,
                            cell.x1 + 24,
                            cell.y1 + 32,
                            32,
                            cell.x2 - 12,
                            rid=rid(EXPENSE, "tv_category"),
                        )
                    ],
                )
            )
        return View(
            RECYCLER,
            box,
            rid=rid(EXPENSE, "rv_category"),
            children=items,
        )


class ExpenseLogsPage(Page):
    """Every record, newest day first; long press starts selecting records to delete."""

    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, EXPENSE)
        self.selected: list[Expense] = []
        self.scroll = ScrollState()

    def _changed(self) -> None:
        self.phone.changes += 1

    def _toggle(self, expense: Expense) -> None:
        if expense in self.selected:
            self.selected = [e for e in self.selected if e is not expense]
        else:
            self.selected = [*self.selected, expense]
        self._changed()

    def _tap(self, expense: Expense) -> None:
        if self.selected:
            self._toggle(expense)
        else:
            self.phone.open_dialog(ExpenseDetailSheet(self.phone, expense))

    def _delete(self) -> None:
        doomed = list(self.selected)
        count = len(doomed)

        def remove() -> None:
            self.state.expenses = [
                e for e in self.state.expenses if not any(e is d for d in doomed)
            ]
            self.selected = []
            self._changed()

        noun = "item" if count == 1 else "items"
        self.phone.open_dialog(
            ConfirmDialog(
                self.phone,
                EXPENSE,
                "Delete Items",
                f"{count} {noun} will be deleted!",
                "Confirm",
                remove,
            )
        )

    def on_back(self) -> bool:
        if self.selected:
            self.selected = []
            return True
        return False

    def on_resume(self) -> None:
        self.selected = [e for e in self.selected if any(e is s for s in self.state.expenses)]

    def content(self, frame: Rect) -> View:
        bar = Rect(0, frame.y1, WIDTH, frame.y1 + _BAR)
        if self.selected:
            toolbar_children = [
                icon_button("Cancel", Rect(0, bar.y1, _BAR, bar.y2), lambda: self.phone.back()),
                text(f"{len(self.selected)} selected", 189, bar.y1 + 40, 52, 700),
                icon_button(
                    "Delete", Rect(933, bar.y1, 1080, bar.y2), self._delete, rid(EXPENSE, "delete")
                ),
            ]
        else:
            toolbar_children = [
                icon_button(
                    "Navigate up", Rect(0, bar.y1, _BAR, bar.y2), lambda: self.phone.pop(self)
                ),
                text("Expenses", 189, bar.y1 + 40, 52, 700),
                icon_button(
                    "Filter", Rect(933, bar.y1, 1080, bar.y2), lambda: None, rid(EXPENSE, "filter")
                ),
            ]
        rows: list[tuple[int, Callable[[Rect], View]]] = []
        day = ""
        for expense in _newest_first(self.state.expenses):
            if expense.date != day:
                day = expense.date
                rows.append((_HEADER, _day_header(date_label(day))))
            rows.append(
                (
                    _ROW,
                    _record_row(
                        expense,
                        any(expense is s for s in self.selected),
                        partial(self._tap, expense),
                        partial(self._toggle, expense),
                    ),
                )
            )
        body = Rect(0, bar.y2, WIDTH, frame.y2)
        listing: View
        if rows:
            listing = recycler(body, rows, self.scroll, rid(EXPENSE, "rv_expense"))
        else:
            listing = text("No Data", 440, body.y1 + 600, 48, 1000, rid=rid(EXPENSE, "tv_no_data"))
        return View(
            FRAME,
            frame,
            rid=rid(EXPENSE, "ml_expense"),
            children=[
                View(VIEW_GROUP, bar, rid=rid(EXPENSE, "tb_expense"), children=toolbar_children),
                listing,
            ],
        )


class HomePage(Page):
    """The dashboard: this week's total, recent records, More, and the add button."""

    def __init__(self, phone: Phone) -> None:
        super().__init__(phone, EXPENSE)
        self.drawer_open = False
        self.scroll = ScrollState()

    def _toggle_drawer(self) -> None:
        self.drawer_open = not self.drawer_open
        self.phone.changes += 1

    def _navigate(self, item: str) -> None:
        self.drawer_open = False
        self.phone.changes += 1
        if item == "Expenses":
            self.phone.push(ExpenseLogsPage(self.phone))

    def on_back(self) -> bool:
        if self.drawer_open:
            self.drawer_open = False
            return True
        return False

    def _details(self, expense: Expense) -> None:
        self.phone.open_dialog(ExpenseDetailSheet(self.phone, expense))

    def _week_total(self) -> float:
        today = dt.date.fromisoformat(self.state.date)
        monday = today - dt.timedelta(days=today.weekday())
        return sum(
            e.amount
            for e in self.state.expenses
            if e.category != "Income"
            and monday <= dt.date.fromisoformat(e.date) < monday + dt.timedelta(days=7)
        )

    def content(self, frame: Rect) -> View:
        if self.drawer_open:  # the open drawer hides the content from accessibility
            return self._drawer(frame)
        y = frame.y1
        card = Rect(42, y + 168, 1038, y + 640)
        recent_top = card.y2 + 30
        body = Rect(0, recent_top + 130, WIDTH, frame.y2)
        recent = _newest_first(self.state.expenses)[:10]
        rows = [
            (
                _ROW,
                _record_row(e, False, partial(self._details, e), None),
            )
            for e in recent
        ]
        listing: View = (
            recycler(body, rows, self.scroll, rid(EXPENSE, "rv_recent"))
            if rows
            else text(
                "No expenses yet", 360, body.y1 + 300, 44, 1000, rid=rid(EXPENSE, "tv_no_data")
            )
        )
        return View(
            VIEW_GROUP,
            frame,
            rid=rid(EXPENSE, "ml_home"),
            children=[
                icon_button(
                    "Open navigation drawer",
                    Rect(21, y + 21, 147, y + 147),
                    self._toggle_drawer,
                    rid(EXPENSE, "btn_drawer"),
                ),
                text("Pro Expense", 189, y + 50, 52, 800, rid=rid(EXPENSE, "tv_title")),
                View(
                    CARD,
                    card,
                    rid=rid(EXPENSE, "cd_value"),
                    children=[
                        text("This week", 84, card.y1 + 40, 37, 800, rid=rid(EXPENSE, "tv_week")),
                        text(
                            amount_label(self._week_total()),
                            84,
                            card.y1 + 110,
                            96,
                            900,
                            rid=rid(EXPENSE, "tv_value"),
                        ),
                        text("$", 940, card.y1 + 140, 40, 1000, rid=rid(EXPENSE, "tv_currency")),
                        View(
                            VIEW,
                            Rect(84, card.y1 + 260, 996, card.y2 - 30),
                            rid=rid(EXPENSE, "img_graph"),
                        ),
                    ],
                ),
                text("Recent", 52, recent_top + 40, 44, 500, rid=rid(EXPENSE, "tv_recent")),
                button(
                    "More",
                    Rect(760, recent_top, 1038, recent_top + 126),
                    lambda: self.phone.push(ExpenseLogsPage(self.phone)),
                    rid(EXPENSE, "btn_recent_more"),
                ),
                listing,
                fab(
                    EXPENSE,
                    "Add expense",
                    lambda: self.phone.push(ExpenseEntryPage(self.phone)),
                    frame.y2 - 42,
                    "fb_main_add",
                ),
            ],
        )

    def _drawer(self, frame: Rect) -> View:
        panel = Rect(0, frame.y1, 840, frame.y2)
        rows = []
        for position, item in enumerate(_DRAWER_ITEMS):
            y = panel.y1 + 340 + position * 147
            rows.append(
                View(
                    "androidx.appcompat.widget.LinearLayoutCompat",
                    Rect(0, y, panel.x2, y + 147),
                    clickable=True,
                    focusable=True,
                    selected=item == "Home",
                    on_tap=partial(self._navigate, item),
                    children=[
                        View(
                            IMAGE,
                            Rect(63, y + 42, 126, y + 105),
                            rid=rid(EXPENSE, "design_menu_item_icon"),
                        ),
                        View(
                            TEXT,
                            Rect(189, y + 45, panel.x2 - 20, y + 102),
                            rid=rid(EXPENSE, "design_menu_item_text"),
                            text=item,
                        ),
                    ],
                )
            )
        navigation = View(
            FRAME,
            panel,
            rid=rid(EXPENSE, "nv_main"),
            children=[
                text("Pro Expense", 63, panel.y1 + 200, 52, 800, rid=rid(EXPENSE, "tv_app_name")),
                View(
                    RECYCLER,
                    Rect(0, panel.y1 + 320, panel.x2, panel.y2),
                    rid=rid(EXPENSE, "design_navigation_view"),
                    children=rows,
                ),
            ],
        )
        return navigation_drawer(frame, navigation, self._toggle_drawer)


def expense_root(phone: Phone) -> Page:
    return HomePage(phone)
