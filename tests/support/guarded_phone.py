"""A simulated phone driven through the guards, one action at a time, for tests of what the
guards let through."""

from __future__ import annotations

from agent.actions import Action
from agent.execute import execute
from agent.guards import GuardDecision, Guards
from agent.screen import Screen
from simulator import Simulator
from simulator.tasks import TASKS_BY_NAME


class Phone:
    """A simulated phone driven through the guards, as the loop drives it."""

    def __init__(self, task: str, app: str, goal: str, seed: int = 0) -> None:
        self.device = Simulator(state=TASKS_BY_NAME[task].initial_state(seed))
        self.device.open_app(app)
        self.screen = Screen.parse(self.device.dump_xml())
        self.guards = Guards(goal, confirm=lambda described: True)

    def index(self, text: str) -> int:
        return next(e.index for e in self.screen.elements if text in e.label)

    def act(self, action: Action, shown: Screen | None = None) -> GuardDecision:
        """Review `action` on `shown` (the screen, unless given), and run it if allowed."""
        shown = shown or self.screen
        index = getattr(action, "index", None)
        target = shown.element(index) if isinstance(index, int) else None
        decision = self.guards.review(action, target, shown)
        if decision.verdict == "allow":
            before = self.screen
            execute(action, before, self.device, sleep=lambda seconds: None)
            self.screen = Screen.parse(self.device.dump_xml())
            self.guards.observe(action, before, self.screen)
        return decision

    def blocked_off_goal(self, action: Action) -> str:
        """Review `action`, which the guards must block as off the goal and for nothing else:
        their message to the model."""
        decision = self.act(action)
        assert decision.verdict == "block"
        assert [note.kind for note in decision.notes] == ["off_goal"]
        return decision.feedback[0]
