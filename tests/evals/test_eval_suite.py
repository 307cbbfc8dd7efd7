"""The suite runner with every policy: parallel sessions, resumable results, the guard effect."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from agent.actions import Tap, validate_call
from agent.cli import main
from agent.loop import RunSettings, run_episode
from agent.model_client import DecisionRequest, ModelReply
from agent.toolparse import parse_reply
from evals.faulty import BROKEN_FORMATS
from evals.oracle import OraclePolicy, tool_call
from evals.policies import PolicySpec, parse_policy
from evals.results import EpisodeOutcome, ResultStore
from evals.runner import EvalSettings, Runner, goal_confirmation, plan_runs, run_suite, select_tasks
from evals.scripted_model import Scripted, ScriptedServer, call, screen_lines
from simulator import Simulator
from simulator.tasks import TASKS, TASKS_BY_NAME, Task


def eval_json(tmp_path: Path, *args: str) -> dict:
    out = tmp_path / "report.json"
    code = main(["eval", *args, "--json", str(out), "--run-dir", str(tmp_path / "run")])
    assert code == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_faulty_policies_with_guards_both_ways_give_the_guard_effect(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Display holds few rows before Dark theme: tapping each in turn reaches it in budget
    report = eval_json(
        tmp_path,
        "--policy", "faulty:all", "--guards", "both", "--tasks", "SystemDarkThemeTurnOn",
        "--parallel", "2",
    )  # fmt: skip
    rows = {row["policy"]: row for row in report["guard_effect"]}
    assert set(rows) == {f"faulty:{mode}" for mode in (
        "taps-everything", "format-breaks", "unclosed-think", "undo-after-success",
        "never-complete", "loops")}  # fmt: skip
    undo = rows["faulty:undo-after-success"]
    assert undo["off"] == {"false_claim": 1} and undo["on"] == {"success": 1}
    assert undo["to_success"] == 1
    think = rows["faulty:unclosed-think"]
    assert think["off"] == {"step_budget": 1} and think["on"] == {"clean_stop": 1}
    assert think["to_clean_stop"] == 1 and think["mean_steps_on"] < think["mean_steps_off"]
    assert rows["faulty:taps-everything"]["to_success"] == 1
    assert rows["faulty:format-breaks"]["on"] == {"success": 1}
    assert len(report["configurations"]) == 12 and len(report["results"]) == 12
    printed = capsys.readouterr().out
    assert "| faulty:undo-after-success | 1 | 0 → 1 | 1 → 0 |" in printed


def test_guarded_and_unguarded_runs_play_at_the_same_time(tmp_path: Path) -> None:
    both_started = threading.Barrier(2, timeout=5)

    class Rendezvous:
        """Waits for the other episode before deciding, then taps the home screen's title."""

        def decide(self, request: DecisionRequest) -> ModelReply:
            if request.step == 1:
                both_started.wait()
            return ModelReply(tool_calls=[tool_call(Tap(index=2), f"c{request.step}")])

    runs = plan_runs(select_tasks("SystemWifiTurnOn"), 1, [PolicySpec(kind="llm")], [True, False])
    runner = Runner(tmp_path, EvalSettings(max_steps=4), model=Rendezvous())
    outcomes = run_suite(runs, runner, ResultStore(tmp_path / "results.jsonl"), parallel=2)
    assert [(o.guards, o.stop_reason, o.steps, o.error) for o in outcomes] == [
        (True, "stuck", 3, None),
        (False, "step_budget", 4, None),
    ]


def test_tapping_build_number_seven_times_succeeds_with_the_guards_on(tmp_path: Path) -> None:
    report = eval_json(
        tmp_path, "--policy", "faulty:format-breaks", "--guards", "both",
        "--tasks", "*developer*",
    )  # fmt: skip
    assert [(r["guards"], r["success"]) for r in report["results"]] == [(True, True), (False, True)]


class BrokenFormatsOfEachCall:
    """Plays the oracle, and checks on the way that every call it makes, written in each broken
    format small models use, still parses to the same action."""

    def __init__(self, oracle: OraclePolicy) -> None:
        self._oracle = oracle
        self.checked = 0

    def decide(self, request: DecisionRequest) -> ModelReply:
        reply = self._oracle.decide(request)
        for call_made in reply.tool_calls:
            function = call_made["function"]
            action = validate_call(function["name"], json.loads(function["arguments"]))
            for render in BROKEN_FORMATS:
                parsed = parse_reply(render(action))
                assert parsed.name is not None, (render.__name__, render(action))
                assert validate_call(parsed.name, parsed.arguments) == action, render(action)
            self.checked += 1
        return reply


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.name)
def test_every_plan_step_survives_every_broken_format(task: Task, tmp_path: Path) -> None:
    """Each call is checked on the screen it was made on, so later screens' steps are too."""
    policy = BrokenFormatsOfEachCall(OraclePolicy(task, 0))
    goal = task.goal(0)
    result = run_episode(
        goal,
        Simulator(state=task.initial_state(0)),
        policy,
        RunSettings(max_steps=task.max_steps),
        tmp_path / "run.jsonl",
        confirm=goal_confirmation(goal),
        sleep=lambda seconds: None,
    )
    assert result.stop_reason == "completed", result.detail
    assert policy.checked == result.steps  # one call a decision, every one checked


def test_resume_keeps_finished_runs_and_reruns_crashed_ones(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    tasks = select_tasks("SystemWifiTurnOn,SystemWifiTurnOnVerify")
    runs = plan_runs(tasks, 2, [PolicySpec(kind="oracle")], [True])
    store = ResultStore(run_dir / "results.jsonl")
    first = run_suite(runs[:3], Runner(run_dir, EvalSettings()), store)
    crashed = first[0].model_copy(update={"error": "boom", "stop_reason": "crashed"})
    store.append(crashed)
    with store.path.open("a", encoding="utf-8") as out:
        out.write('{"task": "torn')  # a line cut off by a crash
    played: list[str] = []
    outcomes = run_suite(
        runs,
        Runner(run_dir, EvalSettings()),
        store,
        resume=True,
        parallel=2,
        on_outcome=lambda o: played.append(o.run_id),
    )
    assert sorted(played) == sorted([runs[0].id, runs[3].id])
    assert [o.run_id for o in outcomes] == [r.id for r in runs]
    assert all(o.success and o.error is None for o in outcomes)
    assert set(store.finished()) == {r.id for r in runs}


def test_resume_refuses_other_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task = "SystemWifiTurnOnVerify"
    eval_json(tmp_path, "--policy", "oracle", "--tasks", task, "--max-steps", "5")
    code = main(
        ["eval", "--policy", "oracle", "--tasks", task, "--resume",
         "--run-dir", str(tmp_path / "run"), "--max-steps", "6"]
    )  # fmt: skip
    assert code == 2
    assert "was run with max_steps=5" in capsys.readouterr().err


def test_llm_policy_in_parallel_sessions_against_one_server(tmp_path: Path) -> None:
    def model(body: dict) -> Scripted:
        lines = screen_lines(body)
        for wanted in ("Wi-Fi", "Internet", "Network & internet"):
            for index, label in lines:
                if label == wanted or label.startswith(wanted + ","):
                    return call("tap", index=index)
        return call("open_app", name="Settings")

    with ScriptedServer(model) as server:
        report = eval_json(
            tmp_path, "--policy", "llm", "--base-url", server.base_url,
            "--tasks", "SystemWifiTurnOn", "--runs", "3", "--parallel", "3",
        )  # fmt: skip
    summary = report["summary"]
    assert summary["successes"] == 3 and summary["model_latency"]["steps"] >= 12
    assert summary["prompt_tokens_per_step"] == 100  # what the scripted server reports
    assert all(r["policy"] == "llm" and r["guards"] for r in report["results"])


def test_llm_without_a_server_fails_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--base-url", "http://127.0.0.1:9/v1", "--tasks", "WifiTurnOn"]) == 1
    assert "no model server" in capsys.readouterr().err


def test_replay_plays_recorded_replies_through_the_guarded_loop(tmp_path: Path) -> None:
    eval_json(tmp_path / "a", "--policy", "oracle", "--tasks", "SystemWifiTurnOn,ClockAlarmAdd")
    recorded = tmp_path / "a" / "run" / "trajectories"
    report = eval_json(tmp_path / "b", "--policy", f"replay:{recorded}", "--tasks", "System")
    results = {r["task"]: r for r in report["results"]}
    assert set(results) == {"SystemWifiTurnOn"}  # only what was recorded
    assert results["SystemWifiTurnOn"]["success"]
    assert results["SystemWifiTurnOn"]["detail"] == "Wi-Fi is now on as asked"


def test_the_held_out_phrasing_is_what_the_agent_reads(tmp_path: Path) -> None:
    task = TASKS_BY_NAME["SystemWifiTurnOn"]
    report = eval_json(
        tmp_path, "--policy", "oracle", "--tasks", "SystemWifiTurnOn", "--phrasing", "held-out"
    )
    [result] = report["results"]
    assert result["success"] and result["phrasing"] == task.held_out_phrasing
    episode = json.loads(Path(result["trajectory"]).read_text(encoding="utf-8").splitlines()[0])
    assert episode["goal"] == task.goal(0, task.held_out_phrasing) != task.goal(0)


def test_every_phrasing_is_a_run_of_its_own(tmp_path: Path) -> None:
    report = eval_json(tmp_path, "--policy", "oracle", "--tasks", "WifiTurnOn", "--phrasing", "all")
    runs = {(r["task"], r["phrasing"]) for r in report["results"] if r["success"]}
    phrasings = sum(len(task.templates) for task in select_tasks("WifiTurnOn"))
    assert len(runs) == len(report["results"]) == phrasings


@pytest.mark.parametrize(
    ("phrasing", "message"),
    [("99", "has 13 phrasings (0-12), not 99"), ("last", "takes a number, held-out or all")],
)
def test_a_phrasing_no_task_has_is_a_usage_error(
    phrasing: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["eval", "--policy", "oracle", "--tasks", "WifiTurnOn", "--phrasing", phrasing])
    assert code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("policy", "message"),
    [("faulty:nope", "unknown fault mode"), ("robot", "unknown policy"),
     ("replay:/no/such", "does not exist")],
)  # fmt: skip
def test_bad_policies_are_usage_errors(
    policy: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["eval", "--policy", policy, "--tasks", "WifiTurnOn"]) == 2
    assert message in capsys.readouterr().err


def test_policy_names_and_simulated_user() -> None:
    assert [p.label for p in parse_policy("faulty:loops")] == ["faulty:loops"]
    assert len(parse_policy("faulty:all")) == 6
    confirm = goal_confirmation('Reply "Late" to Bob Chen\'s message.')
    assert confirm('tap [9] "Send"') and not confirm('tap [3] "Reset options"')
    assert not goal_confirmation("Turn on Wi-Fi")('tap [9] "Send"')
    assert goal_confirmation("Remove my 7:30 AM alarm.")('tap [8] "Delete"')
    assert not goal_confirmation("Remove my 7:30 AM alarm.")('tap [2] "Send"')


def test_outcome_verdicts() -> None:
    base = EpisodeOutcome(
        task="t", app="a", family="f", seed=0, policy="p", success=False, steps=3,
        stop_reason="completed", trajectory="x",
    )  # fmt: skip
    assert base.verdict == "false_claim"
    assert base.model_copy(update={"stop_reason": "stuck"}).verdict == "clean_stop"
    assert base.model_copy(update={"stop_reason": "step_budget"}).verdict == "step_budget"
    assert base.model_copy(update={"error": "server down"}).verdict == "error"
