"""Running the agent loop with its guards switched off, to measure what the guards do.

`NoGuards` has the shape of `agent.guards.Guards` and lets every parsed action run: a
`task_complete` ends the episode as the model says, an unusable reply is not run (there is
nothing to run) and the model is told why, and nothing is ever blocked, escalated or stopped.

`run_episode` builds its own `Guards` and takes no setting to switch them off, so
`guards_switched_off()` swaps the class the loop module uses for as long as it is active. That
swap is process-wide: the runner never runs guarded and unguarded episodes at the same time.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

from agent import loop
from agent.actions import Action, TaskComplete
from agent.guards import GuardDecision
from agent.screen import Element, Screen
from agent.trajectory import GuardNote

_SWITCH = threading.Lock()


class NoGuards:
    """Guards that never interfere; same methods as `agent.guards.Guards`."""

    target = None

    def __init__(self, goal: str, **options: Any) -> None:
        self.goal = goal

    def take_escalation(self) -> bool:
        return False

    def bad_call(self, message: str) -> GuardDecision:
        note = GuardNote(kind="bad_call", reason=message)
        return GuardDecision("block", [note], [f"Your last reply was not run: {message}"])

    def review(self, action: Action, target: Element | None, screen: Screen) -> GuardDecision:
        if isinstance(action, TaskComplete):
            if action.success:
                return GuardDecision("complete")
            return GuardDecision("stop", stop_reason="infeasible")
        return GuardDecision("allow")

    def observe(self, action: Action, before: Screen, after: Screen) -> GuardDecision:
        return GuardDecision("allow")


@contextmanager
def guards_switched_off() -> Iterator[None]:
    """While active, episodes run by `agent.loop.run_episode` have no guards."""
    if not _SWITCH.acquire(blocking=False):
        raise RuntimeError("guards are already switched off by another caller")
    try:
        with mock.patch.object(loop, "Guards", NoGuards):
            yield
    finally:
        _SWITCH.release()
