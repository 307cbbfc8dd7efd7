"""One episode against a fresh scripted model server, keeping the server for its requests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devices.base import Device
from evals.agent_run import AgentRun, run_agent
from evals.scripted_model import Script, ScriptedServer


@dataclass(frozen=True)
class Episode(AgentRun):
    server: ScriptedServer


def run_scripted(
    goal: str,
    device: Device,
    chat: Script,
    trajectory: Path,
    *,
    completions: Script | None = None,
    tokenize: bool = True,
    **options: Any,
) -> Episode:
    """`options` are `run_agent`'s (settings, confirm, client settings)."""
    with ScriptedServer(chat, completions, tokenize=tokenize) as server:
        run = run_agent(goal, device, server, trajectory, **options)
    return Episode(run.result, run.episode, run.steps, run.end, server)
