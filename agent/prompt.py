"""What the model reads: a short fixed system prompt, a per-step user turn, and every sentence
the loop and the guards send back with the next screen, so that the model's whole view can be
reviewed here.

The system message (and the tools list sent beside it) never changes during a run, so a
server's prefix cache reuses it; the user turn puts the goal first (stable within a run), then
what the model asked to remember (it only grows), and the per-step content last: recent steps,
notes from the guards, the current screen.

Remembering. The prompt shows only the current screen and a few history lines, so a value read
on one screen (a number in a message, a time in the calendar) is gone once the model leaves it.
A reply may therefore carry lines `Remember: ...` beside its tool call; the loop keeps them and
shows them after the goal on every later step (`split_remembered`, `user_turn`).

The goal is shown as the user wrote it, with one exception: its quotation marks are shown as
plain ones, whatever kind the user's keyboard wrote (`user_turn`).

The notes are the feedback functions below: the loop's (a reply with extra calls, an action
that did not land, reasoning cut at its budget) and the guards' (an unusable reply, a repeated
or ineffective action, a claim the screen contradicts or the task has not shown, an undo, a
risky action). The history lines use `describe_action`, `NOTHING_CHANGED` and `blocked_step`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import assert_never

from agent.actions import (
    Action,
    LongPress,
    OpenApp,
    PressKey,
    Swipe,
    Tap,
    TaskComplete,
    TypeText,
    Wait,
    tool_name,
)
from agent.screen import Screen

SYSTEM_PROMPT = """\
You operate an Android phone for a user. Reply with exactly one tool call per turn.
Each turn shows the goal, your recent steps and the current screen: one line per element, \
starting with its index in square brackets. Tools take that index, and only indices on the \
current screen are valid.
- tap or long_press an element; type_text into a field (index focuses it first).
- swipe moves the content in that direction: "up" shows what is further down.
- press_key: back, home, enter, ...; open_app by its name; wait while something loads.
- Call task_complete(success=true) as soon as the screen shows the goal achieved; put the \
answer to a question in `answer`. Call task_complete(success=false) if it cannot be done.
- Never undo what the goal asked for: a switch already in the asked state is done.
- A line "Remember: <value>" before the call keeps a value for later screens."""

DEFAULT_HISTORY_STEPS = 4

REMEMBER = "Remember:"
# Enough for the longest need seen (three lines of a file); the oldest go first beyond it.
MAX_REMEMBERED = 8
MAX_REMEMBERED_CHARS = 200
# A goal's quotation marks only say where a text to type or look for starts and ends.
# Keyboards write them typographically (“...”, „...“, «...»); shown as plain ones, the marks
# every model meets most, the text between them reads the same however the user's keyboard
# wrote it. The sim policy, which saw only plain ones in training, typed on past a closing ”.
_TYPOGRAPHIC_QUOTES = str.maketrans(dict.fromkeys("“”„‟«»", '"'))
# A note ends with its line, or where a call written as text follows on the same line.
_REMEMBER_LINE = re.compile(
    r"^[ \t>*-]*remember:[ \t]*(.*?)[ \t]*(?=<tool_call>|$)", re.IGNORECASE | re.MULTILINE
)


@dataclass(frozen=True)
class StepSummary:
    """One line of history: what the agent did and what came of it."""

    step: int
    action: str
    outcome: str


def system_message() -> dict[str, str]:
    return {"role": "system", "content": SYSTEM_PROMPT}


def user_turn(
    goal: str,
    history: Sequence[StepSummary],
    notes: Sequence[str],
    screen: Screen,
    history_steps: int = DEFAULT_HISTORY_STEPS,
    remembered: Sequence[str] = (),
) -> str:
    parts = [f"Goal: {goal.translate(_TYPOGRAPHIC_QUOTES)}"]
    if remembered:
        parts.append("Remembered:\n" + "\n".join(f"- {item}" for item in remembered))
    recent = list(history)[-history_steps:] if history_steps > 0 else []
    if recent:
        lines = [f"{item.step}. {item.action} -> {item.outcome}" for item in recent]
        parts.append("Recent steps:\n" + "\n".join(lines))
    if notes:
        parts.append("\n".join(f"Note: {note}" for note in notes))
    parts.append("Screen:\n" + screen.render())
    return "\n\n".join(parts)


def split_remembered(content: str | None) -> tuple[list[str], str]:
    """The `Remember: ...` lines of a reply's answer (each cut to MAX_REMEMBERED_CHARS), and
    the answer without them, which is what holds the call. Reasoning is not searched: only
    what the model says after it counts."""
    text = content or ""
    answer = text.rpartition("</think>")[2]
    found = [
        item[:MAX_REMEMBERED_CHARS]
        for item in (match.group(1) for match in _REMEMBER_LINE.finditer(answer))
        if item
    ]
    return found, text[: len(text) - len(answer)] + _REMEMBER_LINE.sub("", answer)


def keep_remembered(remembered: list[str], new: Sequence[str]) -> list[str]:
    """`remembered` with the `new` items it lacks added, oldest dropped beyond the limit."""
    kept = remembered + [item for item in dict.fromkeys(new) if item not in remembered]
    return kept[-MAX_REMEMBERED:]


def messages(user: str) -> list[dict[str, str]]:
    return [system_message(), {"role": "user", "content": user}]


def describe_action(action: Action, screen: Screen | None = None) -> str:
    """A short human-readable form, naming the target element's label where known."""
    match action:
        case Tap(index=index) | LongPress(index=index):
            return f"{tool_name(action)} {_element_ref(index, screen)}"
        case TypeText(text=typed, index=index, clear=clear, submit=submit):
            text = f"type_text {_quote(typed)}"
            if index is not None:
                text += f" into {_element_ref(index, screen)}"
            flags = [flag for flag, on in (("clear", clear), ("submit", submit)) if on]
            return text + (f" ({', '.join(flags)})" if flags else "")
        case Swipe(direction=direction, index=index):
            where = f" on {_element_ref(index, screen)}" if index is not None else ""
            return f"swipe {direction}{where}"
        case PressKey(key=key):
            return f"press_key {key}"
        case OpenApp(name=name):
            return f"open_app {_quote(name)}"
        case Wait(seconds=seconds):
            return f"wait {seconds:g} s"
        case TaskComplete(success=success, answer=answer):
            shown = f", answer={_quote(answer)}" if answer else ""
            return f"task_complete(success={str(success).lower()}{shown})"
        case _:
            assert_never(action)


# --- history lines --------------------------------------------------------------------------------

NOTHING_CHANGED = "nothing changed"


def blocked_step(
    step: int, action: Action | None, screen: Screen, reasons: Sequence[str]
) -> StepSummary:
    """The history line of a step whose action the guards blocked, or whose reply held none."""
    attempted = describe_action(action, screen) if action else "your reply"
    return StepSummary(step, attempted, f"not run: {'; '.join(reasons) or 'blocked'}")


# --- the loop's feedback ----------------------------------------------------------------------

EXTRA_CALLS_DROPPED = "Only your first tool call ran: send one call per reply."


def action_failed(described: str, error: str) -> str:
    """An action that ran but did not take effect (text that did not land, an app not found)."""
    return f"{described}: {error}"


def reasoning_cut_off(summary: str) -> str:
    """Ends the user turn, after a blank line, when the reply is asked for again because
    thinking reached its budget."""
    return f"Your reasoning for this step was cut off here: {summary}"


# --- the guards' feedback ---------------------------------------------------------------------


def reply_not_run(reason: str) -> str:
    return f"Your last reply was not run: {reason}"


def repeated_action(described: str) -> str:
    return (
        f"You already tried {described} on this same screen; it did not help. "
        "Do something different, or call task_complete if the goal is reached."
    )


def no_change(described: str, app: str) -> str:
    return (
        f"{described} changed nothing: the screen is the same "
        f"({app}, same elements). Try something else."
    )


def no_change_in_a_row(described: str, times: int) -> str:
    """A deliberate run of the same action (a tap counter) that still shows nothing."""
    return (
        f"{described} changed nothing visible, {times} times in a row. Go on only "
        "if the goal needs it repeated; otherwise do something else."
    )


def no_change_streak(actions: int) -> str:
    return (
        f"Your last {actions} actions changed nothing. Read the screen "
        "again and pick an element that leads towards the goal."
    )


def completion_refused(missing: Sequence[str], undone: Sequence[str] = ()) -> str:
    """Why a `task_complete(success=true)` was not accepted. Each item is one part of the goal
    as a subject and the state asked for ("Wi-Fi on"): `missing` ones no screen of the task
    has shown yet, `undone` ones a screen showed and a later screen showed changed again."""
    reasons = []
    if missing:
        reasons.append(f"no screen has shown {_and_list(missing)} yet")
    if undone:
        verb = "was" if len(undone) == 1 else "were"
        reasons.append(f"{_and_list(undone)} {verb} shown, then changed back")
    return (
        f"Not done yet: {'; '.join(reasons)}. Open the screen that shows "
        f"{'it' if len(missing) + len(undone) == 1 else 'each'}, set it as the goal asks, and "
        "call task_complete once the screen shows the goal reached."
    )


def still_listed(titles: Sequence[str]) -> str:
    """A success claim on a screen that still lists what the goal asks to delete."""
    return _still_listed(titles, "", "delete {}", "Delete exactly what the goal names")


def copies_listed(labels: Sequence[str]) -> str:
    """A success claim on a screen that lists an item twice, for a goal that deletes copies."""
    return _still_listed(labels, " more than once", "delete the copies", "Delete one of each pair")


def still_open(titles: Sequence[str]) -> str:
    """A success claim on a screen that still lists what the goal asks to mark done as open."""
    return _still_listed(titles, " as not done", "mark {} done", "Mark exactly what the goal names")


def _still_listed(titles: Sequence[str], listed_as: str, asked: str, redo: str) -> str:
    one = len(titles) == 1
    quoted = _and_list([f'"{title}"' for title in titles])
    return (
        f"Not done yet: {quoted} {'is' if one else 'are'} still listed{listed_as}, and the goal "
        f"asks to {asked.format('it' if one else 'them')}. {redo}, "
        "or call task_complete(success=false) if it cannot be done."
    )


def quote_unshown(quotes: Sequence[str]) -> str:
    """A success claim before any screen showed a text the goal gives word for word."""
    quoted = _and_list([f'"{quote}"' for quote in quotes])
    return (
        f"Not done yet: no screen has shown {quoted}, which the goal gives word for word. Type "
        "it exactly where the goal asks, or find it on the phone, or call "
        "task_complete(success=false) if it cannot be done."
    )


def name_unlisted(names: Sequence[str]) -> str:
    """A success claim before any screen listed a file or folder by the name the goal gives,
    outside a text field."""
    quoted = _and_list([f'"{name}"' for name in names])
    return (
        f"Not done yet: no screen has listed {quoted}, the name the goal gives, outside a text "
        "field. Save the name where the goal asks and check that it is listed, or call "
        "task_complete(success=false) if it cannot be done."
    )


def duration_unshown(durations: Sequence[str]) -> str:
    """A success claim before any screen showed the timer at the duration the goal gives."""
    return (
        f"Not done yet: no screen has shown the timer set to {_and_list(durations)}. Enter "
        "exactly that duration on the timer, or call task_complete(success=false) if it "
        "cannot be done."
    )


def alarm_time_unshown(times: Sequence[str]) -> str:
    """A success claim before any screen showed an alarm at the time the goal gives."""
    return (
        f"Not done yet: no screen has shown an alarm at {_and_list(times)}, the time the goal "
        "gives. Find or set the alarm at exactly that time, or call "
        "task_complete(success=false) if it cannot be done."
    )


def message_unsent() -> str:
    """A success claim on a goal that sends a message before any send button was pressed."""
    return (
        "Not done yet: the goal asks to send a message, and nothing has been sent: no Send "
        "button was pressed. Open the conversation, write the message the goal asks for and "
        "press Send, or call task_complete(success=false) if it cannot be done."
    )


def stopwatch_unmet(running: bool, shown: str) -> str:
    """A success claim on a goal that asks the stopwatch running (or stopped) while it was
    last shown otherwise, or never shown: `shown` says which."""
    asked, button = ("running", "Start") if running else ("stopped", "Pause")
    return (
        f"Not done yet: the goal asks for the stopwatch {asked}, and {shown}. Open the "
        f"stopwatch and press {button}, or call task_complete(success=false) if it cannot be "
        "done."
    )


def answer_missing() -> str:
    """A success claim without an answer, for a goal that asks a question."""
    return (
        "Not accepted yet: the goal asks a question. Read the answer on the screen and call "
        "task_complete with it in `answer`."
    )


def answer_from_other_row(answer: str, read_from: str, asked_about: str) -> str:
    """An answer found only in a row beside the one the goal asks about."""
    return (
        f'Not accepted yet: "{answer}" is in the row "{read_from}", but the goal asks about '
        f'"{asked_about}". Read the value in that row and call task_complete with it.'
    )


def made_up_values(values: Sequence[str]) -> str:
    """Typing a file name or phone number that neither the goal nor any screen gave."""
    quoted = _and_list([f'"{value}"' for value in values])
    return (
        f"Not typed: neither the goal nor any screen so far gave {quoted}. Type only values the "
        "goal gives or a screen shows: open the message, contact or list that holds it first."
    )


def runaway_text(piece: str) -> str:
    """Typing a text that repeats itself or copies the screen listing."""
    return (
        f'Not typed: the text goes on with "{piece}", which neither the goal nor any screen '
        "gave. Type exactly the value the goal gives, once."
    )


def phone_number_missing(answer: str) -> str:
    return (
        f'Not accepted yet: the goal asks for a phone number, and "{answer}" holds none. Open '
        "the person's details, read the number there and call task_complete with it in "
        "`answer`."
    )


def answer_unseen(part: str) -> str:
    return (
        f'Not accepted yet: no screen in this task showed "{part}". Open the screen that '
        "shows the answer and read it there; if you worked it out from what you saw, call "
        "task_complete with it again."
    )


def already_as_asked(title: str, state: str, described: str) -> str:
    """A tap that would flip a switch out of the state one part of the goal asks for."""
    return (
        f"Blocked: {title} is already {state}, as the goal asks; {described} would undo "
        "that. Go on with the rest of the goal."
    )


def off_goal_switch(title: str, named: str, described: str) -> str:
    """A tap on one of the phone's switches that the goal does not name, while it names others."""
    return (
        f"Blocked: {title} is not part of the goal, which is about {named}; {described} would "
        "change a setting the user did not ask about. Find the switch the goal names; if it "
        "already shows the asked state, call task_complete."
    )


def unasked_deletion(picked: Sequence[str], asked: Sequence[str], described: str) -> str:
    """A tap that would delete items (`picked`: their rows' labels) the goal does not ask to
    delete, while it names others (`asked`: their titles)."""
    quoted = _and_list([_quote(label, 60) for label in picked])
    wanted = _and_list([f'"{title}"' for title in asked])
    return (
        f"Blocked: {described} would delete {quoted}, which the goal does not ask to delete; "
        f"it asks to delete {wanted}. Pick exactly the items the goal names (deselect or go "
        "back first)."
    )


def unasked_pick(described: str, asked: Sequence[tuple[str, int | None]]) -> str:
    """A tap or long press on an item row the goal does not delete, on a screen that lists the
    ones it does (`asked`: their titles, with their indices here)."""
    rows = _and_list(
        [f'"{title}"' + (f" [{index}]" if index is not None else "") for title, index in asked]
    )
    return (
        f"Blocked: {described} picks an item the goal does not ask to delete. The goal deletes "
        f"{rows}, listed on this screen: pick {'that' if len(asked) == 1 else 'those'} instead."
    )


def unnamed_file_pick(described: str, named: Sequence[tuple[str, int]]) -> str:
    """A tap or long press on a file the goal does not name, on a screen that lists the ones it
    does (`named`: their names, with their indices here)."""
    rows = _and_list([f'"{name}" [{index}]' for name, index in named])
    return (
        f"Blocked: {described} picks a file the goal does not name. The goal is about {rows}, "
        f"listed on this screen: pick {'that' if len(named) == 1 else 'one of those'} instead."
    )


def unnamed_conversation(described: str, named: Sequence[tuple[str, int]]) -> str:
    """A tap or long press on a conversation with someone the goal does not name, for a goal
    that sends a message, on a screen that lists someone it does (`named`, with indices)."""
    rows = _and_list([f'"{title}" [{index}]' for title, index in named])
    return (
        f"Blocked: {described} opens a conversation the goal does not name. The goal names "
        f"{rows}, listed on this screen: pick {'that' if len(named) == 1 else 'one of those'} "
        "instead."
    )


def every_switch_unmet(titles: Sequence[str], state: str) -> str:
    """A success claim on a goal that asks every switch of a kind in one state ("turn off all
    my alarms") while some were last shown in the other."""
    quoted = _and_list([f'"{title}"' for title in titles])
    return (
        f"Not done yet: the goal asks for every one of them {state}, and {quoted} "
        f"{'was' if len(titles) == 1 else 'were'} last shown not {state}. Set "
        f"{'it' if len(titles) == 1 else 'each'} {state}, or call task_complete(success=false) if "
        "it cannot be done."
    )


def named_switch_unseen(named: str) -> str:
    """A success claim while no screen has shown the switch the goal names."""
    return (
        f"Not done yet: the goal is about {named}, and no screen of this task has shown it. "
        "Find it and check its state before calling task_complete."
    )


def undo_blocked(title: str, state: str, described: str) -> str:
    return (
        f"Blocked: you turned {title} {state} yourself; {described} would undo "
        "that. If the goal is reached, call task_complete."
    )


def risky_unconfirmable(described: str, word: str) -> str:
    return (
        f"{described} was not done: it needs the user's confirmation ({word}), "
        "which this run cannot ask for. Find another way or call "
        "task_complete(success=false)."
    )


def risky_declined(described: str) -> str:
    return f"The user declined {described}. Do not try it again."


def _and_list(items: Sequence[str]) -> str:
    """The items joined as a sentence says them: A; A and B; A, B and C."""
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def _element_ref(index: int, screen: Screen | None) -> str:
    if screen is not None:
        for element in screen.elements:
            if element.index == index:
                return f"[{index}] {_quote(element.label)}" if element.label else f"[{index}]"
    return f"[{index}]"


def _quote(text: str, limit: int = 40) -> str:
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    return '"' + short.replace('"', "'") + '"'
