"""A scripted Android that implements the Device protocol and emits real uiautomator XML.

from simulator import Simulator
sim = Simulator(state={"wifi": False})
xml = sim.dump_xml()

The names below load on first use: `phone-agent --help` imports this package for the `sim`
commands and must not load every simulated app to list them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from simulator.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from simulator.device import Simulator
    from simulator.faults import FaultConfig
    from simulator.state import (
        STATE_KEYS,
        StateError,
        parse_state_assignment,
        parse_state_assignments,
    )

_HOMES = {
    "Simulator": "simulator.device",
    "FaultConfig": "simulator.faults",
    "STATE_KEYS": "simulator.state",
    "StateError": "simulator.state",
    "parse_state_assignment": "simulator.state",
    "parse_state_assignments": "simulator.state",
}

__all__ = [
    "STATE_KEYS",
    "FaultConfig",
    "Simulator",
    "StateError",
    "parse_state_assignment",
    "parse_state_assignments",
]


__getattr__ = lazy_exports(__name__, _HOMES)
