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
        templates=(
            'Send a text to {name} saying "{text}".',
            'Text {name}: "{text}"',
            'Could you send {name} a text that says "{text}"?',
            'In Messages, tell {name} "{text}".',
            'I want {name} to know "{text}", so please text them that.',
            'SMS for {name}: "{text}"',
            'Hey, shoot {name} a quick text: "{text}"',
            'When you get a moment, send {name} this text: "{text}"',
            'Would you mind texting "{text}" to {name}?',
            'It would help if {name} got a text from me reading "{text}".',
            'Open Messages, then text {name} the following: "{text}"',
            '"{text}" should be sent to {name} as a text message.',
            'Write an SMS to {name} with the message "{text}".',
        ),
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
        templates=(
            'Reply "{text}" to Bob Chen\'s message.',
            'Answer Bob Chen\'s text with "{text}".',
            'Could you reply to Bob Chen\'s message with "{text}"?',
            'Bob Chen sent me a message; answer it with "{text}".',
            'In Messages, open Bob Chen\'s conversation and reply "{text}".',
            'My reply to Bob Chen\'s text should be "{text}".',
            'Hey, can you get back to Bob Chen\'s text with "{text}"?',
            'Bob Chen is waiting on an answer, so reply to his message with "{text}".',
            'Would you mind sending "{text}" back to Bob Chen as a reply?',
            "I'd love for Bob Chen's text to get the reply \"{text}\".",
            'We owe Bob Chen a reply to his message. Send him "{text}".',
            'Bob Chen\'s message should be answered with "{text}".',
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
        changes=lambda p: {"messages": sent_to("Bob Chen")},
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
            'Hey, can you fire off "{text}" to {number} by text?',
            'For the person at {number}, please send the text "{text}".',
            'How about texting {number} the words "{text}"?',
            'The number {number} should receive a text reading "{text}".',
            'New text to {number}. Message: "{text}"',
            'I\'d like to reach {number} by text; the message is "{text}".',
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
        changes=lambda p: {"messages": sent_to(p["number"])},
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
            "Hey, can you check what Alice Martin wrote in her text? Answer with her message.",
            "I missed a text from Alice Martin; tell me what it said. Answer with her message.",
            "Would you mind looking up Alice Martin's text and reading it out? Answer with her "
            "message.",
            "Alice Martin's text, word for word, please. Answer with her message.",
            "It would help to know what Alice Martin said in her SMS. Answer with her message.",
            "Open Messages, then check the text from Alice Martin and report it. Answer with her "
            "message.",
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
            'Hey, could you hit reply on my newest text and send "{text}"?',
            'A text just came in and I can\'t answer, so send "{text}" as the reply to the most '
            "recent message.",
            'Would you mind responding to the latest message I got with "{text}"?',
            'The newest text in my inbox should be answered with "{text}".',
            'We should get back to the most recently received text. Send "{text}" as the reply.',
            'Go to Messages, then open the newest conversation and reply with "{text}".',
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
        changes=lambda p: {"messages": sent_to(p["latest"])},
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
            "Hey, mind re-sending my most recent text to {name}?",
            "To make sure {name} sees it, deliver my latest text to them once more.",
            "Would you mind repeating my most recent text to {name}?",
            "The last message I sent {name} should go out to them a second time.",
            "Same text as my last one, sent to {name} again, please.",
            "Let's try again with {name}. Open our chat in Messages, then send my last text over "
            "a second time.",
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
        changes=lambda p: {"messages": sent_to(p["name"])},
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
            "Hey, quick one: grab the address out of {sender}'s text and message it to "
            "{recipient}.",
            "{recipient} wasn't included when {sender} texted me an address; please send it to "
            "them too.",
            "Would you mind texting {recipient} the address that came in from {sender}?",
            "The address from {sender}'s text should end up in a message to {recipient}.",
            "Let's share the address {sender} messaged me. Read it in Messages, then text it to "
            "{recipient}.",
            "It would help if {recipient} got a text with the address {sender} sent me.",
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
        changes=lambda p: {"messages": sent_to(p["recipient"])},
        max_steps=14,
    ),
]
