"""Trajectories: one JSON object per line (DESIGN §2.4), flushed after every step.

A run killed at any moment keeps its episode line and every finished step; a run that ends
normally (including Ctrl-C) also has its `end` line.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from agent.model_client import ModelReply

StopReason = Literal[
    "completed",
    "infeasible",
    "step_budget",
    "stuck",
    "undo_detected",
    "model_error",
    "device_error",
    "aborted",
]
Verdict = Literal["allow", "block", "complete", "stop"]
GuardKind = Literal[
    "goal_state",
    "completion_check",
    "answer_check",
    "made_up_value",
    "self_undo",
    "off_goal",
    "repeat",
    "no_op",
    "escalation",
    "risky",
    "bad_call",
    "extra_calls",
]


class GuardNote(BaseModel):
    """Why a guard acted, as recorded in the step."""

    kind: GuardKind
    reason: str


class EpisodeRecord(BaseModel):
    type: Literal["episode"] = "episode"
    goal: str
    device: str
    model: str | None = None
    settings: dict[str, Any] = Field(default_factory=dict)
    system_prompt: str
    tools: list[dict[str, Any]]
    started_at: str


class ScreenRecord(BaseModel):
    signature: str
    app: str
    keyboard: bool
    text: str  # what the model was shown
    elements: list[dict[str, Any]]


class CallRecord(BaseModel):
    name: str | None
    arguments: dict[str, Any] = Field(default_factory=dict)
    source: str = ""
    repairs: list[str] = Field(default_factory=list)
    error: str | None = None
    dropped: int = 0  # further calls in the same reply that were not run


class GuardRecord(BaseModel):
    verdict: Verdict
    notes: list[GuardNote] = Field(default_factory=list)


class ResultRecord(BaseModel):
    executed: bool
    device_calls: list[str] = Field(default_factory=list)
    error: str | None = None
    changed: str | None = None  # one-line summary of what changed on screen
    no_op: bool | None = None
    app: str | None = None  # foreground app afterwards


class Timings(BaseModel):
    model_s: float
    device_s: float


class StepRecord(BaseModel):
    type: Literal["step"] = "step"
    step: int
    screen: ScreenRecord
    prompt: str  # the user turn; the system prompt and tools are on the episode line
    prompt_tokens: int | None = None
    reply: ModelReply
    call: CallRecord
    guard: GuardRecord
    result: ResultRecord
    timings: Timings


class EndRecord(BaseModel):
    type: Literal["end"] = "end"
    stop_reason: StopReason
    steps: int
    detail: str = ""
    answer: str | None = None
    device_state: dict[str, Any] | None = None
    ended_at: str
    duration_s: float


TrajectoryRecord = Annotated[EpisodeRecord | StepRecord | EndRecord, Field(discriminator="type")]
_RECORD = TypeAdapter[TrajectoryRecord](TrajectoryRecord)


class TrajectoryWriter:
    """Appends records to a JSONL file, each flushed as soon as it is written."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._file = path.open("w", encoding="utf-8")

    def write(self, record: EpisodeRecord | StepRecord | EndRecord) -> None:
        self._file.write(record.model_dump_json() + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> TrajectoryWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def read_trajectory(path: Path) -> list[TrajectoryRecord]:
    """Every record of a trajectory file, validated."""
    with path.open(encoding="utf-8") as lines:
        return [_RECORD.validate_json(line) for line in lines if line.strip()]


def default_trajectory_path(
    goal: str, now: datetime | None = None, directory: Path = Path("runs")
) -> Path:
    """`runs/<timestamp>-<slug>.jsonl`, with a numeric suffix if that name is taken."""
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    slug = "-".join(re.findall(r"[a-z0-9]+", goal.casefold()))[:40].strip("-") or "run"
    path = directory / f"{stamp}-{slug}.jsonl"
    counter = 2
    while path.exists():
        path = directory / f"{stamp}-{slug}-{counter}.jsonl"
        counter += 1
    return path


def now_iso() -> str:
    return datetime.now().astimezone().isoformat(timespec="seconds")
