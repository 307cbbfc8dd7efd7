"""Weight paths for Spark on the CPU: hardware probe, quantizers, and our W4A16 vLLM method.

`register()` is for the serving plugin to call in every vLLM process: it makes the W4A16
method (`phone_agent_w4a16`) known to vLLM. torch and vLLM are imported only when needed, so
the CLI starts without them.
"""

from __future__ import annotations


def register() -> None:
    from serving.quantization import vllm_method

    vllm_method.register()
