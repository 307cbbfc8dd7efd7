"""`results.jsonl` after an interrupted suite is resumed: one line per run, the latest outcome."""

from __future__ import annotations

from pathlib import Path

from evals.policies import PolicySpec
from evals.results import EpisodeOutcome, ResultStore
from evals.runner import EvalSettings, Runner, plan_runs, run_suite, select_tasks


def lines(store: ResultStore) -> list[EpisodeOutcome]:
    text = store.path.read_text(encoding="utf-8")
    return [EpisodeOutcome.model_validate_json(line) for line in text.splitlines()]


def test_a_resumed_run_replaces_its_interrupted_line(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    runs = plan_runs(select_tasks("SystemWifiTurnOn"), 2, [PolicySpec(kind="oracle")], [True])
    store = ResultStore(run_dir / "results.jsonl")
    first = run_suite(runs[:1], Runner(run_dir, EvalSettings()), store)
    # what Ctrl-C leaves of the second run: its episode stopped `aborted`
    interrupted = first[0].model_copy(
        update={"seed": runs[1].seed, "success": False, "stop_reason": "aborted", "steps": 1}
    )
    store.append(interrupted)
    assert [o.run_id for o in lines(store)] == [runs[0].id, runs[1].id]

    resumed = ResultStore(store.path)  # a new process: `eval --resume`
    outcomes = run_suite(runs, Runner(run_dir, EvalSettings()), resumed, resume=True)

    assert all(o.success for o in outcomes)
    on_file = lines(resumed)
    assert [o.run_id for o in on_file] == [runs[0].id, runs[1].id]
    assert [o.stop_reason for o in on_file] == ["completed", "completed"]
    assert not (run_dir / "results.jsonl.new").exists()


def test_a_line_cut_off_by_a_crash_is_dropped_when_a_run_is_replaced(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    runs = plan_runs(select_tasks("SystemWifiTurnOn"), 1, [PolicySpec(kind="oracle")], [True])
    store = ResultStore(run_dir / "results.jsonl")
    (done,) = run_suite(runs, Runner(run_dir, EvalSettings()), store)
    with store.path.open("a", encoding="utf-8") as out:
        out.write('{"task": "torn')
    ResultStore(store.path).append(done.model_copy(update={"steps": 9}))
    assert [o.steps for o in lines(store)] == [9]
