"""`probe --measure`: time each weight build's matrix kernels on this machine, once, and keep it.

The probe's table says what a CPU class should serve; only a measurement says what is fastest on
this machine (on one AVX-512 CPU the W4A8 build decoded slower than bf16). Each build that can be
timed with its serving kernels alone is timed on the matrices of one decoder layer and of the
output head at the 1.7B shape, with random weights:

- `bf16`: the layer's weights in bf16, multiplied as vLLM multiplies unquantized weights;
- `w4a16`: the weights in torch's int4 layout on this process's `KernelPlan` (our AVX2 kernel
  or torch's for few rows, dequantize + GEMM for many), as our vLLM method runs them; its head
  is the int8 table on the kernel that method picks (ours where it loads, torch's int8 GEMM
  elsewhere);
- `w4a8` (on AMX, where vLLM serves GPTQ that way): random GPTQ words converted as our vLLM
  worker converts them (`w4a8_layout`, through vLLM's own packing op), multiplied by vLLM's
  `int4_scaled_mm_cpu`, which quantizes the activations to int8 on the fly; its head is an
  int4 layer too.

W8A8 runs on a vLLM kernel whose weights only vLLM's loader prepares; the probe does not time
it (`bench serving` does, through a real server), so a choice made from measurements never
prefers it.

From the timings, the cost of one agent decision, never decode alone: the prefill of a later
step's prompt tokens that are not in the prefix cache, then a tool call decoded token by token
(vLLM computes the output head for the last prompt position only). The result is cached per CPU
(model and flags) and torch and vLLM version, since they decide which kernels run.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import torch

from serving.checkpoint import Shape, SparkConfig, spark_config
from serving.quantization import cpu_kernels, int4pack
from serving.quantization.hardware import HardwareProfile
from serving.quantization.timings import BuildTiming, Matrix, Measurement, cache_path
from serving.schemes import SCHEMES, Scheme

MEASURED_SHAPE: Shape = "1.7b"
GROUP_SIZE = 128  # what `phone-agent quantize` writes by default
PREFILL_ROWS = 256
# The fastest of a few calls: on a shared machine a call that loses a core to another process
# is slow by a large factor (OpenMP threads wait on each other), and the least disturbed call
# is the one that says what the kernel costs.
REPEAT = 5


def layer_matrices(config: SparkConfig) -> list[Matrix]:
    """The matrices of one token as vLLM runs them (q/k/v and gate/up each fused)."""
    layers, hidden = config.num_hidden_layers, config.hidden_size
    attention = config.num_attention_heads * config.head_dim
    qkv = (config.num_attention_heads + 2 * config.num_key_value_heads) * config.head_dim
    return [
        Matrix(name="q_k_v_proj", rows=qkv, columns=hidden, per_token=layers),
        Matrix(name="out_proj", rows=hidden, columns=attention, per_token=layers),
        Matrix(
            name="gate_up_proj", rows=2 * config.intermediate_size, columns=hidden, per_token=layers
        ),
        Matrix(name="down_proj", rows=hidden, columns=config.intermediate_size, per_token=layers),
    ]


def head_matrix(config: SparkConfig) -> Matrix:
    return Matrix(
        name="output_head", rows=config.vocab_size, columns=config.hidden_size, per_token=1
    )


Multiply = Callable[[torch.Tensor], torch.Tensor]


def _bf16_kernel(matrix: Matrix, generator: torch.Generator) -> Multiply:
    weight = (torch.randn(matrix.rows, matrix.columns, generator=generator) * 0.02).bfloat16()
    return lambda x: torch.nn.functional.linear(x, weight)


def random_int4_weight(
    matrix: Matrix, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random int4 weights of the matrix's shape in torch's packed layout, with their scales
    and zeros in groups of GROUP_SIZE: what the W4A16 kernels multiply."""
    values = torch.randint(
        0, 16, (matrix.rows, matrix.columns), dtype=torch.uint8, generator=generator
    )
    groups = matrix.columns // GROUP_SIZE
    scales = torch.rand(matrix.rows, groups, generator=generator) * 0.02
    zeros = torch.randn(matrix.rows, groups, generator=generator) * 0.02
    packed = int4pack.repack_rows_(int4pack.pack_portable(values))
    return packed, int4pack.scales_and_zeros(scales, zeros)


def _w4a16_kernel(matrix: Matrix, generator: torch.Generator) -> Multiply:
    packed, scale_zero = random_int4_weight(matrix, generator)
    plan = int4pack.machine_plan("adaptive", torch.bfloat16)
    return lambda x: int4pack.linear(x, packed, scale_zero, GROUP_SIZE, plan)


def random_int8_table(
    matrix: Matrix, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """A random int8 table of the matrix's shape and its bf16 scale per row."""
    weight = torch.randint(
        -127, 128, (matrix.rows, matrix.columns), dtype=torch.int8, generator=generator
    )
    return weight, (torch.rand(matrix.rows, generator=generator) * 0.001).bfloat16()


def _int8_table_multiply(matrix: Matrix, generator: torch.Generator) -> Multiply:
    """The int8 table on the kernel our vLLM method picks for it in this process."""
    weight, scales = random_int8_table(matrix, generator)
    variant = cpu_kernels.int8_table_kernel(matrix.columns).variant
    return lambda x: cpu_kernels.int8_table_mm(x, weight, scales, variant)


UNTIMED: dict[Scheme, str] = {
    "w8a8": "not timed: vLLM's int8 kernel needs weights prepared by vLLM's loader "
    "(`bench serving` measures it through a server)",
}
NO_W4A8 = (
    "not timed: vLLM serves GPTQ as W4A8 on AMX only, and this CPU or this install has no AMX "
    "W4A8 kernel"
)


def _w4a8_unavailable() -> str | None:
    """Why vLLM's W4A8 kernel cannot be timed in this process, or None."""
    from serving.vllm_plugin.amx import request_amx_tiles

    if not request_amx_tiles() or not torch.cpu._is_amx_tile_supported():
        return NO_W4A8
    try:
        from vllm import _custom_ops  # noqa: F401 (registers torch.ops._C)
    except ImportError:
        return NO_W4A8
    return None


def _w4a8_kernel(matrix: Matrix, generator: torch.Generator) -> Multiply:
    """Random symmetric GPTQ weights, converted and multiplied as vLLM serves W4A8."""
    from vllm import _custom_ops as ops

    from serving.quantization.w4a8_layout import convert_in_blocks

    qweight = torch.randint(
        -(2**31),
        2**31 - 1,
        (matrix.columns // 8, matrix.rows),
        dtype=torch.int32,
        generator=generator,
    )
    scales = (
        torch.rand(matrix.columns // GROUP_SIZE, matrix.rows, generator=generator) * 0.02
    ).bfloat16()

    def pack(
        weight: torch.Tensor, zeros: torch.Tensor, group_scales: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        packed: tuple[torch.Tensor, torch.Tensor, torch.Tensor] = (
            ops.convert_weight_packed_scale_zp(weight, zeros, group_scales, ops.CPUQuantAlgo.AWQ)
        )
        return packed

    weight, zeros, blocked_scales = convert_in_blocks(qweight, scales, None, pack)
    return lambda x: ops.int4_scaled_mm_cpu(x, weight, zeros, blocked_scales, None)


KERNELS: dict[Scheme, Callable[[Matrix, torch.Generator], Multiply]] = {
    "bf16": _bf16_kernel,
    "w4a16": _w4a16_kernel,
    "w4a8": _w4a8_kernel,
}
# Where a build's output head runs on another kernel than its layers.
HEAD_KERNELS: dict[Scheme, Callable[[Matrix, torch.Generator], Multiply]] = {
    "w4a16": _int8_table_multiply,
}


def _fastest_ms(call: Callable[[], object], repeat: int) -> float:
    call()  # warm-up: first touch of buffers, lazy initialisation
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1000)
    return min(samples)


def time_build(
    scheme: Scheme,
    config: SparkConfig,
    prefill_rows: int = PREFILL_ROWS,
    repeat: int = REPEAT,
    progress: Callable[[str], None] = lambda message: None,
) -> BuildTiming:
    """One build's kernels on one layer's matrices and on the head."""
    build = KERNELS.get(scheme)
    if build is None:
        return BuildTiming(scheme=scheme, timed=False, note=UNTIMED[scheme])
    if scheme == "w4a8" and (unavailable := _w4a8_unavailable()) is not None:
        return BuildTiming(scheme=scheme, timed=False, note=unavailable)
    generator = torch.Generator().manual_seed(0)
    decode_ms = prefill_ms = 0.0
    for matrix in layer_matrices(config):
        progress(f"{scheme}: {matrix.name} {matrix.rows}x{matrix.columns}")
        multiply = build(matrix, generator)
        one = torch.randn(1, matrix.columns, generator=generator).bfloat16()
        many = torch.randn(prefill_rows, matrix.columns, generator=generator).bfloat16()
        decode_ms += _fastest_ms(functools.partial(multiply, one), repeat)
        prefill_ms += _fastest_ms(functools.partial(multiply, many), repeat)
        del multiply
    head = head_matrix(config)
    progress(f"{scheme}: {head.name} {head.rows}x{head.columns}")
    multiply = HEAD_KERNELS.get(scheme, build)(head, generator)
    row = torch.randn(1, head.columns, generator=generator).bfloat16()
    head_ms = _fastest_ms(functools.partial(multiply, row), repeat)
    return BuildTiming(
        scheme=scheme,
        timed=True,
        note=f"one layer at 1 and {prefill_rows} rows, the head at 1 row; fastest of {repeat}",
        layer_decode_ms=round(decode_ms, 3),
        layer_prefill_ms_per_token=round(prefill_ms / prefill_rows, 4),
        head_ms=round(head_ms, 3),
    )


def measure(
    hardware: HardwareProfile,
    shape: Shape = MEASURED_SHAPE,
    prefill_rows: int = PREFILL_ROWS,
    repeat: int = REPEAT,
    progress: Callable[[str], None] = lambda message: None,
    root: Path | None = None,
) -> Measurement:
    """Time every build that can be timed here and write the result to the cache."""
    config = spark_config(shape)
    started = time.monotonic()
    builds = [time_build(s, config, prefill_rows, repeat, progress) for s in SCHEMES]
    measurement = Measurement(
        cpu_model=hardware.cpu_model,
        cpu_flags=hardware.cpu_flags,
        torch_version=torch.__version__,
        threads=torch.get_num_threads(),
        shape=shape,
        layers=config.num_hidden_layers,
        measured_at=datetime.now(UTC),
        seconds=round(time.monotonic() - started, 1),
        builds=builds,
    )
    path = cache_path(hardware, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(measurement.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return measurement
