"""The server command line, environment, KV budget and process handling (no vLLM started)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from serving import launcher
from serving.checkpoint import spark_config
from serving.kv_budget import kv_cache_budget
from tests.support.cli_process import run_cli
from tests.support.paths import REPO_ROOT


def write_config(directory: Path, shape: str = "tiny") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.json").write_text(spark_config(shape).model_dump_json())  # type: ignore[arg-type]
    return directory


def flag(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_command_carries_what_spark_needs_on_a_cpu(tmp_path: Path) -> None:
    model = launcher.ResolvedModel(write_config(tmp_path / "m", "1.7b"), "spark", "local")
    command = launcher.server_command(model, launcher.ServeSettings(max_model_len=4096))
    assert command[1:3] == ["-m", "vllm.entrypoints.openai.api_server"]
    assert flag(command, "--tool-call-parser") == "spark25"
    assert flag(command, "--reasoning-parser") == "qwen3"
    assert "--enable-auto-tool-choice" in command and "--enable-prefix-caching" in command
    assert json.loads(flag(command, "--hf-overrides")) == {"max_position_embeddings": 4096}
    assert int(flag(command, "--kv-cache-memory-bytes")) > 0
    # No template in the checkpoint: Spark's format is supplied.
    assert Path(flag(command, "--chat-template")).read_text().count("<|Bot|>") >= 2
    assert "--enforce-eager" not in command
    # KV blocks of 32 tokens, prefix checkpoints on the sliding layers at every one, and usage
    # that shows them.
    assert flag(command, "--block-size") == "32"
    assert flag(command, "--prefix-cache-retention-interval") == "32"
    assert "--enable-prompt-tokens-details" in command
    assert flag(command, "--worker-cls") == launcher.WORKER_CLASS


def test_a_relative_checkpoint_path_reaches_the_server_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `quantize ./ckpt OUT --compare` serves both directories from the state directory.
    write_config(tmp_path / "ckpt")
    monkeypatch.chdir(tmp_path)
    model = launcher.ResolvedModel(Path("ckpt"), "ckpt", "local")
    command = launcher.server_command(model, launcher.ServeSettings())
    assert flag(command, "--model") == str((tmp_path / "ckpt").resolve())


def test_the_worker_class_is_vllms_cpu_worker_with_a_short_compile_pass() -> None:
    pytest.importorskip("vllm")
    import importlib

    from vllm.v1.worker.cpu_worker import CPUWorker

    module, _, name = launcher.WORKER_CLASS.rpartition(".")
    worker = getattr(importlib.import_module(module), name)
    assert issubclass(worker, CPUWorker)


def test_options_after_the_separator_override_the_launchers(tmp_path: Path) -> None:
    """vLLM keeps the last value of a repeated option, so `-- --opt value` wins."""
    model = launcher.ResolvedModel(write_config(tmp_path / "m"), "m", "local")
    extra = ("--prefix-cache-retention-interval", "0")
    command = launcher.server_command(model, launcher.ServeSettings(extra_args=extra))
    assert command[-2:] == list(extra)


def test_speculation_drafts_from_the_prompt_and_the_grammar_only_when_asked(
    tmp_path: Path,
) -> None:
    model = launcher.ResolvedModel(write_config(tmp_path / "m"), "m", "local")
    plain = launcher.server_command(model, launcher.ServeSettings())
    assert "--speculative-config" not in plain and "--scheduler-cls" not in plain
    command = launcher.server_command(model, launcher.ServeSettings(speculative_tokens=3))
    assert json.loads(flag(command, "--speculative-config")) == {
        "method": "ngram",
        "num_speculative_tokens": 3,
        "prompt_lookup_min": launcher.PROMPT_LOOKUP_MIN,
        "prompt_lookup_max": launcher.PROMPT_LOOKUP_MAX,
    }
    assert flag(command, "--scheduler-cls") == launcher.FORCED_TOKEN_SCHEDULER


def test_every_logit_is_computed_only_when_asked(tmp_path: Path) -> None:
    model = launcher.ResolvedModel(write_config(tmp_path / "m"), "m", "local")
    assert "--additional-config" not in launcher.server_command(model, launcher.ServeSettings())
    command = launcher.server_command(model, launcher.ServeSettings(all_logits=True))
    assert json.loads(flag(command, "--additional-config")) == {launcher.ALL_LOGITS_KEY: True}


def test_checkpoint_template_is_used_when_present(tmp_path: Path) -> None:
    directory = write_config(tmp_path / "m")
    (directory / "tokenizer_config.json").write_text(json.dumps({"chat_template": "{{ x }}"}))
    model = launcher.ResolvedModel(directory, "m", "local")
    command = launcher.server_command(model, launcher.ServeSettings(enforce_eager=True))
    assert "--chat-template" not in command and "--enforce-eager" in command


def test_kv_budget_prices_sliding_layers_at_the_window() -> None:
    config = spark_config("1.7b")
    budget = kv_cache_budget(config, 8192, max_num_seqs=1, max_num_batched_tokens=512)
    per_token_layer = 2 * 2 * 256 * 2  # k and v, 2 KV heads of 256, bf16
    assert budget.bytes_per_token_per_layer == per_token_layer
    assert budget.full_tokens_per_sequence == 8192
    # Window 512 + one batch of 512, in 32-token blocks, + one block for an unaligned window.
    assert budget.sliding_tokens_per_sequence == 1056
    every_layer_full = 28 * 8192 * per_token_layer
    assert budget.total_bytes < every_layer_full * 0.4


def test_kv_budget_grows_with_concurrency() -> None:
    config = spark_config("tiny")
    one = kv_cache_budget(config, 1024, 1, 256).total_bytes
    four = kv_cache_budget(config, 1024, 4, 256).total_bytes
    assert 3 * one < four < 4 * one


def test_environment_binds_threads_and_drops_the_gib_override() -> None:
    env = launcher.server_environment({"VLLM_CPU_KVCACHE_SPACE": "8", "PATH": "/bin"}, {0, 1})
    assert "VLLM_CPU_KVCACHE_SPACE" not in env
    assert env["VLLM_CPU_OMP_THREADS_BIND"] == "0-1"
    assert env["VLLM_PLUGINS"] == "phone_agent" and env["HF_HUB_OFFLINE"] == "1"
    assert env["PATH"] == "/bin"
    # with the in-process executor the server is two processes, not three
    assert env["VLLM_ENABLE_V1_MULTIPROCESSING"] == "0"
    # attention gives a query the same result alone or beside others (speculation stays exact)
    assert env["VLLM_CPU_ATTN_SPLIT_KV"] == "0"


@pytest.mark.parametrize(
    ("cpus", "expected"),
    [({0}, "0"), ({0, 1, 2, 3}, "0-3"), ({0, 1, 2, 5, 7, 8}, "0-2,5,7-8"), ({4, 6}, "4,6")],
)
def test_cpu_list(cpus: set[int], expected: str) -> None:
    assert launcher.cpu_list(cpus) == expected


@pytest.mark.parametrize(
    ("hub_env", "why"),
    [
        ({"HF_HUB_OFFLINE": "1"}, "offline"),
        # nothing listens there: refused at once. The hub client's error spans lines, and the
        # one line shown must still say what to do.
        ({"HF_ENDPOINT": "http://127.0.0.1:9"}, "not downloadable"),
    ],
    ids=["offline", "unreachable"],
)
def test_a_hub_id_it_cannot_fetch_fails_in_one_line_naming_the_way_out(
    tmp_path: Path, hub_env: dict[str, str], why: str
) -> None:
    env = {
        **{key: value for key, value in os.environ.items() if key != "HF_HUB_OFFLINE"},
        **hub_env,
        "HF_HOME": str(tmp_path / "hf"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    result = run_cli("serve", "--model", "XHToken/Spark-X2.5-1.7B", "--port", "18411", env=env)
    assert result.returncode == 2
    error_lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(error_lines) == 1 and "Traceback" not in result.stderr
    assert why in error_lines[0] and "--model DIR" in error_lines[0]
    assert "XHToken/Spark-X2.5-1.7B" in error_lines[0]


def test_stop_without_a_server_says_so(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    result = run_cli("serve", "--stop", "--port", "18412", env=env)
    assert result.returncode == 0 and "no detached server" in result.stderr


# Stands in for vLLM: answers /v1/models and, like vLLM's engine, starts a child process.
FAKE_SERVER = textwrap.dedent(
    """
    import http.server, os, pathlib, subprocess, sys, time
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    pathlib.Path(__file__).with_name("group.txt").write_text(str(os.getpgid(0)))
    print("Loading weights took 0.0 s", flush=True)
    if os.environ.get("FAKE_COMPILE_HANGS") and "--enforce-eager" not in sys.argv:
        time.sleep(600)
    print("init engine took 0.0 s", flush=True)
    class Models(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200); self.end_headers(); self.wfile.write(b'{"data": []}')
        def log_message(self, *args):
            pass
    server = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Models)
    print("Application startup complete.", flush=True)
    server.serve_forever()
    """
)

# Runs the real `serve` handler with the vLLM command swapped for the fake server.
FOREGROUND_RUNNER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from agent.cli import main
    from serving import launcher
    fake, model_dir = sys.argv[1], Path(sys.argv[2])
    fake_model = launcher.ResolvedModel(model_dir, "fake", "local")
    launcher.resolve_model = lambda spec, on_stage: fake_model
    launcher.server_command = lambda model, s, python=sys.executable: [
        python, fake, str(s.port), *(["--enforce-eager"] if s.enforce_eager else [])
    ]
    port, extra = sys.argv[3], sys.argv[4:]
    sys.exit(main(["serve", "--model", "fake", "--weights", "bf16", "--port", port, *extra]))
    """
)


def start_fake_serve(
    tmp_path: Path, *extra: str, env_extra: dict[str, str] | None = None
) -> tuple[subprocess.Popen[str], int]:
    (tmp_path / "fake_server.py").write_text(FAKE_SERVER)
    (tmp_path / "runner.py").write_text(FOREGROUND_RUNNER)
    port = launcher.free_port()
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "PYTHONPATH": str(REPO_ROOT),
        **(env_extra or {}),
    }
    runner = subprocess.Popen(
        [
            sys.executable,
            str(tmp_path / "runner.py"),
            str(tmp_path / "fake_server.py"),
            str(write_config(tmp_path / "m")),
            str(port),
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    return runner, port


def wait_for_url(runner: subprocess.Popen[str]) -> str:
    """The base URL, the one line `serve` prints on stdout once the server is ready."""
    assert runner.stdout is not None
    line = runner.stdout.readline()
    assert line.startswith("http://127.0.0.1:"), f"serve exited with {runner.poll()}"
    return line.strip()


def server_group(tmp_path: Path) -> int:
    return int((tmp_path / "group.txt").read_text())


def test_sigterm_on_a_foreground_server_stops_its_whole_group(tmp_path: Path) -> None:
    runner, _ = start_fake_serve(tmp_path)
    wait_for_url(runner)
    group = server_group(tmp_path)
    assert len(launcher.group_members(group)) == 2  # the server and its child
    runner.send_signal(signal.SIGTERM)
    assert runner.wait(timeout=30) == 130
    assert launcher.group_members(group) == []


def test_a_compile_that_outlasts_its_limit_is_replaced_by_an_eager_server(
    tmp_path: Path,
) -> None:
    runner, port = start_fake_serve(
        tmp_path, "--compile-timeout", "2", "--detach", env_extra={"FAKE_COMPILE_HANGS": "1"}
    )
    wait_for_url(runner)
    assert runner.wait(timeout=60) == 0
    assert runner.stderr is not None
    said = runner.stderr.read()
    assert "mode: compiled" in said
    assert "mode: eager (torch.compile was not done after 2 s)" in said
    group = server_group(tmp_path)
    assert len(launcher.group_members(group)) == 2  # only the eager server and its child
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    assert run_cli("serve", "--stop", "--port", str(port), env=env).returncode == 0
    assert launcher.group_members(group) == []


def test_without_a_cpp_compiler_serve_starts_eager_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(launcher.shutil, "which", lambda name: None)
    reason = launcher.compile_unavailable_reason()
    assert reason is not None and "C++ compiler" in reason


def test_detach_then_stop_leaves_nothing_running(tmp_path: Path) -> None:
    runner, port = start_fake_serve(tmp_path, "--detach")
    wait_for_url(runner)
    assert runner.wait(timeout=30) == 0
    group = server_group(tmp_path)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    assert launcher.group_members(group), "a detached server keeps running"
    result = run_cli("serve", "--stop", "--port", str(port), env=env)
    assert result.returncode == 0, result.stderr
    assert launcher.group_members(group) == []
    assert not (tmp_path / "cache" / "phone-agent" / "serve" / f"server-{port}.json").exists()


def test_unknown_options_are_refused_unless_meant_for_vllm(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    for stray in (["--max-len", "512"], ["max-len"]):
        result = run_cli("serve", "--model", "tiny", *stray, env=env)
        assert result.returncode == 2
        assert result.stderr.startswith("error:") and stray[0] in result.stderr
        assert len(result.stderr.splitlines()) == 1
