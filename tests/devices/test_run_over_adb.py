"""`phone-agent run --device adb` end to end: the agent drives the simulator through the real ADB
host protocol (adbutils on our side, the simulated phone's shell on the other)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent.cli import main
from evals.pytest_plugin import AdbEndpoint, StartScriptedModel
from evals.scripted_model import Scripted, ScriptedServer, call, index_of, tap
from simulator import Simulator

pytestmark = pytest.mark.sim_phone(state={"wifi": False})

# Shell metacharacters, a format escape and non-ASCII text: all must arrive literally.
HOSTILE_TEXT = "On my way; $(reboot) `id` && rm -rf / | cat 'x' \"y\" 100%s — Zoë 李雷 👋"


def type_into(label: str, text: str) -> Any:
    def reply(body: dict[str, Any]) -> Scripted:
        return call("type_text", index=index_of(body, label), text=text)

    return reply


def run_over_adb(
    phone: AdbEndpoint, goal: str, server: ScriptedServer, trajectory: Path
) -> dict[str, Any]:
    code = main(
        [
            "run",
            goal,
            *phone.cli_args,
            "--base-url",
            server.base_url,
            "--trajectory",
            str(trajectory),
            "--yes",
            "--json",
        ]
    )
    assert code == 0
    return dict(json.loads(Path(trajectory).read_text().splitlines()[-1]))


def test_a_settings_task_over_adb(
    sim_phone: Simulator,
    sim_adb_server: AdbEndpoint,
    scripted_model: StartScriptedModel,
    tmp_path: Path,
) -> None:
    model = scripted_model(
        [
            call("open_app", name="Settings"),
            tap("Network & internet"),
            tap("Internet"),
            tap("Wi-Fi"),
        ]
    )
    end = run_over_adb(sim_adb_server, "Turn on Wi-Fi", model, tmp_path / "run.jsonl")
    assert end["stop_reason"] == "completed"
    assert sim_phone.state["wifi"] is True


def test_hostile_and_non_ascii_text_arrives_literally_over_adb(
    sim_phone: Simulator,
    sim_adb_server: AdbEndpoint,
    scripted_model: StartScriptedModel,
    tmp_path: Path,
) -> None:
    model = scripted_model(
        [
            call("open_app", name="Messages"),
            tap("Allow"),
            tap("Start chat"),
            type_into("To", "Alice"),
            tap("Alice Martin"),
            type_into("Text message", HOSTILE_TEXT),
            tap("Send SMS"),
            call("task_complete", success=True),
        ]
    )
    end = run_over_adb(
        sim_adb_server, "Text Alice that I am on my way", model, tmp_path / "run.jsonl"
    )
    assert end["stop_reason"] == "completed"
    sent = sim_phone.state["messages"][-1]
    assert sent["to"] == "Alice Martin"
    assert sent["text"] == HOSTILE_TEXT
