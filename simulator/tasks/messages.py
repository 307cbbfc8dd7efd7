"""Messages: sending, replying, texting a bare number and reading what arrived."""

from __future__ import annotations

import random
from typing import Any

from simulator.state import MESSAGES
from simulator.tasks import pools
from simulator.tasks.base import (
    DEFAULT_CONTACTS,
    Params,
    State,
    Task,
    combine,
    done,
    generated,
    key,
    normalize_text,
    open_messages,
    person,
    remember,
    same_digits,
    same_text,
    send_text_steps,
    sent,
    sent_to,
    tap,
    type_in,
    with_person,
)

TEXT = generated(pools.message_text, "text")
CONTACT_NAMES = tuple(contact["name"] for contact in DEFAULT_CONTACTS)


def latest_text(rng: random.Random) -> Params:
    """Three received texts; the last to arrive is the one to answer."""
    senders = rng.sample(CONTACT_NAMES, 3)
    *texts, reply = pools.distinct(rng, pools.message_text, 4)
    return {
        "inbox": [{"from": s, "text": t} for s, t in zip(senders, texts, strict=True)],
        "latest": senders[-1],
        "text": reply,
    }


def forwarded_address(rng: random.Random) -> Params:
    """Two new contacts: one sent an address, the other is to get it."""
    sender = pools.person(rng)
    recipient = pools.person(rng, taken=[sender["name"]])
    return {
        "sender": sender["name"],
        "recipient": recipient["name"],
        "address": pools.street_address(rng),
        "contacts": [
            *DEFAULT_CONTACTS,
            *({"name": p["name"], "phone": p["phone"]} for p in (sender, recipient)),
        ],
    }


def contact_with_sent_text(p: Params) -> dict[str, Any]:
    return {**with_person(p), "messages": [{"to": p["name"], "text": p["text"]}]}


def sent_containing(state: State, to: str, part: str) -> bool:
    return any(
        normalize_text(m["to"]) == normalize_text(to)
        and normalize_text(part) in normalize_text(m["text"])
        for m in state["messages"]
    )


TASKS: list[Task] = [
    Task(
        name="SimpleSmsSendToContact",
        app=MESSAGES,
        family="message",
        sample=combine(person, TEXT),
        setup=with_person,
        plan=lambda p: [*open_messages(), *send_text_steps(p["name"], p["text"]), done()],
        check=lambda s, p, a: sent(s, p["name"], p["text"]),
        changes=lambda p: {"messages": sent_to(p["name"])},
        max_steps=14,
    ),
    Task(
        name="SimpleSmsReply",
        app=MESSAGES,
        family="message",
        sample=TEXT,
        plan=lambda p: [
            *open_messages(),
            tap("Bob Chen"),
            type_in("Text message", p["text"]),
            tap("Send SMS"),
            done(),
        ],
        check=lambda s, p, a: sent(s, "Bob Chen", p["text"]),
        changes=lambda p: {"messages": sent_to("Bob Chen")},
        max_steps=10,
    ),
    Task(
        name="SimpleSmsSend",
        app=MESSAGES,
        family="message",
        sample=combine(generated(pools.phone_number, "number"), TEXT),
        plan=lambda p: [
            *open_messages(),
            tap("Start chat"),
            type_in(None, p["number"], submit=True),
            type_in("Text message", p["text"]),
            tap("Send SMS"),
            done(),
        ],
        check=lambda s, p, a: any(
            same_digits(m["to"], p["number"]) and same_text(m["text"], p["text"])
            for m in s["messages"]
        ),
        changes=lambda p: {"messages": sent_to(p["number"])},
        max_steps=12,
    ),
    Task(
        name="SimpleSmsReadMessage",
        app=MESSAGES,
        family="question",
        sample=TEXT,
        setup=lambda p: {
            "inbox": [
                {"from": "Alice Martin", "text": p["text"]},
                {"from": "Bob Chen", "text": "The parcel arrived"},
            ]
        },
        plan=lambda p: [*open_messages(), done(answer=p["text"])],
        check=lambda s, p, a: same_text(a, p["text"]),
        max_steps=8,
    ),
    Task(
        name="SimpleSmsReplyMostRecent",
        app=MESSAGES,
        family="message",
        sample=latest_text,
        setup=lambda p: {"inbox": p["inbox"]},
        plan=lambda p: [
            *open_messages(),
            tap(p["latest"]),
            type_in("Text message", p["text"]),
            tap("Send SMS"),
            done(),
        ],
        check=lambda s, p, a: sent(s, p["latest"], p["text"]) and len(s["messages"]) == 1,
        changes=lambda p: {"messages": sent_to(p["latest"])},
        max_steps=10,
    ),
    Task(
        name="SimpleSmsResend",
        app=MESSAGES,
        family="message",
        sample=combine(person, TEXT),
        setup=contact_with_sent_text,
        plan=lambda p: [
            *open_messages(),
            tap(p["name"]),
            type_in("Text message", p["text"]),
            tap("Send SMS"),
            done(),
        ],
        check=lambda s, p, a: (
            [normalize_text(m["text"]) for m in s["messages"] if m["to"] == p["name"]]
            == [normalize_text(p["text"])] * 2
        ),
        changes=lambda p: {"messages": sent_to(p["name"])},
        max_steps=10,
    ),
    Task(
        name="SimpleSmsSendReceivedAddress",
        app=MESSAGES,
        family="message",
        sample=forwarded_address,
        setup=lambda p: {
            "contacts": p["contacts"],
            "inbox": [{"from": p["sender"], "text": f"The party is at {p['address']}"}],
        },
        plan=lambda p: [
            *open_messages(),
            tap(p["sender"]),
            remember(p["address"], f"address {p['address']}"),
            key("back"),
            *send_text_steps(p["recipient"], p["address"]),
            done(),
        ],
        check=lambda s, p, a: sent_containing(s, p["recipient"], p["address"]),
        changes=lambda p: {"messages": sent_to(p["recipient"])},
        max_steps=14,
    ),
]
