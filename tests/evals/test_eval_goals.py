"""`phone-agent eval --goals FILE`: any wording for any task, with every policy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.cli import main
from agent.trajectory import EpisodeRecord, read_trajectory
from evals.runner import goal_confirmation
from evals.scripted_model import ScriptedServer, call, tap
from simulator.tasks import TASKS_BY_NAME

ALARM = TASKS_BY_NAME["ClockAlarmAdd"]
ALARM_GOAL = f"yo, wake me at {ALARM.params(7)['time']} pls"
WIFI_GOAL = "get me back online, the wifi is off"


def goal_file(tmp_path: Path, *lines: object, name: str = "others_words.jsonl") -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / name
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n",
        encoding="utf-8",
    )
    return path


def words(tmp_path: Path) -> Path:
    return goal_file(
        tmp_path,
        {"task": "SystemWifiTurnOn", "seed": 3, "goal": WIFI_GOAL},
        "",
        {"task": "ClockAlarmAdd", "seed": 7, "goal": ALARM_GOAL},
    )


def eval_report(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "report.json"
    code = main(["eval", *args, "--json", str(out), "--run-dir", str(tmp_path / "run")])
    assert code == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_each_line_plays_its_task_and_seed_with_its_own_goal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = eval_report(
        tmp_path, "--policy", "oracle", "--goals", str(words(tmp_path)), "--parallel", "2"
    )
    results = {(r["task"], r["seed"]): r for r in report["results"]}
    assert set(results) == {("SystemWifiTurnOn", 3), ("ClockAlarmAdd", 7)}
    alarm = results[("ClockAlarmAdd", 7)]
    assert alarm["success"] and alarm["goal"] == ALARM_GOAL
    assert (alarm["goal_set"], alarm["wording"]) == ("others_words", "others_words")
    episode = read_trajectory(Path(alarm["trajectory"]))[0]
    assert isinstance(episode, EpisodeRecord) and episode.goal == ALARM_GOAL
    assert report["summary"]["by_wording"]["others_words"]["successes"] == 2
    printed = capsys.readouterr().out
    assert "By goal wording" in printed and "others_words" in printed


def test_the_model_reads_the_given_goal(tmp_path: Path) -> None:
    script = [
        call("open_app", name="Settings"),
        tap("Network & internet"),
        tap("Internet"),
        tap("Wi-Fi"),
        call("task_complete", success=True),
    ]
    goals = goal_file(tmp_path, {"task": "SystemWifiTurnOn", "seed": 3, "goal": WIFI_GOAL})
    with ScriptedServer(script) as model:
        report = eval_report(
            tmp_path, "--policy", "llm", "--base-url", model.base_url, "--goals", str(goals)
        )
        asked = model.chat_requests[0].user_text
    assert WIFI_GOAL in asked
    assert report["results"][0]["success"]


def test_replay_finds_a_recording_by_its_given_goal(tmp_path: Path) -> None:
    goals = words(tmp_path)
    eval_report(tmp_path / "a", "--policy", "oracle", "--goals", str(goals))
    recorded = tmp_path / "a" / "run" / "trajectories"
    # the task's own first phrasing of the same seed was never recorded: it is not replayed
    report = eval_report(
        tmp_path / "b",
        "--policy", f"replay:{recorded}", "--goals", str(goals), "--tasks", "ClockAlarmAdd",
    )  # fmt: skip
    [result] = report["results"]
    assert result["success"] and result["goal"] == ALARM_GOAL
    code = main(["eval", "--policy", f"replay:{recorded}", "--tasks", "ClockAlarmAdd",
                 "--run-dir", str(tmp_path / "c")])  # fmt: skip
    assert code == 2


def test_tasks_picks_lines_and_resume_keeps_finished_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    goals = words(tmp_path)
    first = eval_report(tmp_path, "--policy", "oracle", "--goals", str(goals), "--tasks", "Wifi")
    assert [r["task"] for r in first["results"]] == ["SystemWifiTurnOn"]
    capsys.readouterr()
    again = eval_report(tmp_path, "--policy", "oracle", "--goals", str(goals), "--resume")
    assert "resume: 1 finished run(s) kept" in capsys.readouterr().err
    assert sorted(r["task"] for r in again["results"]) == ["ClockAlarmAdd", "SystemWifiTurnOn"]


def test_the_same_task_and_seed_in_other_words_are_runs_of_their_own(tmp_path: Path) -> None:
    goals = goal_file(
        tmp_path,
        {"task": "SystemWifiTurnOn", "seed": 0, "goal": "Wi-Fi on please"},
        {"task": "SystemWifiTurnOn", "seed": 0, "goal": "enable wlan"},
        {"task": "SystemWifiTurnOn", "seed": 0, "goal": "enable wlan"},  # the same: once
    )
    report = eval_report(tmp_path, "--policy", "oracle", "--goals", str(goals))
    assert sorted(r["goal"] for r in report["results"]) == ["Wi-Fi on please", "enable wlan"]
    assert len({r["trajectory"] for r in report["results"]}) == 2


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"task": "NoSuchTask", "seed": 0, "goal": "x"}', "line 2: unknown task 'NoSuchTask'"),
        ('{"task": "SystemWifiTurnOnn", "seed": 0, "goal": "x"}', "did you mean SystemWifiTurnOn"),
        ('{"task": "SystemWifiTurnOn", "seed": 0', "line 2: not JSON"),
        ('{"task": "SystemWifiTurnOn", "seed": 0}', "line 2: missing key 'goal'"),
        ('{"task": "SystemWifiTurnOn", "seed": "1", "goal": "x"}', "line 2: seed:"),
        ('{"task": "SystemWifiTurnOn", "seed": -1, "goal": "x"}', "line 2: seed:"),
        ('{"task": "SystemWifiTurnOn", "seed": 0, "goal": "  "}', "line 2: goal:"),
        ('{"task": "SystemWifiTurnOn", "seed": 0, "goal": "x", "phrasing": 2}', "unknown key"),
        ('["SystemWifiTurnOn", 0, "x"]', "line 2: expected an object"),
    ],
)
def test_a_bad_line_is_a_one_line_usage_error_naming_it(
    tmp_path: Path, line: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    goals = goal_file(tmp_path, {"task": "SystemWifiTurnOn", "seed": 0, "goal": "x"}, line)
    assert main(["eval", "--policy", "oracle", "--goals", str(goals)]) == 2
    error = capsys.readouterr().err.strip()
    assert message in error and len(error.splitlines()) == 1, error


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--phrasing", "held-out"], "--phrasing does not go with --goals"),
        (["--runs", "2"], "--runs does not go with --goals"),
        (["--tasks", "ClockAlarmAdd"], "no line of the --goals file(s) is for a task"),
        (["--export-demos", "x.jsonl"], "--goals and --export-demos"),
    ],
)
def test_options_that_contradict_the_file_are_usage_errors(
    tmp_path: Path, options: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    goals = goal_file(tmp_path, {"task": "SystemWifiTurnOn", "seed": 0, "goal": "x"})
    assert main(["eval", "--policy", "oracle", "--goals", str(goals), *options]) == 2
    assert message in capsys.readouterr().err


def test_files_are_named_by_their_stems_which_must_differ(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = {"task": "SystemWifiTurnOn", "seed": 0, "goal": "x"}
    a = goal_file(tmp_path / "a", line, name="same.jsonl")
    b = goal_file(tmp_path / "b", line, name="same.jsonl")
    assert main(["eval", "--policy", "oracle", "--goals", str(a), "--goals", str(b)]) == 2
    assert "share the name 'same'" in capsys.readouterr().err
    missing = tmp_path / "missing.jsonl"
    assert main(["eval", "--policy", "oracle", "--goals", str(missing)]) == 2
    assert "cannot read it" in capsys.readouterr().err


def test_the_user_approves_what_the_task_asks_in_whatever_words(tmp_path: Path) -> None:
    # "trash" names no risky word; whoever wrote it meant the task: the note is deleted
    note = TASKS_BY_NAME["MarkorDeleteNote"].params(3)["file_name"]
    goals = goal_file(tmp_path, {"task": "MarkorDeleteNote", "seed": 3, "goal": f"trash {note}"})
    report = eval_report(tmp_path, "--policy", "oracle", "--goals", str(goals))
    assert report["results"][0]["success"]


@pytest.mark.parametrize(
    ("goal", "approved"),
    [
        ("Text Bob “on my way”.", True),
        ("Reply to Ana's message with “yes”.", True),
        # a message read is no message to send: the user declines sending one
        ("Bob Chen texted me Ana's number. Save it as a new contact named Ana.", False),
        ("Add Ana as a contact, her number is in Bob Chen's last text", False),
        ("save the number from the message from Bob as Ana", False),
        ("shoot Bob a text saying “late”", True),
        ("Forward Bob's last message to Ana.", True),
        ("Put Ana's number in a text to Bob.", True),
        ("Look Ana up in Contacts and SMS her number to Bob.", True),
        ("Turn on Wi-Fi.", False),
    ],
)
def test_the_simulated_user_approves_a_send_only_when_the_goal_asks_for_one(
    goal: str, approved: bool
) -> None:
    assert goal_confirmation(goal)('tap [7] "Send SMS"') is approved
