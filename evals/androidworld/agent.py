"""Our agent as an AndroidWorld agent. Importing this module imports android_world."""

from __future__ import annotations

from android_world.agents import base_agent
from android_world.env import interface, json_action

from evals.androidworld.convert import AwAction, screen_from_aw
from evals.androidworld.step import AgentStepper


class PhoneAgent(base_agent.EnvironmentInteractingAgent):
    """One `step(goal)` = one turn of our agent on the current state of the emulator."""

    def __init__(
        self,
        env: interface.AsyncEnv,
        stepper: AgentStepper,
        name: str = "phone-agent",
        transition_pause: float | None = None,
    ) -> None:
        super().__init__(env, name, transition_pause)
        self.stepper = stepper

    def reset(self, go_home: bool = False) -> None:
        self.stepper.reset()  # first: a failing reset of the emulator leaves nothing open
        super().reset(go_home)
        self.env.hide_automation_ui()

    def set_max_steps(self, max_steps: int) -> None:
        """The harness's step budget for the episode it is starting."""
        super().set_max_steps(max_steps)
        self.stepper.set_step_budget(max_steps)

    def step(self, goal: str) -> base_agent.AgentInteractionResult:
        state = self.get_post_transition_state()
        observed = screen_from_aw(
            state.ui_elements,
            tuple(self.env.logical_screen_size),
            app=_package(self.env.foreground_activity_name),
        )
        outcome = self.stepper.step(goal, observed, self._execute)
        return base_agent.AgentInteractionResult(outcome.done, outcome.data)

    def _execute(self, action: AwAction) -> None:
        self.env.execute_action(json_action.JSONAction(**action))


def _package(activity: str | None) -> str | None:
    """`com.android.settings/.Settings` -> `com.android.settings`."""
    return activity.split("/", 1)[0] if activity else None
