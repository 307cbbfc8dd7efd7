"""vLLM's CPU worker, compiling the model with a short forward pass instead of a full batch.

A compiled server (no `--enforce-eager`) traces and compiles the forward during a warm-up pass
that vLLM runs with `--max-num-batched-tokens` tokens (2048 by default). On a CPU that pass is a
full-size prefill: at the 1.7B shape with bf16 weights on a CPU without bf16 arithmetic (3.6
tokens/s) it alone takes about nine and a half minutes, which is why a compiled 1.7B server did
not become ready in eleven. The trace only needs one forward of any length above one token (the
token dimension is dynamic, and a size of 0 or 1 would be specialised), and the launcher always
gives the KV cache size, so the pass sizes nothing: `COMPILE_PASS_TOKENS` tokens are enough.

It also loads GPTQ weights for W4A8 without vLLM's whole-matrix temporaries
(`serving.vllm_plugin.w4a8`), and runs steps on a model runner that computes only the logits a
tool call's grammar allows (`serving.vllm_plugin.grammar_head`).

The launcher selects this class with `--worker-cls`, so only the worker process imports it.
"""

from __future__ import annotations

import torch
from vllm.v1.worker.cpu_model_runner import CPUModelRunner
from vllm.v1.worker.cpu_worker import CPUWorker

from serving.vllm_plugin.grammar_head import GrammarHeadCPUModelRunner
from serving.vllm_plugin.w4a8 import convert_gptq_in_blocks

COMPILE_PASS_TOKENS = 128
CLASS_PATH = f"{__name__}.ShortWarmUpCPUWorker"


class ShortWarmUpCPUWorker(CPUWorker):
    def init_device(self) -> None:
        super().init_device()
        # vLLM builds its runner at the end of init_device, before any buffer is sized by use;
        # the second runner replaces it before the model loads.
        if type(self.model_runner) is CPUModelRunner:
            self.model_runner = GrammarHeadCPUModelRunner(self.vllm_config, torch.device("cpu"))

    def load_model(self, *, load_dummy_weights: bool = False) -> None:
        convert_gptq_in_blocks()
        super().load_model(load_dummy_weights=load_dummy_weights)

    def determine_available_memory(self) -> int:
        runner = self.model_runner
        full = runner.max_num_tokens
        runner.max_num_tokens = min(full, COMPILE_PASS_TOKENS)
        try:
            return super().determine_available_memory()
        finally:
            runner.max_num_tokens = full
