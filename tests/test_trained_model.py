"""The shipped policy (`serve --model sim`) for real: W4A16 on vLLM, scored by `phone-agent eval`.

Bounded: one server in eager mode, six tasks of five apps on a held-out seed (seed 0: training
used seeds 100 and up), greedy decoding, and a hard time limit on every command. The tasks are
ones the shipped model solves in bf16 (its card has the whole table), so a failure here means the
serving or quantization path broke, not that the small model is small.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("vllm")

from serving import launcher
from serving.checkpoint import bundled_checkpoint
from serving.launcher import ServerRecord, group_members
from tests.cli_process import run_cli

pytestmark = pytest.mark.slow

HELD_OUT_TASKS = (
    "SystemWifiTurnOn",
    "SystemBluetoothTurnOff",
    "ClockAlarmTurnOff",
    "SimpleSmsReply",
    "SimpleCalendarDeleteOneEvent",
    "ExpenseDeleteSingle",
)


def test_the_shipped_policy_served_w4a16_solves_held_out_tasks(tmp_path: Path) -> None:
    assert bundled_checkpoint("sim") is not None, "fixtures/models/sim is missing"
    cache = tmp_path / "cache"
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    port = launcher.free_port()
    started = run_cli(
        "serve",
        "--model",
        "sim",
        "--weights",
        "w4a16",
        "--port",
        str(port),
        "--enforce-eager",
        "--detach",
        env=env,
        timeout=900,
    )
    assert started.returncode == 0, started.stderr[-3000:]
    base_url = started.stdout.strip().splitlines()[-1]
    record_file = cache / "phone-agent" / "serve" / f"server-{port}.json"
    record = ServerRecord.model_validate_json(record_file.read_text())
    try:
        results = tmp_path / "results.json"
        scored = run_cli(
            "eval",
            "--suite",
            "sim",
            "--policy",
            "llm",
            "--base-url",
            base_url,
            "--tasks",
            ",".join(HELD_OUT_TASKS),
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
        stopped = run_cli("serve", "--stop", "--port", str(port), env=env, timeout=120)
    assert stopped.returncode == 0
    assert group_members(record.pgid) == [], "server processes outlived --stop"

    report = json.loads(results.read_text())
    outcomes = {result["task"]: result for result in report["results"]}
    assert sorted(outcomes) == sorted(HELD_OUT_TASKS)
    solved = [name for name, result in outcomes.items() if result["success"]]
    assert len(solved) >= 5, {name: r["stop_reason"] for name, r in outcomes.items()}
    assert "quantization=phone_agent_w4a16" in Path(record.log).read_text(errors="replace")
