"""Demonstrations for training a policy: the oracle played through the agent loop, recorded.

Every decision becomes one JSON line: the chat request the agent sends for it (`messages`,
`tools` and `chat_template_kwargs` of the body the model client's `chat_request` builds from
what the loop asked, guards' notes and history included) and the `target` reply, the oracle's
call in OpenAI's message shape. `serving.training` renders both with the chat template.

Recovery: besides the task's own start, each task and seed can be played from a detour (another
app in front, another page, a list scrolled away; `evals.detours`), where the oracle re-plans
from the screen it is shown and so demonstrates the way back.

The split never leaks (`evals.splits`): demonstrations come only from training seeds (past
`EVALUATION_SEEDS`) and a task's training phrasings (never `Task.held_out_phrasing`), and no
demonstration's goal says a held-out goal or a goal in the validation or test split's others'
words, in any case, punctuation or politeness (`evals.splits.leaked_goal`); evaluations of a
trained policy play only what training never saw. Only episodes the oracle finishes
successfully are kept. Every decision is written, repeats included (a parameterless task plays
the same decisions for every seed): how often a decision occurs is its weight in training.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import random
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from agent.loop import RunSettings, run_episode
from agent.model_client import ClientSettings, DecisionRequest, ModelReply, Policy, chat_request
from devices.errors import UsageError
from evals.detours import DETOUR_EXTRA_STEPS, EarlyClaim, refusable, start_from_detour
from evals.goal_rewording import kept_names, training_goal
from evals.goals.training_voices import voiced_goal, voices
from evals.oracle import OraclePolicy
from evals.runner import goal_confirmation
from evals.splits import EVALUATION_SEEDS, TRAINING_SEEDS_START, leaked_goal
from simulator import Simulator
from simulator.tasks import Task

ThinkingMode = Literal["on", "off", "mixed"]


class DemoSplitError(UsageError, ValueError):
    """An export that would put held-out episodes into training data."""


def is_held_out(task: Task, seed: int, phrasing: int) -> bool:
    return seed in EVALUATION_SEEDS or phrasing == task.held_out_phrasing


@dataclass(frozen=True)
class DemoEpisode:
    """One oracle episode to record: a task, a seed, a goal phrasing, a thinking mode."""

    task: Task
    seed: int
    phrasing: int
    thinking: bool
    detour: bool = False  # start from the detour the seed picks instead of the task's start
    reworded: bool = False  # the phrasing reworded (`evals.goal_rewording`), fixed by the seed
    # a voice of the task (`evals.goals.training_voices`) said instead of the phrasing
    voice: int | None = None
    # the decision that claims success too early (`evals.detours.EarlyClaim`); only the
    # decisions after the loop refused it are recorded
    claim_at: int | None = None

    @property
    def template(self) -> str:
        """The format string the goal comes from: the voice's, or the phrasing's."""
        if self.voice is not None:
            return voices()[self.task.name][self.voice]
        return self.task.templates[self.phrasing]

    @property
    def goal(self) -> str:
        phrased = self.task.goal(self.seed, self.phrasing)
        if self.voice is not None:
            voiced = voiced_goal(self.task.name, self.seed, self.voice)
            return phrased if leaked_goal(self.task, self.seed, voiced) else voiced
        if not self.reworded:
            return phrased
        claim = "" if self.claim_at is None else "/claim"
        rng = random.Random(f"{self.task.name}/{self.seed}/{self.detour}{claim}/wording")
        reworded = training_goal(self.task, self.seed, self.phrasing, rng)
        # a rewording that happens to say a held-out or test goal gives way to the phrasing
        return phrased if leaked_goal(self.task, self.seed, reworded) else reworded

    @property
    def source(self) -> str:
        """Where its decisions come from: the task's start, a detour, or a refused claim."""
        if self.claim_at is not None:
            return "refused_claim"
        return "detour" if self.detour else "plan"


def plan_demo_episodes(
    tasks: Sequence[Task],
    seeds: Iterable[int],
    thinking: ThinkingMode = "mixed",
    detours: bool = False,
    refused_claims: float = 0.0,
    voices_share: float = 0.0,
) -> list[DemoEpisode]:
    """One episode per task and seed, and with `detours` a second one from a detour. The
    phrasing cycles through the task's training phrasings with the seed, and about half the
    episodes reword it; with `mixed`, thinking is on in about half the episodes (a fixed coin
    per task and seed), so a policy learns both of the client's modes. For a share
    `refused_claims` of the seeds of a task whose goal the loop can check, a third episode
    claims success too early and records the way on from the loop's refusal
    (`refused_claim_episode`). A share `voices_share` of the episodes of a task with voices
    (`evals.goals.training_voices`) says one of them, picked by the seed, instead."""
    seeds = list(seeds)
    held = [seed for seed in seeds if seed in EVALUATION_SEEDS]
    if held:
        raise DemoSplitError(
            f"seed {held[0]} is held out for evaluation: "
            f"export seeds from {TRAINING_SEEDS_START} on"
        )
    episodes = []
    for task in tasks:
        phrasings = task.training_phrasings
        if not phrasings:
            raise DemoSplitError(
                f"{task.name} has no phrasing to train on besides the held-out one"
            )
        task_voices = len(voices().get(task.name, ()))
        for seed in seeds:
            coin = random.Random(f"{task.name}/{seed}/thinking").random() < 0.5
            reword = random.Random(f"{task.name}/{seed}/reword")
            voice = random.Random(f"{task.name}/{seed}/voice")
            episode = DemoEpisode(
                task=task,
                seed=seed,
                phrasing=phrasings[seed % len(phrasings)],
                thinking={"on": True, "off": False, "mixed": coin}[thinking],
                reworded=reword.random() < 0.5,
                voice=_pick_voice(voice, task_voices, voices_share),
            )
            episodes.append(episode)
            if detours:
                episodes.append(
                    replace(
                        episode,
                        detour=True,
                        # mixed: the detour takes the other mode, so each task and seed has both
                        thinking=not episode.thinking if thinking == "mixed" else episode.thinking,
                        reworded=reword.random() < 0.5,
                        voice=_pick_voice(voice, task_voices, voices_share),
                    )
                )
            claim = random.Random(f"{task.name}/{seed}/claim")
            if claim.random() < refused_claims:
                claimed = refused_claim_episode(episode, claim)
                if claimed is not None:
                    episodes.append(claimed)
    return episodes


def _pick_voice(rng: random.Random, count: int, share: float) -> int | None:
    """One of a task's `count` voices for a share `share` of the draws, else None."""
    return rng.randrange(count) if count and rng.random() < share else None


def refused_claim_episode(episode: DemoEpisode, rng: random.Random) -> DemoEpisode | None:
    """`episode` with a success claim made too early at a step `rng` picks, from the task's
    start or a detour, under a goal the loop refuses such a claim on (`evals.detours
    .refusable`): the episode's voice where it is such a goal, else the seed's phrasing or the
    next one that is, reworded or not. None when no training phrasing of the task is one."""
    task = episode.task
    phrasings = task.training_phrasings
    first = phrasings.index(episode.phrasing)
    # before the plan's last action, which reaches the goal or says it is reached
    claim_at = rng.randint(1, max(1, len(task.oracle(episode.seed)) - 2))
    detour = rng.random() < 0.5
    reworded = rng.random() < 0.5
    voiced = replace(episode, detour=detour, claim_at=claim_at)
    if episode.voice is not None and refusable(voiced.goal):
        return voiced
    for phrasing in (phrasings[(first + i) % len(phrasings)] for i in range(len(phrasings))):
        for wording in dict.fromkeys((reworded, False)):
            claimed = replace(voiced, phrasing=phrasing, reworded=wording, voice=None)
            if refusable(claimed.goal):
                return claimed
    return None


def demo_line(
    metadata: dict[str, Any], thinking: bool, request: DecisionRequest, reply: ModelReply
) -> dict[str, Any]:
    """One training line: the body the model client would send for `request` and `reply` as
    the target."""
    # the loop may force thinking on for a step
    thinking = thinking if request.thinking is None else request.thinking
    body = chat_request(
        ClientSettings(thinking=thinking), "", request.messages, request.tools, thinking
    )
    return {
        **metadata,
        "step": request.step,
        "messages": body["messages"],
        "tools": body["tools"],
        "chat_template_kwargs": body["chat_template_kwargs"],
        "target": {
            "role": "assistant",
            # with thinking off the model is asked to answer at once
            **({"reasoning_content": reply.reasoning} if thinking and reply.reasoning else {}),
            "content": reply.content or "",
            # ids differ by step and mean nothing to the template
            "tool_calls": [
                {"type": "function", "function": call["function"]} for call in reply.tool_calls
            ],
        },
    }


@dataclass
class RecordingPolicy:
    """Passes decisions through and keeps each request with the reply it got."""

    policy: Policy
    thinking: bool
    metadata: dict[str, Any]
    lines: list[dict[str, Any]] = field(default_factory=list)

    def decide(self, request: DecisionRequest) -> ModelReply:
        reply = self.policy.decide(request)
        self.lines.append(demo_line(self.metadata, self.thinking, request, reply))
        return reply


class DemoSummary(BaseModel):
    episodes: int
    failed_episodes: list[str]
    decisions: int
    distinct: int  # decisions that differ in request or reply
    path: str
    # decisions from the task's start, from detours and after refused claims
    by_source: dict[str, int] = Field(default_factory=dict)


def given_values(params: Any) -> list[str]:
    """The strings among a task's parameters, nested ones included, each once: what training
    may disguise where a reply copies them (`serving.training.disguise`)."""

    def strings(value: Any) -> Iterator[str]:
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict | list | tuple):
            for item in value.values() if isinstance(value, dict) else value:
                yield from strings(item)

    return list(dict.fromkeys(strings(params)))


def episode_metadata(episode: DemoEpisode, source: str) -> dict[str, Any]:
    task, seed, goal = episode.task, episode.seed, episode.goal
    return {
        "task": task.name,
        "seed": seed,
        "phrasing": episode.phrasing,
        "reworded": episode.reworded,
        "source": source,
        "values": given_values(task.params(seed)),
        "goal": goal,
        "voice": episode.voice,
        "names": kept_names(episode.template, goal),
    }


def play_episode(episode: DemoEpisode, policy: Policy, scratch: Path, extra_steps: int = 0) -> bool:
    """Play `episode` with `policy` through the agent loop; whether the task succeeded (its
    check passed and nothing outside its scope changed).
    `extra_steps` widens the step budget (for a policy that replays steps first)."""
    task, seed = episode.task, episode.seed

    def fresh() -> Simulator:
        return Simulator(state=task.initial_state(seed), seed=seed)

    simulator = start_from_detour(task, seed, fresh)[0] if episode.detour else fresh()
    budget = task.max_steps + (DETOUR_EXTRA_STEPS if episode.detour else 0) + extra_steps
    start = simulator.state
    result = run_episode(
        episode.goal,
        simulator,
        policy,
        RunSettings(max_steps=budget),
        scratch / f"{task.name}-s{seed}.jsonl",
        confirm=goal_confirmation(episode.goal),
        sleep=lambda seconds: None,
    )
    state = result.device_state or simulator.state
    return result.stop_reason == "completed" and task.solved(start, state, seed, result.answer)


def record_episode(episode: DemoEpisode, scratch: Path) -> list[dict[str, Any]] | None:
    """The oracle's decisions in `episode`, or None when it did not succeed. With a claim made
    too early, only the decisions after it: those whose requests show the loop's refusal; none
    where no screen from `claim_at` on was one the loop turns a claim down on."""
    recorder = RecordingPolicy(
        OraclePolicy(episode.task, episode.seed),
        episode.thinking,
        episode_metadata(episode, episode.source),
    )
    if episode.claim_at is None:
        return recorder.lines if play_episode(episode, recorder, scratch) else None
    claimer = EarlyClaim(recorder, episode.claim_at)
    if not play_episode(episode, claimer, scratch, extra_steps=1):
        return None
    if claimer.claimed_at is None:
        return []
    return [line for line in recorder.lines if line["step"] > claimer.claimed_at]


def check_split(episodes: Iterable[DemoEpisode]) -> None:
    """Refuse any held-out episode, and any whose goal says a held-out goal or a goal in
    other people's words: training files must never hold one."""
    for episode in episodes:
        task, seed = episode.task, episode.seed
        if is_held_out(task, seed, episode.phrasing):
            raise DemoSplitError(f"{task.name} seed {seed} phrasing {episode.phrasing} is held out")
        leaked = leaked_goal(task, seed, episode.goal)
        if leaked is not None:
            raise DemoSplitError(
                f"{task.name} seed {seed}: the goal {episode.goal!r} says {leaked!r}, which is "
                "held out for evaluation"
            )


def export_demos(
    episodes: Sequence[DemoEpisode],
    path: Path,
    *,
    workers: int = 1,
    on_episode: Callable[[DemoEpisode, bool], None] | None = None,
) -> DemoSummary:
    """Record `episodes` into `path` (JSON Lines; `.gz` or `.xz` compresses), in their order
    whatever the number of worker processes."""
    check_split(episodes)
    seen: set[str] = set()
    failed: list[str] = []
    decisions = 0
    by_source: dict[str, int] = {}
    path.parent.mkdir(parents=True, exist_ok=True)
    with open_for_writing(path) as out:
        for episode, lines in _recorded(episodes, workers):
            if on_episode is not None:
                on_episode(episode, lines is not None)
            if lines is None:
                start = "detour" if episode.detour else "start"
                claim = "" if episode.claim_at is None else f"/claim@{episode.claim_at}"
                failed.append(
                    f"{episode.task.name}/s{episode.seed}/p{episode.phrasing}/{start}{claim}"
                )
                continue
            for line in lines:
                decisions += 1
                by_source[line["source"]] = by_source.get(line["source"], 0) + 1
                seen.add(decision_key(line))
                out.write(json.dumps(line, ensure_ascii=False) + "\n")
    return DemoSummary(
        episodes=len(episodes),
        failed_episodes=failed,
        decisions=decisions,
        distinct=len(seen),
        path=str(path),
        by_source=by_source,
    )


# The episodes a pool of forked workers records, by index (tasks hold functions: no pickling).
_planned: Sequence[DemoEpisode] = ()


def _record_planned(index: int) -> list[dict[str, Any]] | None:
    with tempfile.TemporaryDirectory() as scratch:
        return record_episode(_planned[index], Path(scratch))


def _recorded(
    episodes: Sequence[DemoEpisode], workers: int
) -> Iterator[tuple[DemoEpisode, list[dict[str, Any]] | None]]:
    global _planned
    if workers <= 1:
        with tempfile.TemporaryDirectory() as scratch:
            for episode in episodes:
                yield episode, record_episode(episode, Path(scratch))
        return
    _planned = episodes
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            recorded = pool.imap(_record_planned, range(len(episodes)), chunksize=8)
            yield from zip(episodes, recorded, strict=True)
    finally:
        _planned = ()


def decision_key(line: dict[str, Any]) -> str:
    """Identity of a decision: the request and the reply, not where it came from."""
    content = {k: line[k] for k in ("messages", "tools", "chat_template_kwargs", "target")}
    return hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()


def open_for_writing(path: Path) -> Any:
    if path.suffix == ".gz":
        import gzip

        return gzip.open(path, "wt", encoding="utf-8")
    if path.suffix == ".xz":
        import lzma

        return lzma.open(path, "wt", encoding="utf-8")
    return path.open("w", encoding="utf-8")


# --- the seeds `phone-agent eval --export-demos` takes ----------------------------------------


def parse_seed_range(text: str) -> range:
    """`100-499` (both ends included) or a single seed `100`."""
    first, dash, last = text.strip().partition("-")
    try:
        start = int(first)
        stop = int(last) + 1 if dash else start + 1
    except ValueError:
        raise DemoSplitError(f"--demo-seeds takes A-B or N, not {text!r}") from None
    if stop <= start:
        raise DemoSplitError(f"--demo-seeds {text}: the range is empty")
    return range(start, stop)
