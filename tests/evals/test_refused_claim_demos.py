"""Demonstrations of the way on from a success claim the loop refused: the claim is made too
early on purpose, and what is recorded is exactly what the agent loop sends after it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent import prompt
from evals.demos import (
    DemoEpisode,
    export_demos,
    plan_demo_episodes,
    record_episode,
)
from evals.detours import refusable
from evals.runner import goal_confirmation
from evals.scripted_model import Scripted, call
from simulator import Simulator
from simulator.tasks import TASKS, TASKS_BY_NAME
from tests.support.loop_harness import run_scripted


def scripted(target: dict[str, Any]) -> Scripted:
    """A recorded target reply, as a model server would send it."""
    function = target["tool_calls"][0]["function"]
    return Scripted(
        content=target["content"] or None,
        calls=[(function["name"], json.loads(function["arguments"]))],
        finish_reason="tool_calls",
    )


@pytest.mark.parametrize(
    ("name", "claim_at", "thinking", "note"),
    [
        ("SystemWifiTurnOn", 2, True, prompt.completion_refused(["Wi-Fi on"])),
        # after Wi-Fi is off, before Bluetooth is on
        ("TurnOffWifiAndTurnOnBluetooth", 5, False, prompt.completion_refused(["Bluetooth on"])),
        # the claim waits for the first screen that lists the expense
        ("ExpenseDeleteSingle", 1, False, prompt.still_listed(["Night Out Oslo"])),
        ("SimpleCalendarNextEvent", 1, True, prompt.answer_missing()),
        # before the number and the message are typed
        (
            "SimpleSmsSend",
            1,
            False,
            prompt.quote_unshown(["Can you bring the receipts at 7?", "+91 89373 56113"]),
        ),
        # before the timer is set
        ("ClockTimerStart", 1, True, prompt.duration_unshown(["11 minutes and 49 seconds"])),
        # the alarm found at its old time, not yet moved to the new one
        ("ClockAlarmChangeTime", 2, False, prompt.alarm_time_unshown(["7:41 AM"])),
        # the list with the copy still in it
        (
            "RecipeDeleteDuplicateRecipes",
            1,
            True,
            prompt.copies_listed(["Recipe photo, Vegan Chicken Curry, Rich bowl for the weekend."]),
        ),
    ],
)
def test_the_recorded_requests_are_what_the_loop_sends_after_refusing_the_claim(
    name: str, claim_at: int, thinking: bool, note: str, tmp_path: Path
) -> None:
    task, seed = TASKS_BY_NAME[name], 2908
    claimed = DemoEpisode(task, seed, phrasing=0, thinking=thinking, claim_at=claim_at)
    lines = record_episode(claimed, tmp_path)
    assert lines, "the oracle finishes after the refused claim"
    claimed_at = lines[0]["step"] - 1
    assert claimed_at >= claim_at
    plain = record_episode(DemoEpisode(task, seed, phrasing=0, thinking=thinking), tmp_path)
    assert plain is not None
    before = [scripted(line["target"]) for line in plain[: claimed_at - 1]]

    # the same replies from a model server, through the model client and the whole loop
    run = run_scripted(
        claimed.goal,
        Simulator(state=task.initial_state(seed), seed=seed),
        [
            *before,
            call("task_complete", success=True),
            *(scripted(line["target"]) for line in lines),
        ],
        tmp_path / "run.jsonl",
        thinking=thinking,
        # as the export plays it: a goal that deletes has the user's yes to deleting
        confirm=goal_confirmation(claimed.goal),
    )
    assert run.result.stop_reason == "completed"
    assert task.success(run.end.device_state or {}, seed, run.end.answer)
    sent = run.server.chat_requests
    assert len(sent) == claimed_at + len(lines)
    for line, request in zip(lines, sent[claimed_at:], strict=True):
        for key in ("messages", "tools", "chat_template_kwargs"):
            assert line[key] == request.body[key], (line["step"], key)
    # the first one shows the claim in the history and the loop's reason in a note
    first = lines[0]["messages"][-1]["content"]
    assert f"{claimed_at}. task_complete(success=true) -> not run:" in first
    assert "Note: " + note in first
    reply = lines[0]["target"]["tool_calls"][0]["function"]
    assert (reply["name"], json.loads(reply["arguments"])) != ("task_complete", {"success": True})
    assert [line["step"] for line in lines] == list(
        range(claimed_at + 1, claimed_at + 1 + len(lines))
    )


def test_claims_are_planned_for_a_share_of_the_seeds_of_goals_the_loop_checks() -> None:
    seeds = range(2908, 2948)
    episodes = plan_demo_episodes(TASKS, seeds, "mixed", detours=True, refused_claims=0.5)
    claims = [episode for episode in episodes if episode.claim_at is not None]
    by_task = {episode.task.name for episode in claims}
    assert {
        "SystemWifiTurnOn",
        "TurnOffWifiAndTurnOnBluetooth",
        "SystemWifiTurnOnVerify",
        "ExpenseDeleteMultiple",
        "RecipeDeleteSingleRecipe",
        "SimpleCalendarNextEvent",
        "SimpleSmsSend",
        "MarkorEditNote",
        "ClockTimerStart",
        "ClockAlarmChangeTime",
        "RecipeDeleteDuplicateRecipes",
        "ContactsAddContact",  # the number it gives
    } <= by_task
    assert not by_task & {"ClockStopWatchRunning", "TurnOnWifiAndOpenApp"}
    for episode in claims:
        assert refusable(episode.goal), episode.goal
        last = max(1, len(episode.task.oracle(episode.seed)) - 2)
        assert episode.claim_at is not None and 1 <= episode.claim_at <= last
        assert episode.source == "refused_claim"
    # about half of the seeds of each such task, both starts, both wordings
    share = len(claims) / (len(by_task) * len(seeds))
    assert 0.35 < share < 0.65
    assert {episode.detour for episode in claims} == {True, False}
    assert {episode.reworded for episode in claims} == {True, False}
    assert len(episodes) - len(claims) == 2 * len(TASKS) * len(seeds)
    assert not any(e.claim_at for e in plan_demo_episodes(TASKS, seeds, "mixed", detours=True)), (
        "no claims unless asked for"
    )


def test_an_export_counts_the_decisions_after_refused_claims(tmp_path: Path) -> None:
    tasks = [TASKS_BY_NAME["SystemBluetoothTurnOff"], TASKS_BY_NAME["ClockStopWatchRunning"]]
    episodes = plan_demo_episodes(tasks, range(2908, 2912), "on", detours=True, refused_claims=1)
    summary = export_demos(episodes, tmp_path / "demos.jsonl")
    assert not summary.failed_episodes
    assert set(summary.by_source) == {"plan", "detour", "refused_claim"}
    assert sum(summary.by_source.values()) == summary.decisions
    lines = [json.loads(line) for line in (tmp_path / "demos.jsonl").read_text().splitlines()]
    claimed = [line for line in lines if line["source"] == "refused_claim"]
    assert len(claimed) == summary.by_source["refused_claim"]
    firsts: dict[int, dict[str, Any]] = {}
    for line in claimed:
        assert line["task"] == "SystemBluetoothTurnOff"
        firsts.setdefault(line["seed"], line)
    assert len(firsts) == 4
    for line in firsts.values():
        assert "task_complete(success=true) -> not run" in line["messages"][-1]["content"]
