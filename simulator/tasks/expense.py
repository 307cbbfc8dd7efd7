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
        templates=(
            "Add the following expense into Pro Expense: {name}, ${amount_text}, category "
            "{category}, on {day}, with the note {note}.",
            "In Pro Expense, record {name} for ${amount_text} under {category}, dated {day}, "
            "note: {note}.",
            "Could you enter a new expense in Pro Expense? It is {name}, amount ${amount_text}, "
            "category {category}, date {day}, note {note}.",
            "I need {name} saved in Pro Expense as a {category} expense of ${amount_text} from "
            "{day}, with {note} as its note.",
            "Pro Expense, new expense: {name}; ${amount_text}; {category}; {day}. Note: {note}.",
            "I spent ${amount_text} on {name} on {day}, so please put it in Pro Expense in the "
            "{category} category with the note {note}.",
            "Hey, can you quickly jot {name} into Pro Expense? ${amount_text}, {category}, {day}, "
            "and the note should read {note}.",
            "Before I forget: in Pro Expense, create an expense called {name} worth "
            "${amount_text}, filed under {category}, for {day}, noted as {note}.",
            "Would you mind putting an entry in Pro Expense for {name}? Set the amount to "
            "${amount_text}, pick {category}, choose {day} as the date and write {note} in the "
            "note.",
            "It would help if Pro Expense had an entry for {name}: ${amount_text} in {category} "
            "on {day}, noted {note}.",
            "We should track {name} in Pro Expense. Open the app, then save it as ${amount_text} "
            "under {category} with the date {day} and the note {note}.",
            "A {category} expense named {name}, ${amount_text}, dated {day} and carrying the note "
            "{note}, should end up in Pro Expense.",
            "Log an expense in Pro Expense: {name} cost ${amount_text} ({category}) on {day}; "
            "add the note {note}.",
        ),
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
        templates=(
            "Add the following expenses into Pro Expense (name, amount, category, note):\n"
            "{listing}",
            "Record these three expenses in Pro Expense, each with its category and note:\n"
            "{listing}",
            "Please put these expenses into Pro Expense; each line gives the name, amount, "
            "category and note:\n{listing}",
            "I need the three expenses below saved in Pro Expense with their categories and "
            "notes:\n{listing}",
            "Pro Expense: log each of these (name, amount, category, note):\n{listing}",
            "Could you add each of the following to Pro Expense as a separate expense, with the "
            "name, amount, category and note as given?\n{listing}",
            "Hey, could you pop these three into Pro Expense real quick? Name, amount, category "
            "and note are on each line:\n"
            "{listing}",
            "For my budget, I have three expenses to add to Pro Expense. Each one shows its name, "
            "amount, category and note:\n"
            "{listing}",
            "Would you mind creating three new Pro Expense entries from this list, written as "
            "name, amount, category, note?\n"
            "{listing}",
            "It would be great if Pro Expense ended up with these three expenses, using the name, "
            "amount, category and note shown for each:\n"
            "{listing}",
            "Three expenses to save in Pro Expense, one per line, in the order name, amount, "
            "category, note:\n"
            "{listing}",
            "Let's get these into Pro Expense. Create one expense for each row of this list, then "
            "fill in the name, amount, category and note it gives:\n"
            "{listing}",
            "In Pro Expense, enter every line below as an expense (name, amount, category, "
            "note):\n{listing}",
        ),
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
        templates=(
            "Go through the transactions in my_expenses.txt in Markor. Log the reimbursable "
            "transactions in Pro Expense.",
            "My Markor note my_expenses.txt lists transactions; add the ones marked reimbursable "
            "to Pro Expense.",
            "Open my_expenses.txt in Markor, find the transactions marked reimbursable, and "
            "enter them in Pro Expense.",
            "Would it be possible to read my_expenses.txt in Markor and add each reimbursable "
            "transaction to Pro Expense?",
            "I need the reimbursable transactions listed in my_expenses.txt (Markor) recorded in "
            "Pro Expense.",
            "Using Markor and Pro Expense: the file my_expenses.txt lists transactions, and the "
            "reimbursable ones should be logged as expenses.",
            "Hey, can you check my_expenses.txt in Markor and put the reimbursable transactions "
            "into Pro Expense as expenses?",
            "For my reimbursement claim, I need Pro Expense to contain the transactions from "
            "my_expenses.txt in Markor that are marked reimbursable.",
            "How about reading through my_expenses.txt with Markor and then adding the "
            "reimbursable transactions to Pro Expense?",
            "Markor's my_expenses.txt has some reimbursable transactions. Please record each of "
            "those in Pro Expense.",
            "The reimbursable items listed in my_expenses.txt, a Markor note, should all end up "
            "as expenses in Pro Expense.",
            "We need to claim back some costs: look in my_expenses.txt in Markor, pick out the "
            "transactions flagged reimbursable, then save them in Pro Expense.",
            "Copy every reimbursable transaction from the Markor file my_expenses.txt into Pro "
            "Expense.",
        ),
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
        templates=(
            "Delete the following expense from Pro Expense: {names}.",
            "Remove the {names} expense in Pro Expense.",
            "When you get a chance, could you erase the expense {names} from Pro Expense?",
            "I'd like the {names} expense deleted from Pro Expense.",
            "Pro Expense: remove the entry {names}.",
            "The {names} expense in Pro Expense was a mistake, so please delete it.",
            "Hey, could you quickly delete the {names} expense in Pro Expense for me?",
            "Since I got a refund, the expense {names} has to go from Pro Expense; please remove "
            "it.",
            "Can {names} be erased from my Pro Expense records, please?",
            "Pro Expense should no longer list the expense {names}; remove it.",
            "Go to Pro Expense, then find the expense named {names} and delete it.",
            "I don't want {names} in Pro Expense anymore. Remove that expense, please.",
            "In Pro Expense, delete my record of {names}.",
        ),
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
        templates=(
            "Delete the following expenses from Pro Expense: {names}.",
            "Remove these expenses in Pro Expense: {names}.",
            "Can I get you to erase the expenses {names} from Pro Expense?",
            "I need these expenses gone from Pro Expense: {names}. Please delete them.",
            "Pro Expense cleanup: remove the expenses {names}.",
            "Using Pro Expense, get rid of the following expenses: {names}.",
            "Hey, could you remove these from Pro Expense for me: {names}?",
            "Those expenses were entered by mistake, so please erase {names} from Pro Expense.",
            "Could the expenses {names} be deleted from Pro Expense?",
            "Expenses to remove from Pro Expense: {names}.",
            "The expenses {names} should no longer appear in Pro Expense, so remove them.",
            "Let's tidy up Pro Expense. Find the expenses {names}, then delete all of them.",
            "In Pro Expense, delete the records {names} and keep the rest.",
        ),
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
        templates=(
            "Delete all but one of any expenses in Pro Expense that are exact duplicates, "
            "ensuring at least one instance of each unique expense remains.",
            "Pro Expense has an expense recorded twice: delete the extra copy and keep one.",
            "One expense in Pro Expense appears twice; please delete one of the two identical "
            "copies.",
            "There's a duplicated expense in Pro Expense; could you erase the extra entry and "
            "leave a single copy?",
            "Pro Expense: delete exact duplicate expenses, keeping one of each.",
            "I accidentally entered an expense twice in Pro Expense. Delete the repeated one but "
            "leave the original.",
            "Hey, something in Pro Expense got saved twice; can you delete the second copy but "
            "keep one?",
            "Before I do my budget, please clean up Pro Expense: one expense is entered two "
            "times, so remove one of them.",
            "Could you find the expense that shows up twice in Pro Expense and delete one of the "
            "copies?",
            "Pro Expense should end up with no doubled entries, so delete whichever expense is "
            "repeated, keeping one copy.",
            "I'd like the repeated expense in Pro Expense deleted, leaving exactly one copy of it.",
            "We have a double entry in Pro Expense. Look through the expenses, then delete the "
            "extra one so a single instance remains.",
            "Remove the duplicate expense from Pro Expense so that every expense is listed "
            "only once.",
        ),
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
        templates=(
            "How much did I spend on {name} according to Pro Expense? Answer with the amount.",
            "Look up the {name} expense in Pro Expense: what was the amount?",
            "Could you check Pro Expense and say how much {name} cost? Answer with the amount.",
            "I need the amount of the {name} expense from Pro Expense. Answer with the amount.",
            "Pro Expense, {name}: how much was it? Answer with the amount.",
            "Find {name} in Pro Expense and give me the amount I paid for it.",
            "Hey, quick question: how much was {name} in Pro Expense? Answer with the amount.",
            "I'm checking my budget. Going by Pro Expense, tell me how much I paid for {name}.",
            "Would you mind opening Pro Expense and telling me the amount spent on {name}?",
            "Amount of {name}, per Pro Expense? Answer with the amount.",
            "It would help to know what {name} cost me; please look it up in Pro Expense and "
            "answer with the amount.",
            "Check Pro Expense for the {name} expense, then report how much money it was.",
            "What amount is recorded for {name} in Pro Expense?",
        ),
        sample=_add_single,
        setup=lambda p: {"expenses": [*p["noise"], {k: p[k] for k in _ALL}]},
        plan=lambda p: [open_app("Pro Expense"), done(answer=f"${p['amount_text']}")],
        check=lambda s, p, a: _same_amount(a, float(p["amount"])),
        max_steps=8,
    ),
]
