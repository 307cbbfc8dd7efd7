"""`phone-agent bench serving|kernels|speculative|profile`: the model server's benchmarks,
beside the agent's (`bench prompt|step`).

Only the standard library, the CLI's own modules and the names of the weight schemes are
imported at module level; each handler imports what it measures, so `phone-agent --help` stays
fast and works without the serving stack.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.commands.arguments import int_at_least
from agent.commands.command_groups import command_group
from devices.errors import UsageError
from serving.bench import parse_counts
from serving.schemes import SCHEMES, serve_args

if TYPE_CHECKING:
    from serving.bench.builds import ReadBandwidth
    from serving.bench.llamacpp import PeerFormat, PeerMeasurement
    from serving.bench.schemes import SchemeMeasurement, ServingBenchSettings
    from serving.bench.speculative import ServerRun
    from serving.launcher import ResolvedModel, ServeSettings


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    benchmarks = command_group(subparsers, "bench")
    _add_serving(benchmarks)
    _add_kernels(benchmarks)
    _add_speculative(benchmarks)
    _add_profile(benchmarks)


def _comma_list(parse: Callable[[str], list[Any]]) -> Callable[[str], list[Any]]:
    """An argparse type from a list parser, keeping the parser's own message on bad input."""

    def convert(text: str) -> list[Any]:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return convert


def _schemes_parser(name: str) -> Callable[[str], list[Any]]:
    """A list parser of serving.bench.schemes, imported when an option needs it."""

    def parse(text: str) -> list[Any]:
        from serving.bench import schemes

        parsed: list[Any] = getattr(schemes, name)(text)
        return parsed

    return parse


def _add_shape(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--shape", choices=("tiny", "1.7b"), default="1.7b", help="(1.7b)")


def _add_serving(benchmarks: Any) -> None:
    # The measuring modules load httpx, pydantic and the llama.cpp peer: the handler and the
    # list converters import them, not the listing of the commands.
    parser = benchmarks.add_parser(
        "serving",
        help="weight builds served side by side: load, memory, prefill, decode, concurrency",
        description="Build a random Spark checkpoint of the shape and its quantized copies "
        "(reused from --work-dir when present), serve each in turn through the launcher of "
        "`phone-agent serve` (eager unless --compiled) and measure load time, peak and settled "
        "anonymous RSS, prefill and decode tok/s, as ratios to bf16, and the memory bandwidth "
        "decode draws beside plain reads of 512 MiB on the server's threads; then sweep "
        "simultaneous decode streams on the fastest build. A scheme that cannot be built or "
        "served on this machine is reported in its row. Last, when the optional peer packages "
        "are installed, llama.cpp runs the same checkpoint as GGUF (F16, Q8_0, Q4_K_M) and each "
        "row is set against our build of the same width.",
    )
    _add_shape(parser)
    parser.add_argument(
        "--schemes",
        type=_comma_list(_schemes_parser("parse_schemes")),
        metavar="LIST",
        help="comma-separated builds to measure (default: every build)",
    )
    parser.add_argument(
        "--work-dir",
        type=Path,
        metavar="DIR",
        help="where the checkpoints and server logs live, reused between runs "
        "(default: a folder per shape in the user cache)",
    )
    parser.add_argument(
        "--runs", type=int_at_least(1), default=3, metavar="N", help="runs per median (3)"
    )
    parser.add_argument(
        "--decode-tokens", type=int_at_least(2), default=128, metavar="N", help="(128)"
    )
    parser.add_argument(
        "--prefill-tokens", type=int_at_least(1), default=512, metavar="N", help="(512)"
    )
    parser.add_argument(
        "--concurrency",
        type=_comma_list(parse_counts),
        metavar="LIST",
        help="simultaneous decode streams to sweep (default: 1 to 8, doubling)",
    )
    parser.add_argument(
        "--peer-formats",
        type=_comma_list(_schemes_parser("parse_peer_formats")),
        metavar="LIST",
        help="llama.cpp GGUF formats to measure (default: every format)",
    )
    parser.add_argument(
        "--no-peer",
        dest="peer_formats",
        action="store_const",
        const=[],
        help="leave the llama.cpp peer out",
    )
    parser.add_argument(
        "--compiled",
        action="store_true",
        help="serve each build compiled, as `serve` does by default (a slower start); "
        "default: eager",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=_run_serving)


def _run_serving(args: argparse.Namespace) -> int:
    from serving import launcher
    from serving.bench import schemes
    from serving.bench.llamacpp import PEER_FORMATS

    settings = schemes.ServingBenchSettings(
        shape=args.shape,
        schemes=args.schemes or list(schemes.SCHEMES),
        runs=args.runs,
        decode_tokens=args.decode_tokens,
        prefill_tokens=args.prefill_tokens,
        concurrency=args.concurrency or list(schemes.DEFAULT_CONCURRENCY),
        peer_formats=list(PEER_FORMATS) if args.peer_formats is None else args.peer_formats,
        compiled=args.compiled,
    )
    work_dir = _work_dir(args)
    with launcher.stop_signals_raise():
        report = schemes.run_serving_bench(
            _ServingStack(work_dir, settings),
            settings,
            progress=lambda message: print(message, file=sys.stderr),
        )
    print(report.model_dump_json(indent=2) if args.json else schemes.render_text(report))
    return 0


def _add_kernels(benchmarks: Any) -> None:
    parser = benchmarks.add_parser(
        "kernels",
        help="the W4A16 kernels side by side on one token's int4 matrices",
        description="Multiply every int4 matrix one token passes through (random weights of "
        "the shape, torch's packed layout) with torch's int4 kernel, each build of ours that "
        "runs here, the plan's many-row path and the bf16 matrix, at a few row counts, "
        "interleaved; report the median per call and the sum over one token. Then a decoded "
        "token's matrices with weights from memory beside plain reads of memory (GB/s). Needs "
        "torch (the serving stack).",
    )
    _add_shape(parser)
    parser.add_argument(
        "--rows",
        type=_comma_list(parse_counts),
        default=[1, 2, 4, 8],
        metavar="LIST",
        help="activation rows to multiply (1,2,4,8: decode; 16 and up: prefill chunks, the "
        "layers alone, W4A16 against bf16)",
    )
    parser.add_argument(
        "--step-rows",
        type=_comma_list(parse_counts),
        default=[1],
        metavar="LIST",
        help="rows of the decode step with weights from memory (1: one stream)",
    )
    parser.add_argument("--no-step", action="store_true", help="leave the decode step out")
    parser.add_argument(
        "--repeat", type=int_at_least(1), default=5, metavar="N", help="calls per median (5)"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(handler=_run_kernels)


def _run_kernels(args: argparse.Namespace) -> int:

    try:
        from serving.bench import kernels
    except ImportError as exc:
        raise UsageError(
            f"bench kernels needs the serving stack ({exc.name} is missing): make serving-stack"
        ) from None
    report = kernels.run_kernel_bench(
        args.shape,
        args.rows,
        args.repeat,
        progress=lambda message: print(message, file=sys.stderr),
        decode_step_rows=[] if args.no_step else args.step_rows,
    )
    print(report.model_dump_json(indent=2) if args.json else kernels.render_text(report))
    return 0


AGENT_MAX_MODEL_LEN = 4096  # an agent's prompt (about 2,000 tokens) and its reply


def _add_speculative(benchmarks: Any) -> None:
    parser = benchmarks.add_parser(
        "speculative",
        help="decoding with drafts or fewer logits against plain decoding: the same tokens, "
        "how much sooner",
        description="Record an agent's requests on a server of the build (or take them from "
        "--requests), then serve the build on each side in turn and replay them greedily, a "
        "run each, keeping every generated token. Sides: all-logits (plain decoding, "
        "every logit computed, as vLLM does), plain (plain decoding; under a tool call's "
        "grammar only the allowed tokens' logits), speculative (drafts from the tool-call "
        "grammar and the prompt). Report whether every reply is identical token by token to "
        "the first side's, and the time of each side on the same outputs: later requests, "
        "time per output token, a decision with a call of --call-tokens tokens, and the cores "
        "other processes took meanwhile.",
    )
    _add_build(parser)
    _add_requests(parser)
    parser.add_argument(
        "--sides",
        type=_sides,
        default=("plain", "speculative"),
        metavar="A,B[,C]",
        help=f"the servers compared, each with the first ({', '.join(SIDES)}; "
        "default: plain,speculative)",
    )
    parser.add_argument(
        "--speculative-tokens",
        type=int_at_least(1),
        default=None,
        metavar="N",
        help="tokens drafted per step (default: what `serve` drafts)",
    )
    parser.add_argument(
        "--runs", type=int_at_least(1), default=2, metavar="N", help="replays of the requests (2)"
    )
    parser.add_argument("--call-tokens", type=int_at_least(1), default=24, metavar="N", help="(24)")
    _add_replay_options(parser)
    parser.set_defaults(handler=_run_speculative)


SIDES = ("all-logits", "plain", "speculative")


def _sides(text: str) -> tuple[str, ...]:
    sides = tuple(side.strip() for side in text.split(","))
    unknown = [side for side in sides if side not in SIDES]
    if unknown:
        known = ", ".join(SIDES)
        raise argparse.ArgumentTypeError(f"unknown side {unknown[0]!r}: choose from {known}")
    if len(sides) < 2 or len(set(sides)) < len(sides):
        raise argparse.ArgumentTypeError("name two or three different sides")
    return sides


def _add_build(parser: argparse.ArgumentParser) -> None:
    _add_shape(parser)
    parser.add_argument(
        "--model",
        metavar="DIR",
        help="checkpoint to serve, as `serve --model` takes it (default: the random checkpoint "
        "of --shape that `bench serving` builds)",
    )
    parser.add_argument("--weights", choices=SCHEMES, default="w4a16", help="(w4a16)")


def _add_requests(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--requests",
        type=Path,
        metavar="FILE",
        help="chat requests to replay, one JSON body a line (`bench step --record`); default: "
        "record --steps steps of the agent (thinking off, a call required) on a server of its own",
    )
    parser.add_argument("--steps", type=int_at_least(1), default=6, metavar="N", help="(6)")
    parser.add_argument("--episode-steps", type=int_at_least(1), default=3, metavar="N", help="(3)")


def _add_replay_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-tokens",
        type=int_at_least(2),
        default=64,
        metavar="N",
        help="tokens generated per request at most, recording and replaying (64: random "
        "weights write a call's value until the cap)",
    )
    parser.add_argument(
        "--compiled", action="store_true", help="serve compiled, as `serve` does (default: eager)"
    )
    parser.add_argument(
        "--work-dir",
        type=Path,
        metavar="DIR",
        help="checkpoints, logs and the recorded requests (default: `bench serving`'s)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def _run_speculative(args: argparse.Namespace) -> int:
    from serving import launcher
    from serving.bench import speculative

    work_dir = _work_dir(args)
    logs = work_dir / "logs"
    bodies = _given_requests(args)
    progress = _stderr_line
    tokens = args.speculative_tokens or launcher.DEFAULT_SPECULATIVE_TOKENS
    with launcher.stop_signals_raise():
        model, serve_args = _bench_build(args, work_dir)
        settings = launcher.ServeSettings(
            port=launcher.free_port(),
            max_model_len=AGENT_MAX_MODEL_LEN,
            max_num_seqs=1,
            enforce_eager=not args.compiled,
            extra_args=tuple(serve_args),
        )
        side_settings = {
            "all-logits": replace(settings, all_logits=True),
            "plain": settings,
            "speculative": replace(settings, speculative_tokens=tokens),
        }
        sides = []
        for label in args.sides:
            side = side_settings[label]
            args_of_side = launcher.decoding_args(side)
            sides.append((speculative.ServerRun(label=label, serve_args=args_of_side), side))
        if bodies is None:
            bodies = _record_apart(model, sides, logs, args, progress)
        for run in range(1, args.runs + 1):
            for server_run, side in sides:
                if server_run.error is None:
                    progress(f"run {run}, {server_run.label}: serving {model.path}")
                    _replay_run(server_run, run, model, side, logs, args, bodies, progress)
    report = speculative.compare(
        model.served_name,
        len(bodies or []),
        args.runs,
        [server_run for server_run, _ in sides],
        args.call_tokens,
        cpus=len(os.sched_getaffinity(0)),
        repeated=speculative.repeated_requests(bodies or []),
    )
    print(report.model_dump_json(indent=2) if args.json else speculative.render_text(report))
    return 0


def _add_profile(benchmarks: Any) -> None:
    parser = benchmarks.add_parser(
        "profile",
        help="where a served step's milliseconds go: matrix products, attention, KV cache, "
        "the rest of the model, between steps",
        description="Serve one build with vLLM's torch profiler on, record an agent's requests "
        "against it (or take them from --requests), replay them once to warm it, then once "
        "under the profiler. Report, for the decode steps and the prefill steps apart, the "
        "milliseconds of a step in each part of it, each matrix product with the bytes of its "
        "weights and the rate it read them at, against this machine's plain reads. The worker's "
        "trace is kept for a closer look.",
    )
    _add_build(parser)
    _add_requests(parser)
    _add_replay_options(parser)
    parser.set_defaults(handler=_run_profile)


def _run_profile(args: argparse.Namespace) -> int:
    import json
    import shutil

    import httpx

    from serving import launcher
    from serving.bench import speculative, step_profile
    from serving.bench.builds import measure_read_bandwidth

    work_dir = _work_dir(args)
    logs = work_dir / "logs"
    bodies = _given_requests(args)
    trace_dir = (logs / "profile").resolve()
    with launcher.stop_signals_raise():
        model, serve_args = _bench_build(args, work_dir)
        cpus = len(os.sched_getaffinity(0))
        read = measure_read_bandwidth(cpus)  # before the server takes the memory and the cores
        shutil.rmtree(trace_dir, ignore_errors=True)
        trace_dir.mkdir(parents=True)
        profiler = {
            "profiler": "torch",
            "torch_profiler_dir": str(trace_dir),
            "torch_profiler_with_stack": False,
            "torch_profiler_record_shapes": True,
        }
        settings = launcher.ServeSettings(
            port=launcher.free_port(),
            max_model_len=AGENT_MAX_MODEL_LEN,
            max_num_seqs=1,
            enforce_eager=not args.compiled,
            extra_args=(*serve_args, "--profiler-config", json.dumps(profiler)),
        )
        _stderr_line(f"serving {model.path} with the profiler on")
        with _served(model, settings, logs / "profile.log"):
            if bodies is None:
                bodies = _record_requests(
                    settings.base_url, model.served_name, args, logs, _stderr_line
                )
            replay = (settings.base_url, model.served_name, bodies)
            speculative.replay(*replay, 1, _stderr_line, args.max_tokens)  # warm-up
            server = settings.base_url.removesuffix("/v1")
            httpx.post(f"{server}/start_profile", timeout=60).raise_for_status()
            replies = speculative.replay(*replay, 2, _stderr_line, args.max_tokens)
            _stderr_line("writing the trace")
            httpx.post(f"{server}/stop_profile", timeout=600).raise_for_status()
            trace = step_profile.worker_trace(trace_dir)
    kinds = step_profile.break_down(step_profile.read_trace(trace))
    report = step_profile.ProfileReport(
        model=model.served_name,
        weights=args.weights,
        compiled=args.compiled,
        cpus=cpus,
        requests=len(bodies),
        output_tokens=sum(len(reply.token_ids) for reply in replies),
        read_gb_per_s=read.gb_per_s,
        decode=kinds.get("decode"),
        prefill=kinds.get("prefill"),
        trace=str(trace),
    )
    print(report.model_dump_json(indent=2) if args.json else step_profile.render_text(report))
    return 0


def _work_dir(args: argparse.Namespace) -> Path:
    from serving.checkpoint import user_cache_dir

    work_dir: Path = args.work_dir or user_cache_dir() / "bench-serving" / args.shape
    return work_dir


def _given_requests(args: argparse.Namespace) -> list[dict[str, Any]] | None:
    """The requests of --requests; None where they are to be recorded."""
    from serving.bench.speculative import read_requests

    if args.requests is None:
        return None
    try:
        return read_requests(args.requests)
    except (OSError, ValueError) as exc:
        raise UsageError(f"--requests: {exc}") from None


def _stderr_line(message: str) -> None:
    print(message, file=sys.stderr)


def _bench_build(args: argparse.Namespace, work_dir: Path) -> tuple[ResolvedModel, list[str]]:
    """The checkpoint of --weights to serve and the arguments that serve it."""
    from serving import launcher
    from serving.bench.schemes import ServingBenchSettings
    from serving.weights import plan_weights

    if args.model is not None:
        plan = plan_weights(
            launcher.resolve_model(args.model, lambda stage: None),
            args.weights,
            "auto",
            lambda stage: None,
        )
        return plan.model, list(plan.vllm_args)
    stack = _ServingStack(
        work_dir,
        ServingBenchSettings(
            shape=args.shape,
            schemes=[args.weights],
            runs=1,
            decode_tokens=2,
            prefill_tokens=1,
            concurrency=[1],
        ),
    )
    built = stack.prepare(args.weights)
    if built.error:
        raise UsageError(f"{args.weights}: {built.error}")
    folder = stack._folder(args.weights)
    return launcher.ResolvedModel(folder, args.weights, "local"), _serve_args(args.weights)


def _record_apart(
    model: ResolvedModel,
    sides: Sequence[tuple[ServerRun, ServeSettings]],
    logs: Path,
    args: argparse.Namespace,
    progress: Callable[[str], None],
) -> list[dict[str, Any]]:
    """The agent's requests, recorded on a server of the first side's settings started for
    that alone: a side that recorded would start its first run with the recording's prompts
    in its prefix cache, computed in other pieces than a fresh server computes them. A failure
    is kept in every side."""
    import httpx

    settings = sides[0][1]
    progress(f"recording: serving {model.path}")
    try:
        with _served(model, settings, logs / "speculative-recording.log"):
            return _record_requests(settings.base_url, model.served_name, args, logs, progress)
    except (RuntimeError, httpx.HTTPError) as exc:
        for server_run, _ in sides:
            server_run.error = f"recording failed: {_first_line(exc)}"
        return []


def _first_line(error: BaseException) -> str:
    """An error's first line, as a side of `bench speculative` keeps it."""
    return (str(error).strip() or repr(error)).splitlines()[0]


def _replay_run(
    server_run: ServerRun,
    run: int,
    model: ResolvedModel,
    settings: ServeSettings,
    logs: Path,
    args: argparse.Namespace,
    bodies: list[dict[str, Any]],
    progress: Callable[[str], None],
) -> None:
    """Serve `model` with `settings` and replay run `run` of `bodies` into `server_run`, with
    the cores other processes took meanwhile; a failure is kept in the run."""
    import httpx

    from serving import launcher
    from serving.bench.speculative import ForeignCores, replay

    started = time.monotonic()
    try:
        with _served(model, settings, logs / f"speculative-{server_run.label}.log") as group:
            server_run.load_seconds.append(round(time.monotonic() - started, 1))
            ours = os.getpid()
            with ForeignCores(lambda: [ours, *launcher.group_members(group)]) as foreign:
                server_run.replies += replay(
                    settings.base_url, model.served_name, bodies, run, progress, args.max_tokens
                )
            if foreign.cores is not None:
                server_run.foreign_cores.append(foreign.cores)
    except (RuntimeError, httpx.HTTPError) as exc:
        server_run.error = _first_line(exc)


def _record_requests(
    base_url: str,
    model: str,
    args: argparse.Namespace,
    logs: Path,
    progress: Callable[[str], None],
) -> list[dict[str, Any]]:
    """The requests of an agent playing the bench step's task: greedy, thinking off, a tool
    call required (random weights call no tool unless made to)."""
    from agent.model_client import ClientSettings
    from evals.bench.step import run_step_bench
    from serving.bench.speculative import RequestRecorder, read_requests

    recording = logs / "speculative-requests.jsonl"
    logs.mkdir(parents=True, exist_ok=True)
    settings = ClientSettings(
        base_url=base_url,
        model=model,
        tool_choice="required",
        thinking=False,
        temperature=0.0,
        top_p=1.0,
        answer_tokens=args.max_tokens,
    )
    progress(f"recording {args.steps} agent requests in {recording}")
    with RequestRecorder(recording) as record:
        report = run_step_bench(
            settings,
            steps=args.steps,
            modes=("off",),
            episode_steps=args.episode_steps,
            record=record,
        )
    if "aborted" in report.modes[0].stop_reasons:
        raise KeyboardInterrupt  # the agent loop ends its episode on Ctrl-C; the bench stops
    return read_requests(recording)


@contextmanager
def _served(model: ResolvedModel, settings: ServeSettings, log_path: Path) -> Iterator[int]:
    """`model` served with `settings` for the block, which gets the server's process group; a
    start-up failure raises RuntimeError naming the exception in the log."""
    from serving import launcher

    process = launcher.start_server(
        launcher.server_command(model, settings),
        launcher.server_environment(os.environ, os.sched_getaffinity(0)),
        log_path,
    )
    try:
        try:
            launcher.wait_until_ready(
                process, settings.base_url, log_path, lambda stage: None, 1800.0
            )
        except launcher.ServeError as exc:
            raise RuntimeError(_with_cause(str(exc).splitlines()[0], log_path)) from exc
        yield process.pid
    finally:
        launcher.stop_group(process.pid)


class _ServingStack:
    """The `bench serving` backend: our checkpoint writer, quantizer and vLLM launcher.

    Layout of the work directory: one folder per build (`bf16` is the random source; a quantized
    build's folder names its scheme and format), `logs/`, and `gguf/` for the llama.cpp peer's
    files and logs. A folder or file is written under a temporary name and renamed when
    complete, so a build interrupted half-way is made again rather than measured.
    """

    def __init__(self, work_dir: Path, settings: ServingBenchSettings) -> None:
        self._work_dir = work_dir
        self._settings = settings
        self._logs = work_dir / "logs"
        # Room for the prefill prompt and for a decode run, whichever is longer.
        self._max_model_len = max(2048, settings.prefill_tokens + settings.decode_tokens)

    def _folder(self, scheme: str) -> Path:
        """Where a build lives; a quantized build's folder names its format (`layout_tag`)."""
        from serving.quantization.quantize import layout_tag

        return self._work_dir / (scheme if scheme == "bf16" else layout_tag(scheme))  # type: ignore[arg-type]

    def _build(self, scheme: str, write: Callable[[Path], object]) -> Path:
        import shutil

        from serving.atomic import build_atomically

        target = self._folder(scheme)
        if not (target / "config.json").is_file():
            shutil.rmtree(target, ignore_errors=True)  # a folder written in place, incomplete
            with build_atomically(target) as building:
                write(building)
        return target

    def _source(self) -> Path:
        from serving.checkpoint import SparkConfig, make_checkpoint, spark_config

        shape = self._settings.shape
        source = self._build("bf16", lambda path: make_checkpoint(path, shape))
        if SparkConfig.load(source) != spark_config(shape):
            raise UsageError(f"{source} holds a checkpoint of another shape than {shape}")
        return source

    def prepare(self, scheme: str) -> SchemeMeasurement:
        from serving.bench.builds import decode_read_bytes
        from serving.bench.schemes import SchemeMeasurement
        from serving.quantization.quantize import QuantizeError, quantize_checkpoint

        source = self._source()
        if scheme == "bf16":
            return SchemeMeasurement(
                scheme=scheme,
                checkpoint_bytes=_weights_bytes(source),
                decode_read_bytes=decode_read_bytes(source),
            )
        if scheme == "w4a16":
            from serving.quantization import cpu_kernels

            # Built once per machine: the server's load time must not include the compiler.
            cpu_kernels.load()
        started = time.monotonic()
        reused = (self._folder(scheme) / "config.json").is_file()
        try:
            target = self._build(
                scheme,
                lambda path: quantize_checkpoint(source, path, scheme),  # type: ignore[arg-type]
            )
        except (QuantizeError, OSError, RuntimeError) as exc:
            return SchemeMeasurement(scheme=scheme, error=f"quantizing failed: {exc}")
        return SchemeMeasurement(
            scheme=scheme,
            checkpoint_bytes=_weights_bytes(target),
            decode_read_bytes=decode_read_bytes(target),
            quantize_seconds=None if reused else round(time.monotonic() - started, 1),
        )

    def read_bandwidth(self) -> ReadBandwidth:
        from serving.bench.builds import measure_read_bandwidth

        # the server binds its threads to every CPU this process may use
        return measure_read_bandwidth(len(os.sched_getaffinity(0)))

    def measure(self, builds: Sequence[SchemeMeasurement]) -> list[SchemeMeasurement]:
        from serving import launcher
        from serving.bench.builds import measure_builds
        from serving.bench.schemes import SchemeMeasurement

        schemes = [build.scheme for build in builds]
        results = measure_builds(
            [(scheme, self._folder(scheme)) for scheme in schemes],
            port=launcher.free_port(),
            log_dir=self._logs,
            extra_args={scheme: _serve_args(scheme) for scheme in schemes},
            max_model_len=self._max_model_len,
            decode_tokens=self._settings.decode_tokens,
            prefill_tokens=self._settings.prefill_tokens,
            runs=self._settings.runs,
            enforce_eager=not self._settings.compiled,
        )
        measurements = []
        for build, result in zip(builds, results, strict=True):
            log = self._logs / f"{build.scheme}.log"
            measurements.append(
                SchemeMeasurement(
                    **result.model_dump(exclude={"label", "model", "error"}),
                    scheme=build.scheme,
                    decode_read_bytes=build.decode_read_bytes,
                    quantize_seconds=build.quantize_seconds,
                    error=_with_cause(result.error, log) if result.error else None,
                )
            )
        return measurements

    @contextmanager
    def serve(self, scheme: str, max_streams: int) -> Iterator[tuple[str, str]]:
        from serving import launcher

        settings = launcher.ServeSettings(
            port=launcher.free_port(),
            max_model_len=self._max_model_len,
            max_num_seqs=max_streams,
            enforce_eager=not self._settings.compiled,
            extra_args=tuple(_serve_args(scheme)),
        )
        model = launcher.ResolvedModel(self._folder(scheme), scheme, "local")
        with _served(model, settings, self._logs / f"{scheme}-concurrency.log"):
            yield settings.base_url, scheme

    def peer_unavailable(self) -> str | None:
        from serving.bench.llamacpp import unavailable_reason

        return unavailable_reason()

    def measure_peer(self, formats: Sequence[PeerFormat]) -> list[PeerMeasurement]:
        from serving.bench.llamacpp import measure_peer

        return measure_peer(
            self._source(),
            self._work_dir / "gguf",
            formats,
            prefill_tokens=self._settings.prefill_tokens,
            decode_tokens=self._settings.decode_tokens,
            runs=self._settings.runs,
        )


def _weights_bytes(model_dir: Path) -> int:
    return sum(path.stat().st_size for path in model_dir.glob("*.safetensors"))


def _serve_args(scheme: str) -> list[str]:
    # Schemes reach here through parse_schemes, which takes only SCHEMES.
    return serve_args(scheme)  # type: ignore[arg-type]


def _with_cause(error: str, log_path: Path) -> str:
    """A start-up failure ("exited ... see LOG:") followed by the exception the log names."""
    from serving.bench.schemes import failure_cause

    try:
        cause = failure_cause(log_path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        cause = None
    return f"{error.rstrip(':')}: {cause}" if cause else error
