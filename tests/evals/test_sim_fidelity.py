"""`phone-agent sim fidelity`: simulated screens scored against the real dumps they imitate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.cli import main
from agent.screen import Screen
from evals.fidelity import PAIRS, TARGET, OutOfScope, Pair, Step, compare, measure_pair

REQUIRED_PAIRS = {
    "Settings home",
    "Network & internet",
    "Internet",
    "Developer options",
    "Quick settings",
    "Launcher home",
    "Messages conversation",
    "Permission dialog",
}


def test_every_pair_shows_at_least_the_target_share_of_the_real_screen(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sim", "fidelity", "--corpus", str(corpus_dir), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["target"] == TARGET and report["passed"] is True
    assert "same role and label" in report["scope"]
    pairs = {pair["name"]: pair for pair in report["pairs"]}
    assert set(pairs) >= REQUIRED_PAIRS
    for pair in pairs.values():
        assert pair["share"] >= TARGET, (pair["name"], pair["missing"])
        assert pair["matched"] == pair["in_scope"] - len(pair["missing"])
        assert pair["real_actionable"] == pair["in_scope"] + len(pair["out_of_scope"])
        assert all(excluded["reason"] for excluded in pair["out_of_scope"])
    # the Settings pages are scored on every actionable element of the real screen
    for name in ("Settings home", "Network & internet", "Internet", "Quick settings"):
        assert pairs[name]["out_of_scope"] == [] and pairs[name]["in_scope"] >= 8


def test_the_table_states_the_scope_and_what_was_left_out(
    corpus_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sim", "fidelity", "--corpus", str(corpus_dir)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Scope: share = real actionable elements" in out
    assert "out of scope, folders the user made" in out
    assert 'missing: switch "Auto-rotate, On / folded"' in out
    assert "every pair meets the target" in out


def test_a_screen_that_differs_scores_below_the_target(corpus_dir: Path) -> None:
    # Network & internet measured against the Internet page's dump: the rows differ
    wrong = Pair(
        "mismatch",
        "003_settings_pixel_internet_wifi_list.xml",
        (Step("open", "Settings"), Step("tap", "Network & internet")),
    )
    result = measure_pair(wrong, corpus_dir)
    assert result.share < 0.5 and not result.meets_target
    assert 'switch "Wi-Fi"' in result.missing


def test_out_of_scope_rules_name_each_element_they_remove(corpus_dir: Path) -> None:
    real = Screen.parse((corpus_dir / "017_permission_location_dialog.xml").read_bytes())
    pair = Pair("dialog", "017", (), out_of_scope=(OutOfScope("location only", r"^Precise$"),))
    result = compare(pair, real, real, set(), [])
    assert [(e.element, e.reason) for e in result.out_of_scope] == [
        ('radio "Precise"', "location only")
    ]
    assert result.share == 1.0 and result.in_scope == 4 and result.extra == []


def test_a_missing_corpus_is_a_one_line_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sim", "fidelity", "--corpus", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a folder" in err
    assert main(["sim", "fidelity", "--corpus", str(tmp_path)]) == 2
    assert "001_settings_pixel_homepage.xml not found" in capsys.readouterr().err


def test_pairs_name_real_dumps_in_the_corpus(corpus_dir: Path) -> None:
    for pair in PAIRS:
        assert (corpus_dir / pair.dump).is_file(), pair.dump
