"""A W4A16 tiny checkpoint served by vLLM matches a plain-torch forward of its own weights.

One server start per table format (eager, fp32 activations so the comparison is tight): the
prompt's log-probabilities exercise the prefill path (dequantize + GEMM), the generated tokens
the decode path (our AVX2 kernel where it runs, tinygemm elsewhere), the first token the
embedding lookup, and every logit the tied output head (int8 table, or int4 with
`table_bits=4`).

The bounds come from what each path rounds, on this machine's plan:
- two fp32 evaluations of the same maths (vLLM's and the reference's, different orders of
  summation) agree within FP32_LOGPROB_FLOOR, as the bf16 model's engine test holds them to;
- prefill with fp32 activations multiplies in fp32 (the plan never gives fp32 activations a
  bf16 GEMM), so prompt log-probabilities get only that floor;
- decode on our AVX2 kernel rounds each linear layer's input to 16-bit integers per group: the
  reference is run again with that rounding on the decoded rows' linear inputs (all of x; the
  kernel keeps x exact in its zero-point term, so this errs wide), and the decoded
  log-probabilities may differ from the exact ones by twice what it moved them, plus the floor.
  tinygemm rounds nothing beyond fp32 (its kernel test holds it to that);
- the int8 table's head, on our int8 kernel, rounds its input to 16-bit integers per row at
  every row count (prompt and decode): the reference rounds it so too, and both kinds of
  log-probabilities may differ by twice what that moved them; torch's int8 GEMM, where ours
  does not run, rounds nothing beyond fp32.
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
from serving.checkpoint import SparkConfig, make_checkpoint, spark_config  # noqa: E402
from serving.quantization import cpu_kernels, int4pack  # noqa: E402
from serving.quantization.quantize import quantize_checkpoint  # noqa: E402
from serving.reference_forward import spark_logits  # noqa: E402

# Starts a real model server: capped above the start-up limit it waits for (900 s).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]
GROUP_SIZE = 64
PLAN = int4pack.machine_plan("adaptive", torch.float32)
PROMPT_TOKENS = PLAN.prefill_min_rows + 36  # above it: prefill takes the dequant path
NEW_TOKENS = 8
FP32_LOGPROB_FLOOR = 1e-4
# The bounds below widen with what the kernels' own rounding moves; 16-bit integers per group
# move a log-probability by far less than this, so a rounding gone wrong cannot widen them past
# catching anything.
ROUNDING_COST_CAP = 0.02
HIDDEN_SIZE = spark_config("tiny").hidden_size


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
        elif name.endswith(".weight") and f"{name}_scale" in tensors:
            weights[name] = tensor.float() * tensors[f"{name}_scale"].float()
        elif name.endswith(".weight"):
            weights[name] = tensor.float()
    return weights


# 8: the int8 table every build gets now; 4: the int4 table of `quantize --table-bits 4` and of
# checkpoints written before the table had a choice.
@pytest.mark.parametrize("table_bits", [8, 4])
def test_served_w4a16_matches_the_dequantized_reference(tmp_path: Path, table_bits: int) -> None:
    bf16 = make_checkpoint(tmp_path / "bf16", "tiny", seed=3)
    model_dir = tmp_path / "w4a16"
    quantize_checkpoint(bf16, model_dir, "w4a16", group_size=GROUP_SIZE, table_bits=table_bits)
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
    assert PLAN.describe() in server_log

    generated = [int(t.rsplit(":", 1)[1]) for t in choice["logprobs"]["tokens"]]
    config, weights = SparkConfig.load(model_dir), dequantized_weights(model_dir, GROUP_SIZE)
    tokens = prompt + generated
    reference = torch.log_softmax(spark_logits(config, weights, tokens), dim=-1)
    prompt_deltas = [
        abs(entry[str(token)]["logprob"] - float(reference[position - 1, token]))
        for position, (entry, token) in enumerate(
            zip(choice["prompt_logprobs"], prompt, strict=True)
        )
        if entry is not None
    ]
    assert len(prompt_deltas) == PROMPT_TOKENS - 1
    assert PLAN.prefill_dtype == torch.float32

    # The int8 table's head rounds its input on our kernel at every row count, the prompt's too.
    table_kernel = cpu_kernels.int8_table_kernel(HIDDEN_SIZE)
    table_rounds = table_bits == 8 and table_kernel.available
    if table_bits == 8:
        on = f"our {table_kernel.label} int8 kernel" if table_rounds else "torch's int8 GEMM"
        assert f"output head on {on}" in server_log
    head_input = cpu_kernels.rounded_rows if table_rounds else None
    head_rounded = torch.log_softmax(
        spark_logits(config, weights, tokens, head_input=head_input), dim=-1
    )
    head_cost = max(
        abs(float(head_rounded[position - 1, token] - reference[position - 1, token]))
        for position, token in enumerate(prompt)
        if position > 0
    )
    assert head_cost < ROUNDING_COST_CAP
    assert max(prompt_deltas) < FP32_LOGPROB_FLOOR + 2 * head_cost

    # Rows fed one at a time after the prompt run on the few-row kernel; their rounding, alone.
    def as_decode_rounds(x: torch.Tensor) -> torch.Tensor:
        if PLAN.few_rows == "tinygemm":
            return x
        decoded = x.clone()
        decoded[PROMPT_TOKENS:] = cpu_kernels.rounded_activations(x[PROMPT_TOKENS:], GROUP_SIZE)
        return decoded

    rounded = torch.log_softmax(
        spark_logits(config, weights, tokens, as_decode_rounds, head_input), dim=-1
    )
    decode_rows = [(PROMPT_TOKENS - 1 + i, token) for i, token in enumerate(generated)]
    rounding_cost = max(abs(float(rounded[r, t] - reference[r, t])) for r, t in decode_rows)
    decode_deltas = [
        abs(served - float(reference[row, token]))
        for served, (row, token) in zip(
            choice["logprobs"]["token_logprobs"], decode_rows, strict=True
        )
    ]
    assert rounding_cost < ROUNDING_COST_CAP
    assert max(decode_deltas) < FP32_LOGPROB_FLOOR + 2 * rounding_cost
    assert generated[0] == int(reference[PROMPT_TOKENS - 1].argmax())


def test_the_table_method_follows_the_checkpoint_and_older_ones_keep_int4() -> None:
    from vllm.model_executor.layers.vocab_parallel_embedding import VocabParallelEmbedding

    from serving.quantization import vllm_method

    table = object.__new__(VocabParallelEmbedding)  # only its class is looked at
    current = vllm_method.W4A16Config.from_config({"group_size": 128, "table_bits": 8})
    older = vllm_method.W4A16Config.from_config({"group_size": 128})
    assert isinstance(
        current.get_quant_method(table, "model.embedding"), vllm_method.Int8TableMethod
    )
    assert isinstance(
        older.get_quant_method(table, "model.embedding"), vllm_method.W4A16EmbeddingMethod
    )
    with pytest.raises(ValueError, match="table_bits must be 4 or 8"):
        vllm_method.W4A16Config.from_config({"group_size": 128, "table_bits": 2})
