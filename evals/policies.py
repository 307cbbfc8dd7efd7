"""Who decides in an evaluation: `llm`, `oracle`, `replay:PATH` or `faulty:MODE`.

- llm: the model behind an OpenAI-compatible server (the agent's own `ModelClient`).
- oracle: each task's scripted plan, resolved on the live screen; it runs outside the agent
  loop (see `evals.runner`).
- replay:PATH: the model replies recorded in trajectories (a file, or a folder searched for
  `*.jsonl`), given again in order, whatever the screen: how a change to the parser or the
  guards would have played out on replies already seen. A recording is found by the task,
  seed and phrasing its episode line names, else by its goal; a goal given in words of its own
  (`eval --goals`) by its goal alone.
- faulty:MODE: a model that fails in one known way (`evals.faulty`); `faulty:all` is every mode.

llm, replay and faulty policies run inside `agent.loop.run_episode`, with the real guards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from threading import Event
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from agent.model_client import (
    DecisionRequest,
    ModelCallError,
    ModelReply,
    ModelServerUnavailable,
    Policy,
    PolicyError,
)
from agent.trajectory import EpisodeRecord, StepRecord, read_trajectory
from devices.errors import UsageError
from evals.faulty import FAULT_MODES

PolicyKind = Literal["llm", "oracle", "replay", "faulty"]


class PolicySpecError(UsageError, ValueError):
    """A `--policy` value that names no policy."""


class PolicySpec(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: PolicyKind
    argument: str | None = None  # replay: the path; faulty: the mode

    @property
    def label(self) -> str:
        """The name results and run ids use: `llm`, `oracle`, `replay`, `faulty:loops`."""
        return f"faulty:{self.argument}" if self.kind == "faulty" else self.kind


def parse_policy(text: str) -> list[PolicySpec]:
    """The policies a `--policy` value names (`faulty:all` names every fault mode)."""
    kind, _, argument = text.strip().partition(":")
    if kind in ("llm", "oracle") and not argument:
        return [PolicySpec(kind=kind)]
    if kind == "replay" and argument:
        return [PolicySpec(kind="replay", argument=argument)]
    if kind == "faulty" and argument == "all":
        return [PolicySpec(kind="faulty", argument=mode) for mode in FAULT_MODES]
    if kind == "faulty" and argument in FAULT_MODES:
        return [PolicySpec(kind="faulty", argument=argument)]
    if kind == "faulty":
        raise PolicySpecError(
            f"unknown fault mode {argument!r}; one of: all, {', '.join(FAULT_MODES)}"
        )
    raise PolicySpecError(f"unknown policy {text!r}; use llm, oracle, replay:PATH or faulty:MODE")


# --- replay -----------------------------------------------------------------------------------


@dataclass
class Recordings:
    """Model replies of recorded episodes, by (task, seed, phrasing) and by goal."""

    by_run: dict[tuple[str, int, int], list[ModelReply]] = field(default_factory=dict)
    by_goal: dict[str, list[ModelReply]] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> Recordings:
        if not path.exists():
            raise PolicySpecError(f"replay: {path} does not exist")
        files = sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]
        recordings = cls()
        for file in files:
            try:
                records = read_trajectory(file)
            except (ValidationError, ValueError, UnicodeDecodeError):
                continue  # not a trajectory (a results file, another log)
            if not records or not isinstance(records[0], EpisodeRecord):
                continue
            replies = [r.reply for r in records if isinstance(r, StepRecord)]
            policy = records[0].settings.get("policy") or {}
            task, seed = policy.get("task"), policy.get("seed")
            phrasing = policy.get("phrasing", 0)  # recorded before goals had phrasings: 0
            own_words = "goal_set" not in policy  # a given goal is found by its words alone
            if (
                own_words
                and isinstance(task, str)
                and isinstance(seed, int)
                and isinstance(phrasing, int)
            ):
                recordings.by_run.setdefault((task, seed, phrasing), replies)
            recordings.by_goal.setdefault(records[0].goal, replies)
        if not recordings.by_goal:
            raise PolicySpecError(f"replay: no trajectory found in {path}")
        return recordings

    def replies(
        self, task: str, seed: int, phrasing: int | None, goal: str
    ) -> list[ModelReply] | None:
        """By task, seed and phrasing, else by goal; by goal alone when `phrasing` is None."""
        if phrasing is None:
            return self.by_goal.get(goal)
        return self.by_run.get((task, seed, phrasing), self.by_goal.get(goal))


class ReplayPolicy:
    """Gives recorded replies in order; past the last one, the episode ends (model_error)."""

    def __init__(self, replies: list[ModelReply]) -> None:
        self._replies = list(replies)
        self._given = 0

    def decide(self, request: DecisionRequest) -> ModelReply:
        if self._given >= len(self._replies):
            raise PolicyError(f"the recording has no reply for step {request.step}")
        reply = self._replies[self._given]
        self._given += 1
        return reply


# --- watching a policy for infrastructure failures --------------------------------------------


class WatchedPolicy:
    """Passes decisions through; remembers a model-server failure, which makes the run
    unjudgeable (re-run on resume) rather than a failure of the model, and ends the episode at
    its next decision once `cancelled` is set (Ctrl-C on a suite)."""

    def __init__(self, policy: Policy, cancelled: Event | None = None) -> None:
        self.policy = policy
        self.failure: str | None = None
        self._cancelled = cancelled or Event()

    def decide(self, request: DecisionRequest) -> ModelReply:
        if self._cancelled.is_set():
            self.failure = "the evaluation was interrupted"
            raise PolicyError(self.failure)
        try:
            return self.policy.decide(request)
        except (ModelServerUnavailable, ModelCallError) as exc:
            self.failure = str(exc)
            raise
