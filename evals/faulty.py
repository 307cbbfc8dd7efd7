"""Faulty policies: a capable model that misbehaves in one of the ways the small model was seen
to misbehave on phone screens (DESIGN §3), for measuring what the loop's guards do about it.

Each policy knows the task's oracle plan and resolves its steps on the live screen, as a model
that reads the screen well would; its fault takes over at the plan's decisive step, the last
action before `task_complete` (tapping the Wi-Fi switch, saving the alarm):

- taps-everything: the thinking-off collapse. At the decisive screen it taps every element from
  top to bottom, then presses back; never reasons, never declares done.
- format-breaks: the whole plan, but the calls come in the broken shapes seen in replies
  (unterminated JSON, unclosed compact calls, aliases, Python calls, single quotes) and every
  sixth reply is prose without a call.
- unclosed-think: at the decisive screen its reasoning runs into the token cap without closing
  `</think>`, on every step: no call at all.
- undo-after-success: does the decisive step, then does it again (turning a switch back off),
  then declares success.
- never-complete: does the whole plan but never calls `task_complete`; swipes up and down
  looking for more.
- loops: at the decisive screen it goes back and returns, back and forth.

Replies are `ModelReply` objects shaped like the model server's (structured tool calls, or text
the parser must repair); no HTTP is involved. A plan step the screen does not show gets a prose
reply naming what is missing (the model is lost), and the step is tried again next time.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agent.actions import (
    Action,
    OpenApp,
    PressKey,
    Swipe,
    Tap,
    TaskComplete,
    TypeText,
    tool_name,
)
from agent.model_client import DecisionRequest, ModelReply
from agent.prompt import describe_action
from agent.screen import Screen
from evals.oracle import OracleError, resolve, shows, tool_call
from simulator.tasks import PlanStep, Task

FAULT_MODES: dict[str, str] = {
    "taps-everything": "taps every element of the decisive screen, never declares done",
    "format-breaks": "the plan in broken call formats, every sixth reply prose only",
    "unclosed-think": "reasoning cut at the token cap without </think> at the decisive screen",
    "undo-after-success": "does the decisive step twice (undoing it), then declares success",
    "never-complete": "does the plan but never calls task_complete",
    "loops": "goes back and forth between the decisive screen and the one before",
}

_PROSE_EVERY = 6  # format-breaks: every sixth reply carries no call
_SKIPPED_LABELS = {"Navigate up"}  # the collapse taps content, not the toolbar's up arrow
_RAMBLE = (
    "Let me look at the screen again. The goal asks for something on this page, but maybe I "
    "should check the other options first. Wait, maybe the element I need is further down, or "
    "maybe it is the one at the top. Let me reconsider each element one by one. "
)


class FaultyPolicy:
    """One episode's faulty model: the task's plan for `seed`, with the fault of `mode`."""

    def __init__(self, task: Task, seed: int, mode: str) -> None:
        if mode not in FAULT_MODES:
            raise ValueError(f"unknown fault mode {mode!r}; one of: {', '.join(FAULT_MODES)}")
        # a faulty model keeps no notes
        plan = [step for step in task.oracle(seed) if step.tool != "remember"]
        actions = [step for step in plan if step.tool != "task_complete"]
        finish = [step for step in plan if step.tool == "task_complete"]
        prefix, decisive = actions[:-1], actions[-1:]
        self.mode = mode
        self._decisions = 0
        self._tapped: set[str] = set()
        self._alternation = 0
        queue: dict[str, list[PlanStep]] = {
            "taps-everything": prefix,
            "format-breaks": plan,
            "unclosed-think": prefix,
            "undo-after-success": prefix + decisive + decisive + finish,
            "never-complete": actions,
            "loops": prefix,
        }
        self._queue = list(queue[mode])
        # back and forth: back, then the step that led to the decisive screen again
        partner = prefix[-1:] or decisive
        self._loop = [PlanStep(tool="press_key", key="back"), *partner]
        afterwards: dict[str, Callable[[Screen], ModelReply]] = {
            "taps-everything": self._tap_next,
            "format-breaks": self._look_around,
            "unclosed-think": self._think_forever,
            "undo-after-success": self._look_around,
            "never-complete": self._look_around,
            "loops": self._go_back_and_forth,
        }
        self._afterwards = afterwards[mode]

    def decide(self, request: DecisionRequest) -> ModelReply:
        self._decisions += 1
        screen = request.screen
        if self.mode == "format-breaks" and self._decisions % _PROSE_EVERY == 0:
            return ModelReply(
                content="I think the next step is clear from the screen, so I will do it now.",
                reasoning="The screen shows what I need.",
                finish_reason="stop",
            )
        while self._queue and self._queue[0].optional and not shows(self._queue[0], screen):
            self._queue.pop(0)
        if not self._queue:
            return self._afterwards(screen)
        try:
            action = resolve(self._queue[0], screen)
        except OracleError:
            target = self._queue[0].target or self._queue[0].tool
            return ModelReply(
                content=f'I cannot find "{target}" on this screen. Let me think about it.',
                finish_reason="stop",
            )
        self._queue.pop(0)
        if self.mode == "format-breaks":
            return _broken_reply(action, screen, self._decisions)
        return _structured_reply(action, screen, self._decisions)

    # --- what each fault does once its part of the plan is used up -------------------------

    def _tap_next(self, screen: Screen) -> ModelReply:
        for element in screen.elements:
            label = element.label
            if element.clickable and label and label not in _SKIPPED_LABELS | self._tapped:
                self._tapped.add(label)
                return _structured_reply(
                    Tap(index=element.index), screen, self._decisions, thinking=False
                )
        return _structured_reply(PressKey(key="back"), screen, self._decisions, thinking=False)

    def _think_forever(self, screen: Screen) -> ModelReply:
        return ModelReply(
            reasoning=_RAMBLE * 8,
            finish_reason="length",
            completion_tokens=512,
            thinking=True,
        )

    def _look_around(self, screen: Screen) -> ModelReply:
        self._alternation += 1
        swipe = Swipe(direction="up" if self._alternation % 2 else "down")
        return _structured_reply(swipe, screen, self._decisions)

    def _go_back_and_forth(self, screen: Screen) -> ModelReply:
        step = self._loop[self._alternation % len(self._loop)]
        self._alternation += 1
        try:
            action = resolve(step, screen)
        except OracleError:
            action = PressKey(key="back")
        return _structured_reply(action, screen, self._decisions)


# --- reply shapes -----------------------------------------------------------------------------


def _structured_reply(
    action: Action, screen: Screen, number: int, *, thinking: bool = True
) -> ModelReply:
    """A well-formed reply: a structured tool call, as the server's tool parser returns it."""
    reasoning = (
        f"To get closer to the goal: {describe_action(action, screen)}." if thinking else None
    )
    return ModelReply(
        content="",
        reasoning=reasoning,
        tool_calls=[tool_call(action, f"call-{number}")],
        finish_reason="tool_calls",
        thinking=thinking,
    )


def _arguments(action: Action) -> dict[str, Any]:
    return action.model_dump(exclude_defaults=True)


def _bracket_json(action: Action) -> str:
    name = tool_name(action)
    body = json.dumps({"tool": name, "parameters": _arguments(action)}, ensure_ascii=False)
    return f"[{name}]\n{body[:-1]}"  # the closing brace never came


def _compact_unclosed(action: Action) -> str:
    pairs = "".join(
        f"<arg_key>{key}</arg_key><arg_value>{_compact_value(value)}</arg_value>"
        for key, value in _arguments(action).items()
    )
    return f"<tool_call>{tool_name(action)}{pairs}"  # no </tool_call>


def _compact_value(value: Any) -> str:
    return json.dumps(value) if isinstance(value, bool) else str(value)


_ALIASES: dict[type[Action], tuple[str, dict[str, str]]] = {
    Tap: ("click", {}),
    TypeText: ("input_text", {}),
    OpenApp: ("launch_app", {"name": "app_name"}),
    TaskComplete: ("finish", {}),
}


def _alias_json(action: Action) -> str:
    arguments = _arguments(action)
    if isinstance(action, Swipe):
        # the other convention: a scroll names where the view goes, the opposite of the finger
        opposite = {"up": "down", "down": "up", "left": "right", "right": "left"}
        arguments["direction"] = opposite[action.direction]
        name = "scroll"
    else:
        name, renames = _ALIASES.get(type(action), (tool_name(action), {}))
        arguments = {renames.get(key, key): value for key, value in arguments.items()}
    return json.dumps({"action": name, **arguments}, ensure_ascii=False)


def _python_call(action: Action) -> str:
    rendered = ", ".join(
        f"{key}={value!r}"
        if isinstance(value, bool | int | float)
        else f"{key}={json.dumps(value)}"
        for key, value in _arguments(action).items()
    )
    return f"The next step is {tool_name(action)}, so:\n{tool_name(action)}({rendered})"


def _fenced_single_quotes(action: Action) -> str:
    pairs = ", ".join(
        f"{_single(key)}: {_single(value)}" for key, value in _arguments(action).items()
    )
    separator = ", " if pairs else ""
    return f"```json\n{{'action': '{tool_name(action)}'{separator}{pairs},}}\n```"


def _single(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return json.dumps(value)


BROKEN_FORMATS: tuple[Callable[[Action], str], ...] = (
    _bracket_json,
    _compact_unclosed,
    _alias_json,
    _python_call,
    _fenced_single_quotes,
)


def _broken_reply(action: Action, screen: Screen, number: int) -> ModelReply:
    render = BROKEN_FORMATS[number % len(BROKEN_FORMATS)]
    return ModelReply(
        content=render(action),
        reasoning=f"I will {describe_action(action, screen)}.",
        finish_reason="stop",
        thinking=True,
    )
