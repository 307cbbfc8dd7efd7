"""Our agent, one step per call, as AndroidWorld's harness drives an agent.

AndroidWorld owns the loop: it calls `step(goal)` until the agent says it is done or the step
budget is spent, and scores the task only if the agent said done. `AgentStepper.step` does one
turn of our loop on the state it is given: it first lets the guards see what the previous
action changed (AndroidWorld shows that only now), then asks the policy, parses and reviews the
call, and sends the matching AndroidWorld actions through `execute`.

The agent says done on `task_complete` (an `answer` action first when there is an answer, then
`status`), when a guard sees the goal state reached (`status complete`), and when a guard or a
failing model ends the episode (`status infeasible`, the way AndroidWorld's own agents give up).
Steps are also written as our trajectory (`phone-agent report` reads them); notes the guards
make about a step's effect are recorded on the step after it.

This repeats the loop's turn in the shape AndroidWorld needs (observe at the start of the next
call, execute through JSON actions) until `agent.loop` offers a single-step API to share.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent import prompt
from agent.actions import (
    Action,
    ActionError,
    LongPress,
    Swipe,
    Tap,
    TaskComplete,
    TypeText,
    tools_schema,
    validate_call,
)
from agent.guards import GuardDecision, Guards
from agent.loop import RunSettings
from agent.model_client import DecisionRequest, ModelReply, Policy, PolicyError
from agent.screen import Element, Screen
from agent.toolparse import parse_reply
from agent.trajectory import (
    CallRecord,
    EndRecord,
    EpisodeRecord,
    GuardRecord,
    ResultRecord,
    StepRecord,
    StopReason,
    Timings,
    TrajectoryWriter,
    now_iso,
)
from evals.androidworld.convert import AwAction, ObservedScreen, UnsupportedAction, action_to_aw
from evals.runner import goal_confirmation, screen_record
from evals.unguarded import NoGuards

Execute = Callable[[AwAction], None]


@dataclass
class StepOutcome:
    done: bool
    data: dict[str, Any]  # plain values only: AndroidWorld pickles it into its checkpoints


@dataclass
class _Pending:
    """The last action run, whose effect the next state shows."""

    action: Action
    before: Screen


@dataclass
class _EpisodeState:
    goal: str
    guards: Guards | NoGuards
    writer: TrajectoryWriter
    started: float
    steps: int = 0
    history: list[prompt.StepSummary] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    pending: _Pending | None = None


class AgentStepper:
    """Runs our agent one step at a time; one episode per goal, until `reset`."""

    def __init__(
        self,
        policy: Policy,
        trajectory_dir: Path,
        *,
        settings: RunSettings | None = None,
        guards: bool = True,
        model_name: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.policy = policy
        self.trajectory_dir = trajectory_dir
        self.settings = settings or RunSettings()
        self.guards = guards
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
        screen = observed.screen
        early = self._observe_previous(episode, screen)
        if early is not None and early.verdict in ("complete", "stop"):
            return self._conclude(episode, observed, early, None, execute, reply=None)

        user = prompt.user_turn(
            goal, episode.history, episode.notes, screen, self.settings.history_steps
        )
        episode.notes = []
        request = DecisionRequest(
            goal=goal,
            step=episode.steps + 1,
            screen=screen,
            messages=prompt.messages(user),
            tools=tools_schema(),
            thinking=True if episode.guards.take_escalation() else None,
        )
        decision_started = self._clock()
        try:
            reply = self.policy.decide(request)
        except PolicyError as exc:
            reply = ModelReply(notes=[str(exc)])
            stop = GuardDecision("stop", stop_reason="model_error")
            return self._conclude(
                episode, observed, stop, None, execute, reply=reply, user=user, detail=str(exc)
            )
        model_s = self._clock() - decision_started

        parsed = parse_reply(reply.content, reply.reasoning, reply.tool_calls)
        action, target, problem = _resolve(parsed.name, parsed.arguments, parsed.error, screen)
        if action is None:
            decision = episode.guards.bad_call(problem)
        else:
            decision = episode.guards.review(action, target, screen)
        if early is not None:
            decision.notes[:0] = early.notes
        call = CallRecord(
            name=parsed.name,
            arguments=parsed.arguments,
            source=parsed.source,
            repairs=parsed.repairs,
            error=parsed.error or problem or None,
            dropped=len(parsed.dropped),
        )
        if decision.verdict in ("complete", "stop"):
            return self._conclude(
                episode, observed, decision, action, execute, reply, user, call, model_s
            )

        sent: list[AwAction] = []
        result = ResultRecord(executed=False)
        if action is not None and decision.verdict == "allow":
            try:
                sent = action_to_aw(action, observed)
                for aw_action in sent:
                    execute(aw_action)
            except UnsupportedAction as exc:
                sent = []
                decision.feedback.append(f"{exc}.")
                result = ResultRecord(executed=False, error=str(exc))
            except Exception as exc:  # an escaping exception would void the whole episode
                result = ResultRecord(executed=True, error=f"{type(exc).__name__}: {exc}")
            else:
                result = ResultRecord(executed=True, device_calls=[_describe(a) for a in sent])
                episode.pending = _Pending(action, screen)
        elif decision.verdict == "block":
            attempted = prompt.describe_action(action, screen) if action else "your reply"
            reasons = "; ".join(note.reason for note in decision.notes) or "blocked"
            episode.history.append(
                prompt.StepSummary(episode.steps + 1, attempted, f"not run: {reasons}")
            )
        episode.notes.extend(decision.feedback)
        self._record(episode, observed, reply, user, call, decision, result, model_s)
        return StepOutcome(False, self._data(episode, observed, call, decision, sent, reply))

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
                    "policy": {"policy": "llm", "guards": self.guards},
                },
                system_prompt=prompt.SYSTEM_PROMPT,
                tools=tools_schema(),
                started_at=now_iso(),
            )
        )
        guards: Guards | NoGuards = (
            Guards(
                goal,
                confirm=goal_confirmation(goal),
                max_bad_calls=self.settings.max_bad_calls,
                max_no_op_streak=self.settings.max_no_op_streak,
            )
            if self.guards
            else NoGuards(goal)
        )
        self._episode = _EpisodeState(goal, guards, writer, self._clock())
        return self._episode

    def _observe_previous(self, episode: _EpisodeState, screen: Screen) -> GuardDecision | None:
        pending, episode.pending = episode.pending, None
        if pending is None:
            return None
        diff = pending.before.diff(screen)
        changed = "nothing changed" if diff.is_empty() else diff.summary(max_items=3)
        episode.history.append(
            prompt.StepSummary(
                episode.steps, prompt.describe_action(pending.action, pending.before), changed
            )
        )
        decision = episode.guards.observe(pending.action, pending.before, screen)
        episode.notes.extend(decision.feedback)
        return decision

    def _conclude(
        self,
        episode: _EpisodeState,
        observed: ObservedScreen,
        decision: GuardDecision,
        action: Action | None,
        execute: Execute,
        reply: ModelReply | None,
        user: str = "",
        call: CallRecord | None = None,
        model_s: float = 0.0,
        detail: str = "",
    ) -> StepOutcome:
        """The agent says done: `answer` (when there is one) and `status`."""
        complete = decision.verdict == "complete"
        answer = action.answer if isinstance(action, TaskComplete) else None
        closing = action_to_aw(TaskComplete(success=complete, answer=answer), observed)
        result = ResultRecord(executed=True, device_calls=[_describe(a) for a in closing])
        try:
            for aw_action in closing:
                execute(aw_action)
        except Exception as exc:
            result = ResultRecord(executed=True, error=f"{type(exc).__name__}: {exc}")
        call = call or CallRecord(name=None, source="guard")
        self._record(
            episode, observed, reply or ModelReply(), user, call, decision, result, model_s
        )
        stop: StopReason = "completed" if complete else (decision.stop_reason or "infeasible")
        reasons = detail or "; ".join(note.reason for note in decision.notes)
        data = self._data(episode, observed, call, decision, closing, reply)
        data["stop_reason"] = stop
        self._finish(stop, reasons, answer)
        return StepOutcome(True, data)

    def _record(
        self,
        episode: _EpisodeState,
        observed: ObservedScreen,
        reply: ModelReply,
        user: str,
        call: CallRecord,
        decision: GuardDecision,
        result: ResultRecord,
        model_s: float,
    ) -> None:
        episode.steps += 1
        screen = observed.screen
        episode.writer.write(
            StepRecord(
                step=episode.steps,
                screen=screen_record(screen),
                prompt=user,
                prompt_tokens=reply.prompt_tokens,
                reply=reply,
                call=call,
                guard=GuardRecord(verdict=decision.verdict, notes=decision.notes),
                result=result,
                timings=Timings(model_s=round(model_s, 3), device_s=0.0),
            )
        )

    def _finish(self, stop: StopReason, detail: str, answer: str | None) -> None:
        episode, self._episode = self._episode, None
        if episode is None:
            return
        episode.writer.write(
            EndRecord(
                stop_reason=stop,
                steps=episode.steps,
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
        call: CallRecord,
        decision: GuardDecision,
        sent: Sequence[AwAction],
        reply: ModelReply | None,
    ) -> dict[str, Any]:
        return {
            "goal": episode.goal,
            "screen": observed.screen.render(),
            "aw_index": dict(observed.aw_index),
            "reasoning": reply.reasoning if reply else None,
            "reply": reply.content if reply else None,
            "call": {"name": call.name, "arguments": dict(call.arguments)},
            "guard": decision.verdict,
            "guard_notes": [f"{note.kind}: {note.reason}" for note in decision.notes],
            "aw_actions": [dict(a) for a in sent],
        }


def _resolve(
    name: str | None, arguments: dict[str, Any], error: str | None, screen: Screen
) -> tuple[Action | None, Element | None, str]:
    if name is None:
        return None, None, error or "no tool call in the reply"
    try:
        action = validate_call(name, arguments)
    except ActionError as exc:
        return None, None, str(exc)
    index = action.index if isinstance(action, Tap | LongPress | TypeText | Swipe) else None
    if index is None:
        return action, None, ""
    try:
        return action, screen.element(index), ""
    except LookupError as exc:
        return None, None, f"{name}: {exc}"


def _describe(aw_action: AwAction) -> str:
    fields = ", ".join(f"{k}={v!r}" for k, v in aw_action.items() if k != "action_type")
    return f"{aw_action['action_type']}({fields})"
