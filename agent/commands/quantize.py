"""`phone-agent probe` and `phone-agent quantize`.

Only the standard library and the names of the weight schemes (`serving.schemes`, standard
library only itself) are imported at module level: the CLI must start without torch.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from serving.schemes import QUANTIZED_SCHEMES

if TYPE_CHECKING:
    from serving.quantization.timings import Measurement


def register(subparsers: Any) -> None:
    probe = subparsers.add_parser(
        "probe",
        help="what this machine offers, and which weight build to serve on it",
        description="Probe the CPU (flags, usable cores, cgroup limits), memory and GPU, and "
        "choose the weight build: W4A16 for fidelity (the default); for speed, the build whose "
        "kernels made an agent decision cheapest when timed on this machine (--measure).",
    )
    probe.add_argument("--json", action="store_true", help="print one JSON object")
    probe.add_argument("--priority", choices=("fidelity", "speed"), default="fidelity")
    probe.add_argument(
        "--measure",
        action="store_true",
        help="time each build's kernels here (about a minute) and keep the result for this CPU "
        "and torch version; --priority speed chooses from it",
    )
    probe.set_defaults(handler=run_probe)

    quantize = subparsers.add_parser(
        "quantize",
        help=f"quantize a bf16 Spark checkpoint ({', '.join(QUANTIZED_SCHEMES)}) for vLLM",
        description="Stream the bf16 safetensors of SRC into a quantized checkpoint in DST "
        "(tokenizer and chat template copied). With --compare, serve both builds and compare "
        "their greedy continuations and log-probabilities on a prompt set.",
    )
    quantize.add_argument("source", type=Path, metavar="SRC")
    quantize.add_argument("destination", type=Path, metavar="DST")
    quantize.add_argument("--scheme", choices=QUANTIZED_SCHEMES, required=True)
    quantize.add_argument("--group-size", type=int, default=128, metavar="N")
    quantize.add_argument(
        "--table-bits",
        type=int,
        choices=(4, 8),
        default=None,
        metavar="{4,8}",
        help="w4a16 only: bits of the vocabulary table (embedding and tied output head); "
        "default 8, the faithful choice; 4 decodes faster where the vocabulary is large",
    )
    quantize.add_argument("--json", action="store_true", help="print the report as JSON")
    quantize.add_argument(
        "--compare",
        nargs="?",
        const="builtin",
        default=None,
        metavar="PROMPTS",
        help="after quantizing, compare DST with SRC on a built-in set, on the prompts of a "
        "text file (one per line) or on the agent's chat requests in a demonstrations file "
        "(.jsonl, .jsonl.gz, .jsonl.xz from `eval --export-demos`)",
    )
    quantize.add_argument(
        "--compare-tokens",
        type=int,
        default=32,
        metavar="N",
        help="greedy tokens per plain prompt (a chat request's continuation runs to the end "
        "of its reply)",
    )
    quantize.add_argument(
        "--compare-count",
        type=int,
        default=64,
        metavar="N",
        help="chat requests taken from a demonstrations file, spread evenly over it",
    )
    quantize.set_defaults(handler=run_quantize)


def run_probe(args: argparse.Namespace) -> int:
    from serving.quantization.probe import probe

    measurement = _measure() if args.measure else None
    report = probe(args.priority)
    if args.json:
        extra = {"measurement": measurement.model_dump(mode="json")} if measurement else {}
        print(json.dumps({**report.model_dump(mode="json"), **extra}))
        return 0
    if measurement is not None:
        print(_measurement_table(measurement))
    hw, choice = report.hardware, report.choice
    gib = 2**30
    quota = f", quota {hw.cpu_quota_cores:g}" if hw.cpu_quota_cores is not None else ""
    print(f"cpu:     {hw.cpu_model} ({hw.architecture}), {hw.cores} usable core(s){quota}")
    print(f"flags:   {' '.join(hw.cpu_flags) or 'none of interest'}")
    print(
        f"memory:  {hw.memory_available_bytes / gib:.1f} GiB available of "
        f"{hw.memory_total_bytes / gib:.1f} GiB"
    )
    print(f"gpu:     {hw.gpu or 'none'}")
    verified = "verified" if choice.verified else "not verified on real hardware"
    print(f"choice:  {choice.scheme} for {choice.priority} ({verified})")
    print(f"why:     {choice.rationale}")
    print(f"serve:   {' '.join(choice.serve_args)}")
    return 0


def _measure() -> Measurement:
    from serving.quantization.hardware import probe_hardware
    from serving.quantization.measure import measure

    def progress(message: str) -> None:
        print(f"  timing {message}", file=sys.stderr, flush=True)

    return measure(probe_hardware(), progress=progress)


def _measurement_table(measurement: Measurement) -> str:
    from serving.quantization.timings import DECISION_PROMPT_TOKENS, DECISION_REPLY_TOKENS

    lines = [
        f"timed in {measurement.seconds:.0f} s at the {measurement.shape} shape, "
        f"{measurement.threads} threads, torch {measurement.torch_version}:",
        f"  {'build':<6} {'decode ms/token':>16} {'prefill ms/token':>17} {'decision s':>11}",
    ]
    for build in measurement.builds:
        if not build.timed or build.layer_decode_ms is None or build.head_ms is None:
            lines.append(f"  {build.scheme:<6} {build.note}")
            continue
        decode = measurement.layers * build.layer_decode_ms + build.head_ms
        prefill = measurement.layers * (build.layer_prefill_ms_per_token or 0)
        lines.append(
            f"  {build.scheme:<6} {decode:>16.1f} {prefill:>17.1f} "
            f"{measurement.decision_seconds(build.scheme) or 0:>11.1f}"
        )
    lines.append(
        f"  (a decision: {DECISION_PROMPT_TOKENS} uncached prompt tokens, "
        f"{DECISION_REPLY_TOKENS} reply tokens; matrix time only)"
    )
    return "\n".join(lines)


def run_quantize(args: argparse.Namespace) -> int:
    from serving.quantization.quantize import quantize_checkpoint

    def progress(name: str, snr_db: float | None) -> None:
        if snr_db is not None:
            print(f"  {name}: {snr_db:.1f} dB", file=sys.stderr, flush=True)

    report = quantize_checkpoint(
        args.source,
        args.destination,
        args.scheme,
        args.group_size,
        on_tensor=progress,
        table_bits=args.table_bits,
    )
    if args.json:
        print(report.model_dump_json())
    else:
        print(
            f"wrote {args.scheme} checkpoint to {args.destination} in {report.seconds:.0f} s: "
            f"{report.quantized_tensors} tensors quantized, {report.kept_tensors} kept, "
            f"{report.destination_bytes / 2**20:.0f} MiB; lowest SNR {report.min_snr_db:.1f} dB "
            f"({report.worst_tensor})"
        )
    if args.compare is None:
        return 0
    from serving.quantization.compare import compare_builds, load_prompts

    prompts = load_prompts(args.compare, args.source, args.compare_count)
    comparison = compare_builds(args.source, args.destination, prompts, args.compare_tokens)
    if args.json:
        print(comparison.model_dump_json())
    else:
        print(comparison.summary())
    return 0
