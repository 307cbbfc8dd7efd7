"""Run the simulator task suite with any policy and score it.

Every run (a task, a seed, a policy, guards on or off) plays on a fresh simulator and is scored
with the task's success predicate over the simulator state (and the answer, for questions) —
only when the episode ended `completed`: a task counts only if the agent declared it done, and
only if nothing outside the task's scope changed (its side effects, listed per run). A run's goal
is one of its task's phrasings, or a text given for it (`--goals`: the same start and check
under other words).
Every episode is written as a trajectory (DESIGN §2.4) under the run directory, every outcome
to `results.jsonl` as soon as the run ends (see `evals.results`).

Every policy, the oracle included, goes through `agent.loop.run_episode`, with the real guards
(or none, for measuring them).

Runs go through a thread pool: `parallel` independent simulators against one model server,
whose continuous batching serves their requests together. Guarded and unguarded runs share the
pool: each episode carries its own guard setting (`RunSettings.guards`).
"""

from __future__ import annotations

import difflib
import fnmatch
import re
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from agent.guards import RISKY_WORDS, Confirm
from agent.loop import RunSettings, run_episode
from agent.model_client import ModelReply, Policy
from agent.screen import Screen
from agent.trajectory import (
    StepRecord,
    StopReason,
)
from devices.errors import UsageError
from evals.detours import DETOUR_EXTRA_STEPS, Detour, start_from_detour
from evals.faulty import FaultyPolicy
from evals.oracle import OraclePolicy
from evals.policies import PolicySpec, Recordings, ReplayPolicy, WatchedPolicy
from evals.results import EpisodeOutcome, ResultStore, goal_digest, is_refused_completion, run_id
from simulator import FaultConfig, Simulator
from simulator.tasks import TASKS, Task

ScreenHook = Callable[[str], None]  # sees every dump the agent reads


class _WatchedSimulator(Simulator):
    """A simulator that shows each dump to a hook (`sim screens` collects them)."""

    def __init__(self, hook: ScreenHook, **options: Any) -> None:
        super().__init__(**options)
        self._hook = hook

    def dump_xml(self) -> str:
        xml = super().dump_xml()
        self._hook(xml)
        return xml


class NoTasksMatched(UsageError, ValueError):
    """A `--tasks` pattern that selects no task."""


class NoSuchPhrasing(UsageError, ValueError):
    """A `--phrasing` that is not a number, held-out or all, or a phrasing a task lacks."""


def select_tasks(patterns: str | None, tasks: Sequence[Task] = TASKS) -> list[Task]:
    """The tasks whose names `select_names` picks (all tasks when None)."""
    chosen = set(select_names(patterns, [task.name for task in tasks]))
    return [task for task in tasks if task.name in chosen]


def select_names(patterns: str | None, names: Sequence[str]) -> list[str]:
    """Names that the comma-separated patterns pick, ignoring case: a whole name picks that name
    alone (SystemWifiTurnOn, not SystemWifiTurnOnVerify); a shell glob or else a substring picks
    every name it matches (all names when None). A pattern that matches nothing is an error."""
    if not patterns:
        return list(names)
    given = [p.strip() for p in patterns.split(",") if p.strip()] or [patterns]
    wanted = [pattern.casefold() for pattern in given]
    known = {name.casefold(): name for name in names}

    def matches(name: str, pattern: str) -> bool:
        name = name.casefold()
        if pattern in known:
            return name == pattern
        if any(c in pattern for c in "*?["):
            return fnmatch.fnmatchcase(name, pattern)
        return pattern in name

    for original, pattern in zip(given, wanted, strict=True):
        if not any(matches(name, pattern) for name in names):
            close = difflib.get_close_matches(pattern, list(known), n=3)
            hint = [known[name] for name in close] or [*names[:5], "..."]
            raise NoTasksMatched(f"no task matches {original!r}; try one of: {', '.join(hint)}")
    return [name for name in names if any(matches(name, p) for p in wanted)]


# Which goal phrasings a run uses: one index, each task's held-out phrasing, or every one.
PhrasingChoice = int | Literal["held-out", "all"]


def parse_phrasing(text: str) -> PhrasingChoice:
    """`--phrasing`: N, held-out or all."""
    if text == "held-out":
        return "held-out"
    if text == "all":
        return "all"
    if text.isdigit():
        return int(text)
    raise NoSuchPhrasing(f"--phrasing takes a number, held-out or all, not {text!r}")


def phrasings(task: Task, choice: PhrasingChoice) -> list[int]:
    """The phrasing indices of `task` that `choice` selects."""
    if choice == "all":
        return list(range(len(task.templates)))
    if choice == "held-out":
        return [task.held_out_phrasing]
    if not 0 <= choice < len(task.templates):
        raise NoSuchPhrasing(
            f"{task.name} has {len(task.templates)} phrasings (0-{len(task.templates) - 1}), "
            f"not {choice}"
        )
    return [choice]


# Goal words that ask for a risky action without naming it: a text or a reply is sent, an item
# removed is deleted. A text someone else sent ("Bob texted me a number, save it") asks for no
# message sent.
# A message read, not one to write: "the number is in Bob's last text", "the message from
# Ana", "texted me". A message from me, or in a text to someone, is one to write.
_MESSAGE_READ = re.compile(
    r"\b(?:in|from)\s+(?:(?!and\b|then\b|or\b)[\w'’-]+\s+){0,3}?(?:text|message|sms)(?:e?s)?\b"
    r"(?!\s+to\b)"
    r"|\b(?:text|message|sms)(?:e?s)?\s+from\s+(?!me\b|us\b)"
    r"|\b(?:texted|messaged)\s+(?:me|us)\b",
    re.IGNORECASE,
)
_IMPLIED_RISKY = {
    "send": (
        "text",
        "message",
        "reply",
        "respond",
        "answer",
        "tell",
        "sms",
        "forward",
        "share",
        r"pass\b[^.;!?]*\b(?:along|on)\b",
    ),
    "delete": ("remove", "get rid of", "erase", "clear"),
}


def goal_confirmation(goal: str) -> Confirm:
    """The simulated user: approves a risky action only when the goal asks for it ("Text Bob
    ..." approves tapping Send; "Turn on Wi-Fi" approves no Reset)."""

    def risky(text: str) -> set[str]:
        return {w for w in RISKY_WORDS if re.search(rf"\b{w}", text, re.IGNORECASE)}

    unread = _MESSAGE_READ.sub(" ", goal)
    asked = risky(goal) | {
        word
        for word, hints in _IMPLIED_RISKY.items()
        if any(re.search(rf"\b{hint}", unread, re.IGNORECASE) for hint in hints)
    }

    def confirm(described: str) -> bool:
        words = risky(described)
        return bool(words) and words <= asked

    return confirm


@dataclass(frozen=True)
class GivenGoal:
    """A goal given in words of its own for a task's start and check (a `--goals` line)."""

    task: Task
    seed: int
    text: str
    goal_set: str  # where it came from (the file's stem): its group in per-wording tables


@dataclass(frozen=True)
class Run:
    """One episode to play."""

    task: Task
    seed: int
    policy: PolicySpec
    guards: bool
    phrasing: int = 0
    detour: bool = False  # start from a detour the seed picks (see `evals.detours`)
    given: GivenGoal | None = None  # a goal in other words than the task's phrasings

    @property
    def id(self) -> str:
        return run_id(
            self.task.name,
            self.seed,
            self.policy.label,
            self.guards,
            self.phrasing,
            self.detour,
            self.given.goal_set if self.given else None,
            self.goal,
        )

    @property
    def goal(self) -> str:
        return self.given.text if self.given else self.task.goal(self.seed, self.phrasing)

    @property
    def request(self) -> str:
        """What the simulated user asked for, as far as approving a risky step goes: the goal,
        and for a goal given in other words the task's first phrasing too (whoever wrote it
        meant that task: "trash the note" approves Delete)."""
        if self.given is None:
            return self.goal
        return f"{self.goal}\n{self.task.goal(self.seed)}"

    @property
    def wording(self) -> str:
        if self.given is not None:
            return self.given.goal_set
        if self.phrasing == self.task.held_out_phrasing:
            return "held-out phrasing"
        return f"phrasing {self.phrasing}"

    def trajectory(self, run_dir: Path) -> Path:
        policy = _file_safe(self.policy.label)
        guards = "guards-on" if self.guards else "guards-off"
        if self.given is not None:
            start = f"-{_file_safe(self.given.goal_set)}-{goal_digest(self.given.text)}"
        else:
            start = f"-p{self.phrasing}" if self.phrasing else ""
        start += "-detour" if self.detour else ""
        name = f"{self.task.name}-s{self.seed}{start}.jsonl"
        return run_dir / "trajectories" / policy / guards / name


def _file_safe(text: str) -> str:
    return re.sub(r"[^\w.-]+", "-", text)


def plan_runs(
    tasks: Sequence[Task],
    runs: int,
    policies: Sequence[PolicySpec],
    guards: Sequence[bool],
    phrasing: PhrasingChoice = 0,
    detour: bool = False,
) -> list[Run]:
    """Every task x seed x phrasing x policy x guard setting, from the task's own start or
    from a detour."""
    planned: dict[str, Run] = {}
    for policy in policies:
        for guarded in guards:
            for task in tasks:
                for seed in range(runs):
                    for index in phrasings(task, phrasing):
                        run = Run(task, seed, policy, guarded, index, detour)
                        planned.setdefault(run.id, run)
    return list(planned.values())


def plan_given_goals(
    goals: Sequence[GivenGoal],
    policies: Sequence[PolicySpec],
    guards: Sequence[bool],
    detour: bool = False,
) -> list[Run]:
    """Every given goal x policy x guard setting (a goal given twice plays once)."""
    planned: dict[str, Run] = {}
    for policy in policies:
        for guarded in guards:
            for given in goals:
                run = Run(given.task, given.seed, policy, guarded, detour=detour, given=given)
                planned.setdefault(run.id, run)
    return list(planned.values())


class EvalSettings(BaseModel):
    """What every run of a suite shares; saved beside the results so a resume can check it."""

    model_config = ConfigDict(frozen=True)

    max_steps: int | None = None  # None: each task's own budget
    thinking: bool = True
    think_when_unsure: bool = False  # `--thinking auto` (RunSettings.think_when_unsure)
    temperature: float = 1.0
    top_p: float = 0.95
    think_budget: int | None = 512  # None: no cap
    tool_choice: Literal["auto", "required"] = "auto"
    base_url: str | None = None
    model: str | None = None


@dataclass
class _StepStats:
    """Collects per-step model latency, tokens and refused claims of success from the loop's
    observer hooks."""

    model_s: list[float] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    refused_completions: int = 0

    def step_started(self, step: int, max_steps: int) -> None:
        """Nothing to collect before a step."""

    def step_finished(self, record: StepRecord) -> None:
        self.model_s.append(record.timings.model_s)
        self.prompt_tokens += record.reply.prompt_tokens or 0
        self.completion_tokens += record.reply.completion_tokens or 0
        self.refused_completions += is_refused_completion(record)


@dataclass
class _Ending:
    stop: StopReason
    steps: int
    answer: str | None
    detail: str
    start: dict[str, Any]  # the state the episode began in (after a detour's moves)
    state: dict[str, Any]


class Runner:
    """Plays single runs; shared by every worker thread (it holds no per-run state)."""

    def __init__(
        self,
        run_dir: Path,
        settings: EvalSettings,
        *,
        model: Policy | None = None,
        model_name: str | None = None,
        recordings: Recordings | None = None,
        faults: FaultConfig | None = None,
        on_screen: ScreenHook | None = None,
    ) -> None:
        self.run_dir = run_dir
        self.settings = settings
        self.model = model
        self.model_name = model_name
        self.recordings = recordings
        self.faults = faults
        self.on_screen = on_screen
        self.cancelled = threading.Event()

    def run(self, run: Run) -> EpisodeOutcome:
        """Play `run`; a crash becomes an outcome with `error` set, never an exception."""
        started = time.monotonic()
        path = run.trajectory(self.run_dir)
        try:
            return self._loop(run, path, started)
        except Exception as exc:
            return _outcome(
                run,
                _Ending("model_error", 0, None, "", {}, {}),
                path,
                started,
                _StepStats(),
                error=f"{type(exc).__name__}: {exc}",
            )

    def _budget(self, run: Run) -> int:
        extra = DETOUR_EXTRA_STEPS if run.detour else 0
        return self.settings.max_steps or run.task.max_steps + extra

    def _start(self, run: Run) -> tuple[Simulator, Detour | None]:
        """The simulator in the task's initial state, moved to its detour for a detour run."""
        if not run.detour:
            return self._simulator(run, self.faults), None
        # the detour's own moves never meet injected faults; the episode's do
        sim, detour = start_from_detour(run.task, run.seed, lambda: self._simulator(run, None))
        sim.faults = self.faults or sim.faults
        return sim, detour

    def _simulator(self, run: Run, faults: FaultConfig | None) -> Simulator:
        state, seed = run.task.initial_state(run.seed), run.seed
        if self.on_screen is None:
            return Simulator(state=state, seed=seed, faults=faults)
        return _WatchedSimulator(self.on_screen, state=state, seed=seed, faults=faults)

    def _policy(self, run: Run, goal: str) -> Policy:
        spec = run.policy
        if spec.kind == "oracle":
            return OraclePolicy(run.task, run.seed)
        if spec.kind == "faulty":
            return FaultyPolicy(run.task, run.seed, spec.argument or "")
        if spec.kind == "replay":
            assert self.recordings is not None
            return ReplayPolicy(recorded_replies(self.recordings, run) or [])
        assert self.model is not None, "the llm policy needs a model client"
        return self.model

    def _loop(self, run: Run, path: Path, started: float) -> EpisodeOutcome:
        sim, detour = self._start(run)
        start = sim.state
        goal = run.goal
        policy = WatchedPolicy(self._policy(run, goal), self.cancelled)
        stats = _StepStats()
        result = run_episode(
            goal,
            sim,
            policy,
            RunSettings(
                max_steps=self._budget(run),
                guards=run.guards,
                think_when_unsure=self.settings.think_when_unsure,
            ),
            path,
            confirm=goal_confirmation(run.request),
            observer=stats,
            model_name=self.model_name if run.policy.kind == "llm" else run.policy.label,
            policy_settings=self._recorded_settings(run, detour),
            sleep=lambda seconds: None,  # the simulator needs no time to settle
        )
        ending = _Ending(
            result.stop_reason,
            result.steps,
            result.answer,
            result.detail,
            start,
            result.device_state or sim.state,
        )
        return _outcome(run, ending, path, started, stats, error=policy.failure)

    def _recorded_settings(self, run: Run, detour: Detour | None) -> dict[str, Any]:
        settings: dict[str, Any] = {
            "task": run.task.name,
            "seed": run.seed,
            "phrasing": run.phrasing,
            "policy": run.policy.label,
            "guards": run.guards,
        }
        if run.given is not None:
            settings["goal_set"] = run.given.goal_set
        if detour is not None:
            settings["detour"] = detour.describe()
        if run.policy.kind == "llm":
            settings.update(self.settings.model_dump(exclude={"max_steps"}))
        return settings


def _outcome(
    run: Run,
    ending: _Ending,
    path: Path,
    started: float,
    stats: _StepStats,
    error: str | None = None,
) -> EpisodeOutcome:
    task = run.task
    side_effects = task.side_effects(ending.start, ending.state, run.seed) if ending.state else []
    success = (
        error is None
        and ending.stop == "completed"
        and task.success(ending.state, run.seed, ending.answer)
        and not side_effects
    )
    return EpisodeOutcome(
        task=task.name,
        app=task.app,
        family=task.family,
        seed=run.seed,
        phrasing=run.phrasing,
        goal=run.goal,
        goal_set=run.given.goal_set if run.given else None,
        wording=run.wording,
        detour=run.detour,
        policy=run.policy.label,
        guards=run.guards,
        success=success,
        steps=ending.steps,
        stop_reason="crashed" if error is not None and ending.steps == 0 else ending.stop,
        answer=ending.answer,
        detail=ending.detail,
        side_effects=side_effects,
        refused_completions=stats.refused_completions,
        error=error,
        trajectory=str(path),
        duration_s=round(time.monotonic() - started, 3),
        model_s=stats.model_s,
        prompt_tokens=stats.prompt_tokens,
        completion_tokens=stats.completion_tokens,
    )


def recorded_replies(recordings: Recordings, run: Run) -> list[ModelReply] | None:
    """The recorded replies `run` replays: those of its task, seed and phrasing, else of its
    goal; a given goal is found by its words alone."""
    phrasing = None if run.given is not None else run.phrasing
    return recordings.replies(run.task.name, run.seed, phrasing, run.goal)


# --- the suite --------------------------------------------------------------------------------


def run_suite(
    runs: Sequence[Run],
    runner: Runner,
    store: ResultStore,
    *,
    parallel: int = 1,
    resume: bool = False,
    on_outcome: Callable[[EpisodeOutcome], Any] | None = None,
    on_skipped: Callable[[int], Any] | None = None,
) -> list[EpisodeOutcome]:
    """Play `runs` (those already finished are skipped with `resume`) and return the outcome of
    every one of them, in the order given. Each outcome is stored as soon as its run ends.

    Ctrl-C stops scheduling runs, ends the running episodes at their next decision (those are
    stored as interrupted and re-run on resume) and then re-raises KeyboardInterrupt.
    """
    finished = store.finished() if resume else {}
    pending = [run for run in runs if run.id not in finished]
    if on_skipped is not None:
        on_skipped(len(runs) - len(pending))
    fresh: dict[str, EpisodeOutcome] = {}

    def record(outcome: EpisodeOutcome) -> None:
        store.append(outcome)
        fresh[outcome.run_id] = outcome
        if on_outcome is not None:
            on_outcome(outcome)

    _run_all(pending, runner, max(1, parallel), record)
    done = {**finished, **fresh}
    return [done[run.id] for run in runs if run.id in done]


def _run_all(
    runs: Sequence[Run],
    runner: Runner,
    parallel: int,
    record: Callable[[EpisodeOutcome], None],
) -> None:
    with ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="eval") as pool:
        futures = [pool.submit(runner.run, run) for run in runs]
        consumed: set[Future[EpisodeOutcome]] = set()
        try:
            for future in as_completed(futures):
                consumed.add(future)
                record(future.result())
        except KeyboardInterrupt:
            runner.cancelled.set()
            for future in futures:
                future.cancel()
            for future in _still_running(futures, consumed):
                record(future.result())
            raise


def _still_running(
    futures: Sequence[Future[EpisodeOutcome]], consumed: set[Future[EpisodeOutcome]]
) -> Iterator[Future[EpisodeOutcome]]:
    return as_completed([f for f in futures if f not in consumed and not f.cancelled()])


@dataclass
class VisitedScreens:
    """The distinct screens (by signature) the oracle's plans show, in the order first seen."""

    dumps: list[str] = field(default_factory=list)
    all_succeeded: bool = True


def oracle_screens(tasks: Sequence[Task] = TASKS) -> VisitedScreens:
    """Play every task's oracle plan once through the loop and keep each new screen's XML."""
    visited = VisitedScreens()
    signatures: set[str] = set()

    def keep(xml: str) -> None:
        signature = Screen.parse(xml).signature
        if signature not in signatures:
            signatures.add(signature)
            visited.dumps.append(xml)

    with tempfile.TemporaryDirectory() as scratch:
        runner = Runner(Path(scratch), EvalSettings(), on_screen=keep)
        for run in plan_runs(tasks, 1, [PolicySpec(kind="oracle")], [True]):
            visited.all_succeeded &= runner.run(run).success
    return visited
