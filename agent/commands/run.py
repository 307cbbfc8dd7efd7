"""`phone-agent run GOAL`: drive a device (the simulator or a phone over ADB) with a model.

Exit code 0 when the goal was completed, 1 for any other stop reason (or a model server that
does not answer), 2 for bad input. `--json` prints the summary as one JSON object on the last
line of stdout; the live view then goes to stderr.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from rich.console import Console
    from rich.status import Status

    from agent.trajectory import StepRecord
    from devices.base import Device


class RunSummary(BaseModel):
    """The `--json` line (DESIGN §2.1)."""

    stop_reason: str
    steps: int
    trajectory: str
    detail: str = ""
    answer: str | None = None
    device_state: dict[str, Any] | None = None


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run",
        help="let the model operate a device until the goal is reached",
        description="Let the model operate a device until the goal is reached.",
    )
    parser.add_argument("goal", help='what to do, e.g. "Turn on Wi-Fi"')
    parser.add_argument("--device", choices=("sim", "adb"), default="sim")
    parser.add_argument("--serial", help="device serial (adb), or the simulator's serial")
    parser.add_argument("--adb-host", help="ADB server host (default: the local one)")
    parser.add_argument("--adb-port", type=_positive_int, help="ADB server port")
    parser.add_argument(
        "--base-url",
        help="OpenAI-compatible server URL (default: where `phone-agent serve` listens)",
    )
    parser.add_argument("--model", help="model name (default: the first one the server lists)")
    parser.add_argument("--max-steps", type=_positive_int, default=15)
    parser.add_argument(
        "--time-budget", type=_positive_float, metavar="SECONDS", help="wall-clock limit"
    )
    parser.add_argument("--thinking", choices=("on", "off"), default="on")
    parser.add_argument(
        "--think-budget",
        type=_non_negative_int,
        default=512,
        metavar="TOKENS",
        help="cap on thinking per step, then the reply is closed and continued (0: no cap)",
    )
    parser.add_argument("--tool-choice", choices=("auto", "required"), default="auto")
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--top-p", type=float, default=0.95)
    parser.add_argument(
        "--timeout", type=_positive_float, default=300.0, metavar="SECONDS", help="per request"
    )
    parser.add_argument(
        "--sim-state",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="initial simulator state, e.g. wifi=on (repeatable)",
    )
    parser.add_argument("--trajectory", type=Path, help="JSONL path (default: runs/...)")
    parser.add_argument("--yes", action="store_true", help="allow risky actions without asking")
    parser.add_argument("--json", action="store_true", help="print a JSON summary last")
    parser.set_defaults(handler=run_command)


def run_command(args: argparse.Namespace) -> int:
    from rich.console import Console

    from agent.cli import UsageError
    from agent.loop import RunSettings, run_episode
    from agent.model_client import ClientSettings, ModelClient
    from agent.trajectory import default_trajectory_path

    goal = " ".join(args.goal.split())
    if not goal:
        raise UsageError("run: the goal is empty")
    if args.sim_state and args.device != "sim":
        raise UsageError("run: --sim-state applies to --device sim only")
    device = _open_device(args)

    client_settings = ClientSettings(
        **({"base_url": args.base_url} if args.base_url else {}),
        model=args.model,
        tool_choice=args.tool_choice,
        thinking=args.thinking == "on",
        think_budget=args.think_budget or None,
        temperature=args.temperature,
        top_p=args.top_p,
        timeout_s=args.timeout,
    )
    client = ModelClient(client_settings)
    try:
        model_name = client.model_name()  # fails fast, in one line, when no server answers
        console = Console(stderr=args.json, highlight=False)
        view = LiveView(console)
        confirm = None
        if args.yes:
            confirm = _always_yes
        elif sys.stdin.isatty():
            confirm = view.confirm
        trajectory = args.trajectory or default_trajectory_path(goal)
        view.start(goal, model_name, device.serial, trajectory)
        settings = RunSettings(
            max_steps=args.max_steps,
            time_budget_s=args.time_budget,
            settle_s=1.0 if args.device == "adb" else 0.0,
        )
        try:
            result = run_episode(
                goal,
                device,
                client,
                settings,
                trajectory,
                confirm=confirm,
                observer=view,
                model_name=model_name,
                policy_settings=client_settings.model_dump(exclude={"api_key"}),
            )
        finally:
            view.stop()
    finally:
        client.close()

    summary = RunSummary(
        stop_reason=result.stop_reason,
        steps=result.steps,
        trajectory=str(result.trajectory),
        detail=result.detail,
        answer=result.answer,
        device_state=result.device_state,
    )
    if args.json:
        print(summary.model_dump_json(exclude_none=True))
    else:
        view.summary(summary)
    return 0 if result.stop_reason == "completed" else 1


def _open_device(args: argparse.Namespace) -> Device:
    from agent.cli import UsageError

    if args.device == "sim":
        from simulator.state import StateError, parse_state_assignments

        try:
            state = parse_state_assignments(args.sim_state)
        except StateError as exc:
            raise UsageError(f"run: --sim-state: {exc}") from None
        from simulator import Simulator

        options = {"serial": args.serial} if args.serial else {}
        simulator: Device = Simulator(state=state, **options)
        return simulator
    from devices.adb import AdbDevice

    adb_device: Device = AdbDevice(serial=args.serial, host=args.adb_host, port=args.adb_port)
    return adb_device


def _always_yes(description: str) -> bool:
    return True


class LiveView:
    """Step-by-step progress on a rich console: the step, the model's short reasoning, the
    action, guard notes and timings; a spinner while the model thinks."""

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

    def summary(self, summary: RunSummary) -> None:
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


def _positive_int(text: str) -> int:
    value = _number(text, int)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text!r}")
    return value


def _non_negative_int(text: str) -> int:
    value = _number(text, int)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    value = _number(text, float)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def _number(text: str, kind: type[int] | type[float]) -> Any:
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
