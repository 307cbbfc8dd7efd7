"""Trajectory files: JSONL per DESIGN §2.4, flushed as written, readable back."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from agent.model_client import ModelReply
from agent.trajectory import (
    CallRecord,
    EndRecord,
    EpisodeRecord,
    GuardRecord,
    ResultRecord,
    ScreenRecord,
    StepRecord,
    Timings,
    TrajectoryWriter,
    default_trajectory_path,
    read_trajectory,
)


def episode() -> EpisodeRecord:
    return EpisodeRecord(
        goal="Turn on Wi-Fi",
        device="fake-0001",
        model="m",
        system_prompt="s",
        tools=[],
        started_at="2026-01-01T00:00:00+00:00",
    )


def step(number: int) -> StepRecord:
    return StepRecord(
        step=number,
        screen=ScreenRecord(signature="abc", app="com.x", keyboard=False, text="", elements=[]),
        prompt="Goal: Turn on Wi-Fi",
        reply=ModelReply(content="hi", finish_reason="stop"),
        call=CallRecord(name=None, error="no tool call in the reply"),
        guard=GuardRecord(verdict="block"),
        result=ResultRecord(executed=False),
        timings=Timings(model_s=0.1, device_s=0.0),
    )


def test_every_record_is_on_disk_as_soon_as_it_is_written(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "run.jsonl"
    writer = TrajectoryWriter(path)
    writer.write(episode())
    writer.write(step(1))
    # not closed: what a killed run leaves behind
    lines = path.read_text().splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["episode", "step"]
    writer.close()


def test_records_read_back_with_their_types(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    with TrajectoryWriter(path) as writer:
        writer.write(episode())
        writer.write(step(1))
        writer.write(EndRecord(stop_reason="stuck", steps=1, ended_at="t", duration_s=1.5))
    records = read_trajectory(path)
    assert [type(record) for record in records] == [EpisodeRecord, StepRecord, EndRecord]
    assert isinstance(records[2], EndRecord) and records[2].stop_reason == "stuck"
    assert json.loads(path.read_text().splitlines()[1])["reply"]["content"] == "hi"


def test_default_path_is_under_runs_with_time_and_slug(tmp_path: Path) -> None:
    when = datetime(2026, 3, 4, 5, 6, 7)
    path = default_trajectory_path("Turn on Wi-Fi, please!", when, tmp_path)
    assert path == tmp_path / "20260304-050607-turn-on-wi-fi-please.jsonl"
    path.write_text("")
    again = default_trajectory_path("Turn on Wi-Fi, please!", when, tmp_path)
    assert again.name == "20260304-050607-turn-on-wi-fi-please-2.jsonl"
    assert default_trajectory_path("¿?", when, tmp_path).name == "20260304-050607-run.jsonl"
    assert default_trajectory_path("Turn on Wi-Fi").parent == Path("runs")
