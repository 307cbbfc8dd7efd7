"""Messages: sending, replying, texting a bare number and reading what arrived."""

from __future__ import annotations

from simulator.state import MESSAGES
from simulator.tasks.base import (
    TEXTS,
    Task,
    combine,
    done,
    open_messages,
    person,
    pick,
    same_digits,
    same_text,
    send_text_steps,
    sent,
    tap,
    type_in,
    with_person,
)

TASKS: list[Task] = [
    Task(
        name="SimpleSmsSendToContact",
        app=MESSAGES,
        family="message",
        templates=(
            'Send a text to {name} saying "{text}".',
            'Text {name}: "{text}"',
            'Write an SMS to {name} with the message "{text}".',
        ),
        sample=combine(person, pick(TEXTS, "text")),
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
            'Respond to Bob Chen in Messages: "{text}"',
        ),
        sample=pick(TEXTS, "text"),
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
            'Write an SMS to {number} saying "{text}".',
        ),
        sample=combine(pick(("+1 650-555-0188", "+44 7700 900777"), "number"), pick(TEXTS, "text")),
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
            "What does the message from Alice Martin say?",
        ),
        sample=pick(("Lunch at 12:30?", "Bring the charger please", "Feliz cumpleaños 🎉"), "text"),
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
]
