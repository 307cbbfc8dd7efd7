"""The step loop: observe -> prompt -> decide -> parse -> guard -> execute -> record.

One step is one decision of the policy. Every step is written to the trajectory as soon as it
ends; the episode ends with one of the DESIGN §2.4 stop reasons, including on Ctrl-C.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from agent import prompt
from agent.actions import (
    Action,
    ActionError,
    LongPress,
    Swipe,
    Tap,
    TaskComplete,
    TypeText,
    tool_name,
    tools_schema,
    validate_call,
)
from agent.execute import Execution, execute
from agent.guards import Confirm, GuardDecision, Guards
from agent.model_client import DecisionRequest, ModelReply, Policy, PolicyError
from agent.screen import Element, Screen, ScreenParseError
from agent.toolparse import ParsedCall, parse_reply
from agent.trajectory import (
    CallRecord,
    EndRecord,
    EpisodeRecord,
    GuardNote,
    GuardRecord,
    ResultRecord,
    ScreenRecord,
    StepRecord,
    StopReason,
    Timings,
    TrajectoryWriter,
    now_iso,
)
from devices.base import Device, DeviceError, InputNotApplied

__all__ = [
    "DecisionRequest",
    "EpisodeObserver",
    "EpisodeResult",
    "ModelReply",
    "Policy",
    "RunSettings",
    "run_episode",
]


class RunSettings(BaseModel):
    """Budgets and guard limits of one episode; recorded on the trajectory's episode line."""

    model_config = ConfigDict(frozen=True)

    max_steps: int = Field(default=15, ge=1)
    time_budget_s: float | None = Field(default=None, gt=0)
    history_steps: int = Field(default=prompt.DEFAULT_HISTORY_STEPS, ge=0)
    max_bad_calls: int = Field(default=3, ge=1)  # unusable replies in a row
    max_no_op_streak: int = Field(default=3, ge=1)  # actions in a row that change nothing
    settle_s: float = Field(default=0.0, ge=0)  # pause after an action before reading the screen


class EpisodeResult(BaseModel):
    stop_reason: StopReason
    steps: int
    trajectory: Path
    detail: str = ""
    answer: str | None = None
    device_state: dict[str, Any] | None = None


class EpisodeObserver(Protocol):
    """Hooks for a live view; the loop calls them and ignores what they return."""

    def step_started(self, step: int, max_steps: int) -> None: ...

    def step_finished(self, record: StepRecord) -> None: ...


class _SilentObserver:
    def step_started(self, step: int, max_steps: int) -> None:
        """Nothing to show."""

    def step_finished(self, record: StepRecord) -> None:
        """Nothing to show."""


@dataclass
class _Stop:
    reason: StopReason
    detail: str = ""
    answer: str | None = None


def run_episode(
    goal: str,
    device: Device,
    policy: Policy,
    settings: RunSettings,
    trajectory_path: Path,
    *,
    confirm: Confirm | None = None,
    observer: EpisodeObserver | None = None,
    model_name: str | None = None,
    policy_settings: Mapping[str, Any] | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> EpisodeResult:
    """Drive `device` towards `goal` with decisions from `policy`.

    `confirm` asks a person about risky actions; None means nobody can be asked (they are
    refused and the model is told). Ctrl-C ends the episode as `aborted`, trajectory complete.
    """
    started = clock()
    with TrajectoryWriter(trajectory_path) as writer:
        writer.write(
            EpisodeRecord(
                goal=goal,
                device=device.serial,
                model=model_name,
                settings={"run": settings.model_dump(), "policy": dict(policy_settings or {})},
                system_prompt=prompt.SYSTEM_PROMPT,
                tools=tools_schema(),
                started_at=now_iso(),
            )
        )
        episode = _Episode(
            goal=goal,
            device=device,
            policy=policy,
            settings=settings,
            writer=writer,
            guards=Guards(
                goal,
                confirm=confirm,
                max_bad_calls=settings.max_bad_calls,
                max_no_op_streak=settings.max_no_op_streak,
            ),
            observer=observer or _SilentObserver(),
            clock=clock,
            sleep=sleep,
            started=started,
        )
        try:
            stop = episode.run()
        except KeyboardInterrupt:
            stop = _Stop("aborted", "interrupted by the user (Ctrl-C)")
        device_state = _device_state(device)
        writer.write(
            EndRecord(
                stop_reason=stop.reason,
                steps=episode.steps,
                detail=stop.detail,
                answer=stop.answer,
                device_state=device_state,
                ended_at=now_iso(),
                duration_s=round(clock() - started, 3),
            )
        )
    return EpisodeResult(
        stop_reason=stop.reason,
        steps=episode.steps,
        trajectory=trajectory_path,
        detail=stop.detail,
        answer=stop.answer,
        device_state=device_state,
    )


@dataclass
class _Episode:
    goal: str
    device: Device
    policy: Policy
    settings: RunSettings
    writer: TrajectoryWriter
    guards: Guards
    observer: EpisodeObserver
    clock: Callable[[], float]
    sleep: Callable[[float], None]
    started: float
    steps: int = 0
    history: list[prompt.StepSummary] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def run(self) -> _Stop:
        try:
            screen = self._observe()
        except DeviceError as exc:
            return _Stop("device_error", str(exc))
        budget = self.settings.time_budget_s
        for number in range(1, self.settings.max_steps + 1):
            if budget is not None and self.clock() - self.started >= budget:
                return _Stop("step_budget", f"time budget of {budget:g} s used up")
            stop, screen = self._step(number, screen)
            if stop is not None:
                return stop
        return _Stop("step_budget", f"{self.settings.max_steps} steps without finishing")

    def _step(self, number: int, screen: Screen) -> tuple[_Stop | None, Screen]:
        user = prompt.user_turn(
            self.goal, self.history, self.notes, screen, self.settings.history_steps
        )
        self.notes = []
        request = DecisionRequest(
            goal=self.goal,
            step=number,
            screen=screen,
            messages=prompt.messages(user),
            tools=tools_schema(),
            thinking=True if self.guards.take_escalation() else None,
        )
        self.observer.step_started(number, self.settings.max_steps)
        decision_started = self.clock()
        try:
            reply = self.policy.decide(request)
        except PolicyError as exc:
            return _Stop("model_error", str(exc)), screen
        model_s = self.clock() - decision_started

        parsed = parse_reply(reply.content, reply.reasoning, reply.tool_calls)
        action, target, problem = _resolve(parsed, screen)
        if action is None:
            decision = self.guards.bad_call(problem or "no tool call in the reply")
        else:
            decision = self.guards.review(action, target, screen)
            if parsed.dropped:
                decision.notes.append(
                    GuardNote(
                        kind="extra_calls", reason=f"{len(parsed.dropped)} more call(s) not run"
                    )
                )
                decision.feedback.append("Only your first tool call ran: send one call per reply.")

        result = ResultRecord(executed=False)
        device_s = 0.0
        after = screen
        stop: _Stop | None = None
        if (
            action is not None
            and decision.verdict == "allow"
            and not isinstance(action, TaskComplete)
        ):
            device_started = self.clock()
            input_error: str | None = None
            try:
                try:
                    execution = execute(action, screen, self.device, sleep=self.sleep)
                except InputNotApplied as exc:
                    # the phone is fine, the input just did not land: the model may retry
                    execution, input_error = Execution(), str(exc)
                    decision.feedback.append(f"{prompt.describe_action(action, screen)}: {exc}")
                if self.settings.settle_s:
                    self.sleep(self.settings.settle_s)
                after = self._observe()
            except DeviceError as exc:
                result = ResultRecord(executed=True, error=str(exc))
                stop = _Stop("device_error", str(exc))
            else:
                diff = screen.diff(after)
                changed = "nothing changed" if diff.is_empty() else diff.summary(max_items=3)
                result = ResultRecord(
                    executed=True,
                    device_calls=execution.device_calls,
                    error=input_error,
                    changed=changed,
                    no_op=screen.signature == after.signature,
                    app=after.app,
                )
                outcome = self.guards.observe(action, screen, after)
                decision = _merge(decision, outcome)
                self.history.append(
                    prompt.StepSummary(number, prompt.describe_action(action, screen), changed)
                )
            device_s = self.clock() - device_started
        elif decision.verdict == "block":
            attempted = prompt.describe_action(action, screen) if action else "your reply"
            reasons = "; ".join(note.reason for note in decision.notes) or "blocked"
            self.history.append(prompt.StepSummary(number, attempted, f"not run: {reasons}"))
        self.notes.extend(decision.feedback)

        self.steps = number
        record = StepRecord(
            step=number,
            screen=_screen_record(screen),
            prompt=user,
            prompt_tokens=reply.prompt_tokens,
            reply=reply,
            call=CallRecord(
                name=parsed.name,
                arguments=parsed.arguments,
                source=parsed.source,
                repairs=parsed.repairs,
                error=parsed.error or problem or None,
                dropped=len(parsed.dropped),
            ),
            guard=GuardRecord(verdict=decision.verdict, notes=decision.notes),
            result=result,
            timings=Timings(model_s=round(model_s, 3), device_s=round(device_s, 3)),
        )
        self.writer.write(record)
        self.observer.step_finished(record)
        return stop or _stop_for(decision, action), after

    def _observe(self) -> Screen:
        """A fresh screen; a dump that does not parse is taken again once."""
        try:
            return Screen.parse(self.device.dump_xml())
        except ScreenParseError:
            try:
                return Screen.parse(self.device.dump_xml())
            except ScreenParseError as exc:
                raise DeviceError(f"the screen could not be read: {exc}") from exc


def _resolve(parsed: ParsedCall, screen: Screen) -> tuple[Action | None, Element | None, str]:
    """The action and its target element, or the reason the call cannot run."""
    if parsed.name is None:
        return None, None, parsed.error or "no tool call in the reply"
    try:
        action = validate_call(parsed.name, parsed.arguments)
    except ActionError as exc:
        return None, None, str(exc)
    index = action.index if isinstance(action, Tap | LongPress | TypeText | Swipe) else None
    if index is None:
        return action, None, ""
    try:
        return action, screen.element(index), ""
    except LookupError as exc:
        return None, None, f"{tool_name(action)}: {exc}"


def _merge(first: GuardDecision, then: GuardDecision) -> GuardDecision:
    return GuardDecision(
        verdict=then.verdict,
        notes=first.notes + then.notes,
        feedback=first.feedback + then.feedback,
        stop_reason=then.stop_reason,
    )


def _stop_for(decision: GuardDecision, action: Action | None) -> _Stop | None:
    reasons = "; ".join(note.reason for note in decision.notes)
    answer = action.answer if isinstance(action, TaskComplete) else None
    if decision.verdict == "complete":
        return _Stop("completed", reasons or "the model called task_complete", answer)
    if decision.verdict == "stop":
        return _Stop(
            decision.stop_reason or "model_error",
            reasons or "the model called task_complete(success=false)",
            answer,
        )
    return None


def _screen_record(screen: Screen) -> ScreenRecord:
    return ScreenRecord(
        signature=screen.signature,
        app=screen.app,
        keyboard=screen.keyboard,
        text=screen.render(),
        elements=[element.model_dump(mode="json") for element in screen.elements],
    )


def _device_state(device: Device) -> dict[str, Any] | None:
    """The simulator's state dict (DESIGN §2.5); None for devices without one."""
    state = getattr(device, "state", None)
    return dict(state) if isinstance(state, Mapping) else None
