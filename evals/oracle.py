"""The oracle: a task's scripted plan, resolved step by step against the live screen.

Plan steps name elements by label. Each one is looked up in the agent's own view of the current
screen (`agent.screen.Screen`) and turned into the tool call the model would make, and the
oracle plays as a policy inside the agent loop, guards included. A plan that runs to success
proves that the task is solvable, that the screen model shows enough to solve it, and that the
guards let a correct agent through.

The oracle re-plans from the screen it is shown, so it also finishes a task started from a
detour (another app in front, another page of the right app, a list scrolled away). When the
next step's element is not on screen: a system window over the app is dismissed; in another app
than the plan's, the plan's app is opened again (or the home screen, for a plan that starts
there); on a page the plan led to, the page is scrolled both ways looking for it; otherwise the
oracle goes back a page, which in the end leaves the app and opens it afresh. A step marked
optional (a prompt only some launches show) is skipped when its element is absent. An answer is
given only on a screen that shows it (as the agent's answer guard asks), so a task started on
another page of its app, or with its list scrolled away, goes looking for it first. A page's
title, which carries the label of the item that led there, is not taken for that item. A tap
on a switch or checkbox that left it as it was, and either closed something or brought up
nothing the plan acts on next (a tap lost to something over the page), is played again. A
remember step is found like any other (its target is the value to read) and written as a
`Remember:` line beside the next step's call, which is how the model is shown to keep what it
will need once it has left that screen. Every reply also carries, as its reasoning, one
sentence naming what the call is for (`aim`): the plan step's element by the words the plan
finds it by, or the element being looked for. A demonstration recorded with thinking on teaches
it, so that a small model first writes down which element it wants (words it can copy from the
goal) and only then picks that element's index. A run that someone else's actions brought to a
screen can start the plan at any of its `join_points` (`evals.corrections` labels states so).
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from typing import Literal

from agent import prompt
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
from agent.guards import unseen_answer_parts
from agent.model_client import DecisionRequest, ModelReply, PolicyError
from agent.screen import Element, Screen
from agent.screen_text import ELLIPSIS
from simulator.apps import APPS
from simulator.state import LAUNCHER
from simulator.tasks import PlanStep, Task

# How far a search for a missing element may go before the oracle gives up: swipes on one page,
# pages gone back in a row, and times the plan's app is opened again.
MAX_SEARCH_SWIPES = 8
MAX_BACK_PRESSES = 6
MAX_RESTARTS = 3
# A cut label matches a longer one only on this much of its start, so "…" alone matches nothing.
MIN_CUT_STEM = 20

# The package an `open_app` step opens, by launcher label or by package, in lower case.
_PACKAGES = {
    **{app.label.casefold(): app.package for app in APPS},
    **{app.package: app.package for app in APPS},
}
# the apps a plan that starts on the home screen must leave first
_OTHER_APPS = frozenset(_PACKAGES.values()) - {LAUNCHER}


class OracleError(RuntimeError):
    """A plan step names an element the screen does not show."""


def _norm(label: str) -> str:
    label = unicodedata.normalize("NFKC", label).replace("\u2011", "-")
    return " ".join(label.casefold().split())


def _cut_short_of(shown: str, wanted: str) -> bool:
    """Whether `shown` is `wanted` as the screen cuts a long label (`agent.screen_text`)."""
    if not shown.endswith(ELLIPSIS):
        return False
    stem = _norm(shown.removesuffix(ELLIPSIS))
    return len(stem) >= MIN_CUT_STEM and wanted.startswith(stem)


def missing(label: str, screen: Screen) -> OracleError:
    shown = ", ".join(repr(e.label) for e in screen.elements if e.label)
    return OracleError(f"no element labelled {label!r} on screen ({screen.app}): {shown}")


def find_element(screen: Screen, label: str, near: str | None = None) -> Element:
    """The element labelled `label`: exact label first, then one that starts with it, then one
    that contains it, then one whose label the screen cut short of it. Among equals,
    actionable ones win; `near` picks the closest to the element labelled `near`."""
    wanted = _norm(label)
    tiers = [
        [e for e in screen.elements if _norm(e.label) == wanted],
        [e for e in screen.elements if _norm(e.label).startswith(wanted)],
        [e for e in screen.elements if wanted in _norm(e.label)],
        [e for e in screen.elements if _cut_short_of(e.label, wanted)],
    ]
    candidates = next((tier for tier in tiers if tier), [])
    if not candidates:
        raise missing(label, screen)
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
    if step.tool == "remember":
        raise OracleError("a remember step is no action: it goes beside the next one")
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


def _has(screen: Screen, label: str) -> bool:
    try:
        find_element(screen, label)
    except OracleError:
        return False
    return True


def shows(step: PlanStep, screen: Screen) -> bool:
    """Whether `screen` has the element `step` acts on, or, for an answer, shows the answer
    (other steps without an element always apply)."""
    if step.tool == "task_complete" and step.answer:
        shown = not unseen_answer_parts(step.answer, (e.label for e in screen.elements))
        return shown and (step.near is None or _has(screen, step.near))
    if step.target is None:
        return True
    try:
        element = find_element(screen, step.target, step.near)
    except OracleError:
        return False
    # a page's title carries the label of the item that led to it, and does nothing when tapped
    return step.tool != "tap" or element.clickable or element.role != "text"


def _named(step: PlanStep) -> str:
    """The element `step` acts on, in the plan's words (an answer is looked for as a whole)."""
    if step.target is None:
        return "the answer"
    return f'"{step.target}"' + (f' by "{step.near}"' if step.near else "")


def aim(step: PlanStep) -> str:
    """One sentence naming what playing `step` is for, as a model would think it."""
    match step.tool:
        case "tap":
            return f"Tap {_named(step)}."
        case "long_press":
            return f"Long-press {_named(step)}."
        case "type_text":
            return f"Type into {_named(step)}." if step.target else "Type the text."
        case "swipe":
            return f"Swipe {step.direction or 'up'}."
        case "press_key":
            return f"Press {step.key}."
        case "open_app":
            return f"Open {step.app}."
        case "task_complete":
            return "The screen shows the answer." if step.answer else "The goal is reached."
        case "remember":
            raise OracleError("a remember step is no action: it goes beside the next one")


def segment_start(plan: list[PlanStep], index: int) -> int:
    """Where the part of `plan` in the app of step `index` starts: its `open_app`, or 0."""
    return next((i for i in range(index, -1, -1) if plan[i].tool == "open_app"), 0)


def join_points(plan: list[PlanStep], screen: Screen) -> list[int]:
    """Plan steps, last first, from which a run that others' actions brought to `screen` could
    carry on: those acting on an element the screen shows, in the part of the plan for the app
    in front. None past a remember step, whose note the screens before would have given."""
    remembers = [i for i, step in enumerate(plan) if step.tool == "remember"]
    last = remembers[0] - 1 if remembers else len(plan) - 1
    points = []
    for index in range(last, -1, -1):
        step = plan[index]
        acts_on_element = step.target is not None or (
            step.tool == "task_complete" and bool(step.answer)
        )
        opener = plan[segment_start(plan, index)]
        in_front = opener.tool == "open_app" and (
            _PACKAGES.get((opener.app or "").casefold()) == screen.app
        )
        if acts_on_element and in_front and shows(step, screen):
            points.append(index)
    return points


@dataclass(frozen=True)
class _Toggle:
    """A plan step that tapped a switch or checkbox, the element's state before, and the
    labels of the screen it was tapped on."""

    step: int
    checked: bool
    labels: frozenset[str]


class _Search:
    """Looking for a missing element on one page: one way first, then the other; a swipe that
    leaves the screen as it was ends that way."""

    def __init__(self, first: Literal["up", "down"], unchanged_by_first: str | None) -> None:
        self.ways: list[Literal["up", "down"]] = [first, "down" if first == "up" else "up"]
        self.swipes = 0
        self.before = unchanged_by_first  # the screen the last swipe started from

    def next_swipe(self, screen: Screen) -> Swipe | None:
        """The next swipe to look further, or None when the page has been looked through."""
        if screen.signature == self.before:
            self.ways.pop(0)
        if not self.ways or self.swipes >= MAX_SEARCH_SWIPES:
            return None
        if not any(e.scrollable for e in screen.elements):
            return None
        self.swipes += 1
        self.before = screen.signature
        return Swipe(direction=self.ways[0])


class OraclePolicy:
    """Plays `task`'s plan for `seed`, one step per decision, as structured tool calls,
    finding its way back to the plan from wherever the screen is (see the module's notes)."""

    def __init__(self, task: Task, seed: int, start: int = 0) -> None:
        """`start`: the plan step to play first (a `join_points` index), for a run that others'
        actions brought this far."""
        self._plan = task.oracle(seed)
        self._next = start
        self._search: _Search | None = None
        self._backs = 0
        self._restarts = 0
        self._calls = 0
        self._last_step: PlanStep | None = None
        self._previous_step: PlanStep | None = None
        self._last_action: Action | None = None
        self._last_screen = ""  # the signature of the screen the last action was taken on
        self._to_remember: list[str] = []  # notes for the reply being made
        self._toggle: _Toggle | None = None  # the last action, where it tapped a switch
        self._aim = ""  # what the action being made is for

    def decide(self, request: DecisionRequest) -> ModelReply:
        screen = request.screen
        # the plan step the previous action played, if it was one; recovery moves leave None
        self._previous_step, self._last_step = self._last_step, None
        self._replay_untaken_toggle(screen)
        try:
            action = self._action(screen)
        except OracleError as exc:
            raise PolicyError(f"oracle: {exc}") from exc
        self._calls += 1
        self._last_action, self._last_screen = action, screen.signature
        call = tool_call(action, f"oracle-{self._calls}")
        notes = "\n".join(f"{prompt.REMEMBER} {note}" for note in self._to_remember)
        self._to_remember = []
        return ModelReply(
            content=notes or None,
            reasoning=self._aim,
            tool_calls=[call],
            finish_reason="tool_calls",
        )

    def _action(self, screen: Screen) -> Action:
        while True:
            if self._next >= len(self._plan):
                raise OracleError(f"the plan has no step left on this screen ({screen.app})")
            step = self._plan[self._next]
            if (step.optional or step.tool == "swipe") and self._pointless(step, screen):
                self._next += 1
                continue
            if self._next == 0 and step.tool != "open_app" and screen.app in _OTHER_APPS:
                # a plan that starts on the home screen: another app that shows a label the
                # plan taps there (Settings' "Contacts") is not the place to begin
                return self._restart(step, screen, 0)
            if not shows(step, screen):
                return self._find_way(step, screen)
            self._next += 1
            self._search = None
            if step.tool == "remember":
                # `shows` found the element; without a note of its own the step notes its label
                note = step.text or find_element(screen, step.target or "", step.near).label
                self._to_remember.append(note)
                continue
            if step.tool != "swipe":
                self._backs = 0
            self._last_step = step
            if step.tool == "tap" and step.target is not None:
                element = find_element(screen, step.target, step.near)
                if element.checked is not None:
                    labels = frozenset(e.label for e in screen.elements)
                    self._toggle = _Toggle(self._next - 1, element.checked, labels)
            self._aim = aim(step)
            return resolve(step, screen)

    def _replay_untaken_toggle(self, screen: Screen) -> None:
        """Step back to the switch just tapped when it is as it was and either the tap closed
        something (something over the page took it: elements are gone) or the screen does not
        show what the plan taps next (a switch that asks for confirmation first shows the
        plan's next target, and takes nothing away)."""
        toggle, self._toggle = self._toggle, None
        if toggle is None:
            return
        step = self._plan[toggle.step]
        try:
            element = find_element(screen, step.target or "", step.near)
        except OracleError:
            return
        following = self._plan[toggle.step + 1 : toggle.step + 2]
        confirming = (
            bool(following) and following[0].target is not None and shows(following[0], screen)
        )
        closed = bool(toggle.labels - {e.label for e in screen.elements})
        if element.checked == toggle.checked and (closed or not confirming):
            self._next = toggle.step

    def _pointless(self, step: PlanStep, screen: Screen) -> bool:
        """An optional step whose element is absent, or a swipe that just now moved nothing:
        the plan's scrolling on a page that is not the one it expects."""
        if step.tool == "swipe":
            return (
                isinstance(self._last_action, Swipe)
                and self._last_action.direction == step.direction
                and self._last_screen == screen.signature
            )
        return not shows(step, screen)

    def _find_way(self, step: PlanStep, screen: Screen) -> Action:
        """An action toward a screen that shows `step`'s element."""
        if screen.app not in _PACKAGES.values():
            # a system window (a prompt, a shade) over an app
            return self._back(step, screen, "A system window is in the way: go back.")
        start = segment_start(self._plan, self._next)
        opener = self._plan[start]
        expected = (
            _PACKAGES.get((opener.app or "").casefold()) if opener.tool == "open_app" else None
        )
        if screen.app != (expected or LAUNCHER) or (expected is None and start < self._next):
            return self._restart(step, screen, start)
        if (
            self._search is None
            and self._previous_step is not None
            and self._previous_step.tool != "open_app"
        ):
            # a page the plan led to: the element may be scrolled out of view
            self._search = _Search(*self._search_start())
        if self._search is not None:
            swipe = self._search.next_swipe(screen)
            if swipe is not None:
                self._aim = f"Look for {_named(step)}: swipe {swipe.direction}."
                return swipe
        return self._back(step, screen, f"Go back: {_named(step)} is not on this page.")

    def _search_start(self) -> tuple[Literal["up", "down"], str | None]:
        """Scroll on down the page when the plan was scrolling down, else toward the top."""
        last = self._last_action
        if isinstance(last, Swipe) and last.direction == "up":
            return "up", self._last_screen
        return "down", None

    def _restart(self, step: PlanStep, screen: Screen, start: int) -> Action:
        """Open the plan's current app again, or go home for a plan that starts there."""
        if self._restarts >= MAX_RESTARTS:
            raise missing(step.target or "", screen)
        self._restarts += 1
        self._next = start
        self._search = None
        self._backs = 0
        if self._plan[start].tool == "open_app":
            return self._action(screen)
        self._aim = "Go home and start again."
        return PressKey(key="home")

    def _back(self, step: PlanStep, screen: Screen, why: str) -> Action:
        if self._backs >= MAX_BACK_PRESSES:
            raise OracleError(f"{step.target!r} is on no page behind this one ({screen.app})")
        self._backs += 1
        self._search = None
        self._aim = why
        return PressKey(key="back")
