"""The shipped policy (`serve --model sim`) for real: W4A16 on vLLM, scored by `phone-agent eval`.

Bounded: one server in eager mode, seven tasks of five apps on a held-out seed (seed 0: training
used seeds 100 and up), greedy decoding, and a hard time limit on every command. The tasks are
ones the shipped model solves in bf16 and in W4A16 (its card has the whole table), one of them
typing a new phone number from the goal and one a number it must note in Messages and type in
Contacts, so a failure here means the serving, quantization or note-keeping path broke, not
that the small model is small.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("vllm")

from serving.checkpoint import bundled_checkpoint
from serving.launcher import group_members
from tests.cli_process import run_cli, serve_detached

# Starts a real model server and scores seven tasks on it: capped at its two limits (900 s each).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

HELD_OUT_TASKS = (
    "SystemWifiTurnOn",
    "SystemBluetoothTurnOff",
    "ClockAlarmTurnOff",
    "SimpleSmsReply",
    "SimpleCalendarDeleteOneEvent",
    "ContactsEditPhone",
)
NOTING_TASK = "ContactsAddContactFromSms"  # reads the number in a text, types it in Contacts


def test_the_shipped_policy_served_w4a16_solves_held_out_tasks(tmp_path: Path) -> None:
    assert bundled_checkpoint("sim") is not None, "fixtures/models/sim is missing"
    served = serve_detached(
        "--model", "sim", "--weights", "w4a16", "--enforce-eager", cache=tmp_path / "cache"
    )
    env, record = served.env, served.record
    try:
        results = tmp_path / "results.json"
        scored = run_cli(
            "eval",
            "--suite",
            "sim",
            "--policy",
            "llm",
            "--base-url",
            served.base_url,
            "--tasks",
            ",".join((*HELD_OUT_TASKS, NOTING_TASK)),
            "--runs",
            "1",
            "--temperature",
            "0",
            "--parallel",
            "2",
            "--run-dir",
            str(tmp_path / "run"),
            "--json",
            str(results),
            env=env,
            timeout=900,
        )
        assert scored.returncode == 0, scored.stderr[-3000:]
    finally:
        stopped = run_cli("serve", "--stop", "--port", str(served.port), env=env, timeout=120)
    assert stopped.returncode == 0
    assert group_members(record.pgid) == [], "server processes outlived --stop"

    report = json.loads(results.read_text())
    outcomes = {result["task"]: result for result in report["results"]}
    assert sorted(outcomes) == sorted((*HELD_OUT_TASKS, NOTING_TASK))
    solved = [name for name, result in outcomes.items() if result["success"]]
    assert len(solved) >= 6, {name: r["stop_reason"] for name, r in outcomes.items()}
    # the model wrote the number down and the loop showed it back under the goal
    prompts = [
        json.loads(line).get("prompt", "")
        for line in Path(outcomes[NOTING_TASK]["trajectory"]).read_text().splitlines()
    ]
    assert any("\n\nRemembered:\n- " in text for text in prompts)
    assert "quantization=phone_agent_w4a16" in Path(record.log).read_text(errors="replace")
