"""`phone-agent quantize --compare`: a build against its own bf16, through two real servers.

On random weights agreement says nothing about quality, so the real-server test compares the
bf16 build with itself: any misalignment between the greedy run and the teacher-forced pass
(an off-by-one position, a wrong token looked up) shows as disagreement or a large delta.
The chat requests come from a real demonstration export, rendered as the server renders them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.cli import main
from evals.demos import export_demos, plan_demo_episodes
from serving.checkpoint import make_checkpoint
from serving.errors import ServingUsageError
from serving.quantization import compare
from serving.quantization.compare import BuildComparison, ComparePrompt, PromptComparison
from serving.spark_format import THINK_END
from simulator.tasks import TASKS_BY_NAME


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("torch")
    return make_checkpoint(tmp_path_factory.mktemp("ckpt") / "bf16", "tiny", seed=0)


@pytest.fixture(scope="module")
def demos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The agent's requests while the oracle turns Wi-Fi on, with thinking off."""
    path = tmp_path_factory.mktemp("demos") / "demos.jsonl.gz"
    episodes = plan_demo_episodes([TASKS_BY_NAME["SystemWifiTurnOn"]], [100, 101], "off")
    assert export_demos(episodes, path).decisions >= 4
    return path


def test_chat_requests_carry_the_tools_the_screen_and_the_reply_opening(
    tiny_dir: Path, demos: Path
) -> None:
    from transformers import AutoTokenizer

    prompts = compare.load_prompts(str(demos), tiny_dir, count=3)
    assert len(prompts) == 3 and all(p.chat and isinstance(p.prompt, list) for p in prompts)
    # Labelled by the request's goal line (the goal may be reworded: "Switch on Wi-Fi").
    assert all("Goal:" in p.label and "Wi-Fi" in p.label for p in prompts)
    text = AutoTokenizer.from_pretrained(str(tiny_dir)).decode(prompts[0].prompt)
    # The system turn with the tools first, the screen, then the opening of the reply.
    assert '"name": "tap"' in text and "Wi-Fi" in text and text.endswith(THINK_END)


def test_a_missing_prompt_file_is_a_usage_error(tiny_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(ServingUsageError, match="no prompt file"):
        compare.load_prompts(str(tmp_path / "absent.jsonl"), tiny_dir, count=3)


@pytest.mark.slow
@pytest.mark.timeout(1200)  # serves both builds in turn
def test_a_build_compared_with_itself_agrees_on_every_token(tiny_dir: Path, demos: Path) -> None:
    pytest.importorskip("vllm")
    plain = compare.load_prompts("builtin", tiny_dir, count=0)[:3]
    chat = compare.load_prompts(str(demos), tiny_dir, count=2)
    result = compare.compare_builds(tiny_dir, tiny_dir, [*plain, *chat], tokens=8)
    assert [(p.prompt, p.greedy_tokens) for p in result.prompts[:3]] == [
        (p.label, 8) for p in plain
    ]
    assert all(0 < p.greedy_tokens <= compare.CHAT_REPLY_TOKENS for p in result.prompts[3:])
    assert result.greedy_match_rate == 1.0 and result.identical_rate == 1.0
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
        reference: Path, candidate: Path, prompts: list[ComparePrompt], tokens: int
    ) -> BuildComparison:
        seen.append((reference, candidate, [p.label for p in prompts], tokens))
        row = PromptComparison(
            prompt=prompts[0].label,
            greedy_prefix_match=3,
            greedy_tokens=4,
            identical=False,
            mean_abs_logprob_delta=0.1,
            max_abs_logprob_delta=0.2,
        )
        return BuildComparison(
            reference=str(reference),
            candidate=str(candidate),
            prompts=[row],
            greedy_match_rate=0.75,
            identical_rate=0.0,
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
