"""Pro Expense: expenses added one or three at a time, deleted, deduplicated, and looked up."""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Callable

from simulator.state import EXPENSE
from simulator.tasks import pools
from simulator.tasks.app_steps import TODAY, hold, pick_date_steps, spoken_date
from simulator.tasks.base import (
    Params,
    PlanStep,
    State,
    Task,
    done,
    named,
    normalize_text,
    open_app,
    remember,
    tap,
    type_in,
)

EXPENSE_NAMES = {
    "Food": ("Groceries", "Coffee", "Bakery Items", "Food Delivery", "Café con leche"),
    "Transportation": ("Taxi Fare", "Gas", "Parking Fees", "Bike Repairs", "Flight Tickets"),
    "Housing": ("Home Repairs", "Utilities", "Furnishing", "Cleaning Services"),
    "Clothes": ("New Jacket", "Shoes", "Jeans", "Laundry"),
    "Health Care": ("Doctor Visits", "Medications", "Dental Care", "Gym Membership"),
    "Education": ("Textbooks", "Online Courses", "Workshops", "Library Fees"),
    "Entertainment": ("Concert Tickets", "Movie Night", "Video Games", "Museum Tickets"),
    "Social": ("Dinner Party", "Wedding Gift", "Night Out"),
    "Donation": ("Charity", "Fundraising Events"),
    "Income": ("Salary", "Bonus", "Dividends"),
    "Others": ("Pet Supplies", "Stationery", "Subscriptions"),
}
NAME_LENGTH = 20  # the longest name the app's name field takes
_QUALIFIERS = pools.words(
    "Lidl, Aldi, IKEA, Zara, Uber, Shell, Amazon, Apple, Decathlon, Fnac, El Corte Inglés, "
    "Mercadona, Rewe, Tesco, Migros, Monoprix, Oct, Sept, Aug, wk 41, wk 40, trip, Lyon, "
    "Porto, Kyoto, Oslo, Rome, kids, team, mom"
)


def _expense_name(rng: random.Random) -> tuple[str, str]:
    """A name and its category: "Groceries Lidl", "Taxi Fare 318", "Café con leche 7"."""
    category = rng.choice(sorted(EXPENSE_NAMES))
    base = rng.choice(EXPENSE_NAMES[category])
    qualifier = rng.choice(_QUALIFIERS) if rng.random() < 0.5 else str(rng.randrange(2, 1000))
    name = f"{base} {qualifier}"
    if len(name) > NAME_LENGTH:  # a long name takes a number, which always fits
        name = f"{base} {rng.randrange(2, 1000)}"[:NAME_LENGTH].rstrip()
    return name, category


def _note(rng: random.Random) -> str:
    """A note that never says the expense is reimbursable: one task keys on that word."""
    shapes = (
        lambda: pools.pick_word(rng, "Paid by card, Monthly, Cash, For the office, Gift"),
        lambda: f"Split with {pools.first_name(rng)}",
        lambda: f"Receipt #{rng.randrange(100, 100000)}",
        lambda: f"Invoice {rng.randrange(2020, 2025)}-{rng.randrange(1, 1000):03d}",
        lambda: f"Paid by card ending {rng.randrange(10000):04d}",
        lambda: f"Trip to {pools.pick_word(rng, 'Lyon, Porto, Kyoto, Oslo, Lima, Cairo')}",
    )
    return rng.choice(shapes)()


def _expenses(rng: random.Random, count: int) -> list[dict[str, object]]:
    """`count` expenses with different names, dated this month up to today."""
    chosen: dict[str, str] = {}
    while len(chosen) < count:
        name, category = _expense_name(rng)
        if not pools.clashes(name, chosen):
            chosen[name] = category
    return [
        {
            "name": name,
            "amount": rng.randrange(100, 50000) / 100,
            "category": category,
            "date": TODAY.replace(day=rng.randrange(1, TODAY.day + 1)).isoformat(),
            "note": _note(rng),
        }
        for name, category in chosen.items()
    ]


def _money(amount: object) -> str:
    return f"{float(str(amount)):.2f}"


def _matches(record: dict[str, object], wanted: dict[str, object], fields: tuple[str, ...]) -> bool:
    for name in fields:
        if name == "amount":
            if abs(float(str(record["amount"])) - float(str(wanted["amount"]))) > 0.005:
                return False
        elif normalize_text(str(record[name])) != normalize_text(str(wanted[name])):
            return False
    return True


def _recorded(state: State, wanted: dict[str, object], fields: tuple[str, ...]) -> bool:
    return any(_matches(record, wanted, fields) for record in state["expenses"])


def _add_single(rng: random.Random) -> Params:
    expense, *noise = _expenses(rng, 5)
    return {
        **expense,
        "amount_text": _money(expense["amount"]),
        "day": spoken_date(dt.date.fromisoformat(str(expense["date"]))),
        "noise": noise,
    }


def _entry_steps(expense: dict[str, object], with_date: bool) -> list[PlanStep]:
    steps = [
        tap("Add expense"),
        type_in(None, str(expense["name"])),
        type_in("Amount", _money(expense["amount"])),
        tap(str(expense["category"])),
    ]
    if with_date:
        steps += [tap("Date"), *pick_date_steps(dt.date.fromisoformat(str(expense["date"])))]
    return [*steps, type_in("Note", str(expense["note"])), tap("Save")]


def _add_multiple(rng: random.Random) -> Params:
    rows = [{**row, "date": TODAY.isoformat()} for row in _expenses(rng, 3)]
    listing = "\n".join(
        f"{row['name']}, ${_money(row['amount'])}, {row['category']}, {row['note']}" for row in rows
    )
    return {"rows": rows, "listing": listing}


def _delete(count: int, noise: int) -> Callable[[random.Random], Params]:
    def sample(rng: random.Random) -> Params:
        rows = _expenses(rng, count + noise)
        targets = rows[:count]
        return {
            "rows": rows,
            "targets": targets,
            "names": ", ".join(str(row["name"]) for row in targets),
        }

    return sample


def _deleted(state: State, p: Params) -> bool:
    names = {normalize_text(str(t["name"])) for t in p["targets"]}
    kept = [row for row in p["rows"] if normalize_text(str(row["name"])) not in names]
    left = state["expenses"]
    return len(left) == len(kept) and all(_recorded(state, row, _ALL) for row in kept)


def _delete_steps(names: list[str]) -> list[PlanStep]:
    first, *rest = names
    return [tap("More"), hold(first), *[tap(name) for name in rest], tap("Delete"), tap("Confirm")]


def _duplicates(rng: random.Random) -> Params:
    rows = _expenses(rng, 5)
    return {"rows": rows, "duplicate": rows[0]}


def _deduplicated(state: State, p: Params) -> bool:
    copies = sum(1 for record in state["expenses"] if _matches(record, p["duplicate"], _ALL))
    others = all(_recorded(state, row, _ALL) for row in p["rows"][1:])
    return copies == 1 and others and len(state["expenses"]) == len(p["rows"])


def _from_markor(rng: random.Random) -> Params:
    rows = _expenses(rng, 6)
    targets = [{**row, "note": f"{row['note']}. Reimbursable."} for row in rows[:2]]
    listed = targets + rows[2:]
    rng.shuffle(listed)
    text = "name, amount_dollars, category_name, note\n" + "\n".join(map(_listed, listed))
    return {"targets": [{**t, "date": TODAY.isoformat()} for t in targets], "text": text}


def _listed(row: dict[str, object]) -> str:
    """A transaction as a line of the Markor file."""
    return f"{row['name']}, {_money(row['amount'])}, {row['category']}, {row['note']}"


def _read_in_markor(name: str) -> list[PlanStep]:
    return [open_app("Markor"), tap(name), tap("View mode")]


def _same_amount(given: str | None, amount: float) -> bool:
    if given is None:
        return False
    numbers = re.findall(r"\d[\d,]*(?:\.\d+)?", given)
    return any(abs(float(n.replace(",", "")) - amount) < 0.005 for n in numbers)


_ALL = ("name", "amount", "category", "date", "note")

TASKS: list[Task] = [
    Task(
        name="ExpenseAddSingle",
        app=EXPENSE,
        family="expense",
        sample=_add_single,
        setup=lambda p: {"expenses": p["noise"]},
        plan=lambda p: [open_app("Pro Expense"), *_entry_steps(p, with_date=True), done()],
        check=lambda s, p, a: _recorded(s, p, _ALL) and len(s["expenses"]) == len(p["noise"]) + 1,
        changes=lambda p: {"expenses": named("name", p["name"])},
        max_steps=14,
    ),
    Task(
        name="ExpenseAddMultiple",
        app=EXPENSE,
        family="expense",
        sample=_add_multiple,
        plan=lambda p: [
            open_app("Pro Expense"),
            *[step for row in p["rows"] for step in _entry_steps(row, with_date=False)],
            done(),
        ],
        check=lambda s, p, a: (
            all(_recorded(s, row, _ALL) for row in p["rows"]) and len(s["expenses"]) == 3
        ),
        changes=lambda p: {"expenses": named("name", *(str(row["name"]) for row in p["rows"]))},
        max_steps=26,
    ),
    Task(
        name="ExpenseAddMultipleFromMarkor",
        app=EXPENSE,
        family="multi_app",
        sample=_from_markor,
        setup=lambda p: {"files": {"Documents/Markor/my_expenses.txt": p["text"]}},
        plan=lambda p: [
            *_read_in_markor("my_expenses.txt"),
            *[remember(line) for line in map(_listed, p["targets"])],
            open_app("Pro Expense"),
            *[step for row in p["targets"] for step in _entry_steps(row, with_date=False)],
            done(),
        ],
        check=lambda s, p, a: (
            all(_recorded(s, row, ("name", "amount", "category")) for row in p["targets"])
            and len(s["expenses"]) == len(p["targets"])
        ),
        changes=lambda p: {"expenses": named("name", *(str(row["name"]) for row in p["targets"]))},
        max_steps=22,
    ),
    Task(
        name="ExpenseDeleteSingle",
        app=EXPENSE,
        family="expense",
        sample=_delete(1, 4),
        setup=lambda p: {"expenses": p["rows"]},
        plan=lambda p: [
            open_app("Pro Expense"),
            *_delete_steps([str(t["name"]) for t in p["targets"]]),
            done(),
        ],
        check=lambda s, p, a: _deleted(s, p),
        changes=lambda p: {"expenses": named("name", *(str(row["name"]) for row in p["targets"]))},
        max_steps=10,
    ),
    Task(
        name="ExpenseDeleteMultiple",
        app=EXPENSE,
        family="expense",
        sample=_delete(3, 3),
        setup=lambda p: {"expenses": p["rows"]},
        plan=lambda p: [
            open_app("Pro Expense"),
            *_delete_steps([str(t["name"]) for t in p["targets"]]),
            done(),
        ],
        check=lambda s, p, a: _deleted(s, p),
        changes=lambda p: {"expenses": named("name", *(str(row["name"]) for row in p["targets"]))},
        max_steps=12,
    ),
    Task(
        name="ExpenseDeleteDuplicates",
        app=EXPENSE,
        family="expense",
        sample=_duplicates,
        setup=lambda p: {"expenses": [*p["rows"], p["duplicate"]]},
        plan=lambda p: [
            open_app("Pro Expense"),
            *_delete_steps([str(p["duplicate"]["name"])]),
            done(),
        ],
        check=lambda s, p, a: _deduplicated(s, p),
        changes=lambda p: {"expenses": named("name", str(p["duplicate"]["name"]))},
        max_steps=10,
    ),
    Task(
        name="ExpenseFindAmount",
        app=EXPENSE,
        family="question",
        sample=_add_single,
        setup=lambda p: {"expenses": [*p["noise"], {k: p[k] for k in _ALL}]},
        plan=lambda p: [open_app("Pro Expense"), done(answer=f"${p['amount_text']}")],
        check=lambda s, p, a: _same_amount(a, float(p["amount"])),
        max_steps=8,
    ),
]
