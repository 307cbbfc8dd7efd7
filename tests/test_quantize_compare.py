"""`phone-agent quantize --compare`: a build against its own bf16, through two real servers.

On random weights agreement says nothing about quality, so the real-server test compares the
bf16 build with itself: any misalignment between the greedy run and the teacher-forced pass
(an off-by-one position, a wrong token looked up) shows as disagreement or a large delta.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.cli import main
from serving.checkpoint import make_checkpoint
from serving.quantization import compare
from serving.quantization.compare import BuildComparison, PromptComparison


@pytest.mark.slow
def test_a_build_compared_with_itself_agrees_on_every_token(tmp_path: Path) -> None:
    pytest.importorskip("vllm")
    source = make_checkpoint(tmp_path / "bf16", "tiny", seed=0)
    prompts = list(compare.BUILTIN_PROMPTS[:3])
    result = compare.compare_builds(source, source, prompts, tokens=8)
    assert [(p.prompt, p.greedy_tokens) for p in result.prompts] == [(p, 8) for p in prompts]
    assert result.greedy_match_rate == 1.0
    # Prefill (teacher-forced) and decode kernels round differently; misalignment is >> this.
    assert result.max_abs_logprob_delta < 0.05


def test_quantize_compare_prints_the_comparison_after_the_quantize_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch")
    source = make_checkpoint(tmp_path / "bf16", "tiny", seed=0)
    prompts_file = tmp_path / "prompts.txt"
    prompts_file.write_text("Open settings\n\nTurn on Wi-Fi\n", encoding="utf-8")
    seen: list[tuple[Path, Path, list[str], int]] = []

    def fake_compare(
        reference: Path, candidate: Path, prompts: list[str], tokens: int
    ) -> BuildComparison:
        seen.append((reference, candidate, prompts, tokens))
        row = PromptComparison(
            prompt=prompts[0],
            greedy_prefix_match=3,
            greedy_tokens=4,
            mean_abs_logprob_delta=0.1,
            max_abs_logprob_delta=0.2,
        )
        return BuildComparison(
            reference=str(reference),
            candidate=str(candidate),
            prompts=[row],
            greedy_match_rate=0.75,
            mean_abs_logprob_delta=0.1,
            max_abs_logprob_delta=0.2,
        )

    monkeypatch.setattr(compare, "compare_builds", fake_compare)
    target = tmp_path / "w4a16"
    argv = ["quantize", str(source), str(target), "--scheme", "w4a16", "--json"]
    assert main([*argv, "--compare", str(prompts_file), "--compare-tokens", "4"]) == 0
    report, comparison = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert "min_snr_db" in report
    assert seen == [(source, target, ["Open settings", "Turn on Wi-Fi"], 4)]
    assert comparison["greedy_match_rate"] == 0.75
