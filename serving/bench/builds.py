"""Serving measurements of weight builds side by side: load time, memory, prefill, decode.

Each build is served by the same launcher `phone-agent serve` uses, one at a time, and measured
through the OpenAI API with fresh random prompts (no prefix-cache hits):

- decode: tokens per second after the first, as the agent asks for them (no streaming): the
  time of a `decode_tokens` completion less that of a one-token completion, both after a short
  fresh prompt, median of `runs`; and streamed, (chunks - 1) / (last - first), as a client that
  shows tokens as they come sees them (on two cores, the API server's work per streamed token
  competes with the worker's threads);
- prefill: `prefill_tokens` prompt tokens / time to the single completion token, median;
- memory: anonymous RSS (RssAnon, not VmRSS: page-cache-backed weights do not count), sampled
  during start-up (peak) and after the requests (settled), two ways: summed over every process of
  the server's group, and for the worker alone, the process that holds the weights and the KV
  cache. The API server and engine-core processes around it cost the same ~0.85 GiB whatever the
  weights, so the worker is where builds differ;
- bandwidth: decode on a CPU is bound by reading the weights, once per token. The bytes one
  token reads (`decode_read_bytes`: the checkpoint's tensors, less the embedding table where the
  output head has weights of its own, since the lookup reads one row) times decode tok/s is
  the bandwidth decode draws, set against what plain reads of a large buffer reach on the
  threads the server runs on (`measure_read_bandwidth`). KV-cache reads, a few MB at these
  prompt lengths, are left out.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import threading
import time
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import NamedTuple

import httpx
from pydantic import BaseModel

from serving.quantization.quantize import EMBEDDING

_SAMPLE_PERIOD_S = 0.25
READ_BUFFER_BYTES = 512 * 2**20
_READ_RUNS = 5
# A checkpoint whose output head has tensors of its own (GPTQ: lm_head.qweight, ...).
_OUTPUT_HEAD_PREFIX = "lm_head."
_DECODE_PROMPT_TOKENS = 16
# Token ids drawn for prompts: above the special tokens, inside any trained vocabulary.
_PROMPT_IDS = range(16, 1000)


class MeasuredRates(BaseModel):
    """What serving one build measured (None where not measured); `error` when it failed."""

    load_seconds: float | None = None
    peak_rss_anon_bytes: int | None = None
    settled_rss_anon_bytes: int | None = None
    prefill_tokens_per_s: float | None = None
    decode_tokens_per_s: float | None = None
    decode_runs: list[float] = []
    streamed_decode_tokens_per_s: float | None = None
    error: str | None = None


class WorkerMemory(BaseModel):
    """RssAnon of vLLM's worker alone (the fields above sum every server process)."""

    peak_worker_rss_anon_bytes: int | None = None
    settled_worker_rss_anon_bytes: int | None = None


class ReadBandwidth(BaseModel):
    """Plain reads of a buffer far larger than the caches, on the server's threads."""

    gb_per_s: float  # the fastest of the runs
    threads: int
    buffer_bytes: int
    runs: int


def measure_read_bandwidth(
    threads: int, buffer_bytes: int = READ_BUFFER_BYTES, runs: int = _READ_RUNS
) -> ReadBandwidth:
    """Sum a `buffer_bytes` buffer split between `threads` threads (numpy lets go of the
    interpreter while it sums), the fastest of `runs`: how fast this machine's memory feeds
    those cores, the ceiling of a decode that reads every weight once per token."""
    import numpy as np

    parts = np.array_split(np.ones(buffer_bytes // 8), threads)
    fastest = float("inf")
    for _ in range(runs + 1):  # the first run also faults the pages in
        workers = [threading.Thread(target=np.sum, args=(part,)) for part in parts]
        started = time.perf_counter()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        fastest = min(fastest, time.perf_counter() - started)
    return ReadBandwidth(
        gb_per_s=round(buffer_bytes / fastest / 1e9, 2),
        threads=threads,
        buffer_bytes=buffer_bytes,
        runs=runs,
    )


def safetensors_sizes(model_dir: Path) -> dict[str, int]:
    """Bytes of each tensor of a checkpoint, from the safetensors headers alone."""
    sizes: dict[str, int] = {}
    for path in sorted(model_dir.glob("*.safetensors")):
        with path.open("rb") as weights:
            header_length = int.from_bytes(weights.read(8), "little")
            header = json.loads(weights.read(header_length))
        for name, entry in header.items():
            if name != "__metadata__":
                start, end = entry["data_offsets"]
                sizes[name] = end - start
    return sizes


def decode_read_bytes(model_dir: Path) -> int:
    """Weight bytes one decoded token reads: every tensor, but the embedding table where the
    output head has weights of its own (a tied table is read whole, as the head)."""
    sizes = safetensors_sizes(model_dir)
    untied = any(name.startswith(_OUTPUT_HEAD_PREFIX) for name in sizes)
    return sum(size for name, size in sizes.items() if not (untied and name == EMBEDDING))


class ServingMeasurement(MeasuredRates, WorkerMemory):
    label: str
    model: str
    checkpoint_bytes: int


def rss_anon_bytes(pid: int) -> int:
    """RssAnon of one process; 0 for a process that has gone."""
    with suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) * 1024
    return 0


class RssSample(NamedTuple):
    total: int  # summed over the group
    worker: int  # the largest process: vLLM's worker, which holds weights and KV cache


def sample_group(pids: Sequence[int]) -> RssSample:
    sizes = [rss_anon_bytes(pid) for pid in pids]
    return RssSample(total=sum(sizes), worker=max(sizes, default=0))


class RssSampler:
    """Samples a process group's RssAnon in a thread; keeps the peaks."""

    def __init__(self, pgid: int) -> None:
        self._pgid = pgid
        self.peak = RssSample(0, 0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self) -> RssSample:
        from serving.launcher import group_members

        value = sample_group(group_members(self._pgid))
        self.peak = RssSample(*map(max, zip(self.peak, value, strict=True)))
        return value

    def _run(self) -> None:
        while not self._stop.wait(_SAMPLE_PERIOD_S):
            self.sample()


def _prompt(rng: random.Random, length: int) -> list[int]:
    return [rng.choice(_PROMPT_IDS) for _ in range(length)]


def _greedy_request(model: str, prompt: list[int], max_tokens: int) -> dict[str, object]:
    """A greedy completion that ignores end of sequence, so it is always `max_tokens` long."""
    return {
        "model": model,
        "prompt": prompt,
        "max_tokens": max_tokens,
        "temperature": 0,
        "ignore_eos": True,
    }


def _completion(
    client: httpx.Client, model: str, prompt: list[int], max_tokens: int
) -> list[float]:
    """Stream one greedy completion; the arrival time of each chunk that carries text."""
    body = {**_greedy_request(model, prompt, max_tokens), "stream": True}
    arrivals: list[float] = []
    with client.stream("POST", "/completions", json=body) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                chunk = json.loads(line[len("data: ") :])
                if chunk.get("choices"):
                    arrivals.append(time.perf_counter())
    return arrivals


def measure_streamed_decode(
    client: httpx.Client, model: str, rng: random.Random, tokens: int
) -> float:
    arrivals = _completion(client, model, _prompt(rng, _DECODE_PROMPT_TOKENS), tokens)
    if len(arrivals) < 2:
        raise RuntimeError(f"the server streamed {len(arrivals)} chunk(s) for {tokens} tokens")
    return (len(arrivals) - 1) / (arrivals[-1] - arrivals[0])


def timed_completion(
    client: httpx.Client, model: str, prompt: list[int], max_tokens: int
) -> tuple[float, float, int]:
    """(start, end, completion tokens) of one greedy completion returned whole, as the agent
    asks for one."""
    started = time.perf_counter()
    response = client.post("/completions", json=_greedy_request(model, prompt, max_tokens))
    response.raise_for_status()
    return started, time.perf_counter(), int(response.json()["usage"]["completion_tokens"])


def measure_decode(client: httpx.Client, model: str, rng: random.Random, tokens: int) -> float:
    """Output tokens per second after the first: a whole completion minus a one-token one.

    The one-token time is the faster of two, so a pause in it (a collection, the scheduler)
    cannot swallow the decode of a short completion on a small model."""

    def one_token_seconds() -> float:
        start, end, _ = timed_completion(client, model, _prompt(rng, _DECODE_PROMPT_TOKENS), 1)
        return end - start

    first = min(one_token_seconds(), one_token_seconds())
    start, end, produced = timed_completion(
        client, model, _prompt(rng, _DECODE_PROMPT_TOKENS), tokens
    )
    if produced < 2:
        raise RuntimeError(f"the server returned {produced} token(s) for {tokens}")
    if end - start <= first:
        raise RuntimeError(
            f"{produced} tokens took {end - start:.3f} s, no longer than one token "
            f"({first:.3f} s): too few tokens to time; ask for more"
        )
    return (produced - 1) / (end - start - first)


def measure_prefill(client: httpx.Client, model: str, rng: random.Random, tokens: int) -> float:
    started = time.perf_counter()
    arrivals = _completion(client, model, _prompt(rng, tokens), 1)
    return tokens / ((arrivals[0] if arrivals else time.perf_counter()) - started)


def measure_build(
    label: str,
    model_dir: Path,
    *,
    port: int,
    log_dir: Path,
    extra_args: Sequence[str] = (),
    env_overrides: Mapping[str, str] | None = None,
    max_model_len: int = 2048,
    decode_tokens: int = 128,
    prefill_tokens: int = 512,
    runs: int = 3,
    timeout_s: float = 1800.0,
    enforce_eager: bool = True,
) -> ServingMeasurement:
    """Serve one checkpoint, measure it, stop it. Failures are recorded, not raised."""
    from serving import launcher

    result = ServingMeasurement(
        label=label,
        model=str(model_dir),
        checkpoint_bytes=sum(p.stat().st_size for p in model_dir.glob("*.safetensors")),
    )
    settings = launcher.ServeSettings(
        port=port,
        max_model_len=max_model_len,
        max_num_seqs=1,
        enforce_eager=enforce_eager,
        extra_args=tuple(extra_args),
    )
    model = launcher.ResolvedModel(model_dir, label, "local")
    env = launcher.server_environment(os.environ, os.sched_getaffinity(0))
    env.update(env_overrides or {})
    log_path = log_dir / f"{label}.log"
    started = time.monotonic()
    process = launcher.start_server(launcher.server_command(model, settings), env, log_path)
    rng = random.Random(0)
    try:
        with RssSampler(process.pid) as sampler:
            launcher.wait_until_ready(
                process, settings.base_url, log_path, lambda stage: None, timeout_s
            )
            result.load_seconds = round(time.monotonic() - started, 1)
            with httpx.Client(base_url=settings.base_url, timeout=timeout_s) as client:
                measure_streamed_decode(client, label, rng, 8)  # warm-up
                prefill = [measure_prefill(client, label, rng, prefill_tokens) for _ in range(runs)]
                result.prefill_tokens_per_s = round(statistics.median(prefill), 1)
                result.decode_runs = [
                    round(measure_decode(client, label, rng, decode_tokens), 2) for _ in range(runs)
                ]
                result.decode_tokens_per_s = statistics.median(result.decode_runs)
                streamed = [
                    measure_streamed_decode(client, label, rng, decode_tokens) for _ in range(runs)
                ]
                result.streamed_decode_tokens_per_s = round(statistics.median(streamed), 2)
            settled = sampler.sample()
            result.settled_rss_anon_bytes, result.settled_worker_rss_anon_bytes = settled
            result.peak_rss_anon_bytes, result.peak_worker_rss_anon_bytes = sampler.peak
    except (launcher.ServeError, httpx.HTTPError, RuntimeError) as exc:
        result.error = str(exc).strip().splitlines()[0]
    finally:
        launcher.stop_group(process.pid)
    return result


def measure_builds(
    builds: Sequence[tuple[str, Path]],
    *,
    port: int,
    log_dir: Path,
    extra_args: Mapping[str, Sequence[str]] | None = None,
    **options: object,
) -> list[ServingMeasurement]:
    """`measure_build` for each (label, checkpoint) in turn, on the same port and settings."""
    log_dir.mkdir(parents=True, exist_ok=True)
    return [
        measure_build(
            label,
            path,
            port=port,
            log_dir=log_dir,
            extra_args=(extra_args or {}).get(label, ()),
            **options,  # type: ignore[arg-type]
        )
        for label, path in builds
    ]
