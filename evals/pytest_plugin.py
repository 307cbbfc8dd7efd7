"""pytest fixtures for testing an agent on the simulated phone, loaded by installing phone-agent
(the `pytest11` entry point `phone_agent`; `-p no:phone_agent` turns it off).

- `sim_phone`: a fresh `simulator.Simulator`; `@pytest.mark.sim_phone(state={...}, seed=N)`
  chooses its start state and seed (the marker's arguments are the Simulator's).
- `sim_phone_factory`: the Simulator class itself, for several phones or a state chosen at
  run time: `sim_phone_factory(state={"wifi": False}, seed=3)`.
- `sim_adb_server`: `sim_phone` behind the real ADB host protocol on a free loopback port, as
  an `AdbEndpoint` (host, port, serial; `cli_args` for `phone-agent run`).
- `scripted_model`: starts `evals.scripted_model.ScriptedServer`s, stopped after the test:
  `scripted_model([call(...), tap("Wi-Fi")])` or `scripted_model(function_of_the_request)`;
  each has `base_url` and the `requests` it received.
- `run_agent`: runs the agent loop, `run_agent(goal, model, device=sim_phone)`, with the
  trajectory in the test's temporary directory; returns an `evals.agent_run.AgentRun`.

Importing this module costs next to nothing: the simulator, the agent and the servers are
imported by the fixtures that need them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pytest

if TYPE_CHECKING:
    from devices.adb import AdbDevice
    from devices.base import Device
    from evals.agent_run import AgentRun
    from evals.scripted_model import Script, ScriptedServer
    from simulator import Simulator
    from simulator.adbd import AdbServer, ServedPhone


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "sim_phone(state=None, seed=0, **options): the start state and seed of the sim_phone "
        "fixture (the arguments of simulator.Simulator)",
    )


@dataclass(frozen=True)
class AdbEndpoint:
    """Where a served phone answers: what adbutils (`AdbClient(host, port).device(serial)`)
    and `phone-agent run --device adb` need."""

    host: str
    port: int
    serial: str
    phone: ServedPhone
    server: AdbServer

    @property
    def cli_args(self) -> list[str]:
        """The `phone-agent run` options that reach this phone."""
        return [
            "--device", "adb",
            "--adb-host", self.host,
            "--adb-port", str(self.port),
            "--serial", self.serial,
        ]  # fmt: skip

    def device(self) -> AdbDevice:
        """The phone as phone-agent's own ADB device, without the pauses a real phone needs
        (for its keyboard to switch, for its screen to settle)."""
        from devices.adb import AdbDevice

        return AdbDevice(self.serial, host=self.host, port=self.port, sleep=lambda seconds: None)


class StartScriptedModel(Protocol):
    def __call__(
        self, chat: Script, completions: Script | None = None, **options: Any
    ) -> ScriptedServer: ...


class RunAgent(Protocol):
    def __call__(
        self,
        goal: str,
        model: str | ScriptedServer,
        device: Device | AdbEndpoint | None = None,
        *,
        trajectory: Path | None = None,
        **options: Any,
    ) -> AgentRun: ...


@pytest.fixture
def sim_phone_factory() -> type[Simulator]:
    """The Simulator class, to make phones: `sim_phone_factory(state={...}, seed=N)`."""
    from simulator import Simulator

    return Simulator


@pytest.fixture
def sim_phone(request: pytest.FixtureRequest, sim_phone_factory: type[Simulator]) -> Simulator:
    """A fresh simulated phone; `@pytest.mark.sim_phone(state={...}, seed=N)` sets it up."""
    marker = request.node.get_closest_marker("sim_phone")
    if marker is None:
        return sim_phone_factory()
    return sim_phone_factory(*marker.args, **marker.kwargs)


@pytest.fixture
def sim_adb_server(sim_phone: ServedPhone) -> Iterator[AdbEndpoint]:
    """`sim_phone` over the ADB host protocol on a free loopback port: host, port, serial."""
    from simulator.adbd import AdbServer

    with AdbServer([sim_phone]) as server:
        host, port = server.address
        yield AdbEndpoint(host, port, sim_phone.serial, sim_phone, server)


@pytest.fixture
def scripted_model() -> Iterator[StartScriptedModel]:
    """Starts a scripted OpenAI-compatible server: `scripted_model([replies])` or
    `scripted_model(function_of_the_request_body)`; it has `base_url` and `requests`."""
    from evals.scripted_model import ScriptedServer

    started: list[ScriptedServer] = []

    def start(chat: Script, completions: Script | None = None, **options: Any) -> ScriptedServer:
        server = ScriptedServer(chat, completions, **options).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def run_agent(request: pytest.FixtureRequest, tmp_path: Path) -> RunAgent:
    """Runs the agent loop: `run_agent(goal, model, device=sim_phone)` -> AgentRun (the result
    and the trajectory, written under `tmp_path`)."""
    from evals.agent_run import run_agent as run_once

    numbers = itertools.count(1)

    def run(
        goal: str,
        model: str | ScriptedServer,
        device: Device | AdbEndpoint | None = None,
        *,
        trajectory: Path | None = None,
        **options: Any,
    ) -> AgentRun:
        driven: Device
        if device is None:
            driven = request.getfixturevalue("sim_phone")
        elif isinstance(device, AdbEndpoint):
            driven = device.device()
        else:
            driven = device
        path = trajectory or tmp_path / f"trajectory-{next(numbers)}.jsonl"
        return run_once(goal, driven, model, path, **options)

    return run
