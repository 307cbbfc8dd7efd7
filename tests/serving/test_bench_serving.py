"""`bench serving`: ratios to bf16, the four-bit targets, the concurrency sweep, the command."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agent.cli import main
from serving.bench import llamacpp, parse_counts, schemes
from serving.bench.builds import ReadBandwidth, decode_read_bytes, measure_read_bandwidth
from serving.bench.llamacpp import PAIRED_SCHEME, PeerMeasurement
from serving.bench.schemes import SchemeMeasurement, ServingBenchSettings

GIB = 2**30


def _measured(scheme: str, decode: float, settled_gib: float, prefill: float = 300.0) -> Any:
    return SchemeMeasurement(
        scheme=scheme,
        checkpoint_bytes=GIB,
        load_seconds=10.0,
        peak_rss_anon_bytes=int(2 * settled_gib * GIB),
        settled_rss_anon_bytes=int(settled_gib * GIB) + GIB,  # API server and engine core
        peak_worker_rss_anon_bytes=int(1.5 * settled_gib * GIB),
        settled_worker_rss_anon_bytes=int(settled_gib * GIB),
        prefill_tokens_per_s=prefill,
        decode_tokens_per_s=decode,
        decode_runs=[decode],
    )


def _failed(scheme: str, error: str = "the server exited") -> SchemeMeasurement:
    return SchemeMeasurement(scheme=scheme, checkpoint_bytes=GIB, error=error)


def test_ratios_are_against_the_bf16_row_and_the_targets_are_judged_on_w4a16() -> None:
    rows = schemes.with_ratios([_measured("bf16", 4.0, 6.0), _measured("w4a16", 8.0, 2.4, 150.0)])
    assert [
        (r.decode_vs_bf16, r.settled_worker_rss_vs_bf16, r.settled_rss_vs_bf16, r.prefill_vs_bf16)
        for r in rows
    ] == [(1.0, 1.0, 1.0, 1.0), (2.0, 0.4, 0.486, 0.5)]
    checks = schemes.target_checks(rows)
    assert [(c.measured, c.comparison, c.target, c.met) for c in checks] == [
        (2.0, ">=", 1.8, True),
        (0.4, "<=", 0.45, True),
    ]


def test_decode_bandwidth_is_bytes_per_token_times_tokens_per_second_against_the_machine() -> None:
    bf16 = _measured("bf16", 7.5, 6.0).model_copy(update={"decode_read_bytes": 3_415_000_000})
    w4a16 = _measured("w4a16", 12.9, 2.0).model_copy(update={"decode_read_bytes": 1_034_000_000})
    unknown = _measured("w4a8", 14.6, 3.0)  # bytes per token not known: no figure, no guess
    rows = schemes.with_ratios([bf16, w4a16, unknown], read_gb_per_s=24.2)
    assert [(r.decode_gb_per_s, r.decode_vs_read_bandwidth) for r in rows] == [
        (25.61, 1.058),
        (13.34, 0.551),
        (None, None),
    ]
    report = schemes.ServingBenchReport(
        settings=ServingBenchSettings(
            shape="tiny", schemes=[], runs=1, decode_tokens=4, prefill_tokens=8, concurrency=[1]
        ),
        read_bandwidth=ReadBandwidth(gb_per_s=24.2, threads=2, buffer_bytes=512 * 2**20, runs=5),
        rows=rows,
        concurrency=schemes.ConcurrencySweep(scheme=None, error="none"),
        peer=[],
        targets=[],
        not_measured=[],
    )
    text = schemes.render_text(report)
    assert "memory read bandwidth: 24.2 GB/s (512 MiB summed on 2 threads" in text
    assert "| 13.3 (55%) |" in text


def _safetensors(path: Path, tensors: dict[str, int]) -> None:
    """A safetensors file of uint8 tensors of the given byte sizes."""
    header: dict[str, Any] = {}
    offset = 0
    for name, size in tensors.items():
        header[name] = {"dtype": "U8", "shape": [size], "data_offsets": [offset, offset + size]}
        offset += size
    encoded = json.dumps(header).encode()
    path.write_bytes(len(encoded).to_bytes(8, "little") + encoded + bytes(offset))


def test_a_token_reads_the_tied_table_as_its_head_and_an_untied_head_instead_of_the_table(
    tmp_path: Path,
) -> None:
    tied, untied = tmp_path / "tied", tmp_path / "untied"
    tied.mkdir()
    untied.mkdir()
    layers = {"model.layers.0.mlp.down_proj.weight": 300, "model.norm.weight": 4}
    _safetensors(tied / "model.safetensors", {"model.embedding.weight": 1000, **layers})
    _safetensors(untied / "model-00001.safetensors", {"model.embedding.weight": 1000, **layers})
    _safetensors(untied / "model-00002.safetensors", {"lm_head.qweight": 250, "lm_head.scales": 8})
    assert decode_read_bytes(tied) == 1304
    assert decode_read_bytes(untied) == 304 + 258  # the lookup reads one row of the table


def test_read_bandwidth_is_measured_on_the_threads_asked_for() -> None:
    measured = measure_read_bandwidth(threads=2, buffer_bytes=8 * 2**20, runs=2)
    assert (measured.threads, measured.buffer_bytes, measured.runs) == (2, 8 * 2**20, 2)
    assert measured.gb_per_s > 0


def test_a_target_missed_is_reported_as_not_met() -> None:
    rows = schemes.with_ratios([_measured("bf16", 4.0, 6.0), _measured("w4a16", 6.0, 3.0)])
    assert [(c.measured, c.met) for c in schemes.target_checks(rows)] == [
        (1.5, False),
        (0.5, False),
    ]


@pytest.mark.parametrize(
    "measurements",
    [
        [_failed("bf16"), _measured("w4a16", 8.0, 2.4)],  # no reference
        [_measured("bf16", 4.0, 6.0), _failed("w4a16")],  # no four-bit numbers
        [_measured("bf16", 4.0, 6.0), _measured("w8a8", 6.0, 3.0)],  # w4a16 not requested
    ],
)
def test_a_target_without_both_numbers_is_not_measured_never_met(
    measurements: list[SchemeMeasurement],
) -> None:
    rows = schemes.with_ratios(measurements)
    assert all(c.measured is None and c.met is None for c in schemes.target_checks(rows))


def test_the_fastest_scheme_is_the_best_decode_among_rows_that_did_not_fail() -> None:
    rows = [_measured("bf16", 4.0, 6.0), _failed("w4a8"), _measured("w8a8", 6.5, 3.0)]
    assert schemes.fastest_scheme(rows) == "w8a8"
    assert schemes.fastest_scheme([_failed("bf16")]) is None


def test_failure_cause_is_the_first_exception_logged_as_an_error() -> None:
    log = (
        "(APIServer pid=1) WARNING a limit can cause `OSError: [Errno 24] Too many open files`\n"
        "(Worker pid=3) ERROR 11-29 15:35:35 [executor.py:1063] AttributeError: '_OpNamespace' "
        "'_C' object has no attribute 'cpu_gemm_wna16'\n"
        "(EngineCore pid=2) ERROR 11-29 15:35:35 [core.py:1512] RuntimeError: Worker failed\n"
        "(APIServer pid=1) ERROR 11-29 15:35:35 [async_llm.py:906] "
        "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.\n"
    )
    assert schemes.failure_cause(log) == (
        "AttributeError: '_OpNamespace' '_C' object has no attribute 'cpu_gemm_wna16'"
    )


def test_failure_cause_falls_back_to_a_bare_traceback_and_else_to_nothing() -> None:
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "x.py", line 1, in <module>\n'
        "ModuleNotFoundError: No module named 'vllm'\n"
    )
    assert schemes.failure_cause(traceback) == "ModuleNotFoundError: No module named 'vllm'"
    assert schemes.failure_cause("INFO all good\n") is None


def test_scheme_and_stream_lists_are_checked_and_normalised() -> None:
    assert schemes.parse_schemes("w4a16, bf16,w4a16") == ["w4a16", "bf16"]
    assert parse_counts("8,1,2,2") == [1, 2, 8]
    assert schemes.parse_peer_formats("q4_k_m,F16") == ["Q4_K_M", "F16"]
    with pytest.raises(ValueError, match="unknown GGUF format 'Q2_K'"):
        schemes.parse_peer_formats("Q2_K")
    with pytest.raises(ValueError, match="unknown scheme 'w2a2'"):
        schemes.parse_schemes("bf16,w2a2")
    with pytest.raises(ValueError, match="at least 1"):
        parse_counts("0,1")


@pytest.mark.parametrize(
    "argument",
    [
        ["--schemes", "bf16,int3"],
        ["--concurrency", "1,x"],
        ["--runs", "0"],
        ["--peer-formats", "Q3_K"],
    ],
)
def test_bad_options_exit_2_with_one_line(
    argument: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "serving", *argument]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


class _FakeBackend:
    """Builds fail for the schemes in `unbuildable`; measurement and sweep use canned numbers."""

    def __init__(
        self,
        measured: dict[str, SchemeMeasurement],
        unbuildable: set[str],
        peer: dict[str, PeerMeasurement] | None = None,
    ) -> None:
        self._measured = measured
        self._unbuildable = unbuildable
        self._peer = peer
        self.measured_schemes: list[str] = []
        self.served: list[tuple[str, int]] = []
        self.peer_formats: list[str] = []

    def prepare(self, scheme: str) -> SchemeMeasurement:
        if scheme in self._unbuildable:
            return SchemeMeasurement(scheme=scheme, error="quantizing failed: disk full")
        return SchemeMeasurement(scheme=scheme, checkpoint_bytes=GIB)

    def read_bandwidth(self) -> ReadBandwidth:
        return ReadBandwidth(gb_per_s=20.0, threads=2, buffer_bytes=512 * 2**20, runs=5)

    def measure(self, builds: Sequence[SchemeMeasurement]) -> list[SchemeMeasurement]:
        self.measured_schemes = [b.scheme for b in builds]
        return [self._measured[b.scheme] for b in builds]

    @contextmanager
    def serve(self, scheme: str, max_streams: int) -> Iterator[tuple[str, str]]:
        self.served.append((scheme, max_streams))
        with _completions_server(seconds_per_token=0.001) as base_url:
            yield base_url, scheme

    def peer_unavailable(self) -> str | None:
        return None if self._peer is not None else "llama_cpp not installed"

    def measure_peer(self, formats: Sequence[str]) -> list[PeerMeasurement]:
        assert self._peer is not None
        self.peer_formats = list(formats)
        return [self._peer[f] for f in formats]


def test_a_failed_scheme_keeps_its_row_and_the_sweep_runs_on_the_fastest() -> None:
    backend = _FakeBackend(
        {
            "bf16": _measured("bf16", 4.0, 6.0),
            "w4a16": _measured("w4a16", 7.6, 3.0),
            "w4a8": _failed("w4a8", "the server exited: AttributeError: cpu_gemm_wna16"),
        },
        unbuildable={"w8a8"},
    )
    settings = ServingBenchSettings(
        shape="tiny",
        schemes=["bf16", "w4a16", "w4a8", "w8a8"],
        runs=1,
        decode_tokens=4,
        prefill_tokens=8,
        concurrency=[1, 2],
    )
    report = schemes.run_serving_bench(backend, settings)
    assert backend.measured_schemes == ["bf16", "w4a16", "w4a8"]  # w8a8 never reached a server
    assert [(r.scheme, r.error is None) for r in report.rows] == [
        ("bf16", True),
        ("w4a16", True),
        ("w4a8", False),
        ("w8a8", False),
    ]
    assert backend.served == [("w4a16", 2)]
    assert [p.streams for p in report.concurrency.points] == [1, 2]
    assert [(c.measured, c.met) for c in report.targets] == [(1.9, True), (0.5, False)]
    assert any("llama.cpp" in item for item in report.not_measured)
    assert any(item.startswith("w8a8: quantizing failed") for item in report.not_measured)
    text = schemes.render_text(report)
    assert "failed: the server exited: AttributeError: cpu_gemm_wna16" in text
    assert "NOT met" in text and "not measured: llama.cpp" in text


def _peer(peer_format: Any, prefill: float, decode: float) -> PeerMeasurement:
    return PeerMeasurement(
        format=peer_format,
        paired_scheme=PAIRED_SCHEME[peer_format],
        gguf_bytes=GIB,
        load_seconds=1.0,
        peak_rss_anon_bytes=GIB,
        settled_rss_anon_bytes=GIB,
        prefill_tokens_per_s=prefill,
        decode_tokens_per_s=decode,
        decode_runs=[decode],
    )


def test_the_peer_rows_are_set_against_our_build_of_the_same_width() -> None:
    backend = _FakeBackend(
        {"bf16": _measured("bf16", 4.0, 6.0, 300.0), "w4a16": _measured("w4a16", 8.0, 2.4, 150.0)},
        unbuildable=set(),
        peer={
            "F16": _peer("F16", 50.0, 4.0),
            "Q8_0": _peer("Q8_0", 60.0, 6.0),
            "Q4_K_M": _peer("Q4_K_M", 100.0, 10.0),
        },
    )
    settings = ServingBenchSettings(
        shape="tiny",
        schemes=["bf16", "w4a16"],
        runs=1,
        decode_tokens=4,
        prefill_tokens=8,
        concurrency=[1],
    )
    report = schemes.run_serving_bench(backend, settings)
    assert backend.peer_formats == ["F16", "Q8_0", "Q4_K_M"]
    assert [
        (p.format, p.paired_scheme, p.prefill_ours_vs_peer, p.decode_ours_vs_peer)
        for p in report.peer
    ] == [
        ("F16", "bf16", 6.0, 1.0),
        ("Q8_0", "w8a8", None, None),  # w8a8 not in this run: no ratio, never a guess
        ("Q4_K_M", "w4a16", 1.5, 0.8),
    ]
    assert not any("llama.cpp" in item for item in report.not_measured)
    text = schemes.render_text(report)
    assert "| Q4_K_M | w4a16 | 1.00 | 1.0 | 1.00 / 1.00 | 100.0 | 10.00 | 1.50x | 0.80x |" in text


def test_a_peer_format_that_fails_is_a_row_with_its_cause_and_no_peer_is_said_so() -> None:
    crashed = PeerMeasurement(format="Q8_0", paired_scheme="w8a8", error="crashed (SIGSEGV)")
    measured = {"bf16": _measured("bf16", 4.0, 6.0)}
    settings = ServingBenchSettings(
        shape="tiny", schemes=["bf16"], runs=1, decode_tokens=4, prefill_tokens=8, concurrency=[1]
    )
    with_peer = _FakeBackend(
        measured, set(), peer={"F16": _peer("F16", 50.0, 4.0), "Q8_0": crashed}
    )
    report = schemes.run_serving_bench(
        with_peer, settings.model_copy(update={"peer_formats": ["F16", "Q8_0"]})
    )
    assert [p.error for p in report.peer] == [None, "crashed (SIGSEGV)"]
    assert "llama.cpp Q8_0: crashed (SIGSEGV)" in report.not_measured
    assert "| Q8_0 | w8a8 | failed: crashed (SIGSEGV) |" in schemes.render_text(report)

    unwanted = schemes.run_serving_bench(
        _FakeBackend(measured, set()), settings.model_copy(update={"peer_formats": []})
    )
    assert unwanted.peer == [] and "llama.cpp peer: not requested" in unwanted.not_measured


class _StepClock:
    """A perf_counter that moves only when the fake server says time has passed, so a rate
    computed from it is exact however busy the machine is."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@contextmanager
def _completions_server(
    seconds_per_token: float, seconds_to_start: float = 0.0, clock: _StepClock | None = None
) -> Iterator[str]:
    """An OpenAI-style /v1/completions that takes `seconds_to_start` (the prompt's time), then
    `seconds_per_token` per requested token: slept, or added to `clock` where one is given."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seconds = seconds_to_start + body["max_tokens"] * seconds_per_token
            if clock is None:
                time.sleep(seconds)
            else:
                clock.advance(seconds)
            reply = json.dumps({"usage": {"completion_tokens": body["max_tokens"]}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        thread.join()


def test_simultaneous_streams_add_up_in_the_aggregate_rate() -> None:
    with _completions_server(seconds_per_token=0.01) as base_url:
        points = schemes.measure_concurrency(base_url, "m", [1, 4], decode_tokens=20, runs=3)
    single, four = points
    # One stream alone: ~100 tok/s. Four served in parallel: each as fast, four times the total.
    assert single.aggregate_tokens_per_s == pytest.approx(single.per_stream_tokens_per_s, rel=0.2)
    assert four.aggregate_tokens_per_s > 2.5 * single.aggregate_tokens_per_s
    assert four.per_stream_tokens_per_s == pytest.approx(single.per_stream_tokens_per_s, rel=0.5)


@pytest.fixture
def builds_clock(monkeypatch: pytest.MonkeyPatch) -> _StepClock:
    """The bench's own clock, moved only by the fake server; the HTTP client and pytest keep
    the real one."""
    import types

    from serving.bench import builds

    clock = _StepClock()
    builds_time = types.SimpleNamespace(**{n: getattr(time, n) for n in dir(time) if n[0] != "_"})
    builds_time.perf_counter = clock
    monkeypatch.setattr(builds, "time", builds_time)
    return clock


def test_decode_rate_leaves_out_the_prompt_and_the_first_token(builds_clock: _StepClock) -> None:
    # 0.3 s before the first token, then 0.01 s a token: 100 tok/s of decode. A rate taken
    # over the whole request would say 58 for 41 tokens.
    import random

    import httpx

    from serving.bench import builds

    with (
        _completions_server(0.01, seconds_to_start=0.3, clock=builds_clock) as url,
        httpx.Client(base_url=url) as client,
    ):
        rate = builds.measure_decode(client, "m", random.Random(0), 41)
    assert rate == pytest.approx(100, rel=1e-9)


def test_a_completion_too_short_to_time_says_so_instead_of_a_rate(
    builds_clock: _StepClock,
) -> None:
    import random

    import httpx

    from serving.bench import builds

    with (
        _completions_server(0.0, seconds_to_start=0.3, clock=builds_clock) as url,
        httpx.Client(base_url=url) as client,
        pytest.raises(RuntimeError, match="too few tokens to time"),
    ):
        builds.measure_decode(client, "m", random.Random(0), 8)


def test_a_group_sample_sums_its_processes_and_names_the_largest_the_worker() -> None:
    import subprocess
    import sys

    from serving.bench.builds import rss_anon_bytes, sample_group

    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; b = bytearray(256 << 20); sys.stdin.read()"],
        stdin=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while rss_anon_bytes(holder.pid) < 256 << 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        own, held = rss_anon_bytes(os.getpid()), rss_anon_bytes(holder.pid)
        sample = sample_group([os.getpid(), holder.pid, 2**22 + 7])  # the last one: no process
    finally:
        holder.communicate(b"")
    assert held >= 256 << 20
    assert sample.worker == pytest.approx(max(own, held), rel=0.05)
    assert sample.total == pytest.approx(own + held, rel=0.05)


def _cpu_has_avx512() -> bool:
    return "avx512f" in Path("/proc/cpuinfo").read_text()


@pytest.mark.slow
@pytest.mark.timeout(1800)  # serves each tiny build in turn
def test_bench_serving_measures_tiny_builds_and_reports_what_cannot_serve(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = ["bench", "serving", "--shape", "tiny", "--schemes", "bf16,w4a8", "--runs", "1"]
    options = ["--decode-tokens", "32", "--prefill-tokens", "32", "--concurrency", "1,2"]
    assert main([*command, *options, "--work-dir", str(tmp_path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    bf16, w4a8 = report["rows"]
    assert (bf16["scheme"], w4a8["scheme"]) == ("bf16", "w4a8")
    assert bf16["error"] is None
    for field in (
        "load_seconds",
        "peak_rss_anon_bytes",
        "settled_rss_anon_bytes",
        "peak_worker_rss_anon_bytes",
        "settled_worker_rss_anon_bytes",
        "prefill_tokens_per_s",
        "decode_tokens_per_s",
        "streamed_decode_tokens_per_s",
        "checkpoint_bytes",
    ):
        assert bf16[field] > 0, field
    assert bf16["decode_vs_bf16"] == 1.0
    # The worker is one of the server's processes: less than their sum, at most their peak.
    assert bf16["settled_worker_rss_anon_bytes"] < bf16["settled_rss_anon_bytes"]
    assert bf16["settled_worker_rss_anon_bytes"] <= bf16["peak_worker_rss_anon_bytes"]
    if _cpu_has_avx512():
        assert w4a8["error"] is None and w4a8["decode_tokens_per_s"] > 0
    else:  # vLLM's AVX2 build has no W4A8 (GPTQ) CPU kernel: a row with the cause, no crash
        assert "cpu_gemm_wna16" in w4a8["error"]
        assert w4a8["decode_tokens_per_s"] is None
        assert any(item.startswith("w4a8: ") for item in report["not_measured"])
    sweep = report["concurrency"]
    assert sweep["error"] is None
    assert [p["streams"] for p in sweep["points"]] == [1, 2]
    assert all(p["aggregate_tokens_per_s"] > 0 for p in sweep["points"])
    assert [t["met"] for t in report["targets"]] == [None, None]  # no w4a16 in this run
    if llamacpp.unavailable_reason() is None:  # the optional peer extra is installed
        assert [(p["format"], p["error"]) for p in report["peer"]] == [
            ("F16", None),
            ("Q8_0", None),
            ("Q4_K_M", None),
        ]
        assert report["peer"][0]["decode_ours_vs_peer"] > 0
    else:
        assert report["peer"] == []
        assert any("llama.cpp peer: " in item for item in report["not_measured"])
    assert (tmp_path / "bf16" / "config.json").is_file()
    from serving.quantization.quantize import layout_tag

    assert (tmp_path / layout_tag("w4a8") / "config.json").is_file()


@pytest.mark.parametrize(("option", "eager"), [([], True), (["--compiled"], False)])
def test_compiled_serves_each_build_as_serve_does_by_default(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    option: list[str],
    eager: bool,
) -> None:
    # Decode speed depends on the mode, so the report says which one was measured.
    from serving.bench import builds

    modes: list[object] = []

    def measure(selected: Sequence[tuple[str, Path]], **options: object) -> list[Any]:
        modes.append(options["enforce_eager"])
        return [
            builds.ServingMeasurement(label=label, model=str(path), checkpoint_bytes=1, error="x")
            for label, path in selected
        ]

    monkeypatch.setattr(builds, "measure_builds", measure)
    command = ["bench", "serving", "--shape", "tiny", "--schemes", "bf16", "--runs", "1"]
    assert main([*command, "--no-peer", "--work-dir", str(tmp_path), *option]) == 0
    assert modes == [eager]
    header = capsys.readouterr().out
    assert ("shape tiny, eager:" if eager else "shape tiny, compiled:") in header
