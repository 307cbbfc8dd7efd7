"""Contacts: adding, editing, searching and scrolling to contacts."""

from __future__ import annotations

import random

from simulator.state import CONTACTS
from simulator.tasks import pools
from simulator.tasks.base import (
    DEFAULT_CONTACTS,
    EXTRA_CONTACTS,
    Params,
    Task,
    add_contact_steps,
    done,
    has_contact,
    named,
    open_app,
    person,
    same_digits,
    same_text,
    swipe,
    tap,
    type_in,
    with_person,
)

ALL_CONTACTS = [*DEFAULT_CONTACTS, *EXTRA_CONTACTS]
# The last of the long list in alphabetical order: a person sorted after it is below the fold.
BELOW_THE_FOLD_AFTER = "Kofi Mensah"


def among_many(p: Params) -> dict[str, object]:
    """The long contact list with the sampled person in it."""
    return {"contacts": [*ALL_CONTACTS, {"name": p["name"], "phone": p["phone"]}]}


def person_below_the_fold(rng: random.Random) -> Params:
    while True:
        sampled = person(rng)
        if sampled["name"].casefold() > BELOW_THE_FOLD_AFTER.casefold():
            return sampled


def person_with_new_surname(rng: random.Random) -> Params:
    sampled = person(rng)
    return {**sampled, "new_last": pools.other_last_name(rng, sampled["first"], sampled["last"])}


TASKS: list[Task] = [
    Task(
        name="ContactsAddContact",
        app=CONTACTS,
        family="contact",
        sample=person,
        plan=lambda p: [
            open_app("Contacts"),
            *add_contact_steps(p["first"], p["last"], p["phone"]),
            done(),
        ],
        check=lambda s, p, a: has_contact(s, p["name"], p["phone"]),
        changes=lambda p: {"contacts": named("name", p["name"])},
        max_steps=12,
    ),
    Task(
        name="ContactsEditPhone",
        app=CONTACTS,
        family="contact",
        sample=lambda rng: {**person(rng), "new_phone": pools.phone_number(rng)},
        setup=with_person,
        plan=lambda p: [
            open_app("Contacts"),
            tap(p["name"]),
            tap("Edit contact"),
            type_in(p["phone"], p["new_phone"], clear=True),
            tap("Save"),
            done(),
        ],
        check=lambda s, p, a: (
            has_contact(s, p["name"], p["new_phone"])
            and len(s["contacts"]) == len(DEFAULT_CONTACTS) + 1
        ),
        changes=lambda p: {"contacts": named("name", p["name"])},
        max_steps=12,
    ),
    Task(
        name="ContactsPhoneNumber",
        app=CONTACTS,
        family="question",
        sample=person,
        setup=among_many,
        plan=lambda p: [
            open_app("Contacts"),
            tap("Search contacts"),
            type_in(None, p["name"].split()[0]),
            tap(p["name"]),
            done(answer=p["phone"]),
        ],
        check=lambda s, p, a: same_digits(a, p["phone"]),
        max_steps=12,
    ),
    Task(
        name="ContactsOpenContact",
        app=CONTACTS,
        family="scroll",
        sample=person_below_the_fold,
        setup=among_many,
        plan=lambda p: [open_app("Contacts"), swipe("up"), swipe("up"), tap(p["name"]), done()],
        check=lambda s, p, a: s["foreground"] == CONTACTS,
        max_steps=10,
    ),
    Task(
        name="ContactsEditLastName",
        app=CONTACTS,
        family="contact",
        sample=person_with_new_surname,
        setup=with_person,
        plan=lambda p: [
            open_app("Contacts"),
            tap(p["name"]),
            tap("Edit contact"),
            type_in(f"Last name: {p['last']}", p["new_last"], clear=True),
            tap("Save"),
            done(),
        ],
        check=lambda s, p, a: (
            has_contact(s, f"{p['first']} {p['new_last']}", p["phone"])
            and len(s["contacts"]) == len(DEFAULT_CONTACTS) + 1
        ),
        changes=lambda p: {"contacts": named("name", p["name"], f"{p['first']} {p['new_last']}")},
        max_steps=12,
    ),
    Task(
        name="ContactsNumberOwner",
        app=CONTACTS,
        family="question",
        sample=person,
        setup=among_many,
        plan=lambda p: [
            open_app("Contacts"),
            tap("Search contacts"),
            type_in(None, p["phone"]),
            done(answer=p["name"]),
        ],
        check=lambda s, p, a: same_text(a, p["name"]),
        max_steps=10,
    ),
]
