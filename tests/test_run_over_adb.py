"""`phone-agent run --device adb` end to end: the agent drives the simulator through the real ADB
host protocol (adbutils on our side, the simulated phone's shell on the other)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent.cli import main
from simulator import Simulator
from simulator.adbd import AdbServer
from tests.scripted_server import Scripted, ScriptedServer, call, index_of, tap, turns

# Shell metacharacters, a format escape and non-ASCII text: all must arrive literally.
HOSTILE_TEXT = "On my way; $(reboot) `id` && rm -rf / | cat 'x' \"y\" 100%s — Zoë 李雷 👋"


def type_into(label: str, text: str) -> Any:
    def reply(body: dict[str, Any]) -> Scripted:
        return call("type_text", index=index_of(body, label), text=text)

    return reply


@pytest.fixture
def phone() -> Iterator[tuple[Simulator, int]]:
    simulator = Simulator(state={"wifi": False}, serial="emulator-5554")
    with AdbServer([simulator]) as server:
        yield simulator, server.port


def run_over_adb(port: int, goal: str, server: ScriptedServer, trajectory: Path) -> dict[str, Any]:
    code = main(
        [
            "run",
            goal,
            "--device",
            "adb",
            "--adb-host",
            "127.0.0.1",
            "--adb-port",
            str(port),
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


def test_a_settings_task_over_adb(phone: tuple[Simulator, int], tmp_path: Path) -> None:
    simulator, port = phone
    script = turns(
        call("open_app", name="Settings"), tap("Network & internet"), tap("Internet"), tap("Wi-Fi")
    )
    with ScriptedServer(script) as server:
        end = run_over_adb(port, "Turn on Wi-Fi", server, tmp_path / "run.jsonl")
    assert end["stop_reason"] == "completed"
    assert simulator.state["wifi"] is True


def test_hostile_and_non_ascii_text_arrives_literally_over_adb(
    phone: tuple[Simulator, int], tmp_path: Path
) -> None:
    simulator, port = phone
    script = turns(
        call("open_app", name="Messages"),
        tap("Allow"),
        tap("Start chat"),
        type_into("To", "Alice"),
        tap("Alice Martin"),
        type_into("Text message", HOSTILE_TEXT),
        tap("Send SMS"),
        call("task_complete", success=True),
    )
    with ScriptedServer(script) as server:
        end = run_over_adb(port, "Text Alice that I am on my way", server, tmp_path / "run.jsonl")
    assert end["stop_reason"] == "completed"
    sent = simulator.state["messages"][-1]
    assert sent["to"] == "Alice Martin"
    assert sent["text"] == HOSTILE_TEXT
