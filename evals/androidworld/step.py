"""Our agent, one step per call, as AndroidWorld's harness drives an agent.

AndroidWorld owns the loop: it calls `step(goal)` until the agent says it is done or the step
budget is spent, and scores the task only if the agent said done. `AgentStepper.step` plays one
turn of `agent.loop.Stepper` on the state it is given: it first lets the stepper observe what
the previous action changed (AndroidWorld shows that only now), then has it decide and review
the next action, and sends the matching AndroidWorld actions through `execute`.

The agent says done on `task_complete` (an `answer` action first when there is an answer, then
`status`), when a guard sees the goal state reached (`status complete`), and when a guard or a
failing model ends the episode (`status infeasible`, the way AndroidWorld's own agents give up).
Steps are also written as our trajectory (`phone-agent report` reads them); notes the guards
make about a step's effect are recorded on the step after it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent import prompt
from agent.actions import TaskComplete, tools_schema
from agent.guards import GuardDecision
from agent.loop import RunSettings, Stepper, Turn
from agent.model_client import ModelReply, Policy
from agent.trajectory import (
    CallRecord,
    EndRecord,
    EpisodeRecord,
    ResultRecord,
    StopReason,
    TrajectoryWriter,
    now_iso,
)
from evals.androidworld.convert import AwAction, ObservedScreen, UnsupportedAction, action_to_aw
from evals.runner import goal_confirmation

Execute = Callable[[AwAction], None]


@dataclass
class StepOutcome:
    done: bool
    data: dict[str, Any]  # plain values only: AndroidWorld pickles it into its checkpoints


@dataclass
class _EpisodeState:
    stepper: Stepper
    writer: TrajectoryWriter
    started: float
    recorded: int = 0  # steps written to the trajectory
    pending: Turn | None = None  # the last turn whose action ran; the next state shows its effect


class AgentStepper:
    """Runs our agent one step at a time; one episode per goal, until `reset`."""

    def __init__(
        self,
        policy: Policy,
        trajectory_dir: Path,
        *,
        settings: RunSettings | None = None,
        guards: bool | None = None,
        model_name: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`guards` switches the guards on or off; None leaves it to `settings`."""
        settings = settings or RunSettings()
        if guards is not None:
            settings = settings.model_copy(update={"guards": guards})
        self.policy = policy
        self.trajectory_dir = trajectory_dir
        self.settings = settings
        self.model_name = model_name
        self._clock = clock
        self._episode: _EpisodeState | None = None
        self._episodes = 0

    def reset(self) -> None:
        """End the current episode (its trajectory closes as `aborted` if it had not ended)."""
        if self._episode is not None:
            self._finish("aborted", "the harness moved on", None)

    def step(self, goal: str, observed: ObservedScreen, execute: Execute) -> StepOutcome:
        episode = self._start(goal) if self._episode is None else self._episode
        stepper = episode.stepper
        screen = observed.screen
        early: GuardDecision | None = None
        if episode.pending is not None:
            early = stepper.observe(episode.pending, screen).decision
            episode.pending = None
            if early.verdict in ("complete", "stop"):
                concluded = Turn(
                    step=episode.recorded + 1,
                    screen=screen,
                    prompt="",
                    reply=ModelReply(),
                    call=CallRecord(name=None, source="guard"),
                    action=None,
                    decision=early,
                )
                return self._conclude(episode, observed, concluded, execute)

        turn = stepper.decide(screen)
        if early is not None:
            turn.decision.notes[:0] = early.notes
        if turn.decision.verdict in ("complete", "stop"):
            return self._conclude(episode, observed, turn, execute)

        sent: list[AwAction] = []
        result = ResultRecord(executed=False)
        action = turn.action_to_run
        if action is not None:
            try:
                sent = action_to_aw(action, observed)
                for aw_action in sent:
                    execute(aw_action)
            except UnsupportedAction as exc:
                sent = []
                stepper.tell(f"{exc}.")
                result = ResultRecord(executed=False, error=str(exc))
            except Exception as exc:  # an escaping exception would void the whole episode
                result = ResultRecord(executed=True, error=f"{type(exc).__name__}: {exc}")
            else:
                result = ResultRecord(executed=True, device_calls=[_describe(a) for a in sent])
                episode.pending = turn
        self._record(episode, turn, result)
        return StepOutcome(False, self._data(episode, observed, turn, sent))

    # --- episode bookkeeping -------------------------------------------------------------------

    def _start(self, goal: str) -> _EpisodeState:
        self._episodes += 1
        path = self.trajectory_dir / f"episode-{self._episodes:03d}.jsonl"
        writer = TrajectoryWriter(path)
        writer.write(
            EpisodeRecord(
                goal=goal,
                device="androidworld",
                model=self.model_name,
                settings={
                    "run": self.settings.model_dump(),
                    "policy": {"policy": "llm", "guards": self.settings.guards},
                },
                system_prompt=prompt.SYSTEM_PROMPT,
                tools=tools_schema(),
                started_at=now_iso(),
            )
        )
        stepper = Stepper(
            goal, self.policy, self.settings, confirm=goal_confirmation(goal), clock=self._clock
        )
        self._episode = _EpisodeState(stepper, writer, self._clock())
        return self._episode

    def _conclude(
        self, episode: _EpisodeState, observed: ObservedScreen, turn: Turn, execute: Execute
    ) -> StepOutcome:
        """The agent says done: `answer` (when there is one) and `status`."""
        complete = turn.decision.verdict == "complete"
        answer = turn.action.answer if isinstance(turn.action, TaskComplete) else None
        closing = action_to_aw(TaskComplete(success=complete, answer=answer), observed)
        result = ResultRecord(executed=True, device_calls=[_describe(a) for a in closing])
        try:
            for aw_action in closing:
                execute(aw_action)
        except Exception as exc:
            result = ResultRecord(executed=True, error=f"{type(exc).__name__}: {exc}")
        self._record(episode, turn, result)
        stop: StopReason = "completed" if complete else (turn.decision.stop_reason or "infeasible")
        reasons = turn.failure or "; ".join(note.reason for note in turn.decision.notes)
        data = self._data(episode, observed, turn, closing)
        data["stop_reason"] = stop
        self._finish(stop, reasons, answer)
        return StepOutcome(True, data)

    def _record(self, episode: _EpisodeState, turn: Turn, result: ResultRecord) -> None:
        episode.recorded += 1
        episode.writer.write(turn.record(result))

    def _finish(self, stop: StopReason, detail: str, answer: str | None) -> None:
        episode, self._episode = self._episode, None
        if episode is None:
            return
        episode.writer.write(
            EndRecord(
                stop_reason=stop,
                steps=episode.recorded,
                detail=detail,
                answer=answer,
                ended_at=now_iso(),
                duration_s=round(self._clock() - episode.started, 3),
            )
        )
        episode.writer.close()

    def _data(
        self,
        episode: _EpisodeState,
        observed: ObservedScreen,
        turn: Turn,
        sent: Sequence[AwAction],
    ) -> dict[str, Any]:
        return {
            "goal": episode.stepper.goal,
            "screen": observed.screen.render(),
            "aw_index": dict(observed.aw_index),
            "reasoning": turn.reply.reasoning,
            "reply": turn.reply.content,
            "call": {"name": turn.call.name, "arguments": dict(turn.call.arguments)},
            "guard": turn.decision.verdict,
            "guard_notes": [f"{note.kind}: {note.reason}" for note in turn.decision.notes],
            "aw_actions": [dict(a) for a in sent],
        }


def _describe(aw_action: AwAction) -> str:
    fields = ", ".join(f"{k}={v!r}" for k, v in aw_action.items() if k != "action_type")
    return f"{aw_action['action_type']}({fields})"
