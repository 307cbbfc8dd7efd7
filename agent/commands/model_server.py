"""The options of every command that asks a model server for decisions (`run`, `eval`,
`bench step`), declared once, and the client settings they give."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from agent.commands.arguments import (
    non_negative_float,
    non_negative_int,
    positive_float,
    probability,
    utf8_text,
)

if TYPE_CHECKING:
    from agent.model_client import ClientSettings

THINKING_MODES = ("auto", "on", "off")


def add_model_server_arguments(parser: argparse.ArgumentParser) -> None:
    """Where the server is, which model, and how it samples; defaults are `ClientSettings`'s."""
    group = parser.add_argument_group("model server")
    group.add_argument(
        "--base-url",
        type=utf8_text,
        help="OpenAI-compatible server URL (default: where `phone-agent serve` listens)",
    )
    group.add_argument(
        "--model", type=utf8_text, help="model name (default: the first one the server lists)"
    )
    group.add_argument(
        "--think-budget",
        type=non_negative_int,
        default=512,
        metavar="TOKENS",
        help="cap on thinking per step, then the reply is closed and continued (0: no cap)",
    )
    group.add_argument(
        "--tool-choice",
        choices=("auto", "required"),
        default="auto",
        help="`required`: every reply is a call (random-weight checkpoints too), and our server "
        "computes only the logits the call's grammar allows, which decodes sooner",
    )
    group.add_argument(
        "--temperature",
        type=non_negative_float,
        default=1.0,
        help="sampling temperature (default 1.0, the model card's; 0 for greedy)",
    )
    group.add_argument("--top-p", type=probability, default=0.95)
    group.add_argument(
        "--timeout",
        type=positive_float,
        default=300.0,
        metavar="SECONDS",
        help="longest wait for the server's next bytes (300)",
    )
    group.add_argument(
        "--decision-timeout",
        type=positive_float,
        default=600.0,
        metavar="SECONDS",
        help="the whole of one decision, retries included; past it the run stops with "
        "model_error (600)",
    )


def add_thinking_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--thinking",
        choices=THINKING_MODES,
        default="auto",
        help="auto: off, and on for the step after a wait, an unusable reply or a guard's "
        "escalation (default auto)",
    )


def model_client_settings(args: argparse.Namespace) -> ClientSettings:
    """The client of `add_model_server_arguments`' options; it thinks from the first step only
    with `--thinking on` (with auto the loop turns thinking on for a step)."""
    from agent.model_client import ClientSettings

    return ClientSettings(
        **({"base_url": args.base_url} if args.base_url else {}),
        model=args.model,
        tool_choice=args.tool_choice,
        thinking=args.thinking == "on",
        think_budget=args.think_budget or None,
        temperature=args.temperature,
        top_p=args.top_p,
        timeout_s=args.timeout,
        decision_timeout_s=args.decision_timeout,
    )
