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
make about a step's effect are recorded on the step after it. Episode files are numbered on
from those already in the directory, so a resumed run adds to them. A trajectory ends with the
agent's stop reason when it says done, `step_budget` on the last step AndroidWorld allows (the
harness tells it through `set_step_budget`), and `aborted` when the harness moves on otherwise
(`reset`: a task that raised, Ctrl-C, the end of the run). Every step's data has the same keys,
`stop_reason` included (None until the last step), so AndroidWorld's per-key lists stay even.

The model reads AndroidWorld's tool text (`convert.tools_schema`), and a `wait` longer than
AndroidWorld's fixed one second waits the rest here.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent import prompt
from agent.actions import TaskComplete, Wait
from agent.guards import GuardDecision
from agent.loop import RunSettings, Stepper, Turn
from agent.model_client import DecisionRequest, ModelReply, Policy
from agent.trajectory import (
    CallRecord,
    EndRecord,
    EpisodeRecord,
    ResultRecord,
    StopReason,
    TrajectoryWriter,
    now_iso,
)
from evals.androidworld.convert import (
    AW_WAIT_S,
    AwAction,
    ObservedScreen,
    UnsupportedAction,
    action_to_aw,
    tools_schema,
)
from evals.runner import goal_confirmation

Execute = Callable[[AwAction], None]
_EPISODE_FILE = re.compile(r"episode-(\d+)\.jsonl")


@dataclass
class StepOutcome:
    done: bool
    data: dict[str, Any]  # plain values only: AndroidWorld pickles it into its checkpoints


@dataclass
class _EpisodeState:
    stepper: Stepper
    writer: TrajectoryWriter
    started: float
    budget: int | None  # the harness's step budget for this episode, when it said
    calls: int = 0  # harness steps taken
    recorded: int = 0  # steps written to the trajectory
    pending: Turn | None = None  # the last turn whose action ran; the next state shows its effect


class _AndroidWorldTools:
    """The policy, asked with AndroidWorld's tool text instead of a phone's."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.tools = tools_schema()

    def decide(self, request: DecisionRequest) -> ModelReply:
        return self.policy.decide(dataclasses.replace(request, tools=self.tools))


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
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """`guards` switches the guards on or off; None leaves it to `settings`."""
        settings = settings or RunSettings()
        if guards is not None:
            settings = settings.model_copy(update={"guards": guards})
        self.policy = _AndroidWorldTools(policy)
        self.trajectory_dir = trajectory_dir
        self.settings = settings
        self.model_name = model_name
        self._clock = clock
        self._sleep = sleep
        self._episode: _EpisodeState | None = None
        self._step_budget: int | None = None

    def set_step_budget(self, steps: int) -> None:
        """The harness's step budget for the next episode (AndroidWorld's `set_max_steps`)."""
        self._step_budget = steps

    def reset(self, detail: str = "the harness moved on before the episode ended") -> None:
        """End the current episode: its trajectory closes as `aborted` if it had not ended."""
        if self._episode is not None:
            self._finish("aborted", detail, None)

    def step(self, goal: str, observed: ObservedScreen, execute: Execute) -> StepOutcome:
        episode = self._start(goal) if self._episode is None else self._episode
        episode.calls += 1
        outcome = self._step(episode, observed, execute)
        if not outcome.done and episode.budget is not None and episode.calls >= episode.budget:
            # The harness stops asking after this step: the budget ends the episode here.
            outcome.data["stop_reason"] = "step_budget"
            self._finish("step_budget", f"AndroidWorld's budget of {episode.budget} steps", None)
        return outcome

    def _step(
        self, episode: _EpisodeState, observed: ObservedScreen, execute: Execute
    ) -> StepOutcome:
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
                calls = [_describe(a) for a in sent]
                if isinstance(action, Wait) and action.seconds > AW_WAIT_S:
                    self._sleep(action.seconds - AW_WAIT_S)
                    calls.append(f"waited {action.seconds - AW_WAIT_S:g} s more")
                result = ResultRecord(executed=True, device_calls=calls)
                episode.pending = turn
        self._record(episode, turn, result)
        return StepOutcome(False, self._data(episode, observed, turn, sent, None))

    # --- episode bookkeeping -------------------------------------------------------------------

    def _start(self, goal: str) -> _EpisodeState:
        budget, self._step_budget = self._step_budget, None
        settings = self.settings
        if budget is not None and budget >= 1:
            settings = settings.model_copy(update={"max_steps": budget})
        writer = TrajectoryWriter(self._next_episode_path())
        writer.write(
            EpisodeRecord(
                goal=goal,
                device="androidworld",
                model=self.model_name,
                settings={
                    "run": settings.model_dump(),
                    "policy": {"policy": "llm", "guards": settings.guards},
                },
                system_prompt=prompt.SYSTEM_PROMPT,
                tools=self.policy.tools,
                started_at=now_iso(),
            )
        )
        stepper = Stepper(
            goal, self.policy, settings, confirm=goal_confirmation(goal), clock=self._clock
        )
        self._episode = _EpisodeState(stepper, writer, self._clock(), budget)
        return self._episode

    def _next_episode_path(self) -> Path:
        """`episode-NNN.jsonl`, numbered after every episode already in the directory."""
        numbers = [
            int(match.group(1))
            for path in self.trajectory_dir.glob("episode-*.jsonl")
            if (match := _EPISODE_FILE.fullmatch(path.name))
        ]
        return self.trajectory_dir / f"episode-{max(numbers, default=0) + 1:03d}.jsonl"

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
        data = self._data(episode, observed, turn, closing, stop)
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
        stop: StopReason | None,
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
            "stop_reason": stop,
        }


def _describe(aw_action: AwAction) -> str:
    fields = ", ".join(f"{k}={v!r}" for k, v in aw_action.items() if k != "action_type")
    return f"{aw_action['action_type']}({fields})"
