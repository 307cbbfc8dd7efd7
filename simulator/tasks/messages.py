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
        templates=(
            'Send a text to {name} saying "{text}".',
            'Text {name}: "{text}"',
            'Could you send {name} a text that says "{text}"?',
            'In Messages, tell {name} "{text}".',
            'I want {name} to know "{text}", so please text them that.',
            'SMS for {name}: "{text}"',
            'Write an SMS to {name} with the message "{text}".',
        ),
        sample=combine(person, TEXT),
        setup=with_person,
        plan=lambda p: [*open_messages(), *send_text_steps(p["name"], p["text"]), done()],
        check=lambda s, p, a: sent(s, p["name"], p["text"]),
        max_steps=14,
    ),
    Task(
        name="SimpleSmsReply",
        app=MESSAGES,
        family="message",
        templates=(
            'Reply "{text}" to Bob Chen\'s message.',
            'Answer Bob Chen\'s text with "{text}".',
            'Could you reply to Bob Chen\'s message with "{text}"?',
            'Bob Chen sent me a message; answer it with "{text}".',
            'In Messages, open Bob Chen\'s conversation and reply "{text}".',
            'My reply to Bob Chen\'s text should be "{text}".',
            'Respond to Bob Chen in Messages: "{text}"',
        ),
        sample=TEXT,
        plan=lambda p: [
            *open_messages(),
            tap("Bob Chen"),
            type_in("Text message", p["text"]),
            tap("Send SMS"),
            done(),
        ],
        check=lambda s, p, a: sent(s, "Bob Chen", p["text"]),
        max_steps=10,
    ),
    Task(
        name="SimpleSmsSend",
        app=MESSAGES,
        family="message",
        templates=(
            'Text {number} with the message "{text}".',
            'Send "{text}" to the number {number}.',
            'Could you send the message "{text}" to {number}?',
            'In Messages, start a new conversation with {number} and send "{text}".',
            'I need "{text}" texted to the number {number}.',
            'SMS to {number}: "{text}"',
            'Write an SMS to {number} saying "{text}".',
        ),
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
        max_steps=12,
    ),
    Task(
        name="SimpleSmsReadMessage",
        app=MESSAGES,
        family="question",
        templates=(
            "What did Alice Martin text me? Answer with her message.",
            "Read me Alice Martin's text message.",
            "Could you read Alice Martin's text to me? Answer with her message.",
            "In Messages, open Alice Martin's conversation and tell me what she wrote. "
            "Answer with her message.",
            "Alice Martin wrote to me earlier; what was her text? Answer with her message.",
            "Alice Martin's SMS: what's in it? Answer with her message.",
            "What does the message from Alice Martin say?",
        ),
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
        templates=(
            'Reply to the most recent text message with "{text}".',
            'Answer the last text I received: "{text}"',
            'Could you answer the newest message in my inbox with "{text}"?',
            'In Messages, find the text that arrived most recently and reply "{text}".',
            'I want to respond "{text}" to the last message that came in.',
            'Most recent text: reply "{text}"',
            'Whoever texted me last, reply "{text}" to them.',
        ),
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
        max_steps=10,
    ),
    Task(
        name="SimpleSmsResend",
        app=MESSAGES,
        family="message",
        templates=(
            "Resend the message I just sent to {name}.",
            "Send {name} the same text I sent them last, once more.",
            "Could you send {name} my previous message one more time?",
            "In Messages, open the chat with {name} and repeat the text I sent before.",
            "I want {name} to get my latest message to them a second time.",
            "{name}: resend the last text.",
            "My last text to {name} may not have arrived: send it again.",
        ),
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
        max_steps=10,
    ),
    Task(
        name="SimpleSmsSendReceivedAddress",
        app=MESSAGES,
        family="message",
        templates=(
            "Text the address that {sender} just sent me to {recipient}.",
            "{sender} texted me an address; send it on to {recipient}.",
            "Could you pass the address {sender} texted me along to {recipient}?",
            "In Messages, copy the address from {sender}'s text and send it to {recipient}.",
            "{recipient} needs the address that {sender} sent me, so text it to them.",
            "Address {sender} sent me: text it to {recipient}.",
            "Forward the address in {sender}'s last message to {recipient} by SMS.",
        ),
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
        max_steps=14,
    ),
]
