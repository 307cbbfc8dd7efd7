"""vLLM running our Spark2_5 model, in this process, against the plain PyTorch reference.

One engine for the module (fp32, eager, about a minute on two cores).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("vllm")

import torch
from safetensors.torch import load_file
from vllm.inputs import TokensPrompt

from serving.checkpoint import SparkConfig, make_checkpoint
from serving.launcher import cpu_list
from serving.reference_forward import spark_logits

# Loads the model into vLLM in this process: capped like a server start.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

SERVED_LEN = 256


def rope_table_rows(model: Any) -> list[int]:
    """Runs in the worker: row counts of the model's RoPE cos/sin tables."""
    return sorted(
        {
            module.cos_sin_cache.shape[0]
            for module in model.modules()
            if hasattr(module, "cos_sin_cache")
        }
    )


def head_is_embedding(model: Any) -> bool:
    """Runs in the worker: the tied output head shares the embedding's weight."""
    return model.lm_head.weight.data_ptr() == model.model.embedding.weight.data_ptr()


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_checkpoint(tmp_path_factory.mktemp("ckpt") / "tiny", "tiny", seed=0)


@pytest.fixture(scope="module")
def llm(tiny_dir: Path) -> Iterator[object]:
    from vllm import LLM

    with pytest.MonkeyPatch.context() as env:
        env.setenv("VLLM_PLUGINS", "phone_agent")
        env.setenv("VLLM_ALLOW_INSECURE_SERIALIZATION", "1")  # apply_model ships functions
        env.setenv("VLLM_CPU_OMP_THREADS_BIND", cpu_list(os.sched_getaffinity(0)))
        env.delenv("VLLM_CPU_KVCACHE_SPACE", raising=False)
        engine = LLM(
            model=str(tiny_dir),
            dtype="float32",
            enforce_eager=True,
            max_model_len=SERVED_LEN,
            kv_cache_memory_bytes=32 << 20,
            max_num_seqs=2,
            enable_prefix_caching=False,
        )
        yield engine
        del engine
        gc.collect()


def test_log_probabilities_match_the_reference(llm: object, tiny_dir: Path) -> None:
    from vllm import LLM, SamplingParams

    assert isinstance(llm, LLM)
    config = SparkConfig.load(tiny_dir)
    # Longer than the sliding window (32), so windowed and full layers both matter.
    generator = torch.Generator().manual_seed(1)
    tokens = torch.randint(25, config.vocab_size - 20, (96,), generator=generator).tolist()
    output = llm.generate(
        [TokensPrompt(prompt_token_ids=tokens)],
        SamplingParams(max_tokens=1, temperature=0.0, prompt_logprobs=0),
        use_tqdm=False,
    )[0]
    positions = output.prompt_logprobs
    assert positions is not None
    engine_logprobs = []
    for i in range(1, len(tokens)):
        at_position = positions[i]
        assert at_position is not None
        engine_logprobs.append(at_position[tokens[i]].logprob)
    engine = torch.tensor(engine_logprobs)
    weights = load_file(str(tiny_dir / "model.safetensors"))
    reference = spark_logits(config, weights, tokens).log_softmax(-1)
    expected = reference[torch.arange(len(tokens) - 1), torch.tensor(tokens[1:])]
    assert (engine - expected).abs().max().item() < 1e-4


def test_rope_table_covers_only_the_served_context(llm: object) -> None:
    from vllm import LLM

    assert isinstance(llm, LLM)
    # The checkpoint says 1,048,576 positions; nothing beyond max_model_len is reachable.
    assert llm.apply_model(rope_table_rows) == [[SERVED_LEN]]


def test_tied_checkpoint_loads_with_a_shared_head(llm: object) -> None:
    from vllm import LLM

    assert isinstance(llm, LLM)
    assert llm.apply_model(head_is_embedding) == [True]
