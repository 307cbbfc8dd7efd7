"""`phone-agent run` end to end: simulator, scripted model server, exit codes, --json."""

from __future__ import annotations

import json
import socket
from dataclasses import replace
from pathlib import Path

import pytest

from agent.cli import main
from agent.trajectory import EndRecord, read_trajectory
from evals.scripted_model import ScriptedServer, call, tap

TO_WIFI = (call("open_app", name="Settings"), tap("Network & internet"), tap("Internet"))


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_json_summary_is_the_last_line_and_exit_code_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trajectory = tmp_path / "run.jsonl"
    with ScriptedServer([*TO_WIFI, tap("Wi-Fi")]) as server:
        code, out, err = run_cli(
            [
                "run",
                "Turn on Wi-Fi",
                "--base-url",
                server.base_url,
                "--sim-state",
                "wifi=off",
                "--trajectory",
                str(trajectory),
                "--json",
            ],
            capsys,
        )
    assert code == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["stop_reason"] == "completed"
    assert summary["steps"] == 4
    assert summary["trajectory"] == str(trajectory)
    assert summary["device_state"]["wifi"] is True
    end = read_trajectory(trajectory)[-1]
    assert isinstance(end, EndRecord) and end.device_state == summary["device_state"]
    assert "step 4/15" in err  # the live view went to stderr


def test_the_live_view_shows_what_the_model_wrote_down(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    noting = replace(TO_WIFI[0], content="Remember: the [bold]code[/] 4711")
    with ScriptedServer([noting, *TO_WIFI[1:], tap("Wi-Fi")]) as server:
        code, out, err = run_cli(
            ["run", "Turn on Wi-Fi", "--base-url", server.base_url, "--sim-state", "wifi=off"],
            capsys,
        )
    assert code == 0, err
    assert "remembered: the [bold]code[/] 4711" in out  # the model's text, not markup


def test_other_stop_reasons_exit_1_with_a_readable_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prose = call("task_complete", success=False)
    with ScriptedServer([prose]) as server:
        code, out, _ = run_cli(
            [
                "run",
                "Order a pizza",
                "--base-url",
                server.base_url,
                "--trajectory",
                str(tmp_path / "run.jsonl"),
            ],
            capsys,
        )
    assert code == 1
    assert "infeasible after 1 step(s)" in out
    assert "task_complete(success=False)" in out


def test_no_model_server_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    code, _, err = run_cli(
        ["run", "Turn on Wi-Fi", "--base-url", url, "--trajectory", str(tmp_path / "t.jsonl")],
        capsys,
    )
    assert code == 1
    assert err == f"error: no model server at {url} — start one with `phone-agent serve`\n"
    assert not (tmp_path / "t.jsonl").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "  "], "the goal is empty"),
        (["run", "Turn on Wi-Fi", "--max-steps", "0"], "must be at least 1, got '0'"),
        (["run", "Turn on Wi-Fi", "--think-budget", "lots"], "not a number"),
        (["run", "Turn on Wi-Fi", "--sim-state", "wifi"], "expected KEY=VALUE"),
        (["run", "Turn on Wi-Fi", "--sim-state", "warp_drive=on"], "unknown state key"),
        (["run", "Turn on Wi-Fi", "--device", "adb", "--sim-state", "wifi=on"], "--device sim"),
        (["run", "Turn on Wi-Fi", "--device", "phone"], "invalid choice"),
    ],
)
def test_bad_input_exits_2_in_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_cli(args, capsys)
    assert code == 2
    assert err.startswith("error: ") and message in err
    assert err.count("\n") == 1
