"""What an evaluation produces: one outcome per run, summaries, the guard-effect table, and the
results file that makes a suite resumable.

A run succeeds only when the agent declared the task done, the task's check passes, and nothing
outside the task's scope changed (`side_effects`). A false completion is a run the agent
declared done that did not succeed: the check failed or it had side effects. A refused
completion is a claim of success the loop could not verify and handed back to the model; an
episode may have several and still end well.

Every finished run is appended to `results.jsonl` in the run directory as one JSON line, flushed
and synced before the next run is reported, so a crash or Ctrl-C never loses a finished result.
Runs that could not be judged (`error` set: the runner crashed, the model server failed, Ctrl-C
interrupted it) are re-run on `--resume`, and the new line replaces the old one: the file holds
one line per run. Reading it back ignores a line cut off mid-write.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from threading import Lock
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from agent.trajectory import StepRecord, StopReason

# A run's stop reason, plus `crashed` when the runner itself failed before the episode ended.
RunStop = StopReason | Literal["crashed"]
# Stops that end an episode early and say why, without claiming success.
CLEAN_STOPS: frozenset[str] = frozenset({"infeasible", "stuck", "undo_detected", "model_error"})

Verdict = Literal["success", "false_claim", "clean_stop", "step_budget", "error"]


class EpisodeOutcome(BaseModel):
    """One run: a task, a seed, a policy, guards on or off; scored on the device state."""

    task: str
    app: str
    family: str
    seed: int
    phrasing: int = 0  # which of the task's goal phrasings the agent was given
    goal: str = ""  # the goal the agent was given
    goal_set: str | None = None  # the --goals file the goal came from (its stem); None: a phrasing
    wording: str = ""  # its group in per-wording tables: "phrasing N", "held-out phrasing", a set
    detour: bool = False  # started from a detour, not from the task's own start
    policy: str
    guards: bool = True
    success: bool
    steps: int
    stop_reason: RunStop
    answer: str | None = None
    detail: str = ""
    side_effects: list[str] = Field(default_factory=list)  # changes outside the task's scope
    refused_completions: int = 0  # claims of success the loop refused, handed back to the model
    error: str | None = None  # the run could not be judged; re-run on --resume
    trajectory: str
    duration_s: float = 0.0
    model_s: list[float] = Field(default_factory=list)  # model latency of each step
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def run_id(self) -> str:
        return run_id(
            self.task,
            self.seed,
            self.policy,
            self.guards,
            self.phrasing,
            self.detour,
            self.goal_set,
            self.goal,
        )

    @property
    def wording_group(self) -> str:
        return self.wording or f"phrasing {self.phrasing}"

    @property
    def verdict(self) -> Verdict:
        """What the run amounts to: success, a false claim of success (a false completion: the
        check failed or something outside the task's scope changed), a clean stop, ..."""
        if self.error is not None or self.stop_reason in ("crashed", "aborted", "device_error"):
            return "error"
        if self.success:
            return "success"
        if self.stop_reason == "completed":
            return "false_claim"
        if self.stop_reason in CLEAN_STOPS:
            return "clean_stop"
        return "step_budget"


def run_id(
    task: str,
    seed: int,
    policy: str,
    guards: bool,
    phrasing: int = 0,
    detour: bool = False,
    goal_set: str | None = None,
    goal: str = "",
) -> str:
    # the task's own start and first phrasing keep the ids that older results files hold
    if goal_set is not None:
        start = f"/{goal_set}-{goal_digest(goal)}"
    else:
        start = f"/p{phrasing}" if phrasing else ""
    start += "/detour" if detour else ""
    return f"{task}/s{seed}{start}/{policy}/guards-{'on' if guards else 'off'}"


def goal_digest(goal: str) -> str:
    """A short name of a goal's text, telling apart runs of one task and seed given in other
    words (and the same across resumes, whatever the line's place in its file)."""
    return hashlib.sha256(goal.encode("utf-8")).hexdigest()[:10]


def is_refused_completion(step: StepRecord) -> bool:
    """A claim of success the loop could not verify and returned to the model."""
    return (
        step.call.name == "task_complete"
        and step.guard.verdict == "block"
        and any(note.kind == "completion_check" for note in step.guard.notes)
    )


class GroupScore(BaseModel):
    episodes: int
    successes: int
    success_rate: float
    false_completions: int = 0
    side_effects: int = 0  # episodes that changed something outside their task's scope
    mean_steps: float


class Latency(BaseModel):
    """Model latency per step, in seconds, over every step of the group."""

    steps: int
    mean_s: float
    p50_s: float
    p90_s: float
    max_s: float


class Summary(BaseModel):
    suite: str
    policy: str
    guards: bool
    tasks: int
    runs: int
    episodes: int
    successes: int
    success_rate: float
    false_completions: int = 0  # declared done, and the check failed or there were side effects
    side_effects: int = 0  # episodes that changed something outside their task's scope
    refused_completions: int = 0  # claims of success the loop refused, over every episode
    errors: int
    mean_steps: float
    stop_reasons: dict[str, int]
    verdicts: dict[str, int]
    model_latency: Latency
    prompt_tokens_per_step: float
    completion_tokens_per_step: float
    by_family: dict[str, GroupScore]
    by_app: dict[str, GroupScore]
    by_wording: dict[str, GroupScore] = Field(default_factory=dict)


class GuardEffect(BaseModel):
    """For one policy: the same runs with guards off and on, compared pair by pair."""

    policy: str
    episodes: int
    off: dict[str, int]  # verdict -> count
    on: dict[str, int]
    to_success: int  # failed with guards off, succeeded with them on
    to_clean_stop: int  # ran out the budget or claimed a false success off, stopped cleanly on
    made_worse: int  # succeeded off, did not on
    mean_steps_off: float
    mean_steps_on: float


class EvalReport(BaseModel):
    """The results JSON: `summary` over every run, one summary per policy and guard setting
    when there are several, the guard-effect rows when guards ran both ways, and every run."""

    summary: Summary
    configurations: list[Summary] = Field(default_factory=list)
    guard_effect: list[GuardEffect] = Field(default_factory=list)
    results: list[EpisodeOutcome]


# --- scoring ----------------------------------------------------------------------------------


def _rate(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def _mean(values: Sequence[float]) -> float:
    return round(statistics.fmean(values), 2) if values else 0.0


def _group(outcomes: Sequence[EpisodeOutcome]) -> GroupScore:
    wins = sum(o.success for o in outcomes)
    return GroupScore(
        episodes=len(outcomes),
        successes=wins,
        success_rate=_rate(wins, len(outcomes)),
        false_completions=sum(o.verdict == "false_claim" for o in outcomes),
        side_effects=sum(bool(o.side_effects) for o in outcomes),
        mean_steps=_mean([o.steps for o in outcomes]),
    )


def _grouped(
    outcomes: Sequence[EpisodeOutcome], key: Callable[[EpisodeOutcome], str]
) -> dict[str, GroupScore]:
    groups: dict[str, list[EpisodeOutcome]] = {}
    for outcome in outcomes:
        groups.setdefault(key(outcome), []).append(outcome)
    return {name: _group(group) for name, group in sorted(groups.items())}


def _quantile(ordered: Sequence[float], fraction: float) -> float:
    position = min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))
    return ordered[position]


def latency(outcomes: Iterable[EpisodeOutcome]) -> Latency:
    times = sorted(t for outcome in outcomes for t in outcome.model_s)
    if not times:
        return Latency(steps=0, mean_s=0.0, p50_s=0.0, p90_s=0.0, max_s=0.0)
    return Latency(
        steps=len(times),
        mean_s=round(statistics.fmean(times), 3),
        p50_s=round(_quantile(times, 0.5), 3),
        p90_s=round(_quantile(times, 0.9), 3),
        max_s=round(times[-1], 3),
    )


def _counts(values: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return dict(sorted(counts.items()))


def summarize(outcomes: Sequence[EpisodeOutcome], suite: str = "sim") -> Summary:
    """Scores over `outcomes`; `policy` reads `mixed` when they come from several policies."""
    policies = {o.policy for o in outcomes}
    guards = {o.guards for o in outcomes}
    steps = sum(len(o.model_s) for o in outcomes)
    overall = _group(outcomes)
    return Summary(
        suite=suite,
        policy=policies.pop() if len(policies) == 1 else "mixed",
        guards=guards != {False},
        tasks=len({o.task for o in outcomes}),
        runs=len({o.seed for o in outcomes}),
        episodes=overall.episodes,
        successes=overall.successes,
        success_rate=overall.success_rate,
        false_completions=overall.false_completions,
        side_effects=overall.side_effects,
        refused_completions=sum(o.refused_completions for o in outcomes),
        errors=sum(o.verdict == "error" for o in outcomes),
        mean_steps=overall.mean_steps,
        stop_reasons=_counts(o.stop_reason for o in outcomes),
        verdicts=_counts(o.verdict for o in outcomes),
        model_latency=latency(outcomes),
        prompt_tokens_per_step=_rate(sum(o.prompt_tokens for o in outcomes), steps),
        completion_tokens_per_step=_rate(sum(o.completion_tokens for o in outcomes), steps),
        by_family=_grouped(outcomes, lambda o: o.family),
        by_app=_grouped(outcomes, lambda o: o.app),
        by_wording=_grouped(outcomes, lambda o: o.wording_group),
    )


def guard_effect(outcomes: Sequence[EpisodeOutcome]) -> list[GuardEffect]:
    """One row per policy that ran with guards both off and on, over the runs done both ways."""
    by_id = {o.run_id: o for o in outcomes}

    def guarded(off: EpisodeOutcome) -> EpisodeOutcome | None:
        return by_id.get(off.model_copy(update={"guards": True}).run_id)

    rows = []
    for policy in sorted({o.policy for o in outcomes}):
        pairs = [
            (off, on)
            for off in outcomes
            if off.policy == policy and not off.guards and (on := guarded(off)) is not None
        ]
        if not pairs:
            continue
        failed = ("false_claim", "step_budget")
        rows.append(
            GuardEffect(
                policy=policy,
                episodes=len(pairs),
                off=_counts(off.verdict for off, _ in pairs),
                on=_counts(on.verdict for _, on in pairs),
                to_success=sum(on.success and not off.success for off, on in pairs),
                to_clean_stop=sum(
                    off.verdict in failed and on.verdict == "clean_stop" for off, on in pairs
                ),
                made_worse=sum(off.success and not on.success for off, on in pairs),
                mean_steps_off=_mean([off.steps for off, _ in pairs]),
                mean_steps_on=_mean([on.steps for _, on in pairs]),
            )
        )
    return rows


# --- the summary tables, as the terminal, the HTML report and Markdown show them ---------------


@dataclass(frozen=True)
class ResultTable:
    """A summary table in plain-text cells; the first column names the row."""

    title: str
    columns: tuple[str, ...]
    rows: list[tuple[str, ...]]


def configurations_table(summaries: Sequence[Summary]) -> ResultTable:
    """One row per policy and guard setting."""
    return ResultTable(
        "Results",
        (
            "policy",
            "guards",
            "runs",
            "successes",
            "rate",
            "false completions",
            "side effects",
            "refused completions",
            "errors",
            "mean steps",
            "model s/step p50",
            "p90",
        ),
        [
            (
                s.policy,
                "on" if s.guards else "off",
                str(s.episodes),
                str(s.successes),
                f"{s.success_rate:.0%}",
                str(s.false_completions),
                str(s.side_effects),
                str(s.refused_completions),
                str(s.errors),
                f"{s.mean_steps:g}",
                f"{s.model_latency.p50_s:.2f}",
                f"{s.model_latency.p90_s:.2f}",
            )
            for s in summaries
        ],
    )


def families_table(summary: Summary) -> ResultTable:
    return _scores_table("By family", "family", summary.by_family)


def wordings_table(summary: Summary) -> ResultTable | None:
    """Scores by the wording of the goals (the tasks' phrasings, each --goals file); None when
    every run had its task's first phrasing."""
    if set(summary.by_wording) <= {"phrasing 0"}:
        return None
    return _scores_table("By goal wording", "wording", summary.by_wording)


def _scores_table(title: str, heading: str, groups: dict[str, GroupScore]) -> ResultTable:
    return ResultTable(
        title,
        (heading, "runs", "successes", "rate", "false completions", "side effects", "mean steps"),
        [
            (
                name,
                str(score.episodes),
                str(score.successes),
                f"{score.success_rate:.0%}",
                str(score.false_completions),
                str(score.side_effects),
                f"{score.mean_steps:g}",
            )
            for name, score in groups.items()
        ],
    )


def guard_effect_table(rows: Sequence[GuardEffect]) -> ResultTable:
    """One row per policy: each verdict's count with guards off and on, and the runs the
    guards changed."""

    def pair(row: GuardEffect, verdict: str) -> str:
        return f"{row.off.get(verdict, 0)} → {row.on.get(verdict, 0)}"

    return ResultTable(
        "Guard effect (same runs, guards off → on)",
        (
            "policy",
            "runs",
            "successes off → on",
            "false completions off → on",
            "budget used up off → on",
            "clean stops off → on",
            "turned into success",
            "turned into clean stop",
            "made worse",
            "mean steps off → on",
        ),
        [
            (
                row.policy,
                str(row.episodes),
                pair(row, "success"),
                pair(row, "false_claim"),
                pair(row, "step_budget"),
                pair(row, "clean_stop"),
                str(row.to_success),
                str(row.to_clean_stop),
                str(row.made_worse),
                f"{row.mean_steps_off:g} → {row.mean_steps_on:g}",
            )
            for row in rows
        ],
    )


def guard_effect_markdown(rows: Sequence[GuardEffect]) -> str:
    """The guard-effect table as Markdown, one row per policy."""
    table = guard_effect_table(rows)
    lines = [
        "| " + " | ".join(table.columns) + " |",
        "|---|" + "---:|" * (len(table.columns) - 1),
    ]
    lines.extend("| " + " | ".join(row) + " |" for row in table.rows)
    return "\n".join(lines)


def build_report(outcomes: Sequence[EpisodeOutcome], suite: str = "sim") -> EvalReport:
    configurations = sorted({(o.policy, o.guards) for o in outcomes}, key=lambda c: (c[0], -c[1]))
    return EvalReport(
        summary=summarize(outcomes, suite),
        configurations=(
            [
                summarize([o for o in outcomes if (o.policy, o.guards) == config], suite)
                for config in configurations
            ]
            if len(configurations) > 1
            else []
        ),
        guard_effect=guard_effect(outcomes),
        results=list(outcomes),
    )


# --- the results file -------------------------------------------------------------------------


class ResultStore:
    """`results.jsonl`: one finished run per line, appended and synced as each run ends."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = Lock()
        self._recorded: set[str] | None = None  # run ids in the file, read at the first append

    def load(self) -> dict[str, EpisodeOutcome]:
        """Every run recorded so far by id (the last line wins); a torn last line is skipped."""
        if not self.path.exists():
            return {}
        found: dict[str, EpisodeOutcome] = {}
        for line in self.path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            try:
                outcome = EpisodeOutcome.model_validate_json(line)
            except ValidationError:
                continue  # cut off by a crash mid-write: that run is simply run again
            found[outcome.run_id] = outcome
        return found

    def finished(self) -> dict[str, EpisodeOutcome]:
        """Runs that need no re-run: everything except those that could not be judged."""
        return {key: o for key, o in self.load().items() if o.verdict != "error"}

    def append(self, outcome: EpisodeOutcome) -> None:
        """Record a finished run; one played again replaces its earlier line."""
        line = outcome.model_dump_json() + "\n"
        with self._lock:
            if self._recorded is None:
                self._recorded = set(self.load())
            if outcome.run_id in self._recorded:
                self._replace(outcome, line)
                return
            self._recorded.add(outcome.run_id)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self._torn():
                line = "\n" + line  # end the cut-off line, or this one would join it
            with self.path.open("a", encoding="utf-8") as out:
                out.write(line)
                out.flush()
                os.fsync(out.fileno())

    def _replace(self, outcome: EpisodeOutcome, line: str) -> None:
        """Write the file anew with `line` in place of the run's earlier line (and without any
        cut-off line), then swap it in at once, so a crash leaves the old file or the new."""
        kept = [
            f"{old.model_dump_json()}\n"
            for run_id, old in self.load().items()
            if run_id != outcome.run_id
        ]
        fresh = self.path.with_name(self.path.name + ".new")
        with fresh.open("w", encoding="utf-8") as out:
            out.writelines([*kept, line])
            out.flush()
            os.fsync(out.fileno())
        os.replace(fresh, self.path)

    def _torn(self) -> bool:
        """The file ends in the middle of a line (a crash while writing)."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return False
        with self.path.open("rb") as data:
            data.seek(-1, os.SEEK_END)
            return data.read(1) != b"\n"


def write_report(report: EvalReport, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report.model_dump(mode="json"), indent=2) + "\n", encoding="utf-8")
