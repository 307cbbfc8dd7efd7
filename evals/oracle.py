"""The oracle: a task's scripted plan, resolved step by step against the live screen.

Plan steps name elements by label. Each one is looked up in the agent's own view of the current
screen (`agent.screen.Screen`) and turned into the tool call the model would make, and the
oracle plays as a policy inside the agent loop, guards included. A plan that runs to success
proves that the task is solvable, that the screen model shows enough to solve it, and that the
guards let a correct agent through.
"""

from __future__ import annotations

import json
import unicodedata

from agent.actions import (
    Action,
    LongPress,
    OpenApp,
    PressKey,
    Swipe,
    Tap,
    TaskComplete,
    TypeText,
    tool_name,
)
from agent.model_client import DecisionRequest, ModelReply, PolicyError
from agent.screen import Element, Screen
from simulator.tasks import PlanStep, Task


class OracleError(RuntimeError):
    """A plan step names an element the screen does not show."""


def _norm(label: str) -> str:
    label = unicodedata.normalize("NFKC", label).replace("\u2011", "-")
    return " ".join(label.casefold().split())


def find_element(screen: Screen, label: str, near: str | None = None) -> Element:
    """The element labelled `label`: exact label first, then one that starts with it, then one
    that contains it. Among equals, actionable ones win; `near` picks the closest to the
    element labelled `near`."""
    wanted = _norm(label)
    tiers = [
        [e for e in screen.elements if _norm(e.label) == wanted],
        [e for e in screen.elements if _norm(e.label).startswith(wanted)],
        [e for e in screen.elements if wanted in _norm(e.label)],
    ]
    candidates = next((tier for tier in tiers if tier), [])
    if not candidates:
        shown = ", ".join(repr(e.label) for e in screen.elements if e.label)
        raise OracleError(f"no element labelled {label!r} on screen ({screen.app}): {shown}")
    actionable = [e for e in candidates if e.clickable or e.role == "input"]
    candidates = actionable or candidates
    if near is not None and len(candidates) > 1:
        anchor = find_element(screen, near)
        return min(candidates, key=lambda e: abs(e.center[1] - anchor.center[1]))
    return candidates[0]


def resolve(step: PlanStep, screen: Screen) -> Action:
    """The tool call that carries out `step` on `screen`."""

    def index() -> int:
        if step.target is None:
            raise OracleError(f"plan step {step.tool} needs a target")
        return find_element(screen, step.target, step.near).index

    if step.tool == "tap":
        return Tap(index=index())
    if step.tool == "long_press":
        return LongPress(index=index())
    if step.tool == "type_text":
        return TypeText(
            text=step.text or "",
            index=index() if step.target else None,
            clear=step.clear,
            submit=step.submit,
        )
    if step.tool == "swipe":
        return Swipe(direction=step.direction or "up", index=index() if step.target else None)
    if step.tool == "press_key":
        return PressKey(key=step.key or "")
    if step.tool == "open_app":
        return OpenApp(name=step.app or "")
    return TaskComplete(success=True, answer=step.answer)


def tool_call(action: Action, call_id: str) -> dict[str, object]:
    """The action as an OpenAI-shaped tool call, as a model's reply would carry it."""
    arguments = action.model_dump(exclude_defaults=True)
    return {
        "id": call_id,
        "type": "function",
        "function": {
            "name": tool_name(action),
            "arguments": json.dumps(arguments, ensure_ascii=False),
        },
    }


class OraclePolicy:
    """Plays `task`'s plan for `seed`, one step per decision, as structured tool calls."""

    def __init__(self, task: Task, seed: int) -> None:
        self._plan = task.oracle(seed)
        self._next = 0

    def decide(self, request: DecisionRequest) -> ModelReply:
        if self._next >= len(self._plan):
            raise PolicyError(f"the oracle plan has no step {request.step}")
        try:
            action = resolve(self._plan[self._next], request.screen)
        except OracleError as exc:
            raise PolicyError(f"oracle: {exc}") from exc
        self._next += 1
        call = tool_call(action, f"oracle-{self._next}")
        return ModelReply(tool_calls=[call], finish_reason="tool_calls")
