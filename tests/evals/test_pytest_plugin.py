"""The pytest plugin users get by installing phone-agent: its fixtures, its cost at start-up,
and the example tests of the README and docs/simulator.md run as a user would run them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from importlib.metadata import entry_points
from pathlib import Path

import adbutils
import httpx
import pytest

from evals.pytest_plugin import AdbEndpoint, RunAgent, StartScriptedModel
from evals.scripted_model import SCRIPT_FAILED, call, index_of, screen_lines, tap, text
from simulator import Simulator
from tests.support.paths import REPO_ROOT

EXAMPLE_SECTION = "## Testing your agent with pytest"
TO_WIFI = [
    call("open_app", name="Settings"),
    tap("Network & internet"),
    tap("Internet"),
    tap("Wi-Fi"),
]


def run_pytest_in(directory: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """`python -m pytest` in `directory`, with the installed package only: the checkout is not
    on the path, and the virtualenv's scripts are, as in an activated environment."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    env.pop("PYTHONPATH", None)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *options],
        cwd=directory,
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
    )


def documented_example(document: str) -> str:
    """The first python block of the document's section on testing with pytest."""
    section = (REPO_ROOT / document).read_text(encoding="utf-8").partition(EXAMPLE_SECTION)[2]
    block = re.search(r"```python\n(.*?)```", section.partition("\n## ")[0], re.DOTALL)
    assert block, f"{document}'s pytest section has no python example"
    return block[1]


@pytest.mark.parametrize(
    "document", ["README.md", pytest.param("docs/simulator.md", marks=pytest.mark.slow)]
)
def test_the_documented_example_passes_in_a_fresh_directory(tmp_path: Path, document: str) -> None:
    example = documented_example(document)
    (tmp_path / "test_my_agent.py").write_text(example, encoding="utf-8")
    finished = run_pytest_in(tmp_path, "--strict-markers")
    assert finished.returncode == 0, finished.stdout + finished.stderr
    tests = len(re.findall(r"^def test_", example, re.MULTILINE))
    assert re.search(rf"\b{tests} passed\b", finished.stdout), finished.stdout


def test_servers_are_stopped_after_the_test_that_started_them(tmp_path: Path) -> None:
    (tmp_path / "test_teardown.py").write_text(
        textwrap.dedent(
            """
            import socket

            import httpx
            import pytest

            seen = {}


            def test_start_both(scripted_model, sim_adb_server):
                seen["model"] = scripted_model([]).base_url
                seen["adb"] = (sim_adb_server.host, sim_adb_server.port)
                assert httpx.get(seen["model"] + "/models").status_code == 200


            def test_both_are_gone():
                with pytest.raises(httpx.ConnectError):
                    httpx.get(seen["model"] + "/models", timeout=5)
                with pytest.raises(ConnectionRefusedError):
                    socket.create_connection(seen["adb"], timeout=5)
            """
        ),
        encoding="utf-8",
    )
    finished = run_pytest_in(tmp_path)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    assert re.search(r"\b2 passed\b", finished.stdout), finished.stdout


def test_installing_registers_the_plugin_and_loading_it_imports_nothing_heavy() -> None:
    plugins = {ep.name: ep.value for ep in entry_points(group="pytest11")}
    assert plugins.get("phone_agent") == "evals.pytest_plugin"
    probe = (
        "import json, sys; import evals.pytest_plugin; "
        "print(json.dumps(sorted({name.split('.')[0] for name in sys.modules})))"
    )
    finished = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    heavy = {"agent", "simulator", "devices", "serving", "openai", "adbutils", "lxml", "pydantic"}
    assert heavy.isdisjoint(json.loads(finished.stdout)), finished.stdout


def test_sim_phone_starts_like_a_fresh_simulator(sim_phone: Simulator) -> None:
    assert sim_phone.state == Simulator().state


@pytest.mark.sim_phone(state={"wifi": False, "bluetooth": True}, seed=5, serial="emulator-5556")
def test_the_marker_chooses_state_seed_and_serial(sim_phone: Simulator) -> None:
    assert (sim_phone.state["wifi"], sim_phone.state["bluetooth"]) == (False, True)
    assert (sim_phone.seed, sim_phone.serial) == (5, "emulator-5556")


def test_the_factory_makes_independent_phones(sim_phone_factory: type[Simulator]) -> None:
    off = sim_phone_factory(state={"wifi": False}, seed=1)
    on = sim_phone_factory(state={"wifi": True}, seed=2)
    on.set_state("wifi", False)
    assert (off.state["wifi"], on.state["wifi"], off.seed, on.seed) == (False, False, 1, 2)
    assert off is not on


@pytest.mark.sim_phone(state={"wifi": False, "foreground": "com.android.settings"})
def test_sim_adb_server_serves_sim_phone_to_adbutils(
    sim_phone: Simulator, sim_adb_server: AdbEndpoint
) -> None:
    assert sim_adb_server.phone is sim_phone
    assert sim_adb_server.host == "127.0.0.1"
    assert sim_adb_server.port not in (0, 5037)  # a free port, never the real ADB server's
    client = adbutils.AdbClient(host=sim_adb_server.host, port=sim_adb_server.port)
    assert [info.serial for info in client.list()] == [sim_adb_server.serial]
    phone = client.device(sim_adb_server.serial)
    assert phone.shell("settings get global wifi_on") == "0"
    phone.shell("input keyevent KEYCODE_HOME")
    assert sim_phone.state["foreground"] == "com.google.android.apps.nexuslauncher"
    assert sim_adb_server.cli_args == [
        "--device", "adb",
        "--adb-host", "127.0.0.1",
        "--adb-port", str(sim_adb_server.port),
        "--serial", "emulator-5554",
    ]  # fmt: skip


def test_scripted_model_replays_its_list_then_fails_and_records_requests(
    scripted_model: StartScriptedModel,
) -> None:
    model = scripted_model([call("tap", index=3), text("I am done")], model="my-model")
    assert httpx.get(model.base_url + "/models").json()["data"][0]["id"] == "my-model"
    answers = [
        httpx.post(model.base_url + "/chat/completions", json={"messages": [], "n": n})
        for n in range(3)
    ]
    first, second = (answer.json()["choices"][0]["message"] for answer in answers[:2])
    assert first["tool_calls"][0]["function"] == {"name": "tap", "arguments": '{"index": 3}'}
    assert second["content"] == "I am done"
    assert answers[2].status_code == SCRIPT_FAILED
    assert "exhausted" in answers[2].json()["error"]["message"]
    assert [request.body["n"] for request in model.chat_requests] == [0, 1, 2]


def test_scripted_model_calls_a_function_with_every_request(
    scripted_model: StartScriptedModel,
) -> None:
    model = scripted_model(lambda body: text(f"{len(body['messages'])} messages"))
    for count in (1, 2):
        messages = [{"role": "user", "content": "hi"}] * count
        answer = httpx.post(model.base_url + "/chat/completions", json={"messages": messages})
        assert answer.json()["choices"][0]["message"]["content"] == f"{count} messages"
    assert len(model.requests) == 2


@pytest.mark.sim_phone(state={"wifi": False})
def test_run_agent_drives_sim_phone_and_returns_the_trajectory(
    sim_phone: Simulator, scripted_model: StartScriptedModel, run_agent: RunAgent, tmp_path: Path
) -> None:
    model = scripted_model(TO_WIFI)
    run = run_agent("Turn on Wi-Fi", model, thinking=False)
    assert (run.result.stop_reason, run.result.steps) == ("completed", 4)
    assert sim_phone.state["wifi"] is True
    assert run.result.device_state == run.end.device_state == sim_phone.state
    assert run.trajectory.parent == tmp_path
    assert run.episode.goal == "Turn on Wi-Fi"
    assert run.episode.settings["policy"]["thinking"] is False
    assert [step.call.name for step in run.steps] == ["open_app", "tap", "tap", "tap"]
    assert not any(request.thinking for request in model.chat_requests)
    # the Wi-Fi switch was on the last screen the model saw, where its tap found it
    wifi = index_of(model.chat_requests[-1].body, "Wi-Fi")
    assert run.steps[-1].call.arguments == {"index": wifi}
    assert (wifi, "Wi-Fi") in screen_lines(model.chat_requests[-1].body)


@pytest.mark.sim_phone(state={"wifi": False})
def test_run_agent_over_adb_and_a_second_run_gets_its_own_trajectory(
    sim_phone: Simulator,
    sim_adb_server: AdbEndpoint,
    scripted_model: StartScriptedModel,
    run_agent: RunAgent,
) -> None:
    over_adb = run_agent("Turn on Wi-Fi", scripted_model(TO_WIFI), device=sim_adb_server)
    assert over_adb.result.stop_reason == "completed"
    assert over_adb.episode.device == sim_adb_server.serial
    assert sim_phone.state["wifi"] is True
    exhausted = run_agent("Turn off Wi-Fi", scripted_model([]), device=sim_phone)
    assert exhausted.trajectory != over_adb.trajectory
    assert exhausted.result.stop_reason == "model_error"
    assert str(SCRIPT_FAILED) in exhausted.end.detail


def test_run_agent_takes_a_base_url_and_any_device(
    scripted_model: StartScriptedModel, run_agent: RunAgent, sim_phone_factory: type[Simulator]
) -> None:
    phone = sim_phone_factory(state={"foreground": "com.android.settings"})
    script = [call("press_key", key="home"), call("task_complete", success=True)]
    run = run_agent("Go home", scripted_model(script).base_url, device=phone)
    assert run.result.stop_reason == "completed"
    assert phone.state["foreground"] == "com.google.android.apps.nexuslauncher"
    assert json.loads(run.trajectory.read_text().splitlines()[-1])["type"] == "end"
