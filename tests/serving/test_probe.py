"""`phone-agent probe`: what the process may use (cgroups included) and the weight-path table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from serving.quantization import hardware, timings
from serving.quantization.hardware import HardwareProfile, probe_hardware
from serving.quantization.probe import select_weight_path
from serving.quantization.timings import BuildTiming, Measurement
from tests.support.paths import REPO_ROOT

AMX_FLAGS = "fpu avx2 fma avx512f avx512_bf16 avx512_vnni amx_tile amx_bf16 amx_int8"


def fake_host(
    root: Path,
    flags: str = "fpu avx2 fma",
    cgroup: str = "0::/job\n",
    mounts: str = "30 20 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
    files: dict[str, str] | None = None,
) -> Path:
    cpu = f"processor\t: 0\nmodel name\t: Test CPU\nflags\t\t: {flags}\n\n"
    layout = {
        "proc/cpuinfo": cpu + cpu.replace(": 0", ": 1"),
        "proc/meminfo": "MemTotal:       16000000 kB\nMemAvailable:   12000000 kB\n",
        "proc/self/cgroup": cgroup,
        "proc/self/mountinfo": mounts,
        **(files or {}),
    }
    for relative, text in layout.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_plain_host_reports_flags_cores_and_memory(tmp_path: Path) -> None:
    hw = probe_hardware(fake_host(tmp_path), affinity=lambda: {0, 1}, machine="x86_64")
    assert hw.cpu_flags == ["avx2", "fma"] and not hw.has_amx
    assert hw.cores == 2 and hw.cores_online == 2 and hw.cpu_quota_cores is None
    assert hw.memory_total_bytes == 16000000 * 1024
    assert hw.memory_available_bytes == 12000000 * 1024 and hw.gpu is None


def test_cgroup_v2_quota_and_memory_limit_bind(tmp_path: Path) -> None:
    root = fake_host(
        tmp_path,
        files={
            "sys/fs/cgroup/job/cpu.max": "150000 100000\n",
            "sys/fs/cgroup/job/memory.max": str(4 * 2**30),
            "sys/fs/cgroup/job/memory.current": str(1 * 2**30),
        },
    )
    hw = probe_hardware(root, affinity=lambda: set(range(8)), machine="x86_64")
    assert hw.cpu_quota_cores == 1.5 and hw.cores == 1  # whole cores only
    assert hw.cgroup_memory_limit_bytes == 4 * 2**30
    assert hw.memory_total_bytes == 4 * 2**30 and hw.memory_available_bytes == 3 * 2**30


def test_cgroup_v1_limit_on_a_parent_applies(tmp_path: Path) -> None:
    mounts = (
        "32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
        "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
    )
    unlimited = "9223372036854771712\n"
    root = fake_host(
        tmp_path,
        cgroup="4:memory:/pool/job\n1:cpu:/pool/job\n",
        mounts=mounts,
        files={
            "sys/fs/cgroup/memory/pool/job/memory.limit_in_bytes": unlimited,
            "sys/fs/cgroup/memory/pool/job/memory.usage_in_bytes": "0\n",
            "sys/fs/cgroup/memory/pool/memory.limit_in_bytes": str(2 * 2**30),
            "sys/fs/cgroup/memory/pool/memory.usage_in_bytes": str(2**29),
            "sys/fs/cgroup/cpu/pool/job/cpu.cfs_quota_us": "-1\n",
            "sys/fs/cgroup/cpu/pool/job/cpu.cfs_period_us": "100000\n",
            "sys/fs/cgroup/cpu/pool/cpu.cfs_quota_us": "300000\n",
            "sys/fs/cgroup/cpu/pool/cpu.cfs_period_us": "100000\n",
        },
    )
    hw = probe_hardware(root, affinity=lambda: set(range(16)), machine="x86_64")
    assert hw.cores == 3 and hw.cgroup_memory_limit_bytes == 2 * 2**30
    assert hw.memory_available_bytes == 2 * 2**30 - 2**29


def _hardware(machine: str = "x86_64", flags: str = "avx2", gpu: str | None = None):
    return HardwareProfile(
        architecture=machine,
        cpu_model="test",
        cpu_flags=flags.split(),
        cores=2,
        cores_online=2,
        cpu_quota_cores=None,
        memory_total_bytes=2**34,
        memory_available_bytes=2**33,
        cgroup_memory_limit_bytes=None,
        gpu=gpu,
    )


@pytest.mark.parametrize(
    ("machine", "flags", "gpu", "priority", "scheme", "verified"),
    [
        ("x86_64", AMX_FLAGS, None, "fidelity", "w4a16", True),
        # Without timings from this machine, speed keeps W4A16: no build beats it on every CPU.
        ("x86_64", AMX_FLAGS, None, "speed", "w4a16", True),
        ("x86_64", "avx2 fma", None, "speed", "w4a16", True),
        ("x86_64", "avx2 fma", None, "fidelity", "w4a16", True),
        ("aarch64", "", None, "speed", "w4a16", False),
        ("aarch64", "", None, "fidelity", "w4a16", False),
        ("x86_64", "avx2", "NVIDIA L4", "speed", "bf16", False),
    ],
)
def test_selection_table(machine, flags, gpu, priority, scheme, verified) -> None:
    choice = select_weight_path(_hardware(machine, flags, gpu), priority)
    assert (choice.scheme, choice.verified) == (scheme, verified)
    assert choice.rationale and choice.priority == priority
    assert choice.serve_args[:2] == ["--dtype", "bfloat16"]


def test_w4a16_choice_tells_serve_which_method_to_use() -> None:
    choice = select_weight_path(_hardware(flags=AMX_FLAGS))
    assert choice.priority == "fidelity"  # the default
    assert choice.serve_args[-2:] == ["--quantization", "phone_agent_w4a16"]


def test_cli_json_has_the_documented_shape() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "agent.cli", "probe", "--json", "--priority", "speed"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert set(report) == {"hardware", "choice"}
    assert set(report["choice"]) == {"priority", "scheme", "rationale", "verified", "serve_args"}
    assert report["choice"]["priority"] == "speed"
    assert report["hardware"]["cores"] >= 1


def test_cli_starts_without_torch() -> None:
    code = (
        "import sys; sys.modules['torch'] = None; sys.modules['vllm'] = None\n"
        "from agent.cli import main; sys.exit(main(['probe']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "choice:" in result.stdout


# -- choosing from measurements ------------------------------------------------------------------


def _measurement(**decode_prefill_head: tuple[float, float, float] | None) -> Measurement:
    builds = []
    for scheme, timing in decode_prefill_head.items():
        if timing is None:
            builds.append(BuildTiming(scheme=scheme, timed=False, note="not timed"))
            continue
        decode, prefill, head = timing
        builds.append(
            BuildTiming(
                scheme=scheme,
                timed=True,
                note="test",
                layer_decode_ms=decode,
                layer_prefill_ms_per_token=prefill,
                head_ms=head,
            )
        )
    return Measurement(
        cpu_model="test",
        cpu_flags=["avx2", "fma"],
        torch_version="2.13.0+cpu",
        threads=2,
        shape="1.7b",
        layers=28,
        measured_at=datetime.now(UTC),
        seconds=1.0,
        builds=builds,
    )


def test_speed_takes_the_build_with_the_cheapest_measured_decision() -> None:
    hardware = _hardware(flags=AMX_FLAGS)
    # bf16 prefills faster, W4A16 decodes faster; a decision is mostly prefill.
    prefill_bound = _measurement(bf16=(15.0, 2.0, 100.0), w4a16=(4.0, 3.5, 16.0), w4a8=None)
    choice = select_weight_path(hardware, "speed", prefill_bound)
    assert choice.scheme == "bf16" and choice.verified
    assert "bf16" in choice.rationale and "w4a16" in choice.rationale
    decode_bound = _measurement(bf16=(15.0, 2.0, 100.0), w4a16=(4.0, 2.1, 16.0), w4a8=None)
    assert select_weight_path(hardware, "speed", decode_bound).scheme == "w4a16"
    # Fidelity does not look at timings.
    assert select_weight_path(hardware, "fidelity", prefill_bound).scheme == "w4a16"


@given(
    st.dictionaries(
        st.sampled_from(["bf16", "w4a16", "w4a8", "w8a8"]),
        st.one_of(
            st.none(),
            st.tuples(st.floats(0.01, 1e4), st.floats(0.001, 1e3), st.floats(0.01, 1e4)),
        ),
    )
)
def test_speed_never_picks_a_build_measured_slower_than_w4a16(timings: dict) -> None:
    measurement = _measurement(**timings)
    choice = select_weight_path(_hardware(flags=AMX_FLAGS), "speed", measurement)
    chosen = measurement.decision_seconds(choice.scheme)
    w4a16 = measurement.decision_seconds("w4a16")
    if w4a16 is not None:
        assert chosen is not None and chosen <= w4a16
    assert choice.scheme in {b.scheme for b in measurement.builds if b.timed} | {"w4a16"}


def test_measurements_are_kept_per_cpu_and_torch_version(tmp_path: Path) -> None:
    avx2, amx = _hardware(flags="avx2 fma"), _hardware(flags=AMX_FLAGS)
    assert timings.cache_path(avx2, tmp_path) != timings.cache_path(amx, tmp_path)
    assert timings.load_measurement(avx2, tmp_path) is None
    path = timings.cache_path(avx2, tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(_measurement(w4a16=(4.0, 3.0, 16.0)).model_dump_json())
    loaded = timings.load_measurement(avx2, tmp_path)
    assert loaded is not None and loaded.fastest() is not None
    assert timings.load_measurement(amx, tmp_path) is None
    path.write_text("{not json")
    assert timings.load_measurement(avx2, tmp_path) is None  # measured again, never a crash


def test_a_measurement_of_another_w4a16_format_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dataclasses

    from serving.quantization import quantize

    hardware = _hardware(flags="avx2 fma")
    path = timings.cache_path(hardware, tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text(_measurement(w4a16=(4.0, 3.0, 16.0)).model_dump_json())
    plan = quantize.PLANS["w4a16"]
    int4_table = dataclasses.replace(
        plan, quantization_config=lambda size: {**plan.quantization_config(size), "table_bits": 4}
    )
    monkeypatch.setitem(quantize.PLANS, "w4a16", int4_table)
    assert timings.load_measurement(hardware, tmp_path) is None  # its head ran another kernel


def test_cli_speed_choice_reads_the_cached_measurement(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from serving.quantization import hardware, timings\n"
        "print(timings.cache_path(hardware.probe_hardware()))"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    located = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT, env=env
    )
    path = Path(located.stdout.strip())
    path.parent.mkdir(parents=True)
    path.write_text(_measurement(bf16=(1.0, 0.1, 1.0), w4a16=(4.0, 3.0, 16.0)).model_dump_json())
    result = subprocess.run(
        [sys.executable, "-m", "agent.cli", "probe", "--json", "--priority", "speed"],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["choice"]["scheme"] == "bf16"


def test_timing_a_build_times_one_layer_and_the_head() -> None:
    pytest.importorskip("torch")
    from serving.checkpoint import spark_config
    from serving.quantization import measure

    config = spark_config("tiny")
    for scheme in ("bf16", "w4a16"):
        timing = measure.time_build(scheme, config, prefill_rows=8, repeat=1)
        assert timing.timed and timing.layer_decode_ms and timing.head_ms
        assert timing.layer_prefill_ms_per_token and timing.layer_prefill_ms_per_token > 0
    # vLLM's W4A8 kernel is timed where vLLM serves GPTQ that way (AMX); elsewhere it says why
    w4a8 = measure.time_build("w4a8", config, prefill_rows=8, repeat=1)
    if measure._w4a8_unavailable() is None:
        assert w4a8.timed and w4a8.layer_decode_ms and w4a8.layer_prefill_ms_per_token
    else:
        assert not w4a8.timed and w4a8.note == measure.NO_W4A8
    untimed = measure.time_build("w8a8", config)
    assert not untimed.timed and "bench serving" in untimed.note


def test_the_decision_the_probe_weighs_is_a_later_step_and_a_call_not_decode_alone() -> None:
    # W4A8 decodes faster than W4A16 here but prefills much slower: over a decision (the
    # uncached part of a later step's prompt, then a 24-token call) W4A16 is cheaper.
    measurement = _measurement(w4a16=(4.0, 1.0, 16.0), w4a8=(3.0, 1.6, 12.0))
    w4a8, w4a16 = measurement.decision_seconds("w4a8"), measurement.decision_seconds("w4a16")
    assert w4a8 is not None and w4a16 is not None and w4a8 > w4a16
    assert select_weight_path(_hardware(flags=AMX_FLAGS), "speed", measurement).scheme == "w4a16"
    assert (timings.DECISION_PROMPT_TOKENS, timings.DECISION_REPLY_TOKENS) == (256, 24)


def test_probe_measure_prints_the_timings_and_chooses_from_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("torch")
    from agent.cli import main
    from serving.quantization import measure

    made = _measurement(bf16=(20.0, 3.0, 90.0), w4a16=(4.0, 1.0, 16.0), w4a8=None)

    def fake_measure(hardware: HardwareProfile, **_: object) -> Measurement:
        path = timings.cache_path(hardware)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(made.model_dump_json())
        return made

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(measure, "measure", fake_measure)
    # A CPU-only host wherever the test runs: with a CUDA GPU the probe rightly picks bf16.
    monkeypatch.setattr(hardware, "probe_hardware", lambda: _hardware(flags="avx2 fma"))
    assert main(["probe", "--measure", "--priority", "speed"]) == 0
    text = capsys.readouterr().out
    assert "w4a16" in text and "not timed" in text and "choice:  w4a16 for speed" in text
    assert main(["probe", "--measure", "--priority", "speed", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["choice"]["scheme"] == "w4a16"
    assert [b["scheme"] for b in report["measurement"]["builds"]] == ["bf16", "w4a16", "w4a8"]
