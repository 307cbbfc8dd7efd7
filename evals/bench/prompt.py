"""`bench prompt`: what reading one screen costs the model, against the raw XML and T3A.

For every dump of a corpus: the size of our screen text (`Screen.render()`, header included,
exactly what the prompt carries) against the raw XML and AndroidWorld T3A's element description
(`evals.bench.t3a`), in characters and, given a tokenizer, tokens; whether every control on the
screen is still reachable (`evals.bench.coverage`); and the time to parse and render the dump,
next to a bare `lxml.etree.fromstring` of the same bytes. The two timings alternate within one
process, first one then the other leading, so both see the same machine state; each is the
median of `repeat` runs.

Ratios are ours / theirs per dump; the report gives their medians over the corpus.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lxml import etree
from pydantic import BaseModel

from agent.screen import Screen, ScreenParseError
from evals.bench import BenchInputError, coverage, t3a

TARGET_VS_T3A = 0.4
TARGET_VS_RAW_XML = 0.12
DEFAULT_REPEAT = 20

TokenCounter = Callable[[str], int]


@dataclass(frozen=True)
class Dump:
    name: str
    data: bytes


class Size(BaseModel):
    chars: int
    tokens: int | None = None


class Ratio(BaseModel):
    chars: float
    tokens: float | None = None


class DumpResult(BaseModel):
    name: str
    app: str
    elements: int  # ours
    t3a_elements: int
    t3a_forest_elements: int
    ours: Size
    raw_xml: Size
    t3a: Size
    t3a_forest: Size
    ratio_vs_t3a: Ratio
    ratio_vs_t3a_forest: Ratio
    ratio_vs_raw_xml: Ratio
    parse_render_ms: float
    lxml_ms: float
    ratio_vs_lxml: float
    actionable: int
    system_bar_controls: int
    lost: list[coverage.ActionableNode]


class Skipped(BaseModel):
    name: str
    reason: str


class Medians(BaseModel):
    elements: float
    ours: Size
    raw_xml: Size
    t3a: Size
    t3a_forest: Size
    parse_render_ms: float
    lxml_ms: float


class TargetCheck(BaseModel):
    """A median ratio against its target; met when every measured unit is at or below it."""

    chars: float
    tokens: float | None
    target: float
    met: bool


class PromptReport(BaseModel):
    corpus: str
    tokenizer: str | None
    repeat: int
    dumps: list[DumpResult]
    skipped: list[Skipped]
    medians: Medians
    lost_actionable: int
    lost_wrappers: int  # of those, nodes that wrap listed elements
    ratio_vs_lxml: float
    ratio_vs_t3a_forest: Ratio
    ratio_vs_t3a: TargetCheck
    ratio_vs_raw_xml: TargetCheck


# -- corpora -----------------------------------------------------------------------------------


def corpus_from_dir(directory: Path) -> list[Dump]:
    """The `*.xml` files directly in `directory` (subfolders such as `broken/` are not read)."""
    if not directory.is_dir():
        raise BenchInputError(f"corpus directory not found: {directory}")
    dumps = [Dump(path.name, path.read_bytes()) for path in sorted(directory.glob("*.xml"))]
    if not dumps:
        raise BenchInputError(f"no *.xml dumps in {directory}")
    return dumps


def oracle_screens() -> list[Dump]:
    """Every distinct screen the simulator shows while the oracle plays each task's plan."""
    from evals.runner import oracle_screens as visited

    return [Dump(f"sim-{n:03d}", xml.encode("utf-8")) for n, xml in enumerate(visited().dumps, 1)]


def load_token_counter(path: Path) -> TokenCounter:
    """Counts tokens with a Hugging Face tokenizer: a `tokenizer.json` or a folder holding one."""
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise BenchInputError(
            "--tokenizer needs the `tokenizers` package (pip install tokenizers)"
        ) from None

    file = path / "tokenizer.json" if path.is_dir() else path
    if not file.is_file():
        raise BenchInputError(f"no tokenizer.json at {path}")
    try:
        tokenizer = Tokenizer.from_file(str(file))
    except Exception as exc:  # the library raises a bare Exception on a malformed file
        raise BenchInputError(f"{file} is not a tokenizer.json: {exc}") from None

    def count(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    return count


# -- measurement -------------------------------------------------------------------------------


def measure_dump(
    dump: Dump, count_tokens: TokenCounter | None, repeat: int = DEFAULT_REPEAT
) -> DumpResult:
    """Sizes, coverage and timings of one dump; ScreenParseError if it is not a usable dump."""
    screen = Screen.parse(dump.data)
    ours_text = screen.render()
    raw_text = dump.data.decode("utf-8-sig", errors="replace")
    try:
        described = t3a.describe(dump.data)
        described_forest = t3a.describe(dump.data, "forest")
    except etree.XMLSyntaxError as exc:
        # T3A parses strictly; a capture our parser had to repair has no T3A text to compare.
        raise ScreenParseError(f"not strict XML, so T3A cannot read it: {exc}") from None

    def size(text: str) -> Size:
        return Size(chars=len(text), tokens=count_tokens(text) if count_tokens else None)

    ours, raw, theirs, theirs_forest = (
        size(text) for text in (ours_text, raw_text, described.text, described_forest.text)
    )
    parse_render_ms, lxml_ms = _interleaved_ms(dump.data, repeat)
    covered = coverage.check(dump.data, screen)
    return DumpResult(
        name=dump.name,
        app=screen.app,
        elements=len(screen.elements),
        t3a_elements=described.elements,
        t3a_forest_elements=described_forest.elements,
        ours=ours,
        raw_xml=raw,
        t3a=theirs,
        t3a_forest=theirs_forest,
        ratio_vs_t3a=_ratio(ours, theirs),
        ratio_vs_t3a_forest=_ratio(ours, theirs_forest),
        ratio_vs_raw_xml=_ratio(ours, raw),
        parse_render_ms=round(parse_render_ms, 4),
        lxml_ms=round(lxml_ms, 4),
        ratio_vs_lxml=round(parse_render_ms / lxml_ms, 3),
        actionable=covered.actionable,
        system_bar_controls=covered.system_bar,
        lost=covered.lost,
    )


def _interleaved_ms(data: bytes, repeat: int) -> tuple[float, float]:
    """Median ms of parse + render and of a bare lxml parse, alternating which runs first."""

    def ours() -> None:
        Screen.parse(data).render()

    def bare() -> None:
        etree.fromstring(data)

    samples: dict[Callable[[], None], list[float]] = {ours: [], bare: []}
    # warm-up: first-call costs are not what a running agent pays
    ours()
    bare()
    for run in range(repeat):
        for task in (ours, bare) if run % 2 == 0 else (bare, ours):
            started = time.perf_counter_ns()
            task()
            samples[task].append((time.perf_counter_ns() - started) / 1e6)
    return statistics.median(samples[ours]), statistics.median(samples[bare])


def _ratio(ours: Size, theirs: Size) -> Ratio:
    tokens = (
        ours.tokens / theirs.tokens
        if ours.tokens is not None and theirs.tokens  # None without a tokenizer; never 0 tokens
        else None
    )
    return Ratio(
        chars=round(ours.chars / max(theirs.chars, 1), 4),
        tokens=round(tokens, 4) if tokens is not None else None,
    )


def run_prompt_bench(
    corpus_name: str,
    dumps: Sequence[Dump],
    count_tokens: TokenCounter | None = None,
    tokenizer_name: str | None = None,
    repeat: int = DEFAULT_REPEAT,
    progress: Callable[[DumpResult | Skipped], None] | None = None,
) -> PromptReport:
    if repeat < 1:
        raise BenchInputError("--repeat must be at least 1")
    results: list[DumpResult] = []
    skipped: list[Skipped] = []
    for dump in dumps:
        outcome: DumpResult | Skipped
        try:
            outcome = measure_dump(dump, count_tokens, repeat)
            results.append(outcome)
        except ScreenParseError as exc:
            outcome = Skipped(name=dump.name, reason=str(exc))
            skipped.append(outcome)
        if progress is not None:
            progress(outcome)
    if not results:
        raise BenchInputError(f"no usable dump in {corpus_name}")
    return PromptReport(
        corpus=corpus_name,
        tokenizer=tokenizer_name,
        repeat=repeat,
        dumps=results,
        skipped=skipped,
        medians=Medians(
            elements=statistics.median(r.elements for r in results),
            ours=_median_size([r.ours for r in results]),
            raw_xml=_median_size([r.raw_xml for r in results]),
            t3a=_median_size([r.t3a for r in results]),
            t3a_forest=_median_size([r.t3a_forest for r in results]),
            parse_render_ms=round(statistics.median(r.parse_render_ms for r in results), 4),
            lxml_ms=round(statistics.median(r.lxml_ms for r in results), 4),
        ),
        lost_actionable=sum(len(r.lost) for r in results),
        lost_wrappers=sum(1 for r in results for node in r.lost if node.wraps),
        ratio_vs_lxml=round(statistics.median(r.ratio_vs_lxml for r in results), 3),
        ratio_vs_t3a_forest=_median_ratio([r.ratio_vs_t3a_forest for r in results]),
        ratio_vs_t3a=_check(_median_ratio([r.ratio_vs_t3a for r in results]), TARGET_VS_T3A),
        ratio_vs_raw_xml=_check(
            _median_ratio([r.ratio_vs_raw_xml for r in results]), TARGET_VS_RAW_XML
        ),
    )


def _median_size(sizes: list[Size]) -> Size:
    tokens = [s.tokens for s in sizes if s.tokens is not None]
    return Size(
        chars=round(statistics.median(s.chars for s in sizes)),
        tokens=round(statistics.median(tokens)) if tokens else None,
    )


def _median_ratio(ratios: list[Ratio]) -> Ratio:
    tokens = [r.tokens for r in ratios if r.tokens is not None]
    return Ratio(
        chars=round(statistics.median(r.chars for r in ratios), 4),
        tokens=round(statistics.median(tokens), 4) if tokens else None,
    )


def _check(ratio: Ratio, target: float) -> TargetCheck:
    measured = [value for value in (ratio.chars, ratio.tokens) if value is not None]
    return TargetCheck(
        chars=ratio.chars,
        tokens=ratio.tokens,
        target=target,
        met=all(value <= target for value in measured),
    )


# -- text output -------------------------------------------------------------------------------


def render_text(report: PromptReport) -> str:
    """A table per dump, then medians, ratios against their targets and any lost control."""
    unit = "tokens" if report.tokenizer else "chars"

    def amount(size: Size) -> int:
        return size.tokens if unit == "tokens" and size.tokens is not None else size.chars

    def share(ratio: Ratio) -> float:
        return ratio.tokens if unit == "tokens" and ratio.tokens is not None else ratio.chars

    lines = [
        f"corpus: {report.corpus} ({len(report.dumps)} dumps"
        + (f", {len(report.skipped)} skipped" if report.skipped else "")
        + f"); sizes in {unit}",
        f"{'dump':<42} {'ours':>7} {'T3A':>8} {'raw XML':>8} {'/T3A':>6} {'/XML':>6} "
        f"{'ms':>6} {'lost':>4}",
    ]
    for r in report.dumps:
        lines.append(
            f"{r.name[:42]:<42} {amount(r.ours):>7} {amount(r.t3a):>8} {amount(r.raw_xml):>8} "
            f"{share(r.ratio_vs_t3a):>6.3f} {share(r.ratio_vs_raw_xml):>6.3f} "
            f"{r.parse_render_ms:>6.2f} {len(r.lost):>4}"
        )
    m = report.medians
    lines += [
        "",
        f"medians: ours {amount(m.ours)}, T3A {amount(m.t3a)} "
        f"(forest selection {amount(m.t3a_forest)}), raw XML {amount(m.raw_xml)} {unit}; "
        f"{m.elements:g} elements",
        f"parse + render {m.parse_render_ms:.2f} ms per dump, bare lxml parse {m.lxml_ms:.2f} ms "
        f"(ratio {report.ratio_vs_lxml:.2f}, median of {report.repeat} interleaved runs)",
    ]
    for label, check in (("T3A", report.ratio_vs_t3a), ("raw XML", report.ratio_vs_raw_xml)):
        tokens = f", tokens {check.tokens:.3f}" if check.tokens is not None else ""
        verdict = "met" if check.met else "NOT met"
        lines.append(
            f"ratio vs {label}: chars {check.chars:.3f}{tokens} "
            f"(target <= {check.target:g}: {verdict})"
        )
    forest = report.ratio_vs_t3a_forest
    forest_tokens = f", tokens {forest.tokens:.3f}" if forest.tokens is not None else ""
    lines.append(f"ratio vs T3A, forest selection: chars {forest.chars:.3f}{forest_tokens}")
    lines.append(
        f"lost actionable elements: {report.lost_actionable} "
        f"({report.lost_wrappers} wrap listed elements)"
    )
    for r in report.dumps:
        for node in r.lost:
            name = f" {node.label!r}" if node.label else ""
            ident = f" {node.resource_id}" if node.resource_id else ""
            lines.append(
                f"  {r.name}: {node.class_name}{name}{ident} {list(node.bounds)} "
                f"{'/'.join(node.actions)}, wraps {node.wraps} listed"
            )
    for skip in report.skipped:
        lines.append(f"skipped {skip.name}: {skip.reason}")
    return "\n".join(lines)
