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
        templates=(
            "Add a contact named {name} with the phone number {phone}.",
            "Create a new contact for {name}. Their number is {phone}.",
            "Could you add {name} to my contacts with the number {phone}?",
            "New contact: {name}, {phone}.",
            "In Contacts, make an entry for {name} whose phone number is {phone}.",
            "I just met {name} and want to keep their number, {phone}, so add them as a contact.",
            "Hey, can you add {name} as a contact real quick? The number is {phone}.",
            "Before I lose it, store {name}'s number {phone} as a new contact.",
            "Would you mind creating a contact for {name} with {phone} as the phone number?",
            "My contacts should end up with an entry for {name}, number {phone}.",
            "Open Contacts, then create a contact with the name {name} and the number {phone}.",
            "Let's put {name} in the address book with phone {phone}.",
            "Save {phone} in my contacts as {name}.",
        ),
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
        templates=(
            "Change {name}'s phone number to {new_phone}.",
            "{name} has a new number, {new_phone}: update the contact.",
            "Could you update the number for {name} to {new_phone}?",
            "In Contacts, replace {name}'s old number with {new_phone}.",
            "Contact {name}: new number {new_phone}.",
            "My friend {name} can now be reached at {new_phone}; please fix their saved number.",
            "Hey, can you swap {name}'s number for {new_phone}?",
            "Since {name} switched phones, their contact needs the number {new_phone} now.",
            "Would you mind changing the number stored for {name} to {new_phone}?",
            "{name}'s contact should end up with {new_phone} as its number.",
            "Open Contacts, find {name}, then set their number to {new_phone}.",
            "Let's update {name}: the correct phone is {new_phone}.",
            "Edit the contact {name} so that the phone number is {new_phone}.",
        ),
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
        templates=(
            "Look up {name} in Contacts. What is their phone number?",
            "What is {name}'s phone number?",
            "Tell me {name}'s phone number from Contacts.",
            "I need to call {name}; which number do I have for them?",
            "{name}: phone number?",
            "Could you check my contacts and give me {name}'s number?",
            "Hey, what's {name}'s number in my contacts?",
            "Before I text {name}, I'd like their phone number from Contacts.",
            "Would you mind reading me {name}'s number from my contacts?",
            "Open Contacts, search for {name}, then tell me the phone number listed.",
            "It would help to have {name}'s phone number. What is it?",
            "We need {name}'s number; what does Contacts show?",
            "Find the number saved for {name}.",
        ),
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
        templates=(
            "Open the contact card of {name}.",
            "Show me {name}'s contact details.",
            "Could you pull up {name}'s contact?",
            "Using the Contacts app, display the entry for {name}.",
            "I want to see the full contact entry for {name}.",
            "{name}'s contact card, please.",
            "Hey, can you bring up {name}'s contact real quick?",
            "Before I call, I want {name}'s contact card open on screen.",
            "Would you mind opening {name}'s entry in Contacts?",
            "{name}'s details should end up showing in Contacts.",
            "Open Contacts, then find {name} and tap the name to see the card.",
            "Let's look at {name}'s contact page.",
            "Go to {name} in Contacts.",
        ),
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
        templates=(
            "Change {name}'s last name to {new_last}.",
            "{name} has a new surname, {new_last}: update the contact.",
            "Could you update {name}'s surname to {new_last}?",
            "In Contacts, replace {name}'s family name with {new_last}.",
            "{name} now uses the surname {new_last} after getting married, "
            "so please correct the contact.",
            "Contact {name}: last name should be {new_last}.",
            "Hey, can you switch {name}'s last name to {new_last} real quick?",
            "Since {name} changed surnames, their contact should now say {new_last} as the last "
            "name.",
            "Would you mind setting {name}'s family name to {new_last} in Contacts?",
            "The last name on {name}'s contact needs to become {new_last}.",
            "Open Contacts, pick {name}, then replace the surname with {new_last}.",
            "Let's fix {name}'s contact: surname {new_last}.",
            "Edit the contact {name} so that the last name reads {new_last}.",
        ),
        sample=person_with_new_surname,
        setup=with_person,
        plan=lambda p: [
            open_app("Contacts"),
            tap(p["name"]),
            tap("Edit contact"),
            type_in(p["last"], p["new_last"], clear=True),
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
        templates=(
            "Whose phone number is {phone}? Answer with the contact's name.",
            "Which of my contacts has the number {phone}?",
            "Search Contacts for {phone}. Answer with the contact's name.",
            "A missed call came from {phone}; which contact is that? "
            "Answer with the contact's name.",
            "Could you tell me whose number {phone} is? Answer with the contact's name.",
            "Name of the contact with the number {phone}? Answer with the contact's name.",
            "Hey, who's {phone} in my contacts? Answer with the contact's name.",
            "Someone texted me from {phone}; what's the name saved for that number? Answer with "
            "the contact's name.",
            "Would you check Contacts and tell me which person has {phone}? Answer with the "
            "contact's name.",
            "Open Contacts, search {phone}, then tell me the name that comes up.",
            "It would help to know the name behind {phone}. Answer with the contact's name.",
            "Number {phone}: whose contact is it? Answer with the contact's name.",
            "Find out who {phone} belongs to in my contacts.",
        ),
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
