"""`bench serving`: weight builds of one checkpoint shape served side by side, as ratios to bf16.

The run is split between this module and a `ServingBackend` that the CLI supplies: the backend
builds (random checkpoint, quantized copies, reused when present), serves and measures; this
module orders the work, keeps going when one scheme fails, sweeps concurrent decode streams on
the fastest build, and turns the measurements into ratios against bf16 and the targets of the
four-bit work:

- W4A16 decode at least 1.8x bf16's;
- W4A16 settled anonymous RSS at most 45% of bf16's, in the worker process that holds the
  weights (the server's other processes cost the same for every build; their sum is reported
  beside it).

A target whose inputs are missing (scheme not requested, or failed) is reported as not
measured, never as met. Each row also says how much memory bandwidth its decode draws (the
bytes one token reads times decode tok/s) beside what plain reads reach on this machine,
measured in the same run on the server's threads: a decode far below it is bound by its
kernels' arithmetic, not by memory. Last, when its optional packages are installed, the
llama.cpp peer (`serving.bench.llamacpp`) runs the same checkpoint as GGUF, and each of its rows
is set against our build of the same bit width as ours / peer.
"""

from __future__ import annotations

import random
import re
import statistics
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from typing import Literal, Protocol

import httpx
from pydantic import BaseModel

from serving.bench.builds import MeasuredRates, ReadBandwidth, WorkerMemory, timed_completion
from serving.bench.llamacpp import PEER_FORMATS, PeerFormat, PeerMeasurement
from serving.schemes import SCHEMES

REFERENCE_SCHEME = "bf16"
TARGET_SCHEME = "w4a16"
DECODE_SPEEDUP_TARGET = 1.8
RSS_FRACTION_TARGET = 0.45
DEFAULT_CONCURRENCY = (1, 2, 4, 8)

# Prompts of the sweep: short, random (no prefix-cache hits), token ids above the special ones.
_SWEEP_PROMPT_TOKENS = 16
_PROMPT_IDS = range(16, 1000)
_REQUEST_TIMEOUT_S = 1800.0
# An exception as a traceback ends: `ValueError: ...`, `vllm.v1.engine.exceptions.X: ...`.
_EXCEPTION = re.compile(r"(?:\w+\.)*\w*(?:Error|Exception): .+")


class SchemeMeasurement(MeasuredRates, WorkerMemory):
    """One build as the backend measured it; `error` set when building or serving failed."""

    scheme: str
    checkpoint_bytes: int | None = None
    decode_read_bytes: int | None = None  # weight bytes one decoded token reads
    quantize_seconds: float | None = None  # None: reused from an earlier run, or bf16


class SchemeRow(SchemeMeasurement):
    """A measurement with its ratios to the bf16 row of the same run (None where not measured)."""

    decode_vs_bf16: float | None = None
    prefill_vs_bf16: float | None = None
    settled_rss_vs_bf16: float | None = None
    peak_rss_vs_bf16: float | None = None
    settled_worker_rss_vs_bf16: float | None = None
    decode_gb_per_s: float | None = None  # decode_read_bytes x decode tok/s
    decode_vs_read_bandwidth: float | None = None  # of the machine's measured read bandwidth


class ConcurrencyPoint(BaseModel):
    """`streams` requests sent at once, each a short prompt and `decode_tokens` tokens."""

    streams: int
    aggregate_tokens_per_s: float  # all streams' tokens / wall time, median of the runs
    per_stream_tokens_per_s: float  # tokens / the request's own time, median over all requests


class ConcurrencySweep(BaseModel):
    scheme: str | None
    points: list[ConcurrencyPoint] = []
    error: str | None = None


class PeerRow(PeerMeasurement):
    """A llama.cpp measurement with our paired build's rates divided by its own."""

    decode_ours_vs_peer: float | None = None
    prefill_ours_vs_peer: float | None = None


class TargetCheck(BaseModel):
    name: str
    measured: float | None
    comparison: Literal[">=", "<="]
    target: float
    met: bool | None  # None: not measured


class ServingBenchSettings(BaseModel):
    shape: Literal["tiny", "1.7b"]  # the checkpoint shapes of the serving stack
    schemes: list[str]
    runs: int
    decode_tokens: int
    prefill_tokens: int
    concurrency: list[int]
    peer_formats: list[PeerFormat] = list(PEER_FORMATS)  # empty: the peer is not wanted
    # eager starts in a minute; compiled is how `serve` runs by default
    compiled: bool = False


class ServingBenchReport(BaseModel):
    settings: ServingBenchSettings
    read_bandwidth: ReadBandwidth
    rows: list[SchemeRow]
    concurrency: ConcurrencySweep
    peer: list[PeerRow]
    targets: list[TargetCheck]
    not_measured: list[str]


class ServingBackend(Protocol):
    """What the benchmark needs from the serving stack."""

    def prepare(self, scheme: str) -> SchemeMeasurement:
        """Make (or reuse) the build of `scheme`; a measurement with only build fields set."""

    def read_bandwidth(self) -> ReadBandwidth:
        """Plain memory reads on the threads the server will run on."""

    def measure(self, builds: Sequence[SchemeMeasurement]) -> list[SchemeMeasurement]:
        """Serve each build in turn and measure it; failures come back as rows with an error."""

    def serve(self, scheme: str, max_streams: int) -> AbstractContextManager[tuple[str, str]]:
        """Serve the build admitting `max_streams` sequences; yields (base URL, model name)."""

    def peer_unavailable(self) -> str | None:
        """Why the llama.cpp peer cannot run here; None when it can."""

    def measure_peer(self, formats: Sequence[PeerFormat]) -> list[PeerMeasurement]:
        """The bf16 source as GGUF in each format, measured by llama.cpp in turn."""


def ratio(value: float | None, base: float | None) -> float | None:
    """value / base to three decimals; None when either is missing (or zero)."""
    return round(value / base, 3) if value and base else None


def with_ratios(
    measurements: Sequence[SchemeMeasurement], read_gb_per_s: float | None = None
) -> list[SchemeRow]:
    """Each measurement with its ratios to the bf16 row and the bandwidth its decode draws
    (set against `read_gb_per_s`, the machine's, where given)."""
    reference = next((m for m in measurements if m.scheme == REFERENCE_SCHEME), None)

    base = reference if reference is not None and not reference.error else None
    rows = []
    for row in measurements:
        drawn = (
            round(row.decode_read_bytes * row.decode_tokens_per_s / 1e9, 2)
            if row.decode_read_bytes and row.decode_tokens_per_s
            else None
        )
        rows.append(
            SchemeRow(
                **row.model_dump(),
                decode_gb_per_s=drawn,
                decode_vs_read_bandwidth=ratio(drawn, read_gb_per_s),
                decode_vs_bf16=ratio(
                    row.decode_tokens_per_s, base.decode_tokens_per_s if base else None
                ),
                prefill_vs_bf16=ratio(
                    row.prefill_tokens_per_s, base.prefill_tokens_per_s if base else None
                ),
                settled_rss_vs_bf16=ratio(
                    row.settled_rss_anon_bytes, base.settled_rss_anon_bytes if base else None
                ),
                peak_rss_vs_bf16=ratio(
                    row.peak_rss_anon_bytes, base.peak_rss_anon_bytes if base else None
                ),
                settled_worker_rss_vs_bf16=ratio(
                    row.settled_worker_rss_anon_bytes,
                    base.settled_worker_rss_anon_bytes if base else None,
                ),
            )
        )
    return rows


def with_peer_ratios(
    peer: Sequence[PeerMeasurement], rows: Sequence[SchemeMeasurement]
) -> list[PeerRow]:
    ours = {row.scheme: row for row in rows if not row.error}

    result = []
    for measurement in peer:
        paired = ours.get(measurement.paired_scheme)
        result.append(
            PeerRow(
                **measurement.model_dump(),
                decode_ours_vs_peer=ratio(
                    paired.decode_tokens_per_s if paired else None,
                    measurement.decode_tokens_per_s,
                ),
                prefill_ours_vs_peer=ratio(
                    paired.prefill_tokens_per_s if paired else None,
                    measurement.prefill_tokens_per_s,
                ),
            )
        )
    return result


def target_checks(rows: Sequence[SchemeRow]) -> list[TargetCheck]:
    target = next((r for r in rows if r.scheme == TARGET_SCHEME), None)
    speedup = target.decode_vs_bf16 if target else None
    memory = target.settled_worker_rss_vs_bf16 if target else None
    return [
        TargetCheck(
            name=f"{TARGET_SCHEME} decode tok/s vs {REFERENCE_SCHEME}",
            measured=speedup,
            comparison=">=",
            target=DECODE_SPEEDUP_TARGET,
            met=None if speedup is None else speedup >= DECODE_SPEEDUP_TARGET,
        ),
        TargetCheck(
            name=f"{TARGET_SCHEME} settled worker anonymous RSS vs {REFERENCE_SCHEME}",
            measured=memory,
            comparison="<=",
            target=RSS_FRACTION_TARGET,
            met=None if memory is None else memory <= RSS_FRACTION_TARGET,
        ),
    ]


def fastest_scheme(rows: Sequence[SchemeMeasurement]) -> str | None:
    """The scheme with the highest decode rate among those measured."""
    measured = [r for r in rows if r.decode_tokens_per_s and not r.error]
    return max(measured, key=lambda r: r.decode_tokens_per_s or 0.0).scheme if measured else None


def failure_cause(log_text: str) -> str | None:
    """The exception behind a server failure, from its log.

    vLLM logs the root cause first, on ERROR lines, and then what it brought down with it
    (a worker's AttributeError, then the engine's RuntimeError, then EngineDeadError in the
    API server). A process that dies before its logging is set up leaves a bare traceback,
    whose last line is the cause.
    """
    lines = log_text.splitlines()
    logged = [m.group() for line in lines if " ERROR " in line if (m := _EXCEPTION.search(line))]
    if logged:
        return logged[0].strip()
    bare = [m.group() for line in lines if (m := _EXCEPTION.match(line))]
    return bare[-1].strip() if bare else None


def measure_concurrency(
    base_url: str,
    model: str,
    streams: Sequence[int],
    decode_tokens: int,
    runs: int,
    seed: int = 0,
) -> list[ConcurrencyPoint]:
    """Aggregate and per-stream decode rates with `n` simultaneous requests, for each `n`."""
    rng = random.Random(seed)

    def prompt() -> list[int]:
        return [rng.choice(_PROMPT_IDS) for _ in range(_SWEEP_PROMPT_TOKENS)]

    points = []
    with (
        httpx.Client(base_url=base_url, timeout=_REQUEST_TIMEOUT_S) as client,
        ThreadPoolExecutor(max(streams)) as pool,
    ):
        timed_completion(client, model, prompt(), 4)  # warm-up
        for count in streams:
            aggregates: list[float] = []
            per_stream: list[float] = []
            for _ in range(runs):
                prompts = [prompt() for _ in range(count)]
                done = list(
                    pool.map(lambda p: timed_completion(client, model, p, decode_tokens), prompts)
                )
                wall = max(end for _, end, _ in done) - min(start for start, _, _ in done)
                aggregates.append(sum(tokens for _, _, tokens in done) / wall)
                per_stream += [tokens / (end - start) for start, end, tokens in done]
            points.append(
                ConcurrencyPoint(
                    streams=count,
                    aggregate_tokens_per_s=round(statistics.median(aggregates), 2),
                    per_stream_tokens_per_s=round(statistics.median(per_stream), 2),
                )
            )
    return points


def run_serving_bench(
    backend: ServingBackend,
    settings: ServingBenchSettings,
    progress: Callable[[str], None] = lambda message: None,
) -> ServingBenchReport:
    prepared = []
    for scheme in settings.schemes:
        progress(f"{scheme}: building")
        prepared.append(backend.prepare(scheme))
    failed_builds = {m.scheme: m for m in prepared if m.error}
    progress("memory read bandwidth")
    bandwidth = backend.read_bandwidth()
    progress("serving and measuring: " + ", ".join(m.scheme for m in prepared if not m.error))
    measured = iter(backend.measure([m for m in prepared if not m.error]))
    measurements = [failed_builds.get(m.scheme) or next(measured) for m in prepared]
    for m in measurements:
        progress(f"{m.scheme}: " + (f"failed: {m.error}" if m.error else "measured"))
    rows = with_ratios(measurements, bandwidth.gb_per_s)
    sweep = _sweep(backend, settings, fastest_scheme(rows), progress)
    peer: list[PeerRow] = []
    not_measured = [f"{r.scheme}: {r.error}" for r in rows if r.error]
    unavailable = backend.peer_unavailable() if settings.peer_formats else "not requested"
    if unavailable:
        not_measured.append(f"llama.cpp peer: {unavailable}")
    else:
        progress("llama.cpp peer: " + ", ".join(settings.peer_formats))
        peer = with_peer_ratios(backend.measure_peer(settings.peer_formats), rows)
        not_measured += [f"llama.cpp {p.format}: {p.error}" for p in peer if p.error]
    return ServingBenchReport(
        settings=settings,
        read_bandwidth=bandwidth,
        rows=rows,
        concurrency=sweep,
        peer=peer,
        targets=target_checks(rows),
        not_measured=not_measured,
    )


def _sweep(
    backend: ServingBackend,
    settings: ServingBenchSettings,
    scheme: str | None,
    progress: Callable[[str], None],
) -> ConcurrencySweep:
    if scheme is None:
        return ConcurrencySweep(scheme=None, error="no scheme was measured")
    progress(f"{scheme}: concurrency sweep {settings.concurrency}")
    try:
        with backend.serve(scheme, max(settings.concurrency)) as (base_url, model):
            points = measure_concurrency(
                base_url, model, settings.concurrency, settings.decode_tokens, settings.runs
            )
    except (OSError, RuntimeError, httpx.HTTPError) as exc:
        return ConcurrencySweep(scheme=scheme, error=str(exc).strip().splitlines()[0])
    return ConcurrencySweep(scheme=scheme, points=points)


def _cell(value: float | None, digits: int = 1, scale: float = 1.0) -> str:
    return "-" if value is None else f"{value / scale:.{digits}f}"


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _bandwidth(row: SchemeRow) -> str:
    if row.decode_gb_per_s is None:
        return "-"
    share = row.decode_vs_read_bandwidth
    return f"{row.decode_gb_per_s:.1f}" + ("" if share is None else f" ({share:.0%})")


def render_text(report: ServingBenchReport) -> str:
    s = report.settings
    gib = float(2**30)
    bandwidth = report.read_bandwidth
    lines = [
        f"shape {s.shape}, {'compiled' if s.compiled else 'eager'}: decode {s.decode_tokens} "
        f"tokens and prefill {s.prefill_tokens} tokens, medians of {s.runs}",
        f"memory read bandwidth: {bandwidth.gb_per_s:.1f} GB/s ({bandwidth.buffer_bytes // 2**20}"
        f" MiB summed on {bandwidth.threads} threads, the fastest of {bandwidth.runs})",
        "| scheme | checkpoint GiB | load s | RssAnon GiB: peak / settled "
        "| worker RssAnon GiB: peak / settled | prefill tok/s | decode tok/s "
        "| streamed decode tok/s | decode GB/s (of read bandwidth) | decode vs bf16 "
        "| RSS vs bf16: all / worker |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in report.rows:
        if row.error:
            lines.append(
                f"| {row.scheme} | {_cell(row.checkpoint_bytes, 2, gib)} | failed: {row.error} |"
            )
            continue
        lines.append(
            f"| {row.scheme} | {_cell(row.checkpoint_bytes, 2, gib)} | {_cell(row.load_seconds)} "
            f"| {_cell(row.peak_rss_anon_bytes, 2, gib)} / "
            f"{_cell(row.settled_rss_anon_bytes, 2, gib)} "
            f"| {_cell(row.peak_worker_rss_anon_bytes, 2, gib)} / "
            f"{_cell(row.settled_worker_rss_anon_bytes, 2, gib)} "
            f"| {_cell(row.prefill_tokens_per_s)} | {_cell(row.decode_tokens_per_s, 2)} "
            f"| {_cell(row.streamed_decode_tokens_per_s, 2)} | {_bandwidth(row)} "
            f"| {_ratio(row.decode_vs_bf16)} "
            f"| {_ratio(row.settled_rss_vs_bf16)} / {_ratio(row.settled_worker_rss_vs_bf16)} |"
        )
    sweep = report.concurrency
    if sweep.error:
        lines.append(f"concurrency sweep ({sweep.scheme or 'no scheme'}): failed: {sweep.error}")
    else:
        lines.append(f"concurrency sweep, {sweep.scheme} (the fastest decode):")
        lines += [
            f"  {p.streams} streams: {p.aggregate_tokens_per_s:.2f} tok/s aggregate, "
            f"{p.per_stream_tokens_per_s:.2f} tok/s per stream"
            for p in sweep.points
        ]
    if report.peer:
        lines += [
            "llama.cpp peer (same checkpoint as GGUF; ours / peer against our build of the "
            "same width):",
            "| format | vs | GGUF GiB | load s | RssAnon GiB: peak / settled | prefill tok/s "
            "| decode tok/s | prefill ours/peer | decode ours/peer |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for peer in report.peer:
            if peer.error:
                lines.append(f"| {peer.format} | {peer.paired_scheme} | failed: {peer.error} |")
                continue
            lines.append(
                f"| {peer.format} | {peer.paired_scheme} | {_cell(peer.gguf_bytes, 2, gib)} "
                f"| {_cell(peer.load_seconds)} | {_cell(peer.peak_rss_anon_bytes, 2, gib)} / "
                f"{_cell(peer.settled_rss_anon_bytes, 2, gib)} "
                f"| {_cell(peer.prefill_tokens_per_s)} | {_cell(peer.decode_tokens_per_s, 2)} "
                f"| {_ratio(peer.prefill_ours_vs_peer)} | {_ratio(peer.decode_ours_vs_peer)} |"
            )
    for check in report.targets:
        verdict = {True: "met", False: "NOT met", None: "not measured"}[check.met]
        lines.append(
            f"target: {check.name} {_cell(check.measured, 2)} {check.comparison} "
            f"{check.target:g}: {verdict}"
        )
    lines += [f"not measured: {item}" for item in report.not_measured]
    return "\n".join(lines)


def _parse_names(text: str, known: Sequence[str], kind: str) -> list[str]:
    """A comma-separated list of `known` names (any case), in order, without repeats."""
    names: list[str] = []
    for name in (part.strip() for part in text.split(",")):
        match = next((k for k in known if k.lower() == name.lower()), None)
        if match is None:
            raise ValueError(f"unknown {kind} {name!r} (choose from {', '.join(known)})")
        if match not in names:
            names.append(match)
    return names


def parse_schemes(text: str) -> list[str]:
    return _parse_names(text, SCHEMES, "scheme")


def parse_peer_formats(text: str) -> list[PeerFormat]:
    return _parse_names(text, PEER_FORMATS, "GGUF format")  # type: ignore[return-value]
