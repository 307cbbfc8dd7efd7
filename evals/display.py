"""The terminal side of an evaluation: a progress bar while it runs, tables at the end."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console, RenderableType
from rich.markup import escape
from rich.measure import Measurement
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.segment import Segments
from rich.table import Table

from evals.results import (
    EpisodeOutcome,
    EvalReport,
    ResultTable,
    configurations_table,
    families_table,
    guard_effect_table,
    wordings_table,
)

_NO_WIDTH_LIMIT = 100_000
_VERDICT_STYLE = {
    "success": "green",
    "false_claim": "bold red",
    "clean_stop": "yellow",
    "step_budget": "red",
    "error": "magenta",
}


class SuiteProgress:
    """A rich progress bar on stderr, with one line per finished run above it."""

    def __init__(self, console: Console, total: int) -> None:
        self._progress = Progress(
            TextColumn("[bold]eval[/]"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[wins]} ok"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            transient=True,
        )
        self._bar = self._progress.add_task("eval", total=total, wins=0)
        self._wins = 0

    def __enter__(self) -> SuiteProgress:
        self._progress.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._progress.stop()

    def skipped(self, count: int) -> None:
        if count:
            self._progress.console.print(f"[dim]resume: {count} finished run(s) kept[/]")
            self._progress.update(self._bar, total=(self._progress.tasks[0].total or 0) - count)

    def finished(self, outcome: EpisodeOutcome) -> None:
        self._wins += outcome.success
        style = _VERDICT_STYLE[outcome.verdict]
        guards = "" if outcome.guards else " [dim](guards off)[/]"
        reason = outcome.error or outcome.detail
        refused = outcome.refused_completions
        self._progress.console.print(
            f"[{style}]{outcome.verdict:<11}[/] {escape(outcome.task)} s{outcome.seed} "
            f"{escape(outcome.policy)}{guards} · {outcome.steps} steps · {outcome.stop_reason}"
            + (f" · {refused} refused completion(s)" if refused else "")
            + (f" [dim]{escape(_short(reason))}[/]" if reason else "")
        )
        if outcome.side_effects:
            changed = "; ".join(outcome.side_effects)
            self._progress.console.print(f"  [red]side effects:[/] {escape(_short(changed, 160))}")
        self._progress.update(self._bar, advance=1, wins=self._wins)


def _short(text: str, limit: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def print_report(console: Console, report: EvalReport) -> None:
    """Configurations, families, goal wordings (when several), stop reasons and (when
    measured) the guard effect."""
    summary = report.summary
    _print_table(console, _rich_table(configurations_table(report.configurations or [summary])))
    _print_table(console, _rich_table(families_table(summary)))
    wordings = wordings_table(summary)
    if wordings is not None:
        _print_table(console, _rich_table(wordings))
    reasons = ", ".join(f"{reason} {count}" for reason, count in summary.stop_reasons.items())
    console.print(f"stop reasons: {reasons}")
    if report.guard_effect:
        _print_table(console, _rich_table(guard_effect_table(report.guard_effect)))


def _rich_table(table: ResultTable) -> Table:
    shown = Table(title=table.title, title_justify="left")
    for number, column in enumerate(table.columns):
        shown.add_column(column, justify="left" if number == 0 else "right")
    for row in table.rows:
        shown.add_row(*(escape(cell) for cell in row))
    return shown


def _print_table(console: Console, table: RenderableType) -> None:
    """A table as wide as its content when the output is a file or a pipe: rich would fit it
    into 80 columns there, wrapping its cells, though nothing limits the width of a file."""
    if console.is_terminal:
        console.print(table)
        return
    unlimited = console.options.update(width=_NO_WIDTH_LIMIT)
    width = Measurement.get(console, unlimited, table).maximum
    console.print(Segments(console.render(table, console.options.update(width=width))), crop=False)
