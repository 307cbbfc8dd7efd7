"""`phone-agent serve --model tiny` for real: one vLLM server for the module, then stopped.

The server starts with `serve`'s defaults, as a user starts it: compiled (torch.compile), the
weight build the probe picks for this CPU (W4A16), on whatever CPU runs the tests. That is the
start-up every earlier test skipped by serving eager, and the one that failed on AVX-512 CPUs.
Bounded: a tiny random checkpoint (compiling it takes one to two minutes), short replies.
Random weights never choose to call a tool or close </think>; the grammar of
`tool_choice="required"` and vLLM's thinking budget make them, so the server-side parsing can
be checked end to end.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("vllm")

from evals.demos import export_demos, plan_demo_episodes
from serving.checkpoint import cached_tiny_checkpoint
from serving.launcher import group_members
from serving.quantization import compare
from serving.training.data import parse_demo, read_demo_lines
from simulator.tasks import TASKS_BY_NAME
from tests.support.cli_process import DetachedServer, run_cli, serve_detached

# Starts a real model server: capped above the start-up limit it passes to `serve` (900 s).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

WIFI_TOOL = {
    "type": "function",
    "function": {
        "name": "set_wifi",
        "description": "Switch Wi-Fi on or off",
        "parameters": {
            "type": "object",
            "properties": {"state": {"type": "string", "enum": ["on", "off"]}},
            "required": ["state"],
        },
    },
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DetachedServer]:
    served = serve_detached("--model", "tiny", cache=tmp_path_factory.mktemp("cache"))
    yield served
    run_cli("serve", "--stop", "--port", str(served.port), env=served.env, timeout=120)


def chat(server: DetachedServer, **body: object) -> dict:
    response = httpx.post(
        f"{server.base_url}/chat/completions",
        json={"model": "tiny", "max_tokens": 48, **body},
        timeout=120,
    )
    assert response.status_code == 200, response.text
    return response.json()["choices"][0]


def test_the_default_start_is_compiled_on_this_cpu_and_answers(server: DetachedServer) -> None:
    log = Path(server.record.log).read_text(encoding="utf-8", errors="replace")
    assert "enforce_eager=False" in log and "quantization=phone_agent_w4a16" in log
    assert "Warming up done" in log  # the compile pass ran
    # the API server and one engine process that holds the weights (besides multiprocessing's
    # resource tracker): no third process that imports torch and vLLM again at every start
    commands = [
        Path(f"/proc/{pid}/cmdline").read_bytes() for pid in group_members(server.record.pgid)
    ]
    assert len([c for c in commands if b"resource_tracker" not in c]) == 2, commands
    choice = chat(server, messages=[{"role": "user", "content": "Hello"}], max_tokens=4)
    assert choice["message"]["reasoning"] or choice["message"]["content"]


def test_a_first_prompt_of_two_tokens_is_served(server: DetachedServer) -> None:
    # On AMX CPUs this request killed the worker (SIGILL) before tile permission was requested.
    response = httpx.post(
        f"{server.base_url}/completions",
        json={"model": "tiny", "prompt": [40, 41], "max_tokens": 2},
        timeout=120,
    )
    assert response.status_code == 200, response.text
    assert len(response.json()["choices"][0]["text"]) > 0


def test_models_lists_the_served_checkpoint(server: DetachedServer) -> None:
    listing = httpx.get(f"{server.base_url}/models", timeout=10).json()
    assert [model["id"] for model in listing["data"]] == ["tiny"]
    assert listing["data"][0]["max_model_len"] == 8192  # the default context


def test_required_tool_choice_returns_a_parsed_call(server: DetachedServer) -> None:
    choice = chat(
        server,
        messages=[{"role": "user", "content": "Turn on Wi-Fi"}],
        tools=[WIFI_TOOL],
        tool_choice="required",
        chat_template_kwargs={"enable_thinking": False},
        temperature=1.0,
        seed=7,
        max_tokens=96,
    )
    calls = choice["message"]["tool_calls"]
    assert calls, choice
    assert calls[0]["function"]["name"] == "set_wifi"
    assert json.loads(calls[0]["function"]["arguments"])["state"] in ("on", "off")


def test_thinking_reply_is_split_into_reasoning_and_content(server: DetachedServer) -> None:
    choice = chat(
        server,
        messages=[{"role": "user", "content": "Hi"}],
        temperature=1.0,
        seed=3,
        thinking_token_budget=6,  # vLLM closes </think> after 6 tokens of reasoning
        structured_outputs={"regex": "Hello!"},  # applies once reasoning is over
    )
    message = choice["message"]
    assert message["content"] == "Hello!"
    assert message["reasoning"] and "</think>" not in message["reasoning"]


def test_agent_runs_three_steps_on_the_simulator(server: DetachedServer, tmp_path: Path) -> None:
    def run(name: str) -> tuple[dict, list[dict]]:
        trajectory = tmp_path / f"{name}.jsonl"
        result = run_cli(
            "run",
            "Turn on Wi-Fi",
            "--device",
            "sim",
            "--max-steps",
            "3",
            "--base-url",
            server.base_url,
            "--thinking",
            "off",
            "--tool-choice",
            "required",
            "--temperature",
            "0",
            "--trajectory",
            str(trajectory),
            "--yes",
            "--json",
            env=server.env,
            timeout=600,
        )
        summary = json.loads(result.stdout.strip().splitlines()[-1])
        # the exit code, the summary and the trajectory tell the same ending
        assert result.returncode == (0 if summary["stop_reason"] == "completed" else 1), (
            result.stderr
        )
        lines = [json.loads(line) for line in trajectory.read_text().splitlines()]
        assert lines[0]["type"] == "episode" and lines[-1]["type"] == "end"
        assert lines[-1]["stop_reason"] == summary["stop_reason"]
        steps = [line for line in lines if line["type"] == "step"]
        assert summary["steps"] == len(steps)
        return summary, steps

    # Random weights choose any tool, so which way the episode ends is open. Greedy, it is the
    # same ending by the same calls in another process: every step reached the server and came
    # back as the same parsed tool call.
    summary, steps = run("first")
    again, steps_again = run("again")
    assert 1 <= len(steps) <= 3 and all(step["call"]["name"] for step in steps), steps
    assert (again["stop_reason"], again["steps"]) == (summary["stop_reason"], summary["steps"])
    assert [s["call"] for s in steps_again] == [s["call"] for s in steps]


def test_compare_prompts_are_the_tokens_the_server_makes_of_the_chat_requests(
    server: DetachedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`quantize --compare DEMOS` renders requests itself; vLLM's /tokenize renders them the
    way a chat completion does. Both thinking modes, tools and history included."""
    demos = tmp_path / "demos.jsonl"
    episodes = plan_demo_episodes([TASKS_BY_NAME["SystemWifiTurnOn"]], [100, 101], "mixed")
    export_demos(episodes, demos)
    lines = read_demo_lines(demos)
    monkeypatch.setenv("XDG_CACHE_HOME", server.env["XDG_CACHE_HOME"])  # the served checkpoint
    prompts = compare.load_prompts(str(demos), cached_tiny_checkpoint(), count=len(lines))
    assert len(prompts) == len(lines)
    root = server.base_url.removesuffix("/v1")
    for number, (line, prompt) in enumerate(zip(lines, prompts, strict=True), 1):
        demo = parse_demo(line, number)
        body = {
            "model": "tiny",
            "messages": demo.messages,
            "tools": demo.tools,
            "chat_template_kwargs": demo.chat_template_kwargs,
        }
        response = httpx.post(f"{root}/tokenize", json=body, timeout=60)
        assert response.status_code == 200, response.text
        assert response.json()["tokens"] == prompt.prompt, f"request {number}"


# Last: it stops the module's server.
def test_stop_leaves_no_server_process(server: DetachedServer) -> None:
    assert group_members(server.record.pgid), "the detached server should be running"
    stopped = run_cli("serve", "--stop", "--port", str(server.port), env=server.env, timeout=120)
    assert stopped.returncode == 0, stopped.stderr
    assert group_members(server.record.pgid) == []
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"{server.base_url}/models", timeout=5)
