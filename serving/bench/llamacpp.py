"""The llama.cpp peer of `bench serving`: the same checkpoint as GGUF, measured the same way.

Optional: it needs the `peer` extra (llama-cpp-python, gguf), which compiles llama.cpp (minutes
on two cores), so `bench serving` reports the peer as not measured where it is absent.

Every llama.cpp call runs in a child process (`python -m serving.bench.llamacpp ...`): a crash in
native code becomes a row with its cause, the child's memory is sampled on its own, and nothing
is left mapped in the benchmark process. Per format, in the child, through the low-level API:

- load: model file read into memory (mmap off, so the weights are anonymous memory like vLLM's
  and RssAnon compares) and context created;
- prefill: `prefill_tokens` random prompt tokens decoded in batches of 512 from an empty cache,
  tokens per second, median of `runs`;
- decode: after a 16-token prompt, `decode_tokens` single-token steps each feeding back the
  greedy choice, tokens per second, median of `runs`, as vLLM's side measures it.

On CPUs with AMX, llama.cpp's extra (AMX) buffer type crashes on quantized weights for any batch
above one token (upstream issue 20824), so extra buffer types are turned off there; elsewhere
they stay on (they repack Q4_K for faster decode).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from serving.atomic import build_atomically
from serving.bench.builds import MeasuredRates, RssSampler, rss_anon_bytes

PeerFormat = Literal["F16", "Q8_0", "Q4_K_M"]
PEER_FORMATS: tuple[PeerFormat, ...] = ("F16", "Q8_0", "Q4_K_M")
# llama.cpp's `llama_ftype` values.
_FILE_TYPES: dict[PeerFormat, int] = {"F16": 1, "Q8_0": 7, "Q4_K_M": 15}
# Our build each peer format is set against.
PAIRED_SCHEME: dict[PeerFormat, str] = {"F16": "bf16", "Q8_0": "w8a8", "Q4_K_M": "w4a16"}
INSTALL_HINT = "install the peer extra: pip install -e '.[peer]' (builds llama.cpp, minutes)"
_BATCH = 512
_DECODE_PROMPT_TOKENS = 16
_PROMPT_IDS = range(16, 1000)  # as vLLM's side: above the special tokens


class PeerMeasurement(MeasuredRates):
    format: PeerFormat
    paired_scheme: str
    gguf_bytes: int | None = None
    convert_seconds: float | None = None  # None: reused from an earlier run
    extra_buffer_types: bool | None = None


class ChildTimings(BaseModel):
    """What the child process prints: its own timings and the buffer choice."""

    extra_buffer_types: bool
    load_seconds: float
    prefill_tokens_per_s: float
    decode_runs: list[float]


def unavailable_reason() -> str | None:
    """Why the peer cannot run here, or None when it can."""
    import importlib.util

    missing = [name for name in ("llama_cpp", "gguf") if importlib.util.find_spec(name) is None]
    return f"{' and '.join(missing)} not installed; {INSTALL_HINT}" if missing else None


def cpu_has_amx() -> bool:
    try:
        return "amx_tile" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return False


# --- the parent side --------------------------------------------------------------------------


def _run_child(arguments: Sequence[str], log_path: Path, timeout_s: float) -> tuple[str, int]:
    """Run the child module; (its stdout, peak RssAnon of the child). RuntimeError on failure."""
    command = [sys.executable, "-m", "serving.bench.llamacpp", *arguments]
    with log_path.open("w", encoding="utf-8") as log:
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True
        )
        with RssSampler(process.pid) as sampler:
            try:
                out, _ = process.communicate(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                raise RuntimeError(f"no result in {timeout_s:.0f} s; see {log_path}") from None
            finally:  # also on Ctrl-C: the child is in its own session and would outlive us
                if process.poll() is None:
                    process.kill()
                    process.wait()
    if process.returncode != 0:
        if process.returncode < 0:
            cause = f"crashed ({signal.Signals(-process.returncode).name})"
        else:
            cause = _last_line(log_path) or f"exit status {process.returncode}"
        raise RuntimeError(f"{cause}; see {log_path}")
    return out, sampler.peak.worker


def _last_line(path: Path) -> str:
    lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def prepare_gguf(
    source: Path, work_dir: Path, peer_format: PeerFormat, timeout_s: float = 1800.0
) -> tuple[Path, float | None]:
    """The GGUF of `source` in `peer_format` (made, or reused from `work_dir`); seconds taken."""
    from serving.bench.gguf_export import export_gguf

    target = work_dir / f"model-{peer_format}.gguf"
    if target.is_file():
        return target, None
    started = time.monotonic()
    with build_atomically(target) as building:
        if peer_format == "F16":
            export_gguf(source, building)
        else:
            base, _ = prepare_gguf(source, work_dir, "F16", timeout_s)
            started = time.monotonic()
            _run_child(
                ["quantize", str(base), str(building), peer_format],
                work_dir / f"quantize-{peer_format}.log",
                timeout_s,
            )
    return target, round(time.monotonic() - started, 1)


def measure_peer(
    source: Path,
    work_dir: Path,
    formats: Sequence[PeerFormat],
    *,
    prefill_tokens: int,
    decode_tokens: int,
    runs: int,
    timeout_s: float = 1800.0,
) -> list[PeerMeasurement]:
    """Each format in turn: made from `source` if needed, then measured in its own process."""
    work_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for peer_format in formats:
        row = PeerMeasurement(format=peer_format, paired_scheme=PAIRED_SCHEME[peer_format])
        try:
            path, row.convert_seconds = prepare_gguf(source, work_dir, peer_format, timeout_s)
            row.gguf_bytes = path.stat().st_size
            out, peak = _run_child(
                [
                    "measure",
                    str(path),
                    f"--prefill-tokens={prefill_tokens}",
                    f"--decode-tokens={decode_tokens}",
                    f"--runs={runs}",
                ],
                work_dir / f"measure-{peer_format}.log",
                timeout_s,
            )
            report = json.loads(out.strip().splitlines()[-1])
            timings = ChildTimings.model_validate(report["timings"])
            row.extra_buffer_types = timings.extra_buffer_types
            row.load_seconds = timings.load_seconds
            row.prefill_tokens_per_s = timings.prefill_tokens_per_s
            row.decode_runs = timings.decode_runs
            row.decode_tokens_per_s = statistics.median(timings.decode_runs)
            row.settled_rss_anon_bytes = int(report["settled_rss_anon_bytes"])
            row.peak_rss_anon_bytes = max(peak, row.settled_rss_anon_bytes)
        except (RuntimeError, OSError, ValueError) as exc:
            row.error = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
        rows.append(row)
    return rows


# --- the child side: everything below runs inside `python -m serving.bench.llamacpp` -------------


def _quantize(source: Path, target: Path, peer_format: PeerFormat) -> None:
    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    _set_fields(params, ftype=_FILE_TYPES[peer_format], nthread=len(os.sched_getaffinity(0)))
    status = llama_cpp.llama_model_quantize(
        str(source).encode(), str(target).encode(), ctypes.byref(params)
    )
    if status != 0:
        raise SystemExit(f"llama_model_quantize returned {status}")


def _set_fields(structure: ctypes.Structure, **values: object) -> None:
    """Set fields of a llama.cpp parameter struct, refusing names the struct does not have.

    A ctypes structure takes any attribute silently, so a field renamed between llama.cpp
    versions would otherwise be ignored and the measurement run with the default.
    """
    fields = {name for name, *_ in type(structure)._fields_}
    unknown = sorted(set(values) - fields)
    if unknown:
        raise SystemExit(f"{type(structure).__name__} has no field {', '.join(unknown)}")
    for name, value in values.items():
        setattr(structure, name, value)


class _Session:
    """One model and context, with a batch of up to 512 tokens."""

    def __init__(self, model_path: Path, context_tokens: int, extra_buffer_types: bool) -> None:
        import llama_cpp

        self._llama = llama_cpp
        threads = len(os.sched_getaffinity(0))
        llama_cpp.llama_backend_init()
        model_params = llama_cpp.llama_model_default_params()
        _set_fields(
            model_params,
            load_mode=llama_cpp.LLAMA_LOAD_MODE_NONE,  # read, not mapped: anonymous memory
            use_extra_bufts=extra_buffer_types,
        )
        self.model = llama_cpp.llama_model_load_from_file(str(model_path).encode(), model_params)
        if not self.model:
            raise SystemExit(f"llama.cpp could not load {model_path}")
        context_params = llama_cpp.llama_context_default_params()
        _set_fields(
            context_params,
            n_ctx=context_tokens,
            n_batch=_BATCH,
            n_ubatch=_BATCH,
            n_threads=threads,
            n_threads_batch=threads,
        )
        self.context = llama_cpp.llama_init_from_model(self.model, context_params)
        if not self.context:
            raise SystemExit("llama.cpp could not create a context")
        vocabulary = llama_cpp.llama_model_get_vocab(self.model)
        self.vocabulary = llama_cpp.llama_vocab_n_tokens(vocabulary)
        self._batch = llama_cpp.llama_batch_init(_BATCH, 0, 1)

    def clear(self) -> None:
        self._llama.llama_memory_clear(self._llama.llama_get_memory(self.context), True)

    def decode(self, tokens: Sequence[int], start: int) -> None:
        """Feed `tokens` at positions from `start`; logits for the last one only."""
        for offset in range(0, len(tokens), _BATCH):
            chunk = tokens[offset : offset + _BATCH]
            batch = self._batch
            batch.n_tokens = len(chunk)
            for index, token in enumerate(chunk):
                batch.token[index] = token
                batch.pos[index] = start + offset + index
                batch.n_seq_id[index] = 1
                batch.seq_id[index][0] = 0
                batch.logits[index] = index == len(chunk) - 1
            status = self._llama.llama_decode(self.context, batch)
            if status != 0:
                raise SystemExit(f"llama_decode returned {status}")

    def greedy(self) -> int:
        import numpy

        logits = self._llama.llama_get_logits_ith(self.context, -1)
        return int(numpy.ctypeslib.as_array(logits, shape=(self.vocabulary,)).argmax())


def _measure(
    model_path: Path, prefill_tokens: int, decode_tokens: int, runs: int
) -> dict[str, Any]:
    rng = random.Random(0)

    def prompt(length: int) -> list[int]:
        return [rng.choice(_PROMPT_IDS) for _ in range(length)]

    extra_buffer_types = not cpu_has_amx()
    started = time.perf_counter()
    session = _Session(
        model_path,
        max(prefill_tokens, _DECODE_PROMPT_TOKENS + decode_tokens) + 16,
        extra_buffer_types,
    )
    load_seconds = time.perf_counter() - started
    session.decode(prompt(min(prefill_tokens, _BATCH)), 0)  # warm-up
    session.clear()

    prefill = []
    for _ in range(runs):
        tokens = prompt(prefill_tokens)
        began = time.perf_counter()
        session.decode(tokens, 0)
        session.greedy()
        prefill.append(prefill_tokens / (time.perf_counter() - began))
        session.clear()

    decode = []
    for _ in range(runs):
        session.decode(prompt(_DECODE_PROMPT_TOKENS), 0)
        token, position = session.greedy(), _DECODE_PROMPT_TOKENS
        began = time.perf_counter()
        for _ in range(decode_tokens):
            session.decode([token], position)
            token, position = session.greedy(), position + 1
        decode.append(round(decode_tokens / (time.perf_counter() - began), 2))
        session.clear()

    return {
        "timings": ChildTimings(
            extra_buffer_types=extra_buffer_types,
            load_seconds=round(load_seconds, 1),
            prefill_tokens_per_s=round(statistics.median(prefill), 1),
            decode_runs=decode,
        ).model_dump(),
        "settled_rss_anon_bytes": rss_anon_bytes(os.getpid()),
    }


def _child_main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m serving.bench.llamacpp")
    commands = parser.add_subparsers(dest="command", required=True)
    quantize = commands.add_parser("quantize")
    quantize.add_argument("source", type=Path)
    quantize.add_argument("target", type=Path)
    quantize.add_argument("format", choices=[f for f in PEER_FORMATS if f != "F16"])
    measure = commands.add_parser("measure")
    measure.add_argument("model", type=Path)
    measure.add_argument("--prefill-tokens", type=int, required=True)
    measure.add_argument("--decode-tokens", type=int, required=True)
    measure.add_argument("--runs", type=int, required=True)
    args = parser.parse_args(argv)
    if args.command == "quantize":
        _quantize(args.source, args.target, args.format)
    else:
        report = _measure(args.model, args.prefill_tokens, args.decode_tokens, args.runs)
        print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(_child_main(sys.argv[1:]))
