"""What `phone-agent run` shows: the live view of each step, and the summary at the end.

Kept apart from the command's arguments so that listing commands does not load pydantic or rich.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.status import Status

    from agent.loop import EpisodeResult
    from agent.trajectory import StepRecord


class LiveView:
    """Step-by-step progress on a rich console: the step, the model's short reasoning, what
    it wrote down to remember, the action, guard notes and timings; a spinner while the model
    thinks."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._status: Status | None = None
        self._max_steps = 0
        self._started = time.monotonic()

    def start(self, goal: str, model: str, serial: str, trajectory: Path) -> None:
        self._started = time.monotonic()
        self.console.print(f"[bold]{goal}[/]  [dim]model {model} · device {serial}[/]")
        self.console.print(f"[dim]trajectory: {trajectory}[/]")

    def step_started(self, step: int, max_steps: int) -> None:
        self._max_steps = max_steps
        self._status = self.console.status(f"step {step}/{max_steps}: waiting for the model…")
        self._status.start()

    def step_finished(self, record: StepRecord) -> None:
        self.stop()
        from rich.markup import escape

        verdict_style = {"allow": "green", "block": "yellow", "complete": "bold green"}
        style = verdict_style.get(record.guard.verdict, "bold red")
        timings = f"model {record.timings.model_s:.1f} s, device {record.timings.device_s:.1f} s"
        self.console.print(
            f"[bold]step {record.step}/{self._max_steps}[/] "
            f"[{style}]{escape(_call_text(record))}[/] [dim]({timings})[/]"
        )
        thought = " ".join((record.reply.reasoning or "").split())
        if thought:
            short = thought if len(thought) <= 160 else thought[:159] + "…"
            self.console.print(f"  [dim]thinking: {escape(short)}[/]")
        from agent.prompt import split_remembered

        for item in split_remembered(record.reply.content)[0]:
            self.console.print(f"  [cyan]remembered[/]: {escape(item)}")
        if record.reply.path != "chat":
            self.console.print(f"  [dim]reply via {record.reply.path}[/]")
        for note in record.guard.notes:
            self.console.print(f"  [yellow]{note.kind}[/]: {escape(note.reason)}")
        if record.result.error:
            self.console.print(f"  [red]device: {escape(record.result.error)}[/]")
        elif record.result.changed:
            self.console.print(f"  [dim]screen: {escape(record.result.changed)}[/]")

    def confirm(self, description: str) -> bool:
        from rich.prompt import Confirm

        self.stop()
        return Confirm.ask(
            f"[bold yellow]Risky action[/]: {description}. Go ahead?",
            console=self.console,
            default=False,
        )

    def stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    def summary(self, summary: EpisodeResult) -> None:
        from rich.markup import escape

        style = "bold green" if summary.stop_reason == "completed" else "bold red"
        elapsed = time.monotonic() - self._started
        self.console.print(
            f"[{style}]{summary.stop_reason}[/] after {summary.steps} step(s), {elapsed:.1f} s"
            + (f": {escape(summary.detail)}" if summary.detail else "")
        )
        if summary.answer:
            self.console.print(f"answer: {escape(summary.answer)}")
        self.console.print(f"[dim]trajectory: {summary.trajectory}[/]")


def _call_text(record: StepRecord) -> str:
    call = record.call
    if call.name is None:
        return f"no usable call ({call.error or 'unknown reason'})"
    arguments = ", ".join(f"{key}={value!r}" for key, value in call.arguments.items())
    text = f"{call.name}({arguments})"
    index = call.arguments.get("index")
    labels = {element.get("index"): element.get("label") for element in record.screen.elements}
    if isinstance(index, int) and labels.get(index):
        text += f' "{labels[index]}"'
    return text
