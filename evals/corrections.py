"""Corrections: the states a trained model reaches by itself, labelled by the oracle (DAgger).

Demonstrations show the oracle's own path and its way back from detours. A model that strays
reaches states no demonstration shows, and its commonest mistake there is to call a task done
that is not. Here the model plays training episodes (training seeds and phrasings, planned as
`evals.demos` plans them) through the real loop. Where it fails, every state it went through is
played again: its own replies up to that state, then the oracle takes over, in every way it
can (`label_state`); of the takeovers that finish the task, the shortest one's first call
labels the state. A label unlike the model's own call there is written as a training line, in the
demonstrations' format, with `source` "correction".
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from agent.actions import TaskComplete
from agent.model_client import DecisionRequest, ModelReply, Policy, PolicyError
from agent.toolparse import parse_reply
from evals.demos import (
    DemoEpisode,
    check_split,
    demo_line,
    episode_metadata,
    open_for_writing,
    play_episode,
)
from evals.oracle import OraclePolicy, aim, join_points, tool_call
from evals.policies import WatchedPolicy
from simulator.tasks import done


@dataclass
class _Student:
    """Passes decisions to the trained model and keeps its replies."""

    policy: Policy
    replies: list[ModelReply] = field(default_factory=list)

    def decide(self, request: DecisionRequest) -> ModelReply:
        reply = self.policy.decide(request)
        self.replies.append(reply)
        return reply


class _Takeover:
    """The model's first replies again, then `policy`; keeps `policy`'s first decision and
    counts its steps."""

    def __init__(self, replies: Sequence[ModelReply], policy: Policy) -> None:
        self._replies = list(replies)
        self._policy = policy
        self.first: tuple[DecisionRequest, ModelReply] | None = None
        self.steps = 0
        self.finished = False  # the task succeeded

    def decide(self, request: DecisionRequest) -> ModelReply:
        if self._replies:
            return self._replies.pop(0)
        reply = self._policy.decide(request)
        if self.first is None:
            self.first = (request, reply)
        self.steps += 1
        return reply


class _CompleteNow:
    """Calls the task done at once, with the plan's answer where it has one; asked again (an
    answer the screen does not show is pushed back), it gives up."""

    def __init__(self, answer: str | None) -> None:
        self._answer = answer
        self._asked = False

    def decide(self, request: DecisionRequest) -> ModelReply:
        if self._asked:
            raise PolicyError("the task is not done here")
        self._asked = True
        action = TaskComplete(answer=self._answer) if self._answer else TaskComplete()
        return ModelReply(
            reasoning=aim(done(self._answer)),
            tool_calls=[tool_call(action, "complete")],
            finish_reason="tool_calls",
        )


def label_state(
    episode: DemoEpisode, replies: Sequence[ModelReply], scratch: Path
) -> tuple[DecisionRequest, ModelReply] | None:
    """The oracle's call on the state the model's `replies` lead to (and that state's request),
    or None when no way of taking over from there finishes the task.

    The ways: calling the task done (it may be), carrying on with the plan from each step the
    screen shows (`join_points`), and the plan from its start; the shortest that finishes
    labels the state."""
    task, seed = episode.task, episode.seed

    def play(policy: Policy) -> _Takeover:
        takeover = _Takeover(replies, policy)
        takeover.finished = play_episode(episode, takeover, scratch, extra_steps=len(replies))
        return takeover

    from_start = play(OraclePolicy(task, seed))
    if from_start.first is None:
        return None  # the replies alone ended the episode
    screen = from_start.first[0].screen
    plan = task.oracle(seed)
    answer = plan[-1].answer if plan and plan[-1].tool == "task_complete" else None
    others = [_CompleteNow(answer)] + [
        OraclePolicy(task, seed, start=index) for index in join_points(plan, screen)
    ]
    finished = [t for t in [from_start, *map(play, others)] if t.finished]
    best = min(finished, key=lambda takeover: takeover.steps, default=None)
    return best.first if best is not None else None


def same_call(a: ModelReply, b: ModelReply) -> bool:
    """Whether two replies make the same call, as the agent loop parses them."""
    first, second = (parse_reply(r.content, r.reasoning, r.tool_calls) for r in (a, b))
    return first.name is not None and (first.name, first.arguments) == (
        second.name,
        second.arguments,
    )


class ModelServerFailed(RuntimeError):
    """The model server stopped answering in the middle of an export."""


class EpisodeCorrections(BaseModel):
    solved: bool  # the model finished the task: nothing to correct
    lines: list[dict[str, Any]]
    unlabelled: int  # states the oracle could not finish the task from


def record_corrections(episode: DemoEpisode, student: Policy, scratch: Path) -> EpisodeCorrections:
    """Play `episode` with the model; where it fails, the oracle's labels of the states it
    went through that differ from what the model did there."""
    watched = WatchedPolicy(student)
    run = _Student(watched)
    solved = play_episode(episode, run, scratch)
    if watched.failure is not None:
        # a failure of the server, not of the model: its episodes would teach nothing
        raise ModelServerFailed(f"the model server failed: {watched.failure}")
    if solved:
        return EpisodeCorrections(solved=True, lines=[], unlabelled=0)
    metadata = episode_metadata(episode, "correction")
    lines, unlabelled = [], 0
    for given, own_reply in enumerate(run.replies):
        label = label_state(episode, run.replies[:given], scratch)
        if label is None:
            unlabelled += 1
            continue
        request, reply = label
        if not same_call(reply, own_reply):
            lines.append(demo_line(metadata, episode.thinking, request, reply))
    return EpisodeCorrections(solved=False, lines=lines, unlabelled=unlabelled)


class CorrectionSummary(BaseModel):
    episodes: int
    solved: int
    corrections: int
    unlabelled: int
    path: str


def export_corrections(
    episodes: Sequence[DemoEpisode],
    student: Policy,
    path: Path,
    *,
    workers: int = 1,
    on_episode: Callable[[DemoEpisode, bool], None] | None = None,
) -> CorrectionSummary:
    """Play `episodes` with `student` (`workers` at once, against one model server) and write
    the corrections of those it fails into `path`, flushed per episode, in the episodes'
    order. A model server that fails ends the export (`ModelServerFailed`); what was written
    stays."""
    check_split(episodes)

    def correct(episode: DemoEpisode) -> EpisodeCorrections:
        with tempfile.TemporaryDirectory() as scratch:
            return record_corrections(episode, student, Path(scratch))

    solved = corrections = unlabelled = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with open_for_writing(path) as out, ThreadPoolExecutor(max(1, workers)) as pool:
        for episode, result in zip(episodes, pool.map(correct, episodes), strict=True):
            solved += result.solved
            unlabelled += result.unlabelled
            corrections += len(result.lines)
            for line in result.lines:
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
            out.flush()
            if on_episode is not None:
                on_episode(episode, result.solved)
    return CorrectionSummary(
        episodes=len(episodes),
        solved=solved,
        corrections=corrections,
        unlabelled=unlabelled,
        path=str(path),
    )
