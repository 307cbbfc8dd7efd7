"""Run the agent loop once against a device and a model server, and read back its trajectory.

This is the loop `phone-agent run` drives, without the terminal: no live view, nobody to ask
about risky actions unless `confirm` is given, and no waiting (the simulator needs no time to
settle, and a failed model request is retried at once). It is what the pytest fixture
`run_agent` calls; it also works against a real served model and a phone over ADB.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.guards import Confirm
from agent.loop import EpisodeResult, RunSettings, run_episode
from agent.model_client import ClientSettings, ModelClient
from agent.trajectory import EndRecord, EpisodeRecord, StepRecord, read_trajectory
from devices.base import Device
from evals.scripted_model import ScriptedServer


class TrajectoryError(Exception):
    """The trajectory a run left is not an episode line, its steps, then an end line."""


@dataclass(frozen=True)
class AgentRun:
    """What one run returned (`result`) and what it wrote (the trajectory, record by record)."""

    result: EpisodeResult
    episode: EpisodeRecord
    steps: list[StepRecord]
    end: EndRecord

    @property
    def trajectory(self) -> Path:
        return self.result.trajectory

    @property
    def guard_kinds(self) -> list[list[str]]:
        """The kinds of guard notes of each step (e.g. `goal_met`, `undo_blocked`)."""
        return [[note.kind for note in step.guard.notes] for step in self.steps]


def _no_wait(seconds: float) -> None:
    """Waits are skipped."""


def run_agent(
    goal: str,
    device: Device,
    model: str | ScriptedServer,
    trajectory: Path,
    *,
    settings: RunSettings | None = None,
    confirm: Confirm | None = None,
    sleep: Callable[[float], None] = _no_wait,
    **client_options: Any,
) -> AgentRun:
    """Drive `device` towards `goal` with decisions from the model server at `model` (a `/v1`
    base URL, or a `ScriptedServer`), writing the trajectory to `trajectory`.

    `client_options` are `ClientSettings` fields (`thinking`, `tool_choice`, `timeout_s`, ...);
    `confirm` answers the question about a risky action (None: refused, and the model told).
    """
    base_url = model.base_url if isinstance(model, ScriptedServer) else model
    client_settings = ClientSettings(base_url=base_url, **client_options)
    client = ModelClient(client_settings, sleep=sleep)
    try:
        result = run_episode(
            goal,
            device,
            client,
            settings or RunSettings(),
            trajectory,
            confirm=confirm,
            policy_settings=client_settings.model_dump(exclude={"api_key"}),
            sleep=sleep,
        )
    finally:
        client.close()
    return AgentRun(result, *_split(trajectory, result.steps))


def _split(trajectory: Path, steps: int) -> tuple[EpisodeRecord, list[StepRecord], EndRecord]:
    first, *middle, last = read_trajectory(trajectory)
    step_records = [record for record in middle if isinstance(record, StepRecord)]
    if not isinstance(first, EpisodeRecord) or not isinstance(last, EndRecord):
        raise TrajectoryError(f"{trajectory}: no episode line first and end line last")
    if not len(step_records) == len(middle) == steps == last.steps:
        raise TrajectoryError(
            f"{trajectory}: {len(middle)} lines between episode and end, "
            f"{len(step_records)} of them steps; the run reported {steps} steps, its end line "
            f"{last.steps}"
        )
    return first, step_records, last
