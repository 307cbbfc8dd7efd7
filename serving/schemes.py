"""The weight schemes Spark is served in, declared once: every list of them (the CLI's choices,
the probe's table, the quantizer's plans, the timings, the benchmarks) derives from here.

- `bf16`: the checkpoint as trained. Any CPU serves it; those with `amx_bf16` or
  `avx512_bf16` multiply bf16 in hardware, the others emulate it. A CUDA GPU serves it too.
- `w4a16`: 4-bit weights, bf16 activations, an int8 vocabulary table; made by our quantizer and
  served by our vLLM method (`W4A16_METHOD`). Any CPU: our kernels run from AVX2 up (AVX-512,
  VNNI and AMX builds beside it), torch's int4 kernel everywhere else.
- `w4a8`: GPTQ 4-bit weights; vLLM's CPU GPTQ kernel runs int8 activations on AMX, and only
  there.
- `w8a8`: compressed-tensors int8 weights and dynamic per-token int8 activations, on vLLM's
  int8 kernel.

`phone-agent quantize` makes every scheme but bf16, one plan each
(`serving.quantization.quantize.PLANS`). Standard library only: the CLI builds its choices from
this module before anything heavy loads.
"""

from __future__ import annotations

from typing import Literal, get_args

# The schemes our quantizer makes from a bf16 checkpoint.
QuantizedScheme = Literal["w4a16", "w4a8", "w8a8"]
# Every scheme `serve` runs: the bf16 source and its quantized builds.
Scheme = Literal["bf16", QuantizedScheme]

SCHEMES: tuple[Scheme, ...] = get_args(Scheme)
QUANTIZED_SCHEMES: tuple[QuantizedScheme, ...] = get_args(QuantizedScheme)

W4A16_METHOD = "phone_agent_w4a16"
# Each quantized scheme's vLLM quantization method: `--quantization` for vLLM, and the
# `quant_method` its checkpoints' config.json names.
VLLM_METHODS: dict[QuantizedScheme, str] = {
    "w4a16": W4A16_METHOD,
    "w4a8": "gptq",
    "w8a8": "compressed-tensors",
}


def serve_args(scheme: Scheme) -> list[str]:
    """What `phone-agent serve` passes to vLLM for a checkpoint of `scheme`. Quantized
    checkpoints carry their method in config.json; naming it makes the choice explicit and
    fails fast when a checkpoint of another scheme is passed by mistake."""
    if scheme == "bf16":
        return ["--dtype", "bfloat16"]
    return ["--dtype", "bfloat16", "--quantization", VLLM_METHODS[scheme]]
