"""`bench step`: what one agent decision costs, split into model, device and our own code.

The agent loop (`agent.loop.run_episode`, unchanged) plays a simulator task against a running
OpenAI-compatible server. Two proxies see everything that leaves our code: the policy streams
each request and notes when it was sent, when the first token came and when the reply ended;
the device wraps the simulator and times every call. A step runs from one request to the next
(the first also carries the episode's first screen read, the last its closing record); what is
neither model nor device in it is our overhead, measured rather than estimated.

That overhead is then split by timing each stage again on the step's own inputs: `parse` (the
dumps read during the step), `render` (the user turn built from the screen), `reply_parse`,
`guards` (review, screen diff and observe, replayed in order on a fresh `Guards`) and `record`
(the step's trajectory line written and flushed). What the stages leave unexplained is
`unattributed_ms`.

Prefix cache. Each thinking mode of a run puts a short marker of its own at the start of the
system message and of the first tool's description, so the first step of its first episode
finds nothing of its prompt in the server's prefix cache (`cold`), as on a server just started.
Its later episodes share that system message and those tools byte for byte, as a user's
episodes do, so their first steps (`episode_start`) may reuse them; the steps after an
episode's first (`later`) share the system message, tools, goal and unchanged history with the
step before. A later step whose request an earlier one of the mode had word for word (`repeat`:
an agent on random weights plays a goal the same way each episode) finds its prompt all cached,
which a step with a new screen never does; it is reported apart and left out of `later`. Time
to first token (the first streamed chunk) is the prompt processing time plus one decoded
token; `later_vs_first_ttft` and `episode_start_vs_first_ttft` compare those phases with the
cold step, and `cached_tokens` shows the cache at work where the server reports it (vLLM:
`--enable-prompt-tokens-details`). A server that ignores `stream` still works: its steps have
no time to first token.

A decision of fixed length. What a step costs depends on how long the reply is, and a checkpoint
with random weights writes replies of any length; a tool call of the agent is about 24 tokens.
Each mode therefore also reports the decision a call of `call_tokens` tokens would cost on this
server: a later step's time to first token plus `call_tokens - 1` times the time per output token
after the first ((end - first token) / (tokens - 1)), both medians over the later steps.
"""

from __future__ import annotations

import copy
import itertools
import json
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal, TypeVar

import httpx
from pydantic import BaseModel

from agent import prompt
from agent.actions import ActionError, LongPress, Swipe, Tap, TypeText, validate_call
from agent.guards import Guards
from agent.loop import RunSettings, run_episode
from agent.model_client import (
    ClientSettings,
    DecisionRequest,
    ModelCallError,
    ModelClient,
    ModelReply,
    UnusableReply,
    chat_reply,
    chat_request,
)
from agent.screen import Screen
from agent.toolparse import parse_reply
from agent.trajectory import StepRecord, TrajectoryWriter, read_trajectory
from devices.base import Device
from evals.bench import BenchInputError
from simulator import Simulator
from simulator.tasks import TASKS_BY_NAME

TARGET_OVERHEAD_PCT = 2.0
DEFAULT_TASK = "SystemWifiTurnOn"
DEFAULT_STEPS = 5
DEFAULT_CALL_TOKENS = 24  # a typical tool call of the agent, `<tool_call>` to `</tool_call>`

T = TypeVar("T")
Clock = Callable[[], float]
# auto: off, and on for the step after a wait, an unusable reply or a guard's escalation
ThinkingMode = Literal["off", "on", "auto"]
ALL_MODES: tuple[ThinkingMode, ...] = ("off", "on", "auto")
# cold: the first step of a mode's first episode; episode_start: the first step of a later one
Phase = Literal["cold", "episode_start", "later", "repeat"]


class BenchStepError(RuntimeError):
    """The benchmark could not run (the server failed a request): exit code 1."""


# -- report ------------------------------------------------------------------------------------


class StepTiming(BaseModel):
    mode: ThinkingMode  # the run's thinking setting
    thinking: bool  # this step's (the guards turn thinking on after a repeated action)
    episode: int
    step: int
    phase: Phase
    call: str | None  # the tool the reply called, None when it had no usable call
    prompt_tokens: int | None
    cached_tokens: int | None  # prompt tokens the server took from its prefix cache, if told
    completion_tokens: int | None
    ttft_ms: float | None  # None where the server did not stream
    # each output token after the first: None unstreamed or with fewer than two tokens
    ms_per_output_token: float | None
    model_ms: float
    device_ms: float
    overhead_ms: float
    overhead_pct: float  # of the whole step
    parse_ms: float
    render_ms: float
    reply_parse_ms: float
    guards_ms: float
    record_ms: float
    # overhead minus the stages; a stage timed again runs once and cold, so this can dip
    # slightly below zero
    unattributed_ms: float


class PhaseMedians(BaseModel):
    steps: int
    prompt_tokens: float | None
    cached_tokens: float | None
    ttft_ms: float | None
    ms_per_output_token: float | None
    model_ms: float
    device_ms: float
    overhead_ms: float
    overhead_pct: float


class ModeReport(BaseModel):
    thinking: ThinkingMode
    episodes: int
    stop_reasons: list[str]
    first: PhaseMedians  # the cold step
    episode_start: PhaseMedians | None
    later: PhaseMedians | None
    repeat: PhaseMedians | None  # later steps whose request an earlier step had
    later_vs_first_ttft: float | None
    episode_start_vs_first_ttft: float | None
    seconds_per_decision: float  # mean of whole steps: model, device and our code
    # a later step with a call of the report's `call_tokens` tokens: time to first token +
    # (call_tokens - 1) x time per output token, medians of the later steps; None unstreamed
    call_decision_s: float | None
    thinking_steps: int  # steps that thought (all with `on`; some with `auto`)


class OverheadCheck(BaseModel):
    median_pct: float
    max_pct: float
    target_pct: float
    met: bool  # judged on the median step


class StepReport(BaseModel):
    base_url: str
    model: str
    task: str
    goal: str
    steps_per_mode: int
    episode_steps: int
    call_tokens: int
    streamed: bool
    steps: list[StepTiming]
    modes: list[ModeReport]
    later_vs_first_ttft: float | None  # median over all modes' later and cold steps
    episode_start_vs_first_ttft: float | None
    overhead: OverheadCheck


# -- proxies -----------------------------------------------------------------------------------


@dataclass
class Decision:
    started: float
    ended: float
    first_token: float | None
    reply: ModelReply
    cached_tokens: int | None
    repeat: bool = False  # an earlier request of this policy had the same messages


class StreamingPolicy:
    """A Policy that streams chat completions and times each one.

    The model client's own request body (`chat_request`) with the run's marker added and
    streaming asked for, and its own reading of the reply (`chat_reply`); one request per step,
    no continuation.
    """

    def __init__(
        self,
        settings: ClientSettings,
        model: str,
        clock: Clock = time.perf_counter,
        record: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        self.settings = settings
        self.model = model
        self._record = record
        self.marker = ""
        self.decisions: list[Decision] = []
        self.failure: str | None = None  # why the last request failed, if it did
        self._seen: set[str] = set()  # every request's messages so far
        self._clock = clock
        self._url = settings.base_url.rstrip("/") + "/chat/completions"
        self._http = httpx.Client(
            timeout=settings.timeout_s,
            headers={"Authorization": f"Bearer {settings.api_key}"},
        )

    def close(self) -> None:
        self._http.close()

    def start_episode(self) -> None:
        """A clean record of decisions; the marker stays, as a user's system prompt does."""
        if not self.marker:
            self.marker = uuid.uuid4().hex[:8]
        self.decisions = []
        self.failure = None

    def decide(self, request: DecisionRequest) -> ModelReply:
        try:
            return self._decide(request)
        except ModelCallError as exc:
            self.failure = str(exc)
            raise

    def _decide(self, request: DecisionRequest) -> ModelReply:
        # Model time starts here: building and sending the request belongs to it, as it does
        # inside the model client (and the marker is the benchmark's, not the agent's, cost).
        started = self._clock()
        thinking = self.settings.thinking if request.thinking is None else request.thinking
        messages = _marked_messages(request.messages, self.marker)
        tools = _marked_tools(request.tools, self.marker)
        request_body = {
            **chat_request(self.settings, self.model, messages, tools, thinking),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if self._record is not None:
            self._record(request_body)
        said = json.dumps(messages, sort_keys=True, ensure_ascii=False)
        repeat = said in self._seen
        self._seen.add(said)
        try:
            with self._http.stream("POST", self._url, json=request_body) as response:
                if response.status_code >= 400:
                    response.read()
                    raise ModelCallError(
                        f"the model server refused the request: HTTP {response.status_code}: "
                        f"{response.text.strip()[:200]}"
                    )
                if response.headers.get("content-type", "").startswith("text/event-stream"):
                    stream = _StreamedReply(self._clock)
                    for line in response.iter_lines():
                        if not stream.feed(line):
                            break
                    first_token, reply_body = stream.first_token, json.dumps(stream.as_completion())
                else:
                    first_token, reply_body = None, response.read().decode("utf-8", "replace")
        except httpx.HTTPError as exc:
            raise ModelCallError(
                f"the model server at {self.settings.base_url} failed: {exc}"
            ) from exc
        try:
            reply = chat_reply(reply_body, thinking)
        except UnusableReply as exc:
            raise ModelCallError(f"unusable reply: {exc}") from None
        # the agent does not read it; a server that reports it shows its prefix cache at work
        usage = json.loads(reply_body).get("usage") or {}
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
        self.decisions.append(Decision(started, self._clock(), first_token, reply, cached, repeat))
        return reply


@dataclass
class _StreamedReply:
    """Chat-completion chunks (server-sent events) folded into one completion."""

    clock: Clock
    first_token: float | None = None
    content: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, str]] = field(default_factory=dict)
    finish_reason: str | None = None
    usage: dict[str, Any] | None = None
    done: bool = False

    def feed(self, line: str) -> bool:
        """Take one line of the stream; False once the stream has said it is done."""
        if self.done or not line.startswith("data:"):
            return not self.done
        data = line[len("data:") :].strip()
        if data == "[DONE]":
            self.done = True
            return False
        chunk = json.loads(data)
        if self.first_token is None and chunk.get("choices"):
            # vLLM sends its first chunk (the role) with the first generated token, before
            # any reasoning or tool-call parser has seen enough to emit text
            self.first_token = self.clock()
        self.usage = chunk.get("usage") or self.usage
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            text = delta.get("content")
            thought = delta.get("reasoning_content") or delta.get("reasoning")
            fragments = delta.get("tool_calls") or []
            self.content.append(text or "")
            self.reasoning.append(thought or "")
            for fragment in fragments:
                call = self.calls.setdefault(
                    int(fragment.get("index") or 0), {"id": "", "name": "", "arguments": ""}
                )
                call["id"] = fragment.get("id") or call["id"]
                function = fragment.get("function") or {}
                call["name"] += function.get("name") or ""
                call["arguments"] += function.get("arguments") or ""
            self.finish_reason = choice.get("finish_reason") or self.finish_reason
        return True

    def as_completion(self) -> dict[str, Any]:
        """The completion the chunks add up to, shaped as a response that is not streamed."""
        message = {
            "content": "".join(self.content) or None,
            "reasoning": "".join(self.reasoning) or None,
            "tool_calls": [
                {
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["name"], "arguments": call["arguments"]},
                }
                for _, call in sorted(self.calls.items())
            ],
        }
        return {
            "choices": [{"message": message, "finish_reason": self.finish_reason}],
            "usage": self.usage,
        }


def _marked_messages(messages: list[dict[str, str]], marker: str) -> list[dict[str, str]]:
    marked = [dict(message) for message in messages]
    if marker and marked and marked[0]["role"] == "system":
        marked[0]["content"] = f"[{marker}] {marked[0]['content']}"
    return marked


def _marked_tools(tools: list[dict[str, Any]], marker: str) -> list[dict[str, Any]]:
    marked = copy.deepcopy(tools)
    if marker and marked:
        function = marked[0]["function"]
        function["description"] = f"[{marker}] {function.get('description', '')}"
    return marked


@dataclass
class DeviceCall:
    name: str
    started: float
    ended: float
    xml: str | None = None  # what dump_xml returned


class TimedDevice:
    """The Device protocol around another device, timing every call."""

    def __init__(self, device: Device, clock: Clock = time.perf_counter) -> None:
        self._device = device
        self._clock = clock
        self.serial = device.serial
        self.calls: list[DeviceCall] = []

    @property
    def state(self) -> Any:
        """The wrapped device's state dict, where it has one (the simulator)."""
        return getattr(self._device, "state", None)

    def _timed(self, name: str, call: Callable[[], T]) -> T:
        started = self._clock()
        try:
            return call()
        finally:
            self.calls.append(DeviceCall(name, started, self._clock()))

    def dump_xml(self) -> str:
        xml = self._timed("dump_xml", self._device.dump_xml)
        self.calls[-1].xml = xml
        return xml

    def tap(self, x: int, y: int) -> None:
        self._timed("tap", lambda: self._device.tap(x, y))

    def long_press(self, x: int, y: int, duration_ms: int = 800) -> None:
        self._timed("long_press", lambda: self._device.long_press(x, y, duration_ms))

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        self._timed("swipe", lambda: self._device.swipe(x1, y1, x2, y2, duration_ms))

    def type_text(self, text: str) -> None:
        self._timed("type_text", lambda: self._device.type_text(text))

    def clear_text(self) -> None:
        self._timed("clear_text", self._device.clear_text)

    def press_key(self, key: str) -> None:
        self._timed("press_key", lambda: self._device.press_key(key))

    def open_app(self, name: str) -> str:
        return self._timed("open_app", lambda: self._device.open_app(name))

    def screen_size(self) -> tuple[int, int]:
        return self._timed("screen_size", self._device.screen_size)

    def foreground_app(self) -> str:
        return self._timed("foreground_app", self._device.foreground_app)

    def screenshot_png(self) -> bytes | None:
        return self._timed("screenshot_png", self._device.screenshot_png)


# -- one episode -------------------------------------------------------------------------------


@dataclass
class _Episode:
    started: float
    ended: float
    stop_reason: str
    decisions: list[Decision]
    calls: list[DeviceCall]
    records: list[StepRecord]


def _play(
    goal: str,
    task_state: dict[str, Any],
    policy: StreamingPolicy,
    settings: RunSettings,
    trajectory: Path,
    clock: Clock,
) -> _Episode:
    policy.start_episode()
    device = TimedDevice(Simulator(state=task_state), clock)
    started = clock()
    result = run_episode(goal, device, policy, settings, trajectory)
    ended = clock()
    if policy.failure is not None:
        raise BenchStepError(policy.failure)  # the server failed, not the model
    records = [r for r in read_trajectory(trajectory) if isinstance(r, StepRecord)]
    if not records:
        raise BenchStepError(f"the episode ended before its first step: {result.detail}")
    return _Episode(
        started, ended, result.stop_reason, list(policy.decisions), device.calls, records
    )


def _phase(episode: int, step: int, repeat: bool) -> Phase:
    if step > 1:
        return "repeat" if repeat else "later"
    return "cold" if episode == 1 else "episode_start"


def _elapsed_ms(run: Callable[[], object]) -> float:
    started = time.perf_counter_ns()
    run()
    return (time.perf_counter_ns() - started) / 1e6


def _timings(
    episode: _Episode, number: int, goal: str, mode: ThinkingMode, scratch: Path
) -> list[StepTiming]:
    """Per step: model, device and overhead in the real run, then the overhead's stages."""
    decisions, calls = episode.decisions, episode.calls
    bounds = [episode.started, *(d.started for d in decisions[1:]), episode.ended]
    guards = Guards(goal)
    timings: list[StepTiming] = []
    with TrajectoryWriter(scratch) as writer:
        for k, (decision, record) in enumerate(zip(decisions, episode.records, strict=True)):
            low, high = bounds[k], bounds[k + 1]
            in_step = [c for c in calls if low <= c.started < high]
            shown = [c.xml for c in calls if c.xml is not None and c.started < decision.started]
            read_after = [
                c.xml for c in in_step if c.xml is not None and c.started > decision.ended
            ]
            before = Screen.parse(shown[-1])
            after = Screen.parse(read_after[-1]) if read_after else None
            total_ms = (high - low) * 1e3
            model_ms = (decision.ended - decision.started) * 1e3
            device_ms = sum(c.ended - c.started for c in in_step) * 1e3
            overhead_ms = total_ms - model_ms - device_ms
            step_dumps = [c.xml for c in in_step if c.xml is not None]
            stages = _stage_ms(goal, guards, writer, decision, record, step_dumps, before, after)
            timings.append(
                StepTiming(
                    mode=mode,
                    thinking=bool(decision.reply.thinking),
                    episode=number,
                    step=record.step,
                    phase=_phase(number, record.step, decision.repeat),
                    call=record.call.name,
                    prompt_tokens=decision.reply.prompt_tokens,
                    cached_tokens=decision.cached_tokens,
                    completion_tokens=decision.reply.completion_tokens,
                    ttft_ms=_round(
                        (decision.first_token - decision.started) * 1e3
                        if decision.first_token is not None
                        else None
                    ),
                    ms_per_output_token=_round(_ms_per_output_token(decision)),
                    model_ms=round(model_ms, 3),
                    device_ms=round(device_ms, 3),
                    overhead_ms=round(overhead_ms, 3),
                    overhead_pct=round(100 * overhead_ms / total_ms, 3),
                    **{name: round(ms, 3) for name, ms in stages.items()},
                    unattributed_ms=round(overhead_ms - sum(stages.values()), 3),
                )
            )
    return timings


def _ms_per_output_token(decision: Decision) -> float | None:
    tokens = decision.reply.completion_tokens
    if decision.first_token is None or tokens is None or tokens < 2:
        return None
    return (decision.ended - decision.first_token) * 1e3 / (tokens - 1)


def _stage_ms(
    goal: str,
    guards: Guards,
    writer: TrajectoryWriter,
    decision: Decision,
    record: StepRecord,
    dumps: list[str],
    before: Screen,
    after: Screen | None,
) -> dict[str, float]:
    """Each stage of our own code, run again on this step's inputs."""
    reply = decision.reply
    return {
        "parse_ms": sum(_elapsed_ms(partial(Screen.parse, xml)) for xml in dumps),
        "render_ms": _elapsed_ms(partial(prompt.user_turn, goal, [], [], before)),
        "reply_parse_ms": _elapsed_ms(
            partial(parse_reply, reply.content, reply.reasoning, reply.tool_calls)
        ),
        "guards_ms": _elapsed_ms(partial(_replay_guards, guards, record, before, after)),
        "record_ms": _elapsed_ms(partial(writer.write, record)),
    }


def _replay_guards(
    guards: Guards, record: StepRecord, before: Screen, after: Screen | None
) -> None:
    """What the loop asks of the guards for this step's call, on the same screens."""
    call = record.call
    try:
        action = validate_call(call.name, call.arguments) if call.name else None
    except ActionError:
        action = None
    if action is None:
        guards.bad_call(call.error or "no tool call in the reply")
        return
    target = None
    if isinstance(action, Tap | LongPress | TypeText | Swipe) and action.index is not None:
        try:
            target = before.element(action.index)
        except LookupError as exc:
            guards.bad_call(str(exc))
            return
    guards.review(action, target, before)
    if record.result.executed and after is not None:
        before.diff(after)
        guards.observe(action, before, after)


def _round(value: float | None) -> float | None:
    return round(value, 3) if value is not None else None


# -- the benchmark -----------------------------------------------------------------------------


def run_step_bench(
    settings: ClientSettings,
    steps: int = DEFAULT_STEPS,
    task_name: str = DEFAULT_TASK,
    modes: tuple[ThinkingMode, ...] = ALL_MODES,
    clock: Clock = time.perf_counter,
    progress: Callable[[StepTiming], None] | None = None,
    episode_steps: int | None = None,
    call_tokens: int = DEFAULT_CALL_TOKENS,
    record: Callable[[dict[str, Any]], None] | None = None,
) -> StepReport:
    """`steps` decisions per thinking mode on the simulator task `task_name`, in episodes of at
    most `episode_steps` steps (default: as many as `steps`); each mode's decision with a call
    of `call_tokens` tokens is reckoned from its later steps. `record` receives the body of
    every request sent, to replay them elsewhere."""
    task = TASKS_BY_NAME.get(task_name)
    if task is None:
        raise BenchInputError(f"no simulator task {task_name!r}; e.g. {DEFAULT_TASK}")
    if steps < 1:
        raise BenchInputError("--steps must be at least 1")
    episode_steps = steps if episode_steps is None else episode_steps
    if episode_steps < 1:
        raise BenchInputError("--episode-steps must be at least 1")
    if call_tokens < 1:
        raise BenchInputError("--call-tokens must be at least 1")
    client = ModelClient(settings)
    try:
        model = client.model_name()  # fails fast, in one line, when nothing serves
    finally:
        client.close()
    goal = task.goal(0)
    all_steps: list[StepTiming] = []
    reports: list[ModeReport] = []
    with tempfile.TemporaryDirectory() as scratch:
        for mode in modes:
            policy = StreamingPolicy(
                settings.model_copy(update={"thinking": mode == "on"}), model, record=record
            )
            mode_steps: list[StepTiming] = []
            stop_reasons: list[str] = []
            try:
                for number in itertools.count(1):
                    remaining = steps - len(mode_steps)
                    if remaining <= 0:
                        break
                    trajectory = Path(scratch) / f"{mode}-{number}.jsonl"
                    run_settings = RunSettings(
                        max_steps=min(remaining, episode_steps),
                        think_when_unsure=mode == "auto",
                    )
                    episode = _play(
                        goal, task.initial_state(0), policy, run_settings, trajectory, clock
                    )
                    stop_reasons.append(episode.stop_reason)
                    timings = _timings(
                        episode, number, goal, mode, Path(scratch) / f"{mode}-{number}-replay.jsonl"
                    )
                    for timing in timings:
                        if progress is not None:
                            progress(timing)
                    mode_steps.extend(timings)
            finally:
                policy.close()
            reports.append(_mode_report(mode, stop_reasons, mode_steps, call_tokens))
            all_steps.extend(mode_steps)
    percents = [s.overhead_pct for s in all_steps]
    median_pct = statistics.median(percents)
    return StepReport(
        base_url=settings.base_url,
        model=model,
        task=task.name,
        goal=goal,
        steps_per_mode=steps,
        episode_steps=episode_steps,
        call_tokens=call_tokens,
        streamed=all(s.ttft_ms is not None for s in all_steps),
        steps=all_steps,
        modes=reports,
        later_vs_first_ttft=_ttft_ratio(all_steps, "later"),
        episode_start_vs_first_ttft=_ttft_ratio(all_steps, "episode_start"),
        overhead=OverheadCheck(
            median_pct=round(median_pct, 3),
            max_pct=round(max(percents), 3),
            target_pct=TARGET_OVERHEAD_PCT,
            met=median_pct < TARGET_OVERHEAD_PCT,
        ),
    )


def _mode_report(
    mode: ThinkingMode, stop_reasons: list[str], steps: list[StepTiming], call_tokens: int
) -> ModeReport:
    def phase(name: Phase) -> PhaseMedians | None:
        chosen = [s for s in steps if s.phase == name]
        return _medians(chosen) if chosen else None

    later = phase("later")
    call_decision_s = None
    if later is not None and later.ttft_ms is not None and later.ms_per_output_token is not None:
        call_ms = later.ttft_ms + (call_tokens - 1) * later.ms_per_output_token
        call_decision_s = round(call_ms / 1000, 3)
    return ModeReport(
        thinking=mode,
        episodes=len(stop_reasons),
        stop_reasons=stop_reasons,
        first=_medians([s for s in steps if s.phase == "cold"]),
        episode_start=phase("episode_start"),
        later=later,
        repeat=phase("repeat"),
        later_vs_first_ttft=_ttft_ratio(steps, "later"),
        episode_start_vs_first_ttft=_ttft_ratio(steps, "episode_start"),
        seconds_per_decision=round(
            statistics.mean(s.model_ms + s.device_ms + s.overhead_ms for s in steps) / 1000, 3
        ),
        call_decision_s=call_decision_s,
        thinking_steps=sum(s.thinking for s in steps),
    )


def _medians(steps: list[StepTiming]) -> PhaseMedians:
    def median(values: list[float | int | None]) -> float | None:
        present = [v for v in values if v is not None]
        return round(statistics.median(present), 3) if present else None

    def required(values: list[float]) -> float:
        return round(statistics.median(values), 3)

    return PhaseMedians(
        steps=len(steps),
        prompt_tokens=median([s.prompt_tokens for s in steps]),
        cached_tokens=median([s.cached_tokens for s in steps]),
        ttft_ms=median([s.ttft_ms for s in steps]),
        ms_per_output_token=median([s.ms_per_output_token for s in steps]),
        model_ms=required([s.model_ms for s in steps]),
        device_ms=required([s.device_ms for s in steps]),
        overhead_ms=required([s.overhead_ms for s in steps]),
        overhead_pct=required([s.overhead_pct for s in steps]),
    )


def _ttft_ratio(steps: list[StepTiming], phase: Phase) -> float | None:
    """Median time to first token of `phase` steps over that of the cold steps."""
    cold = [s.ttft_ms for s in steps if s.phase == "cold" and s.ttft_ms is not None]
    other = [s.ttft_ms for s in steps if s.phase == phase and s.ttft_ms is not None]
    if not cold or not other:
        return None
    return round(statistics.median(other) / statistics.median(cold), 4)


# -- text output -------------------------------------------------------------------------------


def render_text(report: StepReport) -> str:
    def cell(value: float | None, digits: int = 1) -> str:
        return "-" if value is None else f"{value:.{digits}f}"

    lines = [
        f"{report.model} at {report.base_url}, task {report.task}: {report.goal}",
        f"{'thinking':<8} {'steps':<8} {'n':>3} {'prompt tok':>10} {'cached':>7} {'TTFT ms':>9} "
        f"{'ms/token':>8} {'model ms':>9} {'device ms':>9} {'ours ms':>8} {'ours %':>7}",
    ]
    for mode in report.modes:
        phases = (
            ("cold", mode.first),
            ("ep.start", mode.episode_start),
            ("later", mode.later),
            ("repeat", mode.repeat),
        )
        for label, phase in phases:
            if phase is None:
                continue
            lines.append(
                f"{mode.thinking:<8} {label:<8} {phase.steps:>3} "
                f"{cell(phase.prompt_tokens, 0):>10} {cell(phase.cached_tokens, 0):>7} "
                f"{cell(phase.ttft_ms):>9} {cell(phase.ms_per_output_token):>8} "
                f"{phase.model_ms:>9.1f} {phase.device_ms:>9.2f} "
                f"{phase.overhead_ms:>8.2f} {phase.overhead_pct:>7.3f}"
            )
    for mode in report.modes:
        lines.append(
            f"thinking {mode.thinking}: {mode.seconds_per_decision:.2f} s per decision "
            f"({mode.thinking_steps} of {sum(s.mode == mode.thinking for s in report.steps)} "
            "steps thought)"
        )
        if mode.call_decision_s is not None and mode.later is not None:
            lines.append(
                f"thinking {mode.thinking}: {mode.call_decision_s:.2f} s per decision with a "
                f"{report.call_tokens}-token call (a later step's TTFT "
                f"{cell(mode.later.ttft_ms, 0)} ms + {report.call_tokens - 1} x "
                f"{cell(mode.later.ms_per_output_token)} ms)"
            )
    for name, ratio in (
        ("later steps'", report.later_vs_first_ttft),
        ("later episodes' first steps'", report.episode_start_vs_first_ttft),
    ):
        shown = "- (the server did not stream)" if not report.streamed else "-"
        lines.append(
            f"{name} time to first token / the cold step's: "
            + (shown if ratio is None else f"{ratio:.3f}")
        )
    check = report.overhead
    lines.append(
        f"our overhead: median {check.median_pct:.3f}% of a step, max {check.max_pct:.3f}% "
        f"(target < {check.target_pct:g}%: {'met' if check.met else 'NOT met'})"
    )
    stages = (
        "parse_ms",
        "render_ms",
        "reply_parse_ms",
        "guards_ms",
        "record_ms",
        "unattributed_ms",
    )
    medians = {
        stage: statistics.median(getattr(s, stage) for s in report.steps) for stage in stages
    }
    lines.append(
        "overhead by stage (median ms): "
        + ", ".join(f"{stage.removesuffix('_ms')} {ms:.3f}" for stage, ms in medians.items())
    )
    return "\n".join(lines)
