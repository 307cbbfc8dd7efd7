"""`phone-agent run GOAL`: drive a device (the simulator or a phone over ADB) with a model.

Exit code 0 when the goal was completed, 1 for any other stop reason (or a model server that
does not answer), 2 for bad input. `--json` prints the summary as one JSON object on the last
line of stdout; the live view then goes to stderr.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from devices.base import Device


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run",
        help="let the model operate a device until the goal is reached",
        description="Let the model operate a device until the goal is reached.",
    )
    parser.add_argument("goal", type=_text, help='what to do, e.g. "Turn on Wi-Fi"')
    parser.add_argument("--device", choices=("sim", "adb"), default="sim")
    parser.add_argument(
        "--serial", type=_text, help="device serial (adb), or the simulator's serial"
    )
    parser.add_argument("--adb-host", type=_text, help="ADB server host (default: the local one)")
    parser.add_argument("--adb-port", type=_port, help="ADB server port")
    parser.add_argument(
        "--base-url",
        type=_text,
        help="OpenAI-compatible server URL (default: where `phone-agent serve` listens)",
    )
    parser.add_argument(
        "--model", type=_text, help="model name (default: the first one the server lists)"
    )
    parser.add_argument("--max-steps", type=_positive_int, default=15)
    parser.add_argument(
        "--time-budget", type=_positive_float, metavar="SECONDS", help="wall-clock limit"
    )
    parser.add_argument(
        "--thinking",
        choices=("auto", "on", "off"),
        default="auto",
        help="auto: off, and on for the step after a wait, an unusable reply or a guard's "
        "escalation (default auto)",
    )
    parser.add_argument(
        "--think-budget",
        type=_non_negative_int,
        default=512,
        metavar="TOKENS",
        help="cap on thinking per step, then the reply is closed and continued (0: no cap)",
    )
    parser.add_argument("--tool-choice", choices=("auto", "required"), default="auto")
    parser.add_argument("--temperature", type=_non_negative_float, default=1.0)
    parser.add_argument("--top-p", type=_probability, default=0.95)
    parser.add_argument(
        "--timeout", type=_positive_float, default=300.0, metavar="SECONDS", help="per request"
    )
    parser.add_argument(
        "--sim-state",
        type=_text,
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
    from agent.commands.run_view import LiveView, RunSummary
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
        _check_writable(trajectory)
        view.start(goal, model_name, device.serial, trajectory)
        settings = RunSettings(
            max_steps=args.max_steps,
            time_budget_s=args.time_budget,
            settle_s=1.0 if args.device == "adb" else 0.0,
            think_when_unsure=args.thinking == "auto",
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


def _check_writable(trajectory: Path) -> None:
    """Refuse a trajectory path that cannot be written before the episode starts."""
    from agent.cli import UsageError

    try:
        trajectory.parent.mkdir(parents=True, exist_ok=True)
        with trajectory.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise UsageError(f"run: cannot write the trajectory {trajectory}: {reason}") from None


def _always_yes(description: str) -> bool:
    return True


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


def _port(text: str) -> int:
    value = _number(text, int)
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a number from 1 to 65535, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    value = _number(text, float)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def _non_negative_float(text: str) -> float:
    value = _number(text, float)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text!r}")
    return value


def _probability(text: str) -> float:
    value = _number(text, float)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most 1, got {text!r}")
    return value


def _number(text: str, kind: type[int] | type[float]) -> Any:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return value


def _text(text: str) -> str:
    """Text that can be sent on: bytes that are not UTF-8 reach Python as lone surrogates,
    which no JSON request, trajectory or terminal can carry."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError(
            "not valid UTF-8 text (is the terminal set to another encoding?)"
        ) from None
    return text
