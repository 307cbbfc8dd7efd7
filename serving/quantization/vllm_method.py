"""The W4A16 quantization method for vLLM: int4 weights, bf16 activations, on the CPU.

Registered under two names, one per kernel path, because vLLM keys its compile cache on the
quantization method's name (not on the checkpoint's quantization_config): graphs built for
different paths must never share a cached artifact.

- `phone_agent_w4a16`: below the plan's `prefill_min_rows` rows our int4 kernel (AVX2,
  AVX-512 or AVX-512 VNNI) where it could be built (`cpu_kernels` says where not), torch's
  tinygemm elsewhere; dequantize + GEMM above;
- `phone_agent_w4a16_tinygemm`: torch's tinygemm for every row count, the baseline the other
  path is measured against.

A checkpoint names its default path in `quantization_config.path`; `--quantization NAME` picks
the other. Linear layers are int4. The vocabulary table is int8 with a scale per row
(`table_bits: 8`, multiplied by our int8 kernel where the library loads, torch's elsewhere;
checkpoints written before that say nothing and hold an int4 table); vLLM's Spark model shares
one module between the embedding lookup and the output head, so one table serves both.

Every choice that depends on the CPU (`int4pack.KernelPlan`) is made in
`process_weights_after_loading`, before vLLM traces the forward for torch.compile; `apply` and
`embedding` only read the plan.
"""

from __future__ import annotations

import functools
import logging
from typing import Any, ClassVar

import torch
from torch.nn import Parameter
from vllm.model_executor.layers.linear import LinearBase, LinearMethodBase
from vllm.model_executor.layers.quantization import register_quantization_config
from vllm.model_executor.layers.quantization.base_config import (
    QuantizationConfig,
    QuantizeMethodBase,
)
from vllm.model_executor.layers.vocab_parallel_embedding import VocabParallelEmbedding
from vllm.model_executor.utils import set_weight_attrs

from serving.quantization import cpu_kernels, int4pack
from serving.quantization.int4pack import KernelPath
from serving.schemes import W4A16_METHOD

TINYGEMM_METHOD = f"{W4A16_METHOD}_tinygemm"
METHOD_FOR_PATH: dict[KernelPath, str] = {"adaptive": W4A16_METHOD, "tinygemm": TINYGEMM_METHOD}


# Under vLLM's logger, so the line lands in the server's log with vLLM's own.
_log = logging.getLogger("vllm.phone_agent.w4a16")


@functools.cache
def _plan(path: KernelPath, activations: torch.dtype) -> int4pack.KernelPlan:
    """The plan for this process, logged once (building our kernel now rather than mid-request)."""
    plan = int4pack.machine_plan(path, activations)
    _log.info(plan.describe())
    return plan


@functools.cache
def _table_variant(columns: int) -> cpu_kernels.Variant | None:
    """Our build for the int8 table's head, or None for torch's; logged once per process."""
    kernel = cpu_kernels.int8_table_kernel(columns)
    if kernel.available:
        _log.info("int8 vocabulary table: output head on our %s int8 kernel", kernel.label)
    else:
        _log.info("int8 vocabulary table: output head on torch's int8 GEMM (%s)", kernel.reason)
    return kernel.variant


def _register_rows(
    layer: torch.nn.Module, tensors: dict[str, torch.Tensor], weight_attrs: dict[str, Any]
) -> None:
    """The layer's weights, each with one row per output (vLLM's loader shards along them)."""
    for name, tensor in tensors.items():
        parameter = Parameter(tensor, requires_grad=False)
        set_weight_attrs(parameter, {"input_dim": 1, "output_dim": 0, **weight_attrs})
        layer.register_parameter(name, parameter)


class W4A16Config(QuantizationConfig):
    path: ClassVar[KernelPath] = "adaptive"

    def __init__(self, group_size: int, table_bits: int = 4) -> None:
        super().__init__()
        self.group_size = group_size
        self.table_bits = table_bits

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(group_size={self.group_size}, path={self.path}, "
            f"table_bits={self.table_bits})"
        )

    # vLLM types method names as a Literal of its built-in ones; ours are registered names.
    def get_name(self) -> str:  # type: ignore[override]
        return METHOD_FOR_PATH[self.path]

    def get_supported_act_dtypes(self) -> list[torch.dtype]:
        return [torch.bfloat16, torch.float16, torch.float32]

    @classmethod
    def get_min_capability(cls) -> int:
        return -1  # CPU only; the value is a CUDA compute capability

    @staticmethod
    def get_config_filenames() -> list[str]:
        return []

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> W4A16Config:
        table_bits = int(cls.get_from_keys_or(config, ["table_bits"], 4))
        if table_bits not in (4, 8):
            raise ValueError(f"{W4A16_METHOD}: table_bits must be 4 or 8, not {table_bits}")
        return cls(group_size=int(cls.get_from_keys(config, ["group_size"])), table_bits=table_bits)

    @classmethod
    def override_quantization_method(  # type: ignore[override]
        cls, hf_quant_cfg: dict[str, Any], user_quant: str | None, **_: Any
    ) -> str | None:
        """The method name for our checkpoints: the user's choice, else the checkpoint's path."""
        if hf_quant_cfg.get("quant_method") not in METHOD_FOR_PATH.values():
            return None
        if user_quant in METHOD_FOR_PATH.values():
            return user_quant
        return METHOD_FOR_PATH[hf_quant_cfg.get("path", "adaptive")]

    def get_quant_method(self, layer: torch.nn.Module, prefix: str) -> QuantizeMethodBase | None:
        if isinstance(layer, VocabParallelEmbedding):
            return Int8TableMethod() if self.table_bits == 8 else W4A16EmbeddingMethod(self)
        if isinstance(layer, LinearBase):
            return W4A16LinearMethod(self)
        return None


class W4A16TinygemmConfig(W4A16Config):
    path: ClassVar[KernelPath] = "tinygemm"


class W4A16LinearMethod(LinearMethodBase):
    """One instance per layer (vLLM asks the config for each), so it may hold the layer's dtype."""

    def __init__(self, config: W4A16Config) -> None:
        self.config = config
        self.params_dtype = torch.bfloat16
        self.plan: int4pack.KernelPlan | None = None  # made once the weights are loaded

    def create_weights(
        self,
        layer: torch.nn.Module,
        input_size_per_partition: int,
        output_partition_sizes: list[int],
        input_size: int,
        output_size: int,
        params_dtype: torch.dtype,
        **extra_weight_attrs: Any,
    ) -> None:
        rows, columns = sum(output_partition_sizes), input_size_per_partition
        group_size = self.config.group_size
        int4pack.check_shape(rows, columns, group_size)
        tensors = {
            "qweight": torch.zeros(rows, columns // 2, dtype=torch.uint8),
            "scales": torch.zeros(rows, columns // group_size, dtype=params_dtype),
            "zeros": torch.zeros(rows, columns // group_size, dtype=params_dtype),
        }
        _register_rows(layer, tensors, extra_weight_attrs)
        self.params_dtype = params_dtype

    def process_weights_after_loading(self, layer: torch.nn.Module) -> None:
        self.plan = _plan(self.config.path, self.params_dtype)
        int4pack.repack_rows_(layer.get_parameter("qweight").data)
        scale_zero = int4pack.scales_and_zeros(
            layer.get_parameter("scales").data,
            layer.get_parameter("zeros").data,
            self.params_dtype,
        )
        layer.register_parameter("scale_zero", Parameter(scale_zero, requires_grad=False))
        delattr(layer, "scales")
        delattr(layer, "zeros")

    def apply(
        self, layer: torch.nn.Module, x: torch.Tensor, bias: torch.Tensor | None = None
    ) -> torch.Tensor:
        rows = x.reshape(-1, x.shape[-1])
        out = int4pack.linear(
            rows,
            layer.get_parameter("qweight"),
            layer.get_parameter("scale_zero"),
            self.config.group_size,
            self._loaded_plan(),
        )
        if bias is not None:
            out = out + bias
        return out.reshape(*x.shape[:-1], out.shape[-1])

    def _loaded_plan(self) -> int4pack.KernelPlan:
        if self.plan is None:
            raise RuntimeError("W4A16 layer used before its weights were loaded")
        return self.plan


class W4A16EmbeddingMethod(W4A16LinearMethod):
    """An int4 vocabulary table: row lookups for the embedding, tinygemm for the output head."""

    def embedding(self, layer: torch.nn.Module, input_: torch.Tensor) -> torch.Tensor:
        return int4pack.gather_rows(
            layer.get_parameter("qweight"),
            layer.get_parameter("scale_zero"),
            self.config.group_size,
            input_,
            self._loaded_plan().layout,
            self.params_dtype,
        )


class Int8TableMethod(QuantizeMethodBase):
    """An int8 vocabulary table with one bf16 scale per row: row lookups for the embedding,
    our int8 kernel (torch's int8 weight-only GEMM where it does not run) for the output head."""

    def __init__(self) -> None:
        self.params_dtype = torch.bfloat16
        self.variant: cpu_kernels.Variant | None = None  # our build for the head, once loaded

    def create_weights(
        self,
        layer: torch.nn.Module,
        input_size_per_partition: int,
        output_partition_sizes: list[int],
        input_size: int,
        output_size: int,
        params_dtype: torch.dtype,
        **extra_weight_attrs: Any,
    ) -> None:
        rows = sum(output_partition_sizes)
        tensors = {
            "weight": torch.zeros(rows, input_size_per_partition, dtype=torch.int8),
            "weight_scale": torch.zeros(rows, 1, dtype=torch.bfloat16),
        }
        _register_rows(layer, tensors, extra_weight_attrs)
        self.params_dtype = params_dtype

    def process_weights_after_loading(self, layer: torch.nn.Module) -> None:
        # The GEMM takes the scales flat, in the activations' dtype (bf16 scales stay exact).
        scales = layer.get_parameter("weight_scale").data.reshape(-1).to(self.params_dtype)
        layer.register_parameter("weight_scale", Parameter(scales, requires_grad=False))
        self.variant = _table_variant(layer.get_parameter("weight").shape[1])

    def apply(
        self, layer: torch.nn.Module, x: torch.Tensor, bias: torch.Tensor | None = None
    ) -> torch.Tensor:
        rows = x.reshape(-1, x.shape[-1]).to(self.params_dtype)
        out = cpu_kernels.int8_table_mm(
            rows, layer.get_parameter("weight"), layer.get_parameter("weight_scale"), self.variant
        )
        if bias is not None:
            out = out + bias
        return out.reshape(*x.shape[:-1], out.shape[-1])

    def apply_rows(
        self, layer: torch.nn.Module, x: torch.Tensor, token_ids: torch.Tensor
    ) -> torch.Tensor:
        """x [M, K] times the table's rows `token_ids` only: [M, len(token_ids)]. On our kernel
        each product is the one `apply` gives for that row, bit for bit (a row's dot product
        does not depend on the rows beside it)."""
        rows = x.reshape(-1, x.shape[-1]).to(self.params_dtype)
        weight = layer.get_parameter("weight").index_select(0, token_ids)
        scales = layer.get_parameter("weight_scale").index_select(0, token_ids)
        return cpu_kernels.int8_table_mm(rows, weight, scales, self.variant)

    def embedding(self, layer: torch.nn.Module, input_: torch.Tensor) -> torch.Tensor:
        rows = layer.get_parameter("weight")[input_].to(self.params_dtype)
        return rows * layer.get_parameter("weight_scale")[input_].unsqueeze(-1)


def register() -> None:
    """Make both method names known to vLLM (idempotent)."""
    register_quantization_config(W4A16_METHOD)(W4A16Config)
    register_quantization_config(TINYGEMM_METHOD)(W4A16TinygemmConfig)
