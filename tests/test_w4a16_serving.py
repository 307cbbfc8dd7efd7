"""A W4A16 tiny checkpoint served by vLLM matches a plain-torch forward of its own weights.

One server start (eager, fp32 activations so the comparison is tight): the prompt's
log-probabilities exercise the prefill path (dequantize + GEMM), the generated tokens the
decode path (our AVX2 kernel where it runs, tinygemm elsewhere), the first token the int4
embedding lookup, and every logit the tied int4 output head.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("vllm")
httpx = pytest.importorskip("httpx")

from safetensors import safe_open  # noqa: E402

from serving import launcher  # noqa: E402
from serving.checkpoint import SparkConfig, make_checkpoint  # noqa: E402
from serving.quantization import avx2_kernel, int4pack  # noqa: E402
from serving.quantization.quantize import quantize_checkpoint  # noqa: E402
from serving.reference_forward import spark_logits  # noqa: E402

pytestmark = pytest.mark.slow
PROMPT_TOKENS = (
    int4pack.few_row_kernel().prefill_min_rows + 36
)  # above it: prefill takes the dequant path
NEW_TOKENS = 8


def dequantized_weights(model_dir: Path, group_size: int) -> dict:
    with safe_open(str(model_dir / "model.safetensors"), "pt") as stored:
        tensors = {name: stored.get_tensor(name) for name in stored.keys()}  # noqa: SIM118
    weights = {}
    for name, tensor in tensors.items():
        if name.endswith(".qweight"):
            prefix = name.removesuffix(".qweight")
            weights[f"{prefix}.weight"] = int4pack.dequantize_portable(
                tensor, tensors[f"{prefix}.scales"], tensors[f"{prefix}.zeros"], group_size
            )
        elif name.endswith(".weight"):
            weights[name] = tensor.float()
    return weights


def test_served_w4a16_matches_the_dequantized_reference(tmp_path: Path) -> None:
    bf16 = make_checkpoint(tmp_path / "bf16", "tiny", seed=3)
    model_dir = tmp_path / "w4a16"
    quantize_checkpoint(bf16, model_dir, "w4a16", group_size=64)
    port = 8795
    settings = launcher.ServeSettings(
        port=port,
        max_model_len=512,
        max_num_seqs=1,
        enforce_eager=True,
        dtype="float32",
        # The launcher prices KV at 2 bytes a value; fp32 needs twice that (vLLM keeps the last).
        extra_args=("--kv-cache-memory-bytes", str(64 * 2**20)),
    )
    model = launcher.ResolvedModel(model_dir, "w4a16", "local")
    env = launcher.server_environment(os.environ, os.sched_getaffinity(0))
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    log = tmp_path / "server.log"
    process = launcher.start_server(launcher.server_command(model, settings), env, log)
    try:
        launcher.wait_until_ready(process, settings.base_url, log, lambda stage: None, 900)
        prompt = [(7 * i) % 900 + 20 for i in range(PROMPT_TOKENS)]
        body = {
            "model": "w4a16",
            "prompt": prompt,
            "max_tokens": NEW_TOKENS,
            "temperature": 0,
            "ignore_eos": True,
            "logprobs": 0,
            "prompt_logprobs": 0,
            "return_tokens_as_token_ids": True,
        }
        reply = httpx.post(f"{settings.base_url}/completions", json=body, timeout=300)
        reply.raise_for_status()
        choice = reply.json()["choices"][0]
    finally:
        launcher.stop_group(process.pid)
    server_log = log.read_text()
    assert "quantization=phone_agent_w4a16" in server_log
    kernel = avx2_kernel.load()
    assert ("W4A16 on our AVX2 kernel" in server_log) == kernel.available, kernel.reason

    generated = [int(t.rsplit(":", 1)[1]) for t in choice["logprobs"]["tokens"]]
    reference = torch.log_softmax(
        spark_logits(
            SparkConfig.load(model_dir), dequantized_weights(model_dir, 64), prompt + generated
        ),
        dim=-1,
    )
    prompt_deltas = [
        abs(entry[str(token)]["logprob"] - float(reference[position - 1, token]))
        for position, (entry, token) in enumerate(
            zip(choice["prompt_logprobs"], prompt, strict=True)
        )
        if entry is not None
    ]
    assert len(prompt_deltas) == PROMPT_TOKENS - 1
    assert max(prompt_deltas) < 2e-3
    decode_deltas = [
        abs(served - float(reference[PROMPT_TOKENS - 1 + i, token]))
        for i, (served, token) in enumerate(
            zip(choice["logprobs"]["token_logprobs"], generated, strict=True)
        )
    ]
    assert max(decode_deltas) < 2e-3
    assert generated[0] == int(reference[PROMPT_TOKENS - 1].argmax())
