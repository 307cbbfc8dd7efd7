"""`phone-agent eval --policy oracle` and `phone-agent sim screens`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lxml import etree

from agent.cli import main
from agent.screen import Screen
from agent.trajectory import EndRecord, EpisodeRecord, StepRecord, read_trajectory
from evals.oracle import OracleError, find_element
from simulator import Simulator


def test_eval_writes_the_report_and_trajectories(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report_path = tmp_path / "report.json"
    code = main(
        [
            "eval",
            "--suite",
            "sim",
            "--policy",
            "oracle",
            "--tasks",
            "SystemWifi*Verify,SystemAndroidVersion",
            "--runs",
            "2",
            "--json",
            str(report_path),
            "--run-dir",
            str(tmp_path / "run"),
        ]
    )
    assert code == 0
    assert "6/6 episodes succeeded (100%)" in capsys.readouterr().out
    report = json.loads(report_path.read_text(encoding="utf-8"))
    summary = report["summary"]
    assert (summary["tasks"], summary["runs"], summary["success_rate"]) == (3, 2, 1.0)
    assert summary["by_family"]["question"] == {
        "episodes": 2,
        "successes": 2,
        "success_rate": 1.0,
        "false_completions": 0,
        "side_effects": 0,
        "mean_steps": 5.0,
    }
    assert (summary["false_completions"], summary["side_effects"]) == (0, 0)
    first = report["results"][0]
    assert set(first) >= {
        "task",
        "app",
        "family",
        "seed",
        "success",
        "steps",
        "stop_reason",
        "trajectory",
        "goal",
        "side_effects",
        "refused_completions",
    }
    records = read_trajectory(Path(first["trajectory"]))
    assert isinstance(records[0], EpisodeRecord) and isinstance(records[-1], EndRecord)
    assert all(isinstance(r, StepRecord) for r in records[1:-1])
    assert records[-1].stop_reason == "completed" and records[-1].device_state is not None


def test_eval_is_deterministic(tmp_path: Path) -> None:
    def results(name: str) -> list[dict[str, object]]:
        path = tmp_path / f"{name}.json"
        main(
            [
                "eval",
                "--policy",
                "oracle",
                "--tasks",
                "ClockAlarmAdd,SimpleSmsSendToContact",
                "--runs",
                "2",
                "--json",
                str(path),
                "--run-dir",
                str(tmp_path / name),
            ]
        )
        data = json.loads(path.read_text(encoding="utf-8"))["results"]
        timings = ("trajectory", "duration_s", "model_s")  # wall-clock, never reproducible
        return [{k: v for k, v in r.items() if k not in timings} for r in data]

    assert results("a") == results("b")


def test_unknown_task_pattern_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--policy", "oracle", "--tasks", "no_such_task*"]) == 2
    assert "no task matches" in capsys.readouterr().err


@pytest.mark.slow  # plays every task's oracle plan
def test_sim_screens_writes_parseable_distinct_screens(tmp_path: Path) -> None:
    assert main(["sim", "screens", "--out", str(tmp_path)]) == 0
    files = sorted(tmp_path.glob("*.xml"))
    assert len(files) > 50
    signatures = set()
    packages = set()
    for path in files:
        data = path.read_bytes()
        etree.fromstring(data)
        screen = Screen.parse(data)
        assert screen.elements
        signatures.add(screen.signature)
        packages.add(screen.app)
    assert len(signatures) == len(files)
    assert len(packages) >= 6


def test_resolution_prefers_exact_labels_and_reports_missing_ones() -> None:
    sim = Simulator()
    sim.open_app("Settings")
    screen = Screen.parse(sim.dump_xml())
    assert find_element(screen, "network & internet").label.startswith("Network & internet")
    with pytest.raises(OracleError, match="no element labelled 'Developer options'"):
        find_element(screen, "Developer options")
