"""`phone-agent run GOAL`: drive a device (the simulator or a phone over ADB) with a model.

Exit code 0 when the goal was completed, 1 for any other stop reason (or a model server that
does not answer), 2 for bad input. `--json` prints the summary as one JSON object on the last
line of stdout; the live view then goes to stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agent.commands.arguments import positive_float, positive_int, utf8_text
from agent.commands.device_choice import (
    add_device_arguments,
    close_device,
    device_from_arguments,
    settle_seconds,
)
from agent.commands.model_server import (
    add_model_server_arguments,
    add_thinking_argument,
    model_client_settings,
)
from devices.errors import UsageError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "run",
        help="let the model operate a device until the goal is reached",
        description="Let the model operate a device until the goal is reached.",
    )
    parser.add_argument("goal", type=utf8_text, help='what to do, e.g. "Turn on Wi-Fi"')
    add_device_arguments(parser)
    parser.add_argument("--max-steps", type=positive_int, default=15)
    parser.add_argument(
        "--time-budget", type=positive_float, metavar="SECONDS", help="wall-clock limit"
    )
    add_thinking_argument(parser)
    add_model_server_arguments(parser)
    parser.add_argument("--trajectory", type=Path, help="JSONL path (default: runs/...)")
    parser.add_argument("--yes", action="store_true", help="allow risky actions without asking")
    parser.add_argument("--json", action="store_true", help="print a JSON summary last")
    parser.set_defaults(handler=run_command)


def run_command(args: argparse.Namespace) -> int:
    from rich.console import Console

    from agent.commands.run_view import LiveView
    from agent.loop import RunSettings, run_episode
    from agent.model_client import ModelClient
    from agent.trajectory import default_trajectory_path

    goal = " ".join(args.goal.split())
    if not goal:
        raise UsageError("run: the goal is empty")
    device = device_from_arguments(args)

    client_settings = model_client_settings(args)
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
            settle_s=settle_seconds(args.device),
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
        close_device(device)

    if args.json:
        print(result.model_dump_json(exclude_none=True))
    else:
        view.summary(result)
    return 0 if result.stop_reason == "completed" else 1


def _check_writable(trajectory: Path) -> None:
    """Refuse a trajectory path that cannot be written before the episode starts."""
    try:
        trajectory.parent.mkdir(parents=True, exist_ok=True)
        with trajectory.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise UsageError(f"run: cannot write the trajectory {trajectory}: {reason}") from None


def _always_yes(description: str) -> bool:
    return True
