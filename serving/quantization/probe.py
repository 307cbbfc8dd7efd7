"""Which weight path to serve Spark with on this machine.

The hardware comes from `hardware.probe_hardware()`. The selection is a small table whose rows
say why they were chosen and whether they were verified on real hardware; for speed on a CPU,
the timings `probe --measure` made on this machine (`timings`) decide instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from serving.quantization import hardware
from serving.quantization.hardware import HardwareProfile
from serving.quantization.timings import Measurement, load_measurement
from serving.schemes import Scheme, serve_args

Priority = Literal["fidelity", "speed"]
DEFAULT_PRIORITY: Priority = "fidelity"


class WeightChoice(BaseModel):
    priority: Priority
    scheme: Scheme
    rationale: str
    verified: bool
    serve_args: list[str]


class ProbeReport(BaseModel):
    hardware: HardwareProfile
    choice: WeightChoice


# ---------------------------------------------------------------------------------------------
# Selection


@dataclass(frozen=True)
class SelectionRule:
    """One row of the weight-path table."""

    name: str
    applies: Callable[[HardwareProfile, Priority], bool]
    scheme: Scheme
    rationale: str
    verified: bool


SELECTION_TABLE: tuple[SelectionRule, ...] = (
    SelectionRule(
        "cuda-gpu",
        lambda hw, priority: hw.gpu is not None,
        "bf16",
        "a CUDA GPU serves bf16 at full fidelity; the 4-bit CPU kernels do not apply",
        False,
    ),
    SelectionRule(
        "arm64",
        lambda hw, priority: hw.is_arm,
        "w4a16",
        "torch's int4 kernel has an ARM implementation; this vLLM path is not measured on ARM",
        False,
    ),
    SelectionRule(
        "x86-fidelity",
        lambda hw, priority: hw.is_x86 and priority == "fidelity",
        "w4a16",
        "4-bit weights with an 8-bit vocabulary table, bf16 activations: decode reads under a "
        "third of bf16's weight bytes while activations keep full precision; agentic work needs "
        "the build that keeps a finished task finished",
        True,
    ),
    SelectionRule(
        "x86-speed-unmeasured",
        lambda hw, priority: hw.is_x86,
        "w4a16",
        "speed is chosen from timings made on this machine, and there are none yet (run "
        "`phone-agent probe --measure`, about a minute); until then W4A16, since the build "
        "that wins differs between CPUs (W4A8 decoded slower than bf16 on one AVX-512 CPU)",
        True,
    ),
    SelectionRule(
        "other-cpu",
        lambda hw, priority: True,
        "w4a16",
        "torch's int4 kernel has a portable implementation; not measured on this architecture",
        False,
    ),
)


def select_weight_path(
    hardware: HardwareProfile,
    priority: Priority = DEFAULT_PRIORITY,
    measurement: Measurement | None = None,
) -> WeightChoice:
    """For speed on a CPU, the build whose timed decision is cheapest on this machine; else the
    first table row that applies to this hardware and priority."""
    if priority == "speed" and hardware.gpu is None and measurement is not None:
        fastest = measurement.fastest()
        if fastest is not None:
            return _measured_choice(measurement, fastest[0])
    rule = next(rule for rule in SELECTION_TABLE if rule.applies(hardware, priority))
    return WeightChoice(
        priority=priority,
        scheme=rule.scheme,
        rationale=rule.rationale,
        verified=rule.verified,
        serve_args=serve_args(rule.scheme),
    )


def _measured_choice(measurement: Measurement, scheme: Scheme) -> WeightChoice:
    costs = ", ".join(
        f"{build.scheme} {cost:.1f} s"
        for build in measurement.builds
        if (cost := measurement.decision_seconds(build.scheme)) is not None
    )
    return WeightChoice(
        priority="speed",
        scheme=scheme,
        rationale=f"the cheapest agent decision measured on this machine ({costs} of matrix "
        "time each; builds the probe cannot time are never preferred)",
        verified=True,
        serve_args=serve_args(scheme),
    )


def probe(priority: Priority = DEFAULT_PRIORITY) -> ProbeReport:
    machine = hardware.probe_hardware()
    measurement = load_measurement(machine) if priority == "speed" else None
    return ProbeReport(hardware=machine, choice=select_weight_path(machine, priority, measurement))
