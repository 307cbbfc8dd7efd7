"""`phone-agent serve` and `phone-agent make-tiny`.

Only the standard library, the CLI's own modules and the names of the weight schemes
(`serving.schemes`, standard library only itself) are imported at module level: the CLI must
start (and these parsers must exist) on an install without the serving stack.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.commands.arguments import non_negative_int, positive_int
from devices.errors import UsageError
from serving.schemes import SCHEMES

if TYPE_CHECKING:
    import subprocess

    from rich.console import Console

    from serving.launcher import ResolvedModel, ServeSettings

# The compile stage of the tiny checkpoint takes one to two minutes on two loaded AVX2 cores;
# past this limit `serve` stops the compiled server and starts it eager.
COMPILE_TIMEOUT_S = 600.0
_STAGE_LABELS = {
    "download": "download checkpoint",
    "convert": "build checkpoint",
    "load": "start engine, load weights",
    "compile": "compile, warm up, size KV cache",
    "ready": "open the API",
}


def register(subparsers: Any) -> None:
    serve = subparsers.add_parser(
        "serve",
        help="serve Spark on this CPU (vLLM, OpenAI-compatible)",
        description="Start vLLM's OpenAI-compatible server for Spark-X2.5 on the CPU. Arguments "
        "after `--` go to vLLM unchanged.",
    )
    serve.add_argument(
        "--model",
        default=None,
        help="checkpoint directory, hub id, or `tiny` (a small random checkpoint built and "
        "cached locally; works offline); default XHToken/Spark-X2.5-1.7B",
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--max-model-len", type=positive_int, default=8192, metavar="TOKENS")
    serve.add_argument(
        "--max-num-seqs",
        type=positive_int,
        default=4,
        metavar="N",
        help="concurrent sequences; the KV cache is sized for this many full-length ones",
    )
    serve.add_argument(
        "--enforce-eager",
        action="store_true",
        help="skip torch.compile: faster start, slower tokens",
    )
    serve.add_argument("--dtype", default="auto", help="vLLM --dtype (auto: the checkpoint's)")
    serve.add_argument(
        "--speculative-tokens",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="draft up to N tokens a step, from what the tool-call grammar forces and from the "
        "prompt (the tools, the screen), and let the model check them in one pass: greedy "
        "output unchanged (`bench speculative` checks it); 0: off (the default)",
    )
    serve.add_argument(
        "--all-logits",
        action="store_true",
        help="compute every token's logit at every step, as vLLM does; by default a step under "
        "a tool call's grammar computes only the tokens it allows (same output, sooner)",
    )
    serve.add_argument(
        "--weights",
        choices=("auto", *SCHEMES),
        default="auto",
        help="weight build to serve; auto: what `phone-agent probe` picks for this machine "
        "(fidelity first). A bf16 checkpoint is quantized once into the cache.",
    )
    serve.add_argument("--log", type=Path, default=None, help="server log file")
    serve.add_argument(
        "--timeout", type=float, default=900.0, metavar="SECONDS", help="start-up limit"
    )
    serve.add_argument(
        "--compile-timeout",
        type=float,
        default=COMPILE_TIMEOUT_S,
        metavar="SECONDS",
        help=f"give torch.compile this long, then serve eager instead ({COMPILE_TIMEOUT_S:.0f})",
    )
    mode = serve.add_mutually_exclusive_group()
    mode.add_argument(
        "--detach", action="store_true", help="return once ready; the server keeps running"
    )
    mode.add_argument("--stop", action="store_true", help="stop the server detached on --port")
    serve.add_argument("vllm_args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    serve.set_defaults(handler=run_serve)

    tiny = subparsers.add_parser(
        "make-tiny",
        help="write a random-weight Spark2_5 checkpoint (for tests and benchmarks)",
    )
    tiny.add_argument("directory", type=Path)
    tiny.add_argument("--shape", choices=("tiny", "1.7b"), default="tiny")
    tiny.add_argument("--seed", type=int, default=0)
    tiny.set_defaults(handler=run_make_tiny)


def run_make_tiny(args: argparse.Namespace) -> int:
    _check_serving_stack()
    from serving.checkpoint import make_checkpoint

    directory: Path = args.directory
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise UsageError(f"{directory} exists and is not an empty directory")
    started = time.monotonic()
    make_checkpoint(directory, args.shape, args.seed)
    print(f"wrote {args.shape} checkpoint to {directory} in {time.monotonic() - started:.1f} s")
    return 0


class StageDisplay:
    """Start-up stages with their durations: live on a terminal, one line each otherwise."""

    def __init__(self, console: Console) -> None:
        from rich.live import Live

        self._console = console
        self._done: list[tuple[str, float]] = []
        self._current: str | None = None
        self._since = time.monotonic()
        self._live = Live(self._render(), console=console, transient=False, auto_refresh=True)

    def __enter__(self) -> StageDisplay:
        if self._console.is_terminal:
            self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._console.is_terminal:
            self._live.update(self._render())
            self._live.__exit__(None, None, None)

    def __call__(self, stage: str) -> None:
        now = time.monotonic()
        if self._current is not None:
            self._done.append((self._current, now - self._since))
            if not self._console.is_terminal:
                self._console.print(f"  {_STAGE_LABELS[self._current]}: {now - self._since:.1f} s")
        self._current = None if stage == "done" else stage
        self._since = now
        if self._console.is_terminal:
            self._live.update(self._render())

    def _render(self) -> Any:
        from rich.spinner import Spinner
        from rich.table import Table

        table = Table.grid(padding=(0, 1))
        for stage, seconds in self._done:
            table.add_row("[green]✓[/]", _STAGE_LABELS[stage], f"[dim]{seconds:.1f} s[/]")
        if self._current is not None:
            table.add_row(Spinner("dots"), _STAGE_LABELS[self._current], "")
        return table


def run_serve(args: argparse.Namespace) -> int:
    from serving import launcher

    if args.stop:
        return _stop(args.port)
    if args.model is None:
        args.model = launcher.DEFAULT_HUB_MODEL
    if args.vllm_args and args.vllm_args[0] != "--":
        raise UsageError(f"unknown option {args.vllm_args[0]}; options for vLLM go after `--`")
    extra = args.vllm_args[1:]
    settings = launcher.ServeSettings(
        host=args.host,
        port=args.port,
        max_model_len=args.max_model_len,
        max_num_seqs=args.max_num_seqs,
        enforce_eager=args.enforce_eager,
        dtype=args.dtype,
        speculative_tokens=args.speculative_tokens,
        all_logits=args.all_logits,
        extra_args=tuple(extra),
    )
    _check_serving_stack()
    if launcher.read_record(args.port) is not None or launcher.answers(settings.base_url):
        raise launcher.ServeError(
            f"a server already answers at {settings.base_url}; stop it with "
            f"`phone-agent serve --stop --port {args.port}` or choose another --port"
        )
    return _serve(args, settings)


def _check_serving_stack() -> None:
    import importlib.util

    missing = [name for name in ("vllm", "torch") if importlib.util.find_spec(name) is None]
    if missing:
        raise UsageError(
            f"the serving stack is not installed ({', '.join(missing)} missing): run `make "
            "serving-stack`, or point `phone-agent run --base-url` at any OpenAI-compatible server"
        )


def _serve(args: argparse.Namespace, settings: ServeSettings) -> int:
    from rich.console import Console

    from serving import launcher
    from serving.weights import plan_weights

    console = Console(stderr=True)
    log_path: Path = args.log or launcher.default_log_path(args.port)
    process = None
    detached = False
    started = time.monotonic()
    with launcher.stop_signals_raise():
        try:
            with StageDisplay(console) as display:
                model = launcher.resolve_model(args.model, display)
                weights = plan_weights(model, args.weights, settings.dtype, display)
                console.print(f"weights: {weights.scheme} ({weights.reason})")
                settings = replace(settings, extra_args=(*weights.vllm_args, *settings.extra_args))
                eager_because = (
                    "--enforce-eager"
                    if settings.enforce_eager
                    else launcher.compile_unavailable_reason()
                )
                settings = replace(settings, enforce_eager=eager_because is not None)
                console.print(f"mode: {_mode(eager_because)}")
                env = launcher.server_environment(os.environ, os.sched_getaffinity(0))
                try:
                    process = _start_and_wait(weights.model, settings, env, log_path, display, args)
                except launcher.CompileTooSlow as slow:
                    settings = replace(settings, enforce_eager=True)
                    console.print(f"mode: {_mode(str(slow))}")
                    process = _start_and_wait(weights.model, settings, env, log_path, display, args)
            console.print(
                f"[bold green]ready[/] in {time.monotonic() - started:.0f} s: "
                f"{settings.base_url} (model [bold]{model.served_name}[/]); log: {log_path}"
            )
            print(settings.base_url, flush=True)
            if args.detach:
                record = launcher.new_record(
                    process, settings.base_url, model.served_name, log_path
                )
                launcher.write_record(args.port, record)
                detached = True
                console.print(f"stop it with: phone-agent serve --stop --port {args.port}")
                return 0
            code = process.wait()
            console.print(f"[red]the server exited with code {code}[/]; see {log_path}")
            return 1
        except KeyboardInterrupt:
            console.print("interrupted: stopping the server")
            return 130
        finally:
            if process is not None and not detached:
                # The server leads its own session: its pid is the group of all its processes.
                launcher.stop_group(process.pid)


def _start_and_wait(
    model: ResolvedModel,
    settings: ServeSettings,
    env: dict[str, str],
    log_path: Path,
    display: StageDisplay,
    args: argparse.Namespace,
) -> subprocess.Popen[bytes]:
    """Start the server and follow it until it answers; one that does not is stopped here."""
    from serving import launcher

    process = launcher.start_server(launcher.server_command(model, settings), env, log_path)
    limit = None if settings.enforce_eager else args.compile_timeout
    try:
        launcher.wait_until_ready(
            process, settings.base_url, log_path, display, args.timeout, limit
        )
    except BaseException:
        launcher.stop_group(process.pid)
        raise
    return process


def _mode(eager_because: str | None) -> str:
    if eager_because is None:
        return "compiled (torch.compile; --enforce-eager skips it)"
    return f"eager ({eager_because})"


def _stop(port: int) -> int:
    from serving import launcher

    record = launcher.read_record(port)
    if record is None:
        print(f"no detached server recorded on port {port}", file=sys.stderr)
        return 0
    launcher.stop_group(record.pgid)
    launcher.record_path(port).unlink(missing_ok=True)
    print(f"stopped the server at {record.base_url} (process group {record.pgid})", file=sys.stderr)
    return 0
