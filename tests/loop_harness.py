"""Run one episode against a scripted model server and read back what it recorded."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.guards import Confirm
from agent.loop import EpisodeResult, RunSettings, run_episode
from agent.model_client import ClientSettings, ModelClient
from agent.trajectory import EndRecord, EpisodeRecord, StepRecord, read_trajectory
from devices.base import Device
from tests.scripted_server import Script, ScriptedServer


@dataclass
class Episode:
    result: EpisodeResult
    server: ScriptedServer
    episode: EpisodeRecord
    steps: list[StepRecord]
    end: EndRecord

    @property
    def guard_kinds(self) -> list[list[str]]:
        return [[note.kind for note in step.guard.notes] for step in self.steps]


def run_scripted(
    goal: str,
    device: Device,
    chat: Script,
    trajectory: Path,
    *,
    completions: Script | None = None,
    settings: RunSettings | None = None,
    confirm: Confirm | None = None,
    tokenize: bool = True,
    **client_options: Any,
) -> Episode:
    with ScriptedServer(chat, completions, tokenize=tokenize) as server:
        client = ModelClient(
            ClientSettings(base_url=server.base_url, backoff_s=0.001, **client_options),
            sleep=lambda seconds: None,
        )
        try:
            result = run_episode(
                goal,
                device,
                client,
                settings or RunSettings(),
                trajectory,
                confirm=confirm,
                sleep=lambda seconds: None,
            )
        finally:
            client.close()
    records = read_trajectory(trajectory)
    first, *middle, last = records
    assert isinstance(first, EpisodeRecord) and isinstance(last, EndRecord)
    steps = [record for record in middle if isinstance(record, StepRecord)]
    assert len(steps) == len(middle) == result.steps == last.steps
    return Episode(result, server, first, steps, last)
