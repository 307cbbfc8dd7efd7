"""One episode against a fresh scripted model server, keeping the server for its requests;
and a Python policy that replies in order, for the loop without a server."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.model_client import DecisionRequest, ModelReply
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


class ScriptedPolicy:
    """A Python policy: replies in order, or raises what it is given."""

    def __init__(self, *replies: ModelReply | BaseException) -> None:
        self.replies = list(replies)
        self.requests: list[DecisionRequest] = []

    def decide(self, request: DecisionRequest) -> ModelReply:
        self.requests.append(request)
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply


def tap_reply(index: int) -> ModelReply:
    arguments = json.dumps({"index": index})
    function = {"name": "tap", "arguments": arguments}
    return ModelReply(tool_calls=[{"id": "1", "type": "function", "function": function}])
