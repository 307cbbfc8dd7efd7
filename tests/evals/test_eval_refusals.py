"""Refused completions: claims of success the loop could not verify, counted per episode."""

from __future__ import annotations

import json
from pathlib import Path

from agent.cli import main
from agent.model_client import ModelReply
from agent.trajectory import (
    CallRecord,
    GuardNote,
    GuardRecord,
    ResultRecord,
    ScreenRecord,
    StepRecord,
    Timings,
)
from evals.report import load_inputs, render_html
from evals.results import EpisodeOutcome, is_refused_completion, summarize
from evals.runner import _StepStats
from evals.scripted_model import ScriptedServer, call, tap


def step(number: int, name: str, verdict: str, *kinds: str) -> StepRecord:
    return StepRecord(
        step=number,
        screen=ScreenRecord(signature="s", app="a", keyboard=False, text="", elements=[]),
        prompt="",
        reply=ModelReply(),
        call=CallRecord(name=name, arguments={"success": True}),
        guard=GuardRecord(
            verdict=verdict,
            notes=[GuardNote(kind=kind, reason="r") for kind in kinds],
        ),
        result=ResultRecord(executed=False),
        timings=Timings(model_s=0.0, device_s=0.0),
    )


def test_only_a_blocked_claim_the_completion_check_refused_counts() -> None:
    stats = _StepStats()
    for record in (
        step(1, "task_complete", "block", "completion_check"),  # refused: counts
        step(2, "tap", "block", "completion_check"),  # not a claim of success
        step(3, "task_complete", "block", "answer_check"),  # an answer pushed back
        step(4, "task_complete", "stop", "completion_check"),  # the episode ended
        step(5, "task_complete", "block", "repeat", "completion_check"),  # refused again
        step(6, "task_complete", "complete"),
    ):
        stats.step_finished(record)
    assert stats.refused_completions == 2
    assert not is_refused_completion(step(1, "task_complete", "allow", "completion_check"))


def test_the_summary_adds_up_every_episodes_refusals() -> None:
    outcome = EpisodeOutcome(
        task="t", app="a", family="f", seed=0, policy="llm", success=True, steps=5,
        stop_reason="completed", trajectory="x", refused_completions=2,
    )  # fmt: skip
    others = [outcome.model_copy(update={"seed": 1, "refused_completions": 1})]
    assert summarize([outcome, *others]).refused_completions == 3


def test_a_claim_made_before_the_work_is_refused_and_counted(tmp_path: Path) -> None:
    # the model claims success on the home screen, is told no, then does the task
    script = [
        call("task_complete", success=True),
        call("open_app", name="Settings"),
        tap("Network & internet"),
        tap("Internet"),
        tap("Wi-Fi"),
        call("task_complete", success=True),
    ]
    out = tmp_path / "report.json"
    run_dir = tmp_path / "run"
    with ScriptedServer(script) as model:
        code = main(
            ["eval", "--policy", "llm", "--base-url", model.base_url, "--tasks",
             "SystemWifiTurnOn", "--run-dir", str(run_dir), "--json", str(out)]
        )  # fmt: skip
    assert code == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    [result] = report["results"]
    assert result["success"] and result["refused_completions"] == 1
    assert report["summary"]["refused_completions"] == 1
    episodes, results = load_inputs([run_dir])
    assert episodes[0].refused_completions == 1
    page = render_html(episodes, results, title="t")
    assert "<th>refused completions</th>" in page
    assert "<dt>refused completions</dt><dd>1</dd>" in page
