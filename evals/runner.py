"""Run the simulator task suite and score it.

`run_suite` plays every selected task for `runs` seeds on a fresh simulator and scores each
episode with the task's success predicate over the simulator state (and the answer, for
questions). Episodes are written as trajectories (DESIGN §2.4) under the run directory.

The oracle policy plays each task's plan: every step is resolved on the current screen through
the agent's screen model and executed with the agent's own executor. It is driven here step by
step rather than through the agent loop, because the loop's guards rightly stop a model that
repeats an action on an unchanged screen, which a plan like "tap Build number seven times" must
do.
"""

from __future__ import annotations

import fnmatch
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agent.actions import TaskComplete, tools_schema
from agent.execute import execute
from agent.model_client import ModelReply
from agent.screen import Screen
from agent.trajectory import (
    CallRecord,
    EndRecord,
    EpisodeRecord,
    GuardRecord,
    ResultRecord,
    ScreenRecord,
    StepRecord,
    StopReason,
    Timings,
    TrajectoryWriter,
    now_iso,
)
from devices.base import DeviceError
from evals.oracle import OracleError, resolve, tool_call
from simulator import FaultConfig, Simulator
from simulator.tasks import TASKS, Task

ScreenHook = Callable[[str, Screen], None]


class EpisodeOutcome(BaseModel):
    task: str
    app: str
    family: str
    seed: int
    success: bool
    steps: int
    stop_reason: StopReason
    answer: str | None = None
    detail: str = ""
    trajectory: str


class GroupScore(BaseModel):
    episodes: int
    successes: int
    success_rate: float


class Summary(BaseModel):
    suite: str
    policy: str
    tasks: int
    runs: int
    episodes: int
    successes: int
    success_rate: float
    mean_steps: float
    by_family: dict[str, GroupScore]
    by_app: dict[str, GroupScore]


class EvalReport(BaseModel):
    summary: Summary
    results: list[EpisodeOutcome]


class NoTasksMatched(ValueError):
    exit_code = 2


def select_tasks(patterns: str | None, tasks: Sequence[Task] = TASKS) -> list[Task]:
    """Tasks whose name matches any of the comma-separated shell patterns (all when None)."""
    if not patterns:
        return list(tasks)
    wanted = [p.strip() for p in patterns.split(",") if p.strip()]
    chosen = [t for t in tasks if any(fnmatch.fnmatchcase(t.name, p) for p in wanted)]
    if not chosen:
        raise NoTasksMatched(
            f"no task matches {patterns!r}; try one of: "
            + ", ".join(t.name for t in tasks[:5])
            + ", ..."
        )
    return chosen


def _screen_record(screen: Screen) -> ScreenRecord:
    return ScreenRecord(
        signature=screen.signature,
        app=screen.app,
        keyboard=screen.keyboard,
        text=screen.render(),
        elements=[e.model_dump(mode="json") for e in screen.elements],
    )


def run_oracle_episode(
    task: Task,
    seed: int,
    trajectory_path: Path,
    faults: FaultConfig | None = None,
    on_screen: ScreenHook | None = None,
) -> EpisodeOutcome:
    """Play `task`'s oracle plan for `seed` on a fresh simulator and score the end state."""
    sim = Simulator(state=task.initial_state(seed), seed=seed, faults=faults)
    goal = task.goal(seed)
    started = time.monotonic()
    stop: StopReason = "step_budget"
    detail, answer, steps = "", None, 0
    with TrajectoryWriter(trajectory_path) as writer:
        writer.write(
            EpisodeRecord(
                goal=goal,
                device=sim.serial,
                model="oracle",
                settings={"task": task.name, "seed": seed, "max_steps": task.max_steps},
                system_prompt="",
                tools=tools_schema(),
                started_at=now_iso(),
            )
        )
        for plan_step in task.oracle(seed):
            if steps >= task.max_steps:
                detail = f"plan longer than the budget of {task.max_steps} steps"
                break
            steps += 1
            try:
                xml = sim.dump_xml()
                screen = Screen.parse(xml)
                if on_screen is not None:
                    on_screen(xml, screen)
                action = resolve(plan_step, screen)
                device_started = time.monotonic()
                execution = execute(action, screen, sim)
                device_s = time.monotonic() - device_started
            except DeviceError as exc:
                stop, detail = "device_error", str(exc)
                break
            except OracleError as exc:
                stop, detail = "model_error", str(exc)
                break
            call = tool_call(action, f"oracle-{steps}")
            writer.write(
                StepRecord(
                    step=steps,
                    screen=_screen_record(screen),
                    prompt=goal,
                    reply=ModelReply(tool_calls=[call], finish_reason="tool_calls"),
                    call=CallRecord(
                        name=call["function"]["name"],  # type: ignore[index]
                        arguments=action.model_dump(exclude_defaults=True),
                        source="oracle",
                    ),
                    guard=GuardRecord(
                        verdict="complete" if isinstance(action, TaskComplete) else "allow"
                    ),
                    result=ResultRecord(
                        executed=True, device_calls=execution.device_calls, app=sim.foreground_app()
                    ),
                    timings=Timings(model_s=0.0, device_s=round(device_s, 4)),
                )
            )
            if isinstance(action, TaskComplete):
                stop, answer = "completed", action.answer
                break
        state = sim.state
        writer.write(
            EndRecord(
                stop_reason=stop,
                steps=steps,
                detail=detail,
                answer=answer,
                device_state=state,
                ended_at=now_iso(),
                duration_s=round(time.monotonic() - started, 3),
            )
        )
    success = stop == "completed" and task.success(state, seed, answer)
    return EpisodeOutcome(
        task=task.name,
        app=task.app,
        family=task.family,
        seed=seed,
        success=success,
        steps=steps,
        stop_reason=stop,
        answer=answer,
        detail=detail,
        trajectory=str(trajectory_path),
    )


def _score(outcomes: Sequence[EpisodeOutcome]) -> GroupScore:
    wins = sum(o.success for o in outcomes)
    return GroupScore(
        episodes=len(outcomes),
        successes=wins,
        success_rate=round(wins / len(outcomes), 4) if outcomes else 0.0,
    )


def summarize(
    outcomes: Sequence[EpisodeOutcome], tasks: int, runs: int, policy: str = "oracle"
) -> Summary:
    def grouped(key: Callable[[EpisodeOutcome], str]) -> dict[str, GroupScore]:
        groups: dict[str, list[EpisodeOutcome]] = {}
        for outcome in outcomes:
            groups.setdefault(key(outcome), []).append(outcome)
        return {name: _score(group) for name, group in sorted(groups.items())}

    overall = _score(outcomes)
    mean_steps = sum(o.steps for o in outcomes) / len(outcomes) if outcomes else 0.0
    return Summary(
        suite="sim",
        policy=policy,
        tasks=tasks,
        runs=runs,
        episodes=overall.episodes,
        successes=overall.successes,
        success_rate=overall.success_rate,
        mean_steps=round(mean_steps, 2),
        by_family=grouped(lambda o: o.family),
        by_app=grouped(lambda o: o.app),
    )


def run_suite(
    tasks: Sequence[Task],
    runs: int,
    run_dir: Path,
    faults: FaultConfig | None = None,
    on_screen: ScreenHook | None = None,
    on_episode: Callable[[EpisodeOutcome], Any] | None = None,
) -> EvalReport:
    """Every task for seeds 0..runs-1 with the oracle policy."""
    outcomes: list[EpisodeOutcome] = []
    for task in tasks:
        for seed in range(runs):
            path = run_dir / "trajectories" / f"{task.name}-s{seed}.jsonl"
            outcome = run_oracle_episode(task, seed, path, faults, on_screen)
            outcomes.append(outcome)
            if on_episode is not None:
                on_episode(outcome)
    return EvalReport(summary=summarize(outcomes, len(tasks), runs), results=outcomes)
