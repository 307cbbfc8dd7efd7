"""Tasks that carry information from one app into another."""

from __future__ import annotations

from simulator.state import CALENDAR, CONTACTS, MESSAGES, SETTINGS
from simulator.tasks import pools
from simulator.tasks.base import (
    Task,
    add_contact_steps,
    add_event_steps,
    alarm_matches,
    alarm_time,
    allow_notifications,
    combine,
    done,
    generated,
    has_contact,
    named,
    open_app,
    open_calendar,
    open_messages,
    person,
    remember,
    same_digits,
    same_time,
    send_text_steps,
    sent,
    sent_to,
    set_alarm_steps,
    tap,
    the_alarm,
    type_in,
    with_person,
)
from simulator.tasks.settings import SETTINGS_PATHS

TASKS: list[Task] = [
    Task(
        name="ContactsAddContactAndSms",
        app=CONTACTS,
        family="multi_app",
        templates=(
            'Add {name} ({phone}) to my contacts, then text them "{text}".',
            'Save {name} with the number {phone} as a contact and send them "{text}".',
            'Could you make a new contact for {name} at {phone} and send them the SMS "{text}"?',
            'In Contacts, add {name} with phone {phone}; after that, text "{text}" to them.',
            'I just got {name}\'s number, {phone}: put it in my contacts and text "{text}" to '
            "{name}.",
            'New contact {name} ({phone}), then an SMS to them: "{text}"',
            'Hey, can you save {name} under {phone} and then shoot them a text saying "{text}"?',
            "Before I forget: store {phone} as the number of a new contact {name}, then SMS them "
            '"{text}".',
            'Would you mind adding {name} ({phone}) as a contact and texting "{text}" to them?',
            "{name} should end up in my contacts with the number {phone} and receive the text "
            '"{text}" from me.',
            "Let's add {name} to Contacts with phone number {phone}. Then send them this SMS: "
            '"{text}"',
            'To do: contact {name} / {phone}, plus a text to that person reading "{text}".',
            'Create a contact {name}, {phone}, and message them: "{text}"',
        ),
        sample=combine(person, generated(pools.message_text, "text")),
        plan=lambda p: [
            open_app("Contacts"),
            *add_contact_steps(p["first"], p["last"], p["phone"]),
            tap("Text"),
            allow_notifications(),
            type_in("Text message", p["text"]),
            tap("Send SMS"),
            done(),
        ],
        check=lambda s, p, a: (
            has_contact(s, p["name"], p["phone"]) and sent(s, p["name"], p["text"])
        ),
        changes=lambda p: {"contacts": named("name", p["name"]), "messages": sent_to(p["name"])},
        max_steps=18,
    ),
    Task(
        name="ClockAlarmFromSms",
        app=MESSAGES,
        family="multi_app",
        templates=(
            "Alice Martin texted me a wake-up time. Set an alarm for that time.",
            "Set an alarm for the time Alice Martin asked for in her message.",
            "Could you check Alice Martin's message for a time and make an alarm for it?",
            "In Clock, add an alarm for the wake-up time that Alice Martin sent me.",
            "I need to wake up when Alice Martin told me to; her text has the time, so set an "
            "alarm.",
            "Alarm: the time from Alice Martin's SMS.",
            "Hey, Alice Martin sent me a time in a text; can you set an alarm for it real quick?",
            "Before bed, open Alice Martin's message, see which time it mentions, and add an alarm "
            "at that hour.",
            "Would you mind creating an alarm at whatever time Alice Martin's SMS asks for?",
            "There should be an alarm in Clock matching the time in the message from Alice Martin.",
            "Let's find the time in Alice Martin's SMS and then add a Clock alarm for it.",
            "Wake-up alarm needed; the time is in Alice Martin's text message.",
            "Read Alice Martin's text and set the alarm she wants.",
        ),
        sample=alarm_time,
        setup=lambda p: {
            "inbox": [{"from": "Alice Martin", "text": f"Can you set an alarm for {p['time']}?"}]
        },
        plan=lambda p: [
            *open_messages(),
            tap("Alice Martin"),
            remember(p["time"], f"alarm time {p['time']}"),
            open_app("Clock"),
            *set_alarm_steps(p["hhmm"]),
            done(),
        ],
        check=lambda s, p, a: alarm_matches(s, p["hhmm"], enabled=True),
        changes=the_alarm,
        max_steps=16,
    ),
    Task(
        name="SimpleSmsSendContactNumber",
        app=MESSAGES,
        family="multi_app",
        templates=(
            "Text Bob Chen the phone number of {name}.",
            "Send Bob Chen {name}'s number in a message.",
            "Could you send {name}'s number to Bob Chen by text?",
            "Look up {name} in Contacts and message the number to Bob Chen.",
            "I want Bob Chen to have {name}'s phone number, so please SMS it over.",
            "To Bob Chen by SMS: the number of {name}.",
            "Hey, can you text {name}'s number over to Bob Chen real quick?",
            "So Bob Chen can get in touch, look up {name} in Contacts and SMS the number to him.",
            "Would you mind sharing {name}'s phone number with Bob Chen in a text message?",
            "It would help if Bob Chen got a message from me containing {name}'s number.",
            "Copy {name}'s number from Contacts, then put it in a text to Bob Chen.",
            "Message for Bob Chen: {name}'s contact number.",
            "Bob Chen needs {name}'s phone number: text it to him.",
        ),
        sample=person,
        setup=with_person,
        plan=lambda p: [
            open_app("Contacts"),
            tap(p["name"]),
            remember(p["phone"], f"{p['name']}'s number {p['phone']}"),
            *open_messages(),
            *send_text_steps("Bob Chen", p["phone"]),
            done(),
        ],
        check=lambda s, p, a: any(
            m["to"] == "Bob Chen" and same_digits(m["text"], p["phone"]) for m in s["messages"]
        ),
        changes=lambda p: {"messages": sent_to("Bob Chen")},
        max_steps=16,
    ),
    Task(
        name="TurnOnDarkThemeAndSetAlarm",
        app=SETTINGS,
        family="multi_app",
        templates=(
            "Turn on dark theme, then set an alarm for {time}.",
            "Switch the phone to dark mode and add an alarm at {time}.",
            "Could you switch on dark mode and then create an alarm for {time}?",
            "In Settings, turn dark theme on; after that, use Clock to set an alarm at {time}.",
            "I'd like the dark theme turned on and an alarm ringing at {time}.",
            "Dark theme on, alarm at {time}.",
            "Hey, can you flip on dark mode and set me an alarm for {time}?",
            "The screen is too bright at night, so put the phone in dark theme, then add an alarm "
            "for {time}.",
            "Would you mind doing two things: dark mode on, plus an alarm at {time}?",
            "The phone should end up in dark theme with an alarm set for {time}.",
            "Let's switch on the dark theme in Settings and then make a {time} alarm in Clock.",
            "Two quick jobs: activate dark mode, and schedule a {time} alarm.",
            "Enable the dark theme; also set a {time} alarm.",
        ),
        sample=alarm_time,
        plan=lambda p: [
            open_app("Settings"),
            *SETTINGS_PATHS["dark_theme"],
            open_app("Clock"),
            *set_alarm_steps(p["hhmm"]),
            done(),
        ],
        check=lambda s, p, a: s["dark_theme"] is True and alarm_matches(s, p["hhmm"], enabled=True),
        changes=lambda p: {"dark_theme": None, **the_alarm(p)},
        max_steps=16,
    ),
    Task(
        name="SimpleCalendarAddEventWithContactNumber",
        app=CALENDAR,
        family="multi_app",
        templates=(
            'Create an event today at {time} titled "Call" followed by Carmen López\'s phone '
            "number.",
            'Add a calendar event at {time} today named "Call" and Carmen López\'s number.',
            'Could you put an event in my calendar today at {time}, titled "Call" plus '
            "Carmen López's number?",
            "Look up Carmen López's phone number, then add an event at {time} today whose "
            'title is "Call" followed by that number.',
            'I need a calendar entry at {time} today; name it "Call" and then Carmen López\'s '
            "phone number.",
            'Event today at {time}: "Call" and Carmen López\'s number as the title.',
            'Hey, can you add a {time} event for today called "Call" plus Carmen López\'s number?',
            'So I remember to ring Carmen López, make an event today at {time} titled "Call" '
            "followed by her number.",
            'Would you mind creating a calendar event today at {time} whose name is "Call" then '
            "Carmen López's phone number?",
            'My calendar should end up with an event at {time} today, named "Call" with Carmen '
            "López's number after it.",
            "Find Carmen López's number in Contacts. Then add an event for today at {time} titled "
            '"Call" and that number.',
            'Today, {time}, calendar event: title "Call" + Carmen López\'s phone number.',
            'Schedule a call with Carmen López today at {time}: the event\'s title is "Call" '
            "and her phone number.",
        ),
        sample=alarm_time,
        plan=lambda p: [
            open_app("Contacts"),
            tap("Carmen López"),
            remember("+34 612 345 678", "Carmen López's number +34 612 345 678"),
            *open_calendar(),
            *add_event_steps("Call +34 612 345 678", p["hhmm"]),
            done(),
        ],
        check=lambda s, p, a: any(
            e["title"].startswith("Call")
            and same_digits(e["title"], "+34 612 345 678")
            and e["time"] == p["hhmm"]
            for e in s["events"]
        ),
        changes=lambda p: {"events": named("time", p["hhmm"])},
        max_steps=18,
    ),
    Task(
        name="ContactsAddContactFromSms",
        app=CONTACTS,
        family="multi_app",
        templates=(
            "Bob Chen texted me {name}'s number. Save it as a new contact named {name}.",
            "Add {name} to my contacts with the phone number Bob Chen sent me.",
            "Could you save {name} as a contact using the number Bob Chen texted me?",
            "In Messages, find {name}'s number from Bob Chen, then add {name} to Contacts with it.",
            "I need {name} in my contacts; Bob Chen sent the phone number by SMS.",
            "New contact {name}, number from Bob Chen's message.",
            "Hey, Bob Chen sent me {name}'s number; can you save it in my contacts real quick?",
            "Since Bob Chen messaged me the number, please add {name} as a new contact with it.",
            "Would you mind adding {name} to Contacts using the phone number from Bob Chen's SMS?",
            "{name} should end up saved in Contacts with the number that Bob Chen texted me.",
            "Get {name}'s number from Bob Chen's message, then save a new contact called {name}.",
            "Contacts: add {name}, with the phone number found in Bob Chen's SMS.",
            "Create a contact for {name}; the number is in Bob Chen's last text.",
        ),
        sample=person,
        setup=lambda p: {
            "inbox": [{"from": "Bob Chen", "text": f"{p['name']}'s number is {p['phone']}"}]
        },
        plan=lambda p: [
            *open_messages(),
            tap("Bob Chen"),
            remember(p["phone"], f"{p['name']}'s number {p['phone']}"),
            open_app("Contacts"),
            *add_contact_steps(p["first"], p["last"], p["phone"]),
            done(),
        ],
        check=lambda s, p, a: has_contact(s, p["name"], p["phone"]),
        changes=lambda p: {"contacts": named("name", p["name"])},
        max_steps=14,
    ),
    Task(
        name="SimpleSmsSendEventTime",
        app=MESSAGES,
        family="multi_app",
        templates=(
            'Text Alice Martin the time my "{title}" event starts today.',
            'Tell Alice Martin by SMS when "{title}" begins today.',
            'Could you message Alice Martin the starting time of today\'s "{title}"?',
            'Check my calendar for when "{title}" starts today, then text that time to Alice '
            "Martin.",
            'Alice Martin wants to know what time "{title}" is today; tell her by SMS.',
            'SMS to Alice Martin: start time of today\'s "{title}" event.',
            'Hey, can you text Alice Martin what time "{title}" starts today?',
            'So Alice Martin can join, send her a message with the time today\'s "{title}" event '
            "begins.",
            'Would you mind letting Alice Martin know by text when my "{title}" event kicks off '
            "today?",
            'Alice Martin should get a text from me saying at what time "{title}" starts today.',
            'Find today\'s "{title}" event in my calendar, then message its beginning time to '
            "Alice Martin.",
            'Quick SMS for Alice Martin: when today\'s "{title}" begins.',
            'Look up today\'s "{title}" in my calendar and send Alice Martin its start time.',
        ),
        sample=combine(generated(pools.event_title, "title"), alarm_time),
        setup=lambda p: {
            "events": [
                {"title": p["title"], "date": "2024-10-15", "time": p["hhmm"]},
                {"title": "Dinner", "date": "2024-10-16", "time": "19:00"},
            ]
        },
        plan=lambda p: [
            *open_calendar(),
            remember(p["title"], f'"{p["title"]}" starts at {p["time"]}'),
            *open_messages(),
            *send_text_steps("Alice Martin", p["time"]),
            done(),
        ],
        check=lambda s, p, a: any(
            m["to"] == "Alice Martin" and same_time(m["text"], p["hhmm"]) for m in s["messages"]
        ),
        changes=lambda p: {"messages": sent_to("Alice Martin")},
        max_steps=14,
    ),
]
