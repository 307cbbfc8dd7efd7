"""Where a served step's milliseconds go, read from vLLM's torch profile of its worker.

vLLM marks each forward pass of the worker with a `execute_context_C(c)_generation_G(g)` range:
C sequences prefilling c prompt tokens, G decoding g tokens. Everything the profiler recorded
inside a range is given to one category, the outermost one that claims it (an attention op's
own reads and copies are attention), and what no category claims is the model's other work:
norms, activations, rotary embedding, the compiled graph's glue. Sampling, scheduling and
handing the token to the API server happen between two ranges, so the gap between consecutive
decode steps is reported too. A step under a tool call's grammar computes its logits after its
range, once the grammar's bitmask has come (`serving.vllm_plugin.grammar_head`); that range
(`DEFERRED_LOGITS_SCOPE`) is counted in the step before it. Matrix products also carry the
bytes of their weight inputs, which give the rate at which a decode step reads its weights.
"""

from __future__ import annotations

import bisect
import gzip
import json
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from serving.launcher import DEFERRED_LOGITS_SCOPE

# In the order a step's time is reported; the first pattern that matches an op's name wins.
MATRIX_PRODUCTS = "matrix products"
ATTENTION = "attention"
KV_CACHE_WRITES = "KV cache writes"
OTHER_MODEL_WORK = "other model work"
_CATEGORY_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (KV_CACHE_WRITES, re.compile(r"kv_cache_update|reshape_and_cache")),
    (ATTENTION, re.compile(r"attention")),
    (
        MATRIX_PRODUCTS,
        re.compile(
            r"::(linear|int8_mm|weight_packed_linear|_weight_int4pack_mm\w*|mm|addmm|bmm|matmul)$"
        ),
    ),
)
CATEGORIES = (MATRIX_PRODUCTS, ATTENTION, KV_CACHE_WRITES, OTHER_MODEL_WORK)

_STEP_NAME = re.compile(r"^execute_context_(\d+)\((\d+)\)_generation_(\d+)\((\d+)\)$")

_DTYPE_BYTES = {
    "c10::BFloat16": 2,
    "c10::Half": 2,
    "float": 4,
    "double": 8,
    "unsigned char": 1,
    "signed char": 1,
    "c10::Float8_e4m3fn": 1,
    "short int": 2,
    "int": 4,
    "long int": 8,
}


class MatrixProduct(BaseModel):
    """One kind of matrix product a step runs: an op on weights of one shape."""

    op: str
    weight_dims: list[list[int]]  # the weight inputs' dimensions (weights, scales)
    calls_per_step: float
    ms_per_step: float
    weight_bytes_per_step: int
    gb_per_s: float | None  # decode only: a prefill's products are bound by arithmetic


class StepBreakdown(BaseModel):
    """The steps of one kind (decode or prefill), averaged over the steps profiled."""

    kind: Literal["decode", "prefill"]
    steps: int
    tokens_per_step: float
    median_step_ms: float
    mean_step_ms: float
    categories_ms: dict[str, float]  # mean ms per step; they add up to mean_step_ms
    between_steps_ms: float | None  # median gap from a decode step's end to the next one's start
    matrix_products: list[MatrixProduct]
    weight_bytes_per_step: int
    matrix_gb_per_s: float | None  # decode: the products' weight bytes over their time


class _Event:
    __slots__ = ("args", "children", "end", "name", "start")

    def __init__(self, raw: dict[str, Any]) -> None:
        self.name: str = raw["name"]
        self.start: float = float(raw["ts"])
        self.end: float = self.start + float(raw.get("dur", 0.0))
        self.args: dict[str, Any] = raw.get("args") or {}
        self.children: list[_Event] = []

    @property
    def duration(self) -> float:
        return self.end - self.start


def read_trace(path: Path) -> list[dict[str, Any]]:
    """The complete ("X") events of a Chrome trace the torch profiler wrote, gzipped or not."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        trace = json.load(handle)
    return [e for e in trace.get("traceEvents", []) if e.get("ph") == "X" and "ts" in e]


def worker_trace(trace_dir: Path) -> Path:
    """The newest trace of the worker that runs the model (rank 0), not the API server's."""
    traces = sorted(
        (p for p in trace_dir.glob("rank0*.pt.trace.json*")), key=lambda p: p.stat().st_mtime
    )
    if not traces:
        raise RuntimeError(f"the server wrote no worker trace in {trace_dir}")
    return traces[-1]


def _category(name: str) -> str | None:
    for category, pattern in _CATEGORY_PATTERNS:
        if pattern.search(name):
            return category
    return None


def _nest(events: Iterable[_Event]) -> list[_Event]:
    """Top-level events, each holding the events that ran inside it (events of one thread)."""
    roots: list[_Event] = []
    stack: list[_Event] = []
    for event in sorted(events, key=lambda e: (e.start, -e.end)):
        while stack and event.start >= stack[-1].end:
            stack.pop()
        (stack[-1].children if stack else roots).append(event)
        stack.append(event)
    return roots


def _steps(raw_events: Iterable[dict[str, Any]]) -> list[_Event]:
    """The worker's step ranges, in the order they ran, with what ran inside each."""
    threads: dict[object, list[_Event]] = defaultdict(list)
    for raw in raw_events:
        if raw.get("cat") in ("cpu_op", "user_annotation"):
            threads[raw.get("tid")].append(_Event(raw))
    found: list[_Event] = []
    deferred: list[_Event] = []
    pending = [root for events in threads.values() for root in _nest(events)]
    while pending:
        event = pending.pop()
        if _STEP_NAME.match(event.name):
            found.append(event)
        elif event.name == DEFERRED_LOGITS_SCOPE:
            deferred.append(event)
        else:
            pending.extend(event.children)
    found.sort(key=lambda e: e.start)
    # A step under a grammar computes its logits once the bitmask has come, after the step's own
    # range: they are the step's work, not the gap before the next one.
    starts = [step.start for step in found]
    for logits in deferred:
        position = bisect.bisect_right(starts, logits.start) - 1
        if position >= 0:
            found[position].children.append(logits)
            found[position].end += logits.duration
    return found


def _weight_bytes_and_dims(event: _Event) -> tuple[int, list[list[int]]]:
    """The bytes and dimensions of a product's weight inputs: its tensor inputs except those
    with as many rows as its first input (the activations, or the output it writes into)."""
    dims: list[list[int]] = event.args.get("Input Dims") or []
    types: list[str] = event.args.get("Input type") or []
    rows = dims[0][0] if dims and dims[0] else None
    total, weights = 0, []
    for shape, dtype in zip(dims, types, strict=False):
        if not shape or shape[0] == rows or dtype not in _DTYPE_BYTES:
            continue
        size = _DTYPE_BYTES[dtype]
        for extent in shape:
            size *= extent
        total += size
        weights.append(list(shape))
    return total, weights


class _StepTally:
    def __init__(self) -> None:
        self.categories: dict[str, float] = defaultdict(float)
        self.products: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
        self.product_dims: dict[tuple[str, str], list[list[int]]] = {}

    def add(self, event: _Event, inherited: str | None) -> None:
        category = inherited or _category(event.name)
        own = event.duration - sum(child.duration for child in event.children)
        self.categories[category or OTHER_MODEL_WORK] += max(own, 0.0)
        if category == MATRIX_PRODUCTS and inherited is None:
            weight_bytes, dims = _weight_bytes_and_dims(event)
            key = (event.name, json.dumps(dims))
            tally = self.products[key]
            tally[0] += 1
            tally[1] += event.duration
            tally[2] += weight_bytes
            self.product_dims[key] = dims
        for child in event.children:
            self.add(child, category)


def _gb_per_s(weight_bytes: float, microseconds: float) -> float | None:
    return (
        round(weight_bytes / microseconds / 1e3, 2) if microseconds > 0 and weight_bytes else None
    )


def _breakdown(
    kind: Literal["decode", "prefill"], steps: Sequence[tuple[_Event, int]], gaps: list[float]
) -> StepBreakdown:
    tally = _StepTally()
    for step, _ in steps:
        own = step.duration - sum(child.duration for child in step.children)
        tally.categories[OTHER_MODEL_WORK] += own
        for child in step.children:
            tally.add(child, None)
    count = len(steps)
    durations = [step.duration for step, _ in steps]
    products = [
        MatrixProduct(
            op=op,
            weight_dims=tally.product_dims[(op, dims)],
            calls_per_step=round(calls / count, 2),
            ms_per_step=round(micros / count / 1e3, 3),
            weight_bytes_per_step=round(weight_bytes / count),
            gb_per_s=_gb_per_s(weight_bytes, micros) if kind == "decode" else None,
        )
        for (op, dims), (calls, micros, weight_bytes) in sorted(
            tally.products.items(), key=lambda item: -item[1][1]
        )
    ]
    product_micros = sum(micros for _, micros, _ in tally.products.values())
    product_bytes = sum(weight_bytes for _, _, weight_bytes in tally.products.values())
    return StepBreakdown(
        kind=kind,
        steps=count,
        tokens_per_step=round(sum(tokens for _, tokens in steps) / count, 1),
        median_step_ms=round(statistics.median(durations) / 1e3, 2),
        mean_step_ms=round(statistics.fmean(durations) / 1e3, 2),
        categories_ms={
            category: round(tally.categories.get(category, 0.0) / count / 1e3, 2)
            for category in CATEGORIES
        },
        between_steps_ms=round(statistics.median(gaps) / 1e3, 2) if gaps else None,
        matrix_products=products,
        weight_bytes_per_step=round(product_bytes / count),
        matrix_gb_per_s=_gb_per_s(product_bytes, product_micros) if kind == "decode" else None,
    )


def break_down(raw_events: Iterable[dict[str, Any]]) -> dict[str, StepBreakdown]:
    """Decode and prefill steps of a worker trace, each kind averaged; a kind the trace does
    not hold is left out. A gap counts only between two decode steps that follow each other,
    so the wait for the next request and the prefill that answers it stay out of it."""
    decode: list[tuple[_Event, int]] = []
    prefill: list[tuple[_Event, int]] = []
    gaps: list[float] = []
    previous: _Event | None = None
    for root in _steps(raw_events):
        match = _STEP_NAME.match(root.name)
        assert match is not None
        prefilling, prompt_tokens, decoding, decode_tokens = map(int, match.groups())
        tokens = prompt_tokens + decode_tokens
        if prefilling:
            prefill.append((root, tokens))
        elif decoding:
            if previous is not None and decode and previous is decode[-1][0]:
                gaps.append(root.start - previous.end)
            decode.append((root, tokens))
        previous = root
    kinds: dict[str, StepBreakdown] = {}
    if decode:
        kinds["decode"] = _breakdown("decode", decode, gaps)
    if prefill:
        kinds["prefill"] = _breakdown("prefill", prefill, [])
    return kinds


class ProfileReport(BaseModel):
    model: str
    weights: str
    compiled: bool
    cpus: int
    requests: int  # recorded agent requests replayed under the profiler
    output_tokens: int
    read_gb_per_s: float | None  # plain reads on the server's threads, before it started
    decode: StepBreakdown | None
    prefill: StepBreakdown | None
    trace: str  # the worker's trace, for a closer look (chrome://tracing, Perfetto)


def _share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def render_text(report: ProfileReport) -> str:
    lines = [
        f"{report.model} ({report.weights}, {'compiled' if report.compiled else 'eager'}) on "
        f"{report.cpus} cores: {report.requests} recorded agent requests, "
        f"{report.output_tokens} output tokens, under the torch profiler"
    ]
    for breakdown in (report.decode, report.prefill):
        if breakdown is None:
            continue
        lines += [
            "",
            f"{breakdown.kind}: {breakdown.steps} steps of {breakdown.tokens_per_step:g} tokens, "
            f"median {breakdown.median_step_ms:.1f} ms (mean {breakdown.mean_step_ms:.1f})",
            "| where | ms per step | share |",
            "|---|---:|---:|",
        ]
        lines += [
            f"| {category} | {ms:.2f} | {_share(ms, breakdown.mean_step_ms)} |"
            for category, ms in breakdown.categories_ms.items()
        ]
        if breakdown.between_steps_ms is not None:
            lines.append(
                f"| between two steps (sampling, scheduling, the API server) "
                f"| {breakdown.between_steps_ms:.2f} | |"
            )
        lines += [
            "| matrix product | weights | calls | ms per step | GB/s |",
            "|---|---|---:|---:|---:|",
        ]
        lines += [
            f"| {p.op} | {' + '.join('x'.join(map(str, d)) for d in p.weight_dims)} "
            f"| {p.calls_per_step:g} | {p.ms_per_step:.2f} "
            f"| {'-' if p.gb_per_s is None else f'{p.gb_per_s:.1f}'} |"
            for p in breakdown.matrix_products
        ]
        if breakdown.matrix_gb_per_s is not None:
            of_reads = (
                f", {_share(breakdown.matrix_gb_per_s, report.read_gb_per_s)} of plain reads "
                f"({report.read_gb_per_s:.1f} GB/s)"
                if report.read_gb_per_s
                else ""
            )
            lines.append(
                f"weights read per step: {breakdown.weight_bytes_per_step / 1e9:.3f} GB at "
                f"{breakdown.matrix_gb_per_s:.1f} GB/s in the products{of_reads}"
            )
    lines += ["", f"trace: {report.trace}"]
    return "\n".join(lines)
