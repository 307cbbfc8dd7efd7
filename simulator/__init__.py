"""A scripted Android that implements the Device protocol and emits real uiautomator XML.

from simulator import Simulator
sim = Simulator(state={"wifi": False})
xml = sim.dump_xml()
"""

from simulator.device import Simulator
from simulator.faults import FaultConfig
from simulator.state import (
    STATE_KEYS,
    StateError,
    parse_state_assignment,
    parse_state_assignments,
)

__all__ = [
    "STATE_KEYS",
    "FaultConfig",
    "Simulator",
    "StateError",
    "parse_state_assignment",
    "parse_state_assignments",
]
