"""What the model reads: a short fixed system prompt and a per-step user turn.

The system message (and the tools list sent beside it) never changes during a run, so a
server's prefix cache reuses it; the user turn puts the goal first (stable within a run) and the
per-step content last: recent steps, notes from the guards, the current screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

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
- Never undo what the goal asked for: a switch already in the asked state is done."""

DEFAULT_HISTORY_STEPS = 4


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
) -> str:
    parts = [f"Goal: {goal}"]
    recent = list(history)[-history_steps:] if history_steps > 0 else []
    if recent:
        lines = [f"{item.step}. {item.action} -> {item.outcome}" for item in recent]
        parts.append("Recent steps:\n" + "\n".join(lines))
    if notes:
        parts.append("\n".join(f"Note: {note}" for note in notes))
    parts.append("Screen:\n" + screen.render())
    return "\n\n".join(parts)


def messages(user: str) -> list[dict[str, str]]:
    return [system_message(), {"role": "user", "content": user}]


def describe_action(action: Action, screen: Screen | None = None) -> str:
    """A short human-readable form, naming the target element's label where known."""
    if isinstance(action, Tap | LongPress):
        return f"{action.name} {_element_ref(action.index, screen)}"
    if isinstance(action, TypeText):
        text = f"type_text {_quote(action.text)}"
        if action.index is not None:
            text += f" into {_element_ref(action.index, screen)}"
        flags = [flag for flag, on in (("clear", action.clear), ("submit", action.submit)) if on]
        return text + (f" ({', '.join(flags)})" if flags else "")
    if isinstance(action, Swipe):
        where = f" on {_element_ref(action.index, screen)}" if action.index is not None else ""
        return f"swipe {action.direction}{where}"
    if isinstance(action, PressKey):
        return f"press_key {action.key}"
    if isinstance(action, OpenApp):
        return f"open_app {_quote(action.name)}"
    if isinstance(action, Wait):
        return f"wait {action.seconds:g} s"
    if isinstance(action, TaskComplete):
        answer = f", answer={_quote(action.answer)}" if action.answer else ""
        return f"task_complete(success={str(action.success).lower()}{answer})"
    return tool_name(action)


def _element_ref(index: int, screen: Screen | None) -> str:
    if screen is not None:
        for element in screen.elements:
            if element.index == index:
                return f"[{index}] {_quote(element.label)}" if element.label else f"[{index}]"
    return f"[{index}]"


def _quote(text: str, limit: int = 40) -> str:
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    return '"' + short.replace('"', "'") + '"'
