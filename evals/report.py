"""One self-contained HTML file from trajectories (and an eval's results, when there are some).

Per episode: the goal, the outcome, the stop reason, what changed outside the task's scope (side
effects) and the claims of success the loop refused; per step a drawing of the screen from
the element bounds (SVG, the chosen element highlighted), the model's reasoning and reply, the
parsed call with its repairs, the guards' notes, what happened on the device, and timings. A
suite's report starts with its summary tables.

Offline by construction: inline CSS and SVG only, no script, and a Content-Security-Policy that
forbids loading anything. Every text from a trajectory (model output above all) is escaped.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from agent.trajectory import EndRecord, EpisodeRecord, StepRecord, read_trajectory
from devices.errors import UsageError
from evals.results import (
    EpisodeOutcome,
    EvalReport,
    ResultStore,
    ResultTable,
    build_report,
    configurations_table,
    families_table,
    guard_effect_table,
    is_refused_completion,
    wordings_table,
)
from simulator.tasks import TASKS_BY_NAME

SCREEN_WIDTH_PX = 220  # drawn width of a screen
_LABEL_CHARS = 22


@dataclass
class EpisodeView:
    path: Path
    episode: EpisodeRecord | None
    steps: list[StepRecord]
    end: EndRecord | None
    success: bool | None  # None: unknown (no task to check it against)
    side_effects: list[str] | None = None  # None: unknown (no task, or no state kept)

    @property
    def refused_completions(self) -> int:
        return sum(is_refused_completion(step) for step in self.steps)

    @property
    def goal(self) -> str:
        return self.episode.goal if self.episode else "(no episode line)"

    @property
    def policy(self) -> str:
        if self.episode is None:
            return ""
        policy = self.episode.settings.get("policy") or {}
        return str(policy.get("policy") or self.episode.model or "")

    @property
    def guards(self) -> str:
        policy = (self.episode.settings.get("policy") or {}) if self.episode else {}
        guarded = policy.get("guards")
        return "" if guarded is None else ("on" if guarded else "off")


def load_episode(path: Path, outcome: EpisodeOutcome | None = None) -> EpisodeView:
    """A trajectory as recorded; one cut short (no end line) shows as unfinished."""
    try:
        records = read_trajectory(path)
    except (OSError, ValidationError, ValueError) as exc:
        raise ReportInputError(f"{path}: not a readable trajectory ({exc})") from None
    episode = next((r for r in records if isinstance(r, EpisodeRecord)), None)
    end = next((r for r in records if isinstance(r, EndRecord)), None)
    steps = [r for r in records if isinstance(r, StepRecord)]
    if outcome is not None:
        return EpisodeView(path, episode, steps, end, outcome.success, outcome.side_effects)
    success, side_effects = _judge(episode, end)
    return EpisodeView(path, episode, steps, end, success, side_effects)


def _judge(
    episode: EpisodeRecord | None, end: EndRecord | None
) -> tuple[bool | None, list[str] | None]:
    """A simulator task's verdict and side effects, when the trajectory names the task and
    kept the state (an eval's episode starts in its task's initial state)."""
    if episode is None or end is None:
        return None, None
    policy = episode.settings.get("policy") or {}
    task = TASKS_BY_NAME.get(str(policy.get("task")))
    seed = policy.get("seed")
    if task is None or not isinstance(seed, int) or end.device_state is None:
        return None, None
    side_effects = task.side_effects(task.initial_state(seed), end.device_state, seed)
    success = end.stop_reason == "completed" and task.success(end.device_state, seed, end.answer)
    return success and not side_effects, side_effects


class ReportInputError(UsageError, ValueError):
    """A file given to `report` that is not a readable trajectory or eval report."""


def episodes_from_outcomes(outcomes: Iterable[EpisodeOutcome]) -> list[EpisodeView]:
    return [load_episode(Path(o.trajectory), o) for o in outcomes if Path(o.trajectory).exists()]


def load_inputs(paths: Sequence[Path]) -> tuple[list[EpisodeView], EvalReport | None]:
    """Episodes and (for an eval's report.json, results.jsonl or run folder) its results."""
    episodes: list[EpisodeView] = []
    report: EvalReport | None = None
    for path in paths:
        if path.is_dir():
            results = path / "results.jsonl"
            if results.exists():
                report = _results_report(results)
                episodes.extend(episodes_from_outcomes(report.results))
                continue
            for file in sorted(path.rglob("*.jsonl")):
                episodes.append(load_episode(file))
        elif path.suffix == ".json":
            try:
                report = EvalReport.model_validate_json(path.read_text(encoding="utf-8"))
            except (OSError, ValidationError) as exc:
                raise ReportInputError(f"{path}: not an eval report ({exc})") from None
            episodes.extend(episodes_from_outcomes(report.results))
        elif path.name == "results.jsonl":
            report = _results_report(path)
            episodes.extend(episodes_from_outcomes(report.results))
        elif path.exists():
            episodes.append(load_episode(path))
        else:
            raise ReportInputError(f"{path} does not exist")
    if not episodes:
        raise ReportInputError("no trajectory found in " + ", ".join(map(str, paths)))
    return episodes, report


def _results_report(path: Path) -> EvalReport:
    return build_report(list(ResultStore(path).load().values()))


def write_html(
    path: Path,
    episodes: Sequence[EpisodeView],
    report: EvalReport | None = None,
    *,
    title: str = "phone-agent report",
) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(episodes, report, title=title), encoding="utf-8")


# --- rendering --------------------------------------------------------------------------------


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;padding:1.5rem 2rem;color:#1d2330;
background:#f4f5f7}
h1{font-size:1.5rem;margin:0 0 1rem}h2{font-size:1.2rem;margin:1.6rem 0 .6rem}
h3{font-size:1rem;margin:0 0 .4rem}
table{border-collapse:collapse;background:#fff;margin:.4rem 0 1rem}
th,td{border:1px solid #d5d9e0;padding:.25rem .55rem;text-align:left;vertical-align:top}
th{background:#e9ecf1}
.episode{background:#fff;border:1px solid #d5d9e0;border-radius:6px;padding:1rem 1.2rem;
margin:1.2rem 0}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.4rem 0 1rem}
.facts dt{color:#5b6475}.facts dd{margin:0}
.step{display:grid;grid-template-columns:240px 1fr;gap:1rem;border-top:1px solid #e4e7ec;
padding:.8rem 0}
.screen svg{width:220px;height:auto;border:1px solid #9aa3b2;border-radius:10px;
background:#fbfcfd}
pre{white-space:pre-wrap;word-break:break-word;background:#f1f3f6;padding:.4rem .6rem;
margin:.2rem 0 .5rem;border-radius:4px;font:12px/1.4 ui-monospace,monospace}
.badge{display:inline-block;padding:0 .45rem;border-radius:9px;font-size:12px;color:#fff;
background:#5b6475}
.success,.allow,.completed{background:#23804a}.failure,.stop{background:#b3261e}
.block{background:#b26a00}.complete{background:#23804a}.unknown{background:#5b6475}
ul.notes{margin:.2rem 0 .5rem;padding-left:1.2rem}.muted{color:#5b6475}
svg .el{fill:#e6ecf5;stroke:#8b97ab;stroke-width:3}
svg .el.clickable{fill:#dbe9ff;stroke:#4a78c2}svg .el.switch{fill:#e2f4e8;stroke:#3b8a5a}
svg .el.input{fill:#fff7dc;stroke:#b58b12}svg .el.list{fill:none;stroke:#b3bccb;
stroke-dasharray:12 8}
svg .el.target{fill:#ffb347;fill-opacity:.55;stroke:#d8420f;stroke-width:12}
svg text{font:40px sans-serif;fill:#1d2330}svg .app{font-size:40px;fill:#5b6475}
"""


def render_html(
    episodes: Sequence[EpisodeView], report: EvalReport | None = None, *, title: str
) -> str:
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
    ]
    if report is not None:
        parts.append(_summary_section(report))
    parts.append(_episode_index(episodes))
    for number, episode in enumerate(episodes, start=1):
        parts.append(_episode_section(number, episode))
    parts.append("</body></html>")
    return "\n".join(parts)


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A table of already-escaped cells."""
    head = "".join(f"<th>{h}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _html_table(table: ResultTable) -> str:
    return _table(
        [_e(column) for column in table.columns],
        ([_e(cell) for cell in row] for row in table.rows),
    )


def _summary_section(report: EvalReport) -> str:
    summary = report.summary
    configurations = report.configurations or [summary]
    parts = [
        "<h2>Summary</h2>",
        f"<p>{summary.successes} of {summary.episodes} episodes succeeded "
        f"({summary.success_rate:.0%}) over {summary.tasks} task(s); a task counts only when "
        "the agent declared it done and nothing outside the task's scope changed. A false "
        "completion is a task declared done that was not: its check failed or it had side "
        "effects. A refused completion is a claim of success the loop could not verify and "
        "handed back to the model.</p>",
        _html_table(configurations_table(configurations)),
        _html_table(families_table(summary)),
        _table(
            ["stop reason", "runs"],
            ([_e(reason), str(count)] for reason, count in summary.stop_reasons.items()),
        ),
    ]
    wordings = wordings_table(summary)
    if wordings is not None:
        parts.append(_html_table(wordings))
    if report.guard_effect:
        guards = guard_effect_table(report.guard_effect)
        parts.append(f"<h2>{_e(guards.title)}</h2>")
        parts.append(_html_table(guards))
    return "\n".join(parts)


def _outcome_badge(episode: EpisodeView) -> str:
    if episode.success is None:
        return '<span class="badge unknown">not judged</span>'
    if episode.success:
        return '<span class="badge success">success</span>'
    return '<span class="badge failure">failure</span>'


def _episode_index(episodes: Sequence[EpisodeView]) -> str:
    rows = [
        [
            f'<a href="#ep-{n}">{n}</a>',
            _e(e.goal),
            _e(e.policy),
            _e(e.guards),
            _outcome_badge(e),
            _e(e.end.stop_reason if e.end else "unfinished"),
            _side_effects_cell(e.side_effects),
            str(e.refused_completions),
            str(len(e.steps)),
        ]
        for n, e in enumerate(episodes, start=1)
    ]
    headers = ["#", "goal", "policy", "guards", "outcome", "stop reason", "side effects"]
    return "<h2>Episodes</h2>" + _table([*headers, "refused completions", "steps"], rows)


def _side_effects_cell(side_effects: list[str] | None) -> str:
    if side_effects is None:
        return '<span class="muted">not judged</span>'
    return _e("; ".join(side_effects)) if side_effects else "none"


def _episode_section(number: int, episode: EpisodeView) -> str:
    facts: list[tuple[str, str]] = [
        ("outcome", _outcome_badge(episode)),
        ("stop reason", _e(episode.end.stop_reason if episode.end else "unfinished")),
    ]
    if episode.end is not None:
        if episode.end.detail:
            facts.append(("detail", _e(episode.end.detail)))
        if episode.end.answer is not None:
            facts.append(("answer", _e(episode.end.answer)))
    if episode.side_effects:
        changed = "".join(f"<li>{_e(line)}</li>" for line in episode.side_effects)
        facts.append(("side effects", f"<ul class='notes'>{changed}</ul>"))
    if episode.refused_completions:
        facts.append(("refused completions", str(episode.refused_completions)))
    if episode.end is not None:
        facts.append(("duration", f"{episode.end.duration_s:g} s"))
    if episode.episode is not None:
        facts.append(("model", _e(episode.episode.model or "")))
        facts.append(("device", _e(episode.episode.device)))
        facts.append(("started", _e(episode.episode.started_at)))
    facts.append(("trajectory", _e(episode.path)))
    listed = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts)
    steps = "\n".join(_step(step) for step in episode.steps) or "<p class='muted'>No steps.</p>"
    return (
        f'<section class="episode" id="ep-{number}"><h2>{number}. {_e(episode.goal)}</h2>'
        f'<dl class="facts">{listed}</dl>{steps}</section>'
    )


def _step(step: StepRecord) -> str:
    call = step.call
    target = call.arguments.get("index")
    verdict = step.guard.verdict
    arguments = json.dumps(call.arguments, ensure_ascii=False)
    title = f"{call.name}({arguments})" if call.name else "no usable call"
    parts = [
        f'<div class="info"><h3>Step {step.step}: {_e(title)} '
        f'<span class="badge {_e(verdict)}">{_e(verdict)}</span></h3>'
    ]
    reply = step.reply
    if reply.reasoning:
        parts.append(f"<details><summary>reasoning</summary><pre>{_e(reply.reasoning)}</pre>")
        parts.append("</details>")
    if reply.content:
        parts.append(f"<div>reply</div><pre>{_e(reply.content)}</pre>")
    if reply.tool_calls:
        calls = json.dumps(reply.tool_calls, ensure_ascii=False, indent=1)
        parts.append(f"<div>tool calls</div><pre>{_e(calls)}</pre>")
    parsed = [f"source: {_e(call.source or '-')}"]
    if call.repairs:
        parsed.append("repairs: " + _e("; ".join(call.repairs)))
    if call.error:
        parsed.append("error: " + _e(call.error))
    if call.dropped:
        parsed.append(f"{call.dropped} further call(s) dropped")
    parts.append(f"<div class='muted'>{' · '.join(parsed)}</div>")
    if step.guard.notes:
        notes = "".join(
            f"<li><b>{_e(note.kind)}</b>: {_e(note.reason)}</li>" for note in step.guard.notes
        )
        parts.append(f"<ul class='notes'>{notes}</ul>")
    result = step.result
    if result.error:
        parts.append(f"<div>device error: {_e(result.error)}</div>")
    elif result.executed:
        done = ", ".join(result.device_calls) or "nothing"
        parts.append(f"<div>device: {_e(done)}</div>")
        if result.changed:
            parts.append(f"<div>screen: {_e(result.changed)}</div>")
    else:
        parts.append("<div class='muted'>not run</div>")
    tokens = ""
    if reply.prompt_tokens is not None or reply.completion_tokens is not None:
        tokens = f" · tokens {reply.prompt_tokens or 0} in / {reply.completion_tokens or 0} out"
    parts.append(
        f"<div class='muted'>model {step.timings.model_s:.2f} s · device "
        f"{step.timings.device_s:.2f} s · reply via {_e(reply.path)}{tokens}</div></div>"
    )
    screen = _screen_svg(step.screen.app, step.screen.elements, target)
    return f'<article class="step"><div class="screen">{screen}</div>{"".join(parts)}</article>'


def _screen_svg(app: str, elements: list[dict[str, Any]], target: object) -> str:
    """The screen drawn from element bounds; the element the call names is highlighted."""
    boxes = [e for e in elements if _bounds(e) is not None]
    width = max([1080, *(_bounds(e)[2] for e in boxes)])  # type: ignore[index]
    height = max([width * 20 // 9, *(_bounds(e)[3] for e in boxes)])  # type: ignore[index]
    shapes = []
    # big containers first, so smaller elements stay visible on top of them
    for element in sorted(boxes, key=lambda e: -_area(e)):
        x1, y1, x2, y2 = _bounds(element)  # type: ignore[misc]
        classes = ["el", _e(element.get("role", ""))]
        if element.get("clickable"):
            classes.append("clickable")
        if element.get("index") == target:
            classes.append("target")
        label = str(element.get("label") or "")
        short = label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 1] + "…"
        tip = f"[{element.get('index')}] {element.get('role', '')} {label}"
        shapes.append(
            f'<g><title>{_e(tip)}</title><rect class="{" ".join(classes)}" x="{x1}" y="{y1}" '
            f'width="{max(x2 - x1, 1)}" height="{max(y2 - y1, 1)}" rx="8"/>'
            + (
                f'<text x="{x1 + 8}" y="{min(y1 + 44, y2 - 6)}">{_e(short)}</text>'
                if short and y2 - y1 >= 44
                else ""
            )
            + "</g>"
        )
    drawn_height = round(SCREEN_WIDTH_PX * height / width)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{SCREEN_WIDTH_PX}" height="{drawn_height}" role="img" '
        f'aria-label="{_e(app)}"><rect x="0" y="0" width="{width}" height="{height}" '
        f'fill="#fbfcfd"/>{"".join(shapes)}'
        f'<text class="app" x="16" y="{height - 20}">{_e(app)}</text></svg>'
    )


def _bounds(element: dict[str, Any]) -> tuple[int, int, int, int] | None:
    bounds = element.get("bounds")
    if not isinstance(bounds, list | tuple) or len(bounds) != 4:
        return None
    try:
        x1, y1, x2, y2 = (int(v) for v in bounds)
    except (TypeError, ValueError):
        return None
    return (x1, y1, x2, y2) if x2 > x1 and y2 > y1 else None


def _area(element: dict[str, Any]) -> int:
    x1, y1, x2, y2 = _bounds(element) or (0, 0, 0, 0)
    return (x2 - x1) * (y2 - y1)
