"""Detour starts: a task begun from somewhere other than its own start.

An agent on a real phone rarely starts from the home screen; it must find its way from wherever
the user left the phone. A detour puts the simulator there before the episode begins, chosen by
the seed among three kinds:

- wrong_app: another app in front, some steps into one of its own tasks' plans;
- wrong_page: the task's app on another page, some steps into a sibling task's plan;
- scrolled: the task's app open with its first page scrolled down.

Detours only move around: the steps played are navigation (opening apps, taps, swipes, back)
and a detour that changed anything a task could be judged on is cut shorter. What the phone
shows is all that differs from the task's own start.

A detour of another kind happens in the agent's history rather than on the phone: a success
claim made too early (`EarlyClaim`). Part-way through an episode whose goal the loop can check
(`refusable`), the policy claims success where the loop turns the claim down; the loop says why
in the next request, and the policy goes on from there. A policy shown such requests learns the
way back from its own premature claim. The loop turns down a claim
- on switches asked on or off, alone or several together, before a screen showed them so;
- on a goal that deletes named items, while the screen still lists one of them;
- on a goal that quotes a text, before a screen showed it;
- on a question, made without an answer.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agent.actions import TaskComplete
from agent.execute import execute
from agent.goal_items import (
    asks_for_answer,
    copies_listed,
    deletes_copies,
    deletes_items,
    marks_done,
    removal_shown,
    still_open,
    unshown_durations,
    unshown_quotes,
    unshown_times,
)
from agent.goal_switches import every_switch, goal_parts
from agent.model_client import DecisionRequest, ModelReply, Policy
from agent.screen import Screen
from evals.oracle import OracleError, resolve, shows, tool_call
from simulator import Simulator
from simulator.state import LAUNCHER
from simulator.tasks import TASKS, PlanStep, Task, open_app, swipe
from simulator.tasks.scope import INCIDENTAL_KEYS

DetourKind = Literal["wrong_app", "wrong_page", "scrolled"]
DETOUR_KINDS: tuple[DetourKind, ...] = ("wrong_app", "wrong_page", "scrolled")

# Steps a detour may add to a task's budget: looking through the page the phone is on, going
# back a few pages and opening the task's app afresh.
DETOUR_EXTRA_STEPS = 12

_NAVIGATION_TOOLS = frozenset({"open_app", "tap", "swipe", "press_key"})


@dataclass(frozen=True)
class Detour:
    """Where a run starts instead of its task's own start."""

    kind: DetourKind
    steps: tuple[PlanStep, ...]
    via: str  # whose plan the steps come from

    def describe(self) -> str:
        moves = ", ".join(_describe(step) for step in self.steps)
        return f"{self.kind.replace('_', ' ')} ({self.via}): {moves}"


def _describe(step: PlanStep) -> str:
    if step.tool == "open_app":
        return f"open {step.app}"
    if step.tool == "swipe":
        return f"swipe {step.direction}"
    if step.tool == "press_key":
        return f"press {step.key}"
    return f"{step.tool} {step.target!r}"


def start_from_detour(
    task: Task,
    seed: int,
    new_simulator: Callable[[], Simulator],
    tasks: Sequence[Task] = TASKS,
) -> tuple[Simulator, Detour]:
    """A simulator in `task`'s initial state (from `new_simulator`), moved to the detour that
    `seed` picks. Every candidate is played on a fresh simulator; the first that moves the phone
    without changing what tasks are judged on is kept."""
    rng = random.Random(f"{task.name}/{seed}/detour")
    kind = DETOUR_KINDS[seed % len(DETOUR_KINDS)]
    for detour in _candidates(task, seed, kind, rng, tasks):
        sim = new_simulator()
        before = _lasting(sim.state)
        played = _play(sim, detour.steps)
        if played and _lasting(sim.state) == before:
            return sim, Detour(detour.kind, detour.steps[:played], detour.via)
    raise ValueError(f"{task.name}: no detour leaves the state as it was")


def _candidates(
    task: Task, seed: int, kind: DetourKind, rng: random.Random, tasks: Sequence[Task]
) -> Iterator[Detour]:
    own_app = [open_app(task.app)] if task.app != LAUNCHER else []
    if kind == "scrolled":
        yield Detour("scrolled", (*own_app, swipe("up"), swipe("up")), task.name)
    elif kind == "wrong_page":
        siblings = [t for t in tasks if t.app == task.app and t.name != task.name]
        yield from _plan_prefixes(task, seed, "wrong_page", rng, siblings, shortest=2)
    # every kind falls back on another app, and on its own app's first page at last
    others = [t for t in tasks if t.app not in (task.app, LAUNCHER)]
    yield from _plan_prefixes(task, seed, "wrong_app", rng, others, shortest=1)
    yield Detour("scrolled", (*own_app, swipe("up")), task.name)


def _plan_prefixes(
    task: Task,
    seed: int,
    kind: DetourKind,
    rng: random.Random,
    sources: Sequence[Task],
    shortest: int,
) -> Iterator[Detour]:
    """The navigation that starts each of `sources`' plans, longest first, in an order the
    seed shuffles; never a start the task's own plan shares (that is a head start)."""
    own = task.oracle(seed)
    for source in rng.sample(list(sources), len(sources)):
        steps = _navigation_prefix(source.oracle(seed))
        for length in range(len(steps), shortest - 1, -1):
            prefix = tuple(steps[:length])
            if prefix[0].tool == "open_app" and list(prefix) != own[:length]:
                yield Detour(kind, prefix, source.name)


def _navigation_prefix(plan: Sequence[PlanStep]) -> list[PlanStep]:
    prefix: list[PlanStep] = []
    for step in plan:
        if step.tool not in _NAVIGATION_TOOLS:
            break
        prefix.append(step)
    return prefix


def _play(sim: Simulator, steps: Sequence[PlanStep]) -> int:
    """Play `steps` until one is not on screen; how many were played."""
    for played, step in enumerate(steps):
        screen = Screen.parse(sim.dump_xml())
        if step.optional and not shows(step, screen):
            continue
        try:
            action = resolve(step, screen)
        except OracleError:
            return played
        execute(action, screen, sim, sleep=lambda seconds: None)
    return len(steps)


def _lasting(state: dict[str, Any]) -> dict[str, Any]:
    """What moving around must leave as it was: all but which app is in front and the answers
    to permission prompts."""
    return {key: value for key, value in state.items() if key not in INCIDENTAL_KEYS}


def _switches_only(goal: str) -> bool:
    """The goal reads in full as switches every phone has, each asked on or off."""
    parts = goal_parts(goal)
    return parts.complete and all(part.known for part in parts.parts)


def _every_switch_left(goal: str, screen: Screen) -> bool:
    """The screen shows a switch of the kind the goal asks every one of, in the other state."""
    every = every_switch(goal)
    return every is not None and any(
        every.matches(element) and element.checked != every.desired for element in screen.elements
    )


def refusable(goal: str) -> bool:
    """Whether the loop turns down a success claim on `goal` made before the goal is reached,
    on some screen of the way there."""
    return (
        _switches_only(goal)
        or deletes_items(goal)
        or deletes_copies(goal)
        or marks_done(goal)
        or every_switch(goal) is not None
        or asks_for_answer(goal)
        or bool(unshown_quotes(goal, ()))
        or bool(unshown_durations(goal, ()))
        or bool(unshown_times(goal, ()))
    )


def refused_here(goal: str, screen: Screen, shown: Iterable[str]) -> bool:
    """Whether the loop turns down a claim made on `screen` before the goal is reached, the
    episode's screens having shown the labels `shown`: always for switches and questions;
    while the screen lists an item to delete, an item twice where the goal deletes copies, an
    item to mark done as still open, or a switch
    of the kind the goal asks every one of in the other state; and for a quoted text, a
    timer's duration or an alarm's time none of the labels holds."""
    return (
        _switches_only(goal)
        or asks_for_answer(goal)
        or bool(removal_shown(goal, screen))
        or bool(copies_listed(goal, screen))
        or bool(still_open(goal, screen))
        or _every_switch_left(goal, screen)
        or bool(unshown_quotes(goal, shown))
        or bool(unshown_durations(goal, shown))
        or bool(unshown_times(goal, shown))
    )


@dataclass
class EarlyClaim:
    """Plays `policy`, except that the first decision from `step` on whose screen the loop
    turns a claim down (`refused_here`) claims success at once, without an answer, as a policy
    that stops too early does. The loop says why; `policy` then decides the next step, which
    is the way back. `claimed_at` is the step of the claim, None while none was made."""

    policy: Policy
    step: int
    claimed_at: int | None = None
    _shown: set[str] = field(default_factory=set, init=False, repr=False)  # labels so far

    def decide(self, request: DecisionRequest) -> ModelReply:
        self._shown.update(element.label for element in request.screen.elements)
        if (
            self.claimed_at is not None
            or request.step < self.step
            or not refused_here(request.goal, request.screen, self._shown)
        ):
            return self.policy.decide(request)
        self.claimed_at = request.step
        claim = tool_call(TaskComplete(success=True), f"claim-{request.step}")
        return ModelReply(tool_calls=[claim], finish_reason="tool_calls")
