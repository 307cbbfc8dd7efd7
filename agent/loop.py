"""The step loop: observe -> prompt -> decide -> parse -> guard -> execute -> record.

One step is one decision of the policy. `Stepper` is the agent's side of a step (prompt,
decision, parsing, the guards' review, and the guards' reading of the effect), for any caller
that owns a device and a trajectory. `run_episode` is the caller for a `Device`: every step is
written to the trajectory as soon as it ends, and the episode ends with one of the DESIGN §2.4
stop reasons, including on Ctrl-C.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
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
    Wait,
    tool_name,
    tools_schema,
    validate_call,
)
from agent.aim import announced_target
from agent.execute import execute
from agent.guards import (
    DEFAULT_TAP_RUN,
    Confirm,
    EpisodeGuards,
    GuardDecision,
    Guards,
    PassThroughGuards,
)
from agent.model_client import (
    DecisionRequest,
    ModelReply,
    Policy,
    PolicyError,
    replace_lone_surrogates,
)
from agent.screen import Element, Screen, ScreenParseError
from agent.toolparse import ParsedCall, parse_reply, thinking_of
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
from devices.base import Device, DeviceError

__all__ = [
    "DecisionRequest",
    "Effect",
    "EpisodeObserver",
    "EpisodeResult",
    "ModelReply",
    "Policy",
    "RunSettings",
    "Stepper",
    "Turn",
    "run_episode",
    "screen_record",
]


class RunSettings(BaseModel):
    """Budgets and guard limits of one episode; recorded on the trajectory's episode line."""

    model_config = ConfigDict(frozen=True)

    max_steps: int = Field(default=15, ge=1)
    time_budget_s: float | None = Field(default=None, gt=0)
    history_steps: int = Field(default=prompt.DEFAULT_HISTORY_STEPS, ge=0)
    guards: bool = True  # False: every action runs unreviewed, to measure what the guards do
    max_bad_calls: int = Field(default=3, ge=1)  # unusable replies in a row
    max_no_op_streak: int = Field(default=3, ge=1)  # actions in a row that change nothing
    max_tap_run: int = Field(default=DEFAULT_TAP_RUN, ge=1)  # same tap in a row, deliberately
    settle_s: float = Field(default=0.0, ge=0)  # pause after an action before reading the screen
    # `--thinking auto`: the step after a `wait` or an unusable reply thinks (the model was
    # unsure), as does the step after a guard escalates, whatever the thinking setting
    think_when_unsure: bool = False


class EpisodeResult(BaseModel):
    """How an episode ended; `phone-agent run --json` prints it as its last line."""

    stop_reason: StopReason
    steps: int
    trajectory: Path
    detail: str = ""
    answer: str | None = None
    device_state: dict[str, Any] | None = None
    # `task_complete(success=true)` claims the guards refused (what the episode showed did
    # not bear them out); each went back to the model, which went on
    refused_completions: int = 0


class EpisodeObserver(Protocol):
    """Hooks for a live view; the loop calls them and ignores what they return."""

    def step_started(self, step: int, max_steps: int) -> None: ...

    def step_finished(self, record: StepRecord) -> None: ...


class _SilentObserver:
    def step_started(self, step: int, max_steps: int) -> None:
        """Nothing to show."""

    def step_finished(self, record: StepRecord) -> None:
        """Nothing to show."""


# --- one step at a time -----------------------------------------------------------------------


@dataclass
class Turn:
    """One decision: what the policy was shown and replied, the action it asked for and what
    the guards made of it. The caller carries out `action_to_run`, if there is one."""

    step: int
    screen: Screen  # the screen the decision was made on
    prompt: str  # the user turn
    reply: ModelReply
    call: CallRecord
    action: Action | None  # None: the reply held no usable call
    decision: GuardDecision  # a caller that observes the effect within the step merges it in
    model_s: float = 0.0
    failure: str | None = None  # the policy gave no reply at all (the decision stops the run)

    @property
    def action_to_run(self) -> Action | None:
        """The action to carry out on the device: None when the reply held none, the guards
        did not allow it, or it is `task_complete` (which ends the episode instead)."""
        if self.decision.verdict != "allow" or isinstance(self.action, TaskComplete):
            return None
        return self.action

    def record(self, result: ResultRecord, device_s: float = 0.0) -> StepRecord:
        """The trajectory line of this step, once `result` is known."""
        return StepRecord(
            step=self.step,
            screen=screen_record(self.screen),
            prompt=self.prompt,
            prompt_tokens=self.reply.prompt_tokens,
            reply=self.reply,
            call=self.call,
            guard=GuardRecord(verdict=self.decision.verdict, notes=self.decision.notes),
            result=result,
            timings=Timings(model_s=round(self.model_s, 3), device_s=round(device_s, 3)),
        )


@dataclass
class Effect:
    """What a turn's action did, as the screen after it shows."""

    changed: str  # one line for the history: "nothing changed" or the visible differences
    no_op: bool  # the screen signature did not change
    decision: GuardDecision  # the guards' reading of it (goal reached, no-op streak...)


class Stepper:
    """One episode's agent, one turn at a time, for a caller that owns the device and the
    trajectory: `decide` on the current screen, carry out the turn's `action_to_run`, then
    `observe` the screen after it (at once, or when the next state arrives). It keeps the
    history, the notes for the model and the guards (`RunSettings.guards`) between turns.
    `run_episode` is one such caller."""

    def __init__(
        self,
        goal: str,
        policy: Policy,
        settings: RunSettings,
        *,
        confirm: Confirm | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.goal = goal
        self.policy = policy
        self.settings = settings
        self.guards: EpisodeGuards = (
            Guards(
                goal,
                confirm=confirm,
                max_bad_calls=settings.max_bad_calls,
                max_no_op_streak=settings.max_no_op_streak,
                max_tap_run=settings.max_tap_run,
            )
            if settings.guards
            else PassThroughGuards()
        )
        self.steps = 0  # turns that got a reply from the policy
        self.refused_completions = 0  # success claims sent back by the completion check
        self._clock = clock
        self._history: list[prompt.StepSummary] = []
        self._notes: list[str] = []
        self._remembered: list[str] = []
        self._unsure = False  # the last reply asked for time or was unusable

    def decide(self, screen: Screen) -> Turn:
        """Ask the policy what to do on `screen`, parse its reply and let the guards review it.

        A policy that fails (PolicyError) gives a turn with `failure` set and a `model_error`
        stop; it does not count as a step."""
        number = self.steps + 1
        user = prompt.user_turn(
            self.goal,
            self._history,
            self._notes,
            screen,
            self.settings.history_steps,
            self._remembered,
        )
        self._notes = []
        request = DecisionRequest(
            goal=self.goal,
            step=number,
            screen=screen,
            messages=prompt.messages(user),
            tools=tools_schema(),
            thinking=True if self.guards.take_escalation() or self._unsure else None,
        )
        started = self._clock()
        try:
            reply = self.policy.decide(request)
        except PolicyError as exc:
            return Turn(
                step=number,
                screen=screen,
                prompt=user,
                reply=ModelReply(notes=[str(exc)]),
                call=CallRecord(name=None, source="guard"),
                action=None,
                decision=GuardDecision("stop", stop_reason="model_error"),
                failure=str(exc),
            )
        model_s = self._clock() - started
        self.steps = number

        # remembered lines are kept whatever becomes of the call; they are not part of it
        remembered, content = prompt.split_remembered(reply.content)
        self._remembered = prompt.keep_remembered(self._remembered, remembered)
        parsed = parse_reply(content, reply.reasoning, reply.tool_calls)
        # JSON arguments may escape a lone surrogate ("\ud800"), which no device, terminal or
        # trajectory file can take
        parsed = ParsedCall.model_validate(replace_lone_surrogates(parsed.model_dump()))
        action, target, problem = _resolve(parsed, screen)
        if isinstance(action, Tap | LongPress) and target is not None:
            action, target = _aim_as_reasoned(
                action, target, parsed, thinking_of(content, reply.reasoning), screen, self.goal
            )
            action, target = _aim_at_named(action, target, parsed, self.guards, screen)
        self._unsure = self.settings.think_when_unsure and (
            action is None or isinstance(action, Wait)
        )
        if action is None:
            decision = self.guards.bad_call(problem)
        else:
            decision = self.guards.review(action, target, screen)
            if parsed.dropped:
                decision.notes.append(
                    GuardNote(
                        kind="extra_calls", reason=f"{len(parsed.dropped)} more call(s) not run"
                    )
                )
                decision.feedback.append(prompt.EXTRA_CALLS_DROPPED)
        if decision.verdict == "block":
            if _refused_completion(action, decision):
                self.refused_completions += 1
            reasons = [note.reason for note in decision.notes]
            self._history.append(prompt.blocked_step(number, action, screen, reasons))
        self._notes.extend(decision.feedback)
        call = CallRecord(
            name=parsed.name,
            arguments=parsed.arguments,
            source=parsed.source,
            repairs=parsed.repairs,
            error=parsed.error or problem or None,
            dropped=len(parsed.dropped),
        )
        return Turn(number, screen, user, reply, call, action, decision, model_s)

    def observe(self, turn: Turn, after: Screen) -> Effect:
        """What the action of `turn`, carried out, changed: `after` is the screen it left."""
        action = turn.action_to_run
        if action is None:
            raise ValueError(f"step {turn.step} ran no action to observe")
        before = turn.screen
        diff = before.diff(after)
        changed = prompt.NOTHING_CHANGED if diff.is_empty() else diff.summary(max_items=3)
        decision = self.guards.observe(action, before, after)
        self._history.append(
            prompt.StepSummary(turn.step, prompt.describe_action(action, before), changed)
        )
        self._notes.extend(decision.feedback)
        return Effect(changed, before.signature == after.signature, decision)

    def tell(self, message: str) -> None:
        """A note the model reads with the next screen (e.g. why an action did not land)."""
        self._notes.append(message)


# --- a whole episode --------------------------------------------------------------------------


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
    An unexpected exception also gets the trajectory its `end` record (`aborted`, with the
    error as detail) before it propagates.
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
            stepper=Stepper(goal, policy, settings, confirm=confirm, clock=clock),
            device=device,
            settings=settings,
            writer=writer,
            observer=observer or _SilentObserver(),
            clock=clock,
            sleep=sleep,
            started=started,
        )
        failure: Exception | None = None
        try:
            stop = episode.run()
        except KeyboardInterrupt:
            stop = _Stop("aborted", "interrupted by the user (Ctrl-C)")
        except Exception as exc:
            failure = exc
            stop = _Stop("aborted", f"internal error: {type(exc).__name__}: {exc}")
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
    if failure is not None:
        raise failure
    return EpisodeResult(
        stop_reason=stop.reason,
        steps=episode.steps,
        trajectory=trajectory_path,
        detail=stop.detail,
        answer=stop.answer,
        device_state=device_state,
        refused_completions=episode.stepper.refused_completions,
    )


@dataclass
class _Episode:
    stepper: Stepper
    device: Device
    settings: RunSettings
    writer: TrajectoryWriter
    observer: EpisodeObserver
    clock: Callable[[], float]
    sleep: Callable[[float], None]
    started: float
    steps: int = 0  # steps written to the trajectory

    def run(self) -> _Stop:
        try:
            screen = self._observe()
        except DeviceError as exc:
            return _Stop("device_error", str(exc))
        budget = self.settings.time_budget_s
        for _ in range(self.settings.max_steps):
            if budget is not None and self.clock() - self.started >= budget:
                return _Stop("step_budget", f"time budget of {budget:g} s used up")
            stop, screen = self._step(screen)
            if stop is not None:
                return stop
        return _Stop("step_budget", f"{self.settings.max_steps} steps without finishing")

    def _step(self, screen: Screen) -> tuple[_Stop | None, Screen]:
        self.observer.step_started(self.stepper.steps + 1, self.settings.max_steps)
        turn = self.stepper.decide(screen)
        if turn.failure is not None:
            return _Stop("model_error", turn.failure), screen

        result = ResultRecord(executed=False)
        device_s = 0.0
        after = screen
        stop: _Stop | None = None
        action = turn.action_to_run
        if action is not None:
            device_started = self.clock()
            try:
                execution = execute(action, screen, self.device, sleep=self.sleep)
                if execution.error is not None:
                    # the phone is fine, the action just did not take effect: the model may
                    # correct it, and the guards judge the screen after it as for any action
                    described = prompt.describe_action(action, screen)
                    self.stepper.tell(prompt.action_failed(described, execution.error))
                if self.settings.settle_s:
                    self.sleep(self.settings.settle_s)
                after = self._observe()
            except DeviceError as exc:
                result = ResultRecord(executed=True, error=str(exc))
                stop = _Stop("device_error", str(exc))
            else:
                effect = self.stepper.observe(turn, after)
                result = ResultRecord(
                    executed=True,
                    device_calls=execution.device_calls,
                    error=execution.error,
                    changed=effect.changed,
                    no_op=effect.no_op,
                    app=after.app,
                )
                turn.decision = _merge(turn.decision, effect.decision)
            device_s = self.clock() - device_started

        self.steps = turn.step
        record = turn.record(result, device_s)
        self.writer.write(record)
        self.observer.step_finished(record)
        return stop or _stop_for(turn.decision, turn.action), after

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
    """The action and its target element, or the reason the call cannot run (never empty)."""
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


def _aim_as_reasoned(
    action: Tap | LongPress,
    target: Element,
    parsed: ParsedCall,
    thinking: str,
    screen: Screen,
    goal: str,
) -> tuple[Tap | LongPress, Element]:
    """`action` (on `target`) aimed at the element its reasoning names, when the index points
    at another (see agent.aim); the change is listed in the call's repairs."""
    named = announced_target(thinking, tool_name(action), action.index, screen, goal)
    if named is None:
        return action, target
    parsed.repairs.append(
        f"index {action.index} -> {named.index}: the reasoning names {named.label!r}"
    )
    parsed.arguments["index"] = named.index
    return action.model_copy(update={"index": named.index}), named


def _aim_at_named(
    action: Tap | LongPress,
    target: Element,
    parsed: ParsedCall,
    guards: EpisodeGuards,
    screen: Screen,
) -> tuple[Tap | LongPress, Element]:
    """`action` aimed at the row the goal names where it picks the row beside it
    (`Guards.named_pick`); the change is listed in the call's repairs."""
    named = guards.named_pick(target, screen)
    if named is None:
        return action, target
    parsed.repairs.append(f"index {action.index} -> {named.index}: the goal names {named.label!r}")
    parsed.arguments["index"] = named.index
    return action.model_copy(update={"index": named.index}), named


def _refused_completion(action: Action | None, decision: GuardDecision) -> bool:
    """Whether `decision` sends a success claim back because of the completion check."""
    return (
        isinstance(action, TaskComplete)
        and action.success
        and decision.verdict == "block"
        and any(note.kind == "completion_check" for note in decision.notes)
    )


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


def screen_record(screen: Screen) -> ScreenRecord:
    """A screen as a trajectory step records it: what the model was shown, and its elements."""
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
