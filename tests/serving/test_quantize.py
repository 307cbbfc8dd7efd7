"""`phone-agent quantize`: the three checkpoint formats, the SNR report, the range search."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from safetensors import safe_open  # noqa: E402

from serving.checkpoint import make_checkpoint  # noqa: E402
from serving.quantization import int4pack, quantize  # noqa: E402
from serving.schemes import QUANTIZED_SCHEMES, VLLM_METHODS  # noqa: E402
from tests.support.paths import REPO_ROOT  # noqa: E402

QKV = "model.layers.0.self_attn.q_k_v_proj"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_checkpoint(tmp_path_factory.mktemp("bf16") / "tiny", "tiny", seed=0)


def _tensors(model_dir: Path) -> dict[str, torch.Tensor]:
    with safe_open(str(model_dir / "model.safetensors"), "pt") as weights:
        return {name: weights.get_tensor(name) for name in weights.keys()}  # noqa: SIM118


def _quantize_cli(
    source: Path, destination: Path, scheme: str, *options: str
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "agent.cli",
            "quantize",
            str(source),
            str(destination),
            "--scheme",
            scheme,
            "--group-size",
            "64",
            "--json",
            *options,
        ],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=300,
    )


@pytest.mark.slow  # quantizes a checkpoint through the command, once per scheme
@pytest.mark.parametrize("scheme", ["w4a16", "w4a8", "w8a8"])
def test_cli_json_report_last_line_has_min_snr_and_per_tensor_snr(
    tiny: Path, tmp_path: Path, scheme: str
) -> None:
    result = _quantize_cli(tiny, tmp_path / scheme, scheme)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["min_snr_db"] == min(report["snr_db"].values())
    assert report["snr_db"][f"{QKV}.weight"] > (35 if scheme == "w8a8" else 15)
    assert all(not name.endswith("g_proj.weight") for name in report["snr_db"])
    for side_file in ("tokenizer.json", "chat_template.jinja", "generation_config.json"):
        assert (tmp_path / scheme / side_file).is_file()


def test_w4a16_checkpoint_is_our_format_with_a_tied_int8_table(tiny: Path, tmp_path: Path) -> None:
    report = quantize.quantize_checkpoint(tiny, tmp_path / "q", "w4a16", 64)
    config = json.loads((tmp_path / "q" / "config.json").read_text())
    assert config["quantization_config"]["quant_method"] == "phone_agent_w4a16"
    assert config["quantization_config"]["table_bits"] == 8
    assert config["tie_word_embeddings"] is True
    stored, source = _tensors(tmp_path / "q"), _tensors(tiny)
    assert stored[f"{QKV}.qweight"].dtype == torch.uint8
    assert stored[f"{QKV}.qweight"].shape == (256, 64)
    assert stored[f"{QKV}.scales"].shape == stored[f"{QKV}.zeros"].shape == (256, 2)
    assert "lm_head.qweight" not in stored and "model.embedding.qweight" not in stored
    table, table_scale = stored["model.embedding.weight"], stored["model.embedding.weight_scale"]
    assert table.dtype == torch.int8 and table_scale.dtype == torch.bfloat16
    assert table_scale.shape == (table.shape[0], 1)
    # The table is the tensor whose error reaches every logit: int8 keeps it far above 4-bit.
    assert report.snr_db["model.embedding.weight"] > 35 > report.snr_db[f"{QKV}.weight"]
    original_table = source["model.embedding.weight"].float()
    restored_table = table.float() * table_scale.float()
    assert torch.allclose(restored_table, original_table, atol=float(table_scale.max()) / 2 + 1e-6)
    assert torch.equal(
        stored["model.layers.0.self_attn.g_proj.weight"],
        source["model.layers.0.self_attn.g_proj.weight"],
    )
    restored = int4pack.dequantize_portable(
        stored[f"{QKV}.qweight"], stored[f"{QKV}.scales"], stored[f"{QKV}.zeros"], 64
    )
    original = source[f"{QKV}.weight"].float()
    snr = 10 * torch.log10(original.square().sum() / (original - restored).square().sum())
    assert snr > 15


def test_w4a16_with_a_4_bit_table_writes_the_first_format(tiny: Path, tmp_path: Path) -> None:
    result = _quantize_cli(tiny, tmp_path / "q", "w4a16", "--table-bits", "4")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    config = json.loads((tmp_path / "q" / "config.json").read_text())
    assert config["quantization_config"]["table_bits"] == 4
    stored = _tensors(tmp_path / "q")
    assert stored["model.embedding.qweight"].dtype == torch.uint8
    assert "model.embedding.weight" not in stored
    assert report["snr_db"]["model.embedding.weight"] < 35


def test_w4a8_is_gptq_with_an_untied_quantized_head(tiny: Path, tmp_path: Path) -> None:
    quantize.quantize_checkpoint(tiny, tmp_path / "q", "w4a8", 64)
    config = json.loads((tmp_path / "q" / "config.json").read_text())
    gptq = config["quantization_config"]
    assert (gptq["quant_method"], gptq["bits"], gptq["sym"], gptq["desc_act"]) == (
        "gptq",
        4,
        True,
        False,
    )
    assert gptq["lm_head"] is True and config["tie_word_embeddings"] is False
    stored, source = _tensors(tmp_path / "q"), _tensors(tiny)
    assert stored["model.embedding.weight"].dtype == torch.bfloat16
    qweight, scales = stored["lm_head.qweight"], stored["lm_head.scales"]
    assert qweight.dtype == torch.int32 and qweight.shape == (128 // 8, 1024)
    assert bool((stored["lm_head.qzeros"] == 0x77777777).all())
    # Unpack eight nibbles per int32 along the input dimension, lowest bits first.
    nibbles = torch.stack([(qweight >> (4 * i)) & 15 for i in range(8)], dim=1).reshape(128, 1024)
    restored = (nibbles.float() - 8) * scales.float().repeat_interleave(64, dim=0)
    original = source["model.embedding.weight"].float().t()
    snr = 10 * torch.log10(original.square().sum() / (original - restored).square().sum())
    assert snr > 15


def test_w8a8_is_compressed_tensors_per_channel(tiny: Path, tmp_path: Path) -> None:
    quantize.quantize_checkpoint(tiny, tmp_path / "q", "w8a8", 64)
    config = json.loads((tmp_path / "q" / "config.json").read_text())
    group = config["quantization_config"]["config_groups"]["group_0"]
    assert group["weights"]["strategy"] == "channel" and group["weights"]["symmetric"]
    assert group["input_activations"]["dynamic"] is True
    stored = _tensors(tmp_path / "q")
    assert stored[f"{QKV}.weight"].dtype == torch.int8
    assert stored[f"{QKV}.weight_scale"].shape == (256, 1)
    assert stored["model.layers.0.self_attn.g_proj.weight"].dtype == torch.bfloat16


def test_every_quantized_scheme_has_one_plan_writing_its_vllm_method() -> None:
    assert list(quantize.PLANS) == list(QUANTIZED_SCHEMES)
    for scheme, plan in quantize.PLANS.items():
        config = plan.quantization_config(quantize.DEFAULT_GROUP_SIZE)
        assert config["quant_method"] == VLLM_METHODS[scheme]


def test_range_search_beats_plain_min_max(monkeypatch: pytest.MonkeyPatch) -> None:
    weight = torch.randn(256, 1024, generator=torch.Generator().manual_seed(0)) * 0.02
    searched = quantize.quantize_w4a16(weight, 128).snr_db
    monkeypatch.setattr(quantize, "RANGE_SEARCH", (1.0,))
    plain = quantize.quantize_w4a16(weight, 128).snr_db
    # Gaussian weights have no outliers to clip, so the gain is smaller than on real ones.
    assert searched > plain + 0.3


def test_bad_inputs_exit_2_in_one_line(tiny: Path, tmp_path: Path) -> None:
    quantize.quantize_checkpoint(tiny, tmp_path / "q", "w8a8", 64)
    again = _quantize_cli(tmp_path / "q", tmp_path / "qq", "w4a16")
    assert again.returncode == 2 and "already quantized" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1
    missing = _quantize_cli(tmp_path / "nothing", tmp_path / "x", "w4a16")
    assert missing.returncode == 2 and "no config.json" in missing.stderr
    no_choice = _quantize_cli(tiny, tmp_path / "w8", "w8a8", "--table-bits", "4")
    assert no_choice.returncode == 2 and "only W4A16 has a choice" in no_choice.stderr
    assert len(no_choice.stderr.strip().splitlines()) == 1
