"""The simulator's state dict and the `KEY=VALUE` parser behind `--sim-state`."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from devices.errors import UsageError
from simulator import STATE_KEYS, Simulator, StateError, parse_state_assignment
from simulator.state import CLOCK, parse_state_assignments

BOOL_KEYS = [k for k in STATE_KEYS if isinstance(Simulator().state[k], bool)]


@pytest.mark.parametrize(
    ("word", "value"),
    [("on", True), ("OFF", False), ("true", True), ("False", False), ("1", True), ("no", False)],
)
def test_switch_words(word: str, value: bool) -> None:
    assert parse_state_assignment(f"wifi={word}") == ("wifi", value)


@given(key=st.sampled_from(BOOL_KEYS), value=st.booleans())
def test_every_boolean_key_round_trips_into_a_simulator(key: str, value: bool) -> None:
    parsed_key, parsed = parse_state_assignment(f"{key}={'on' if value else 'off'}")
    assert Simulator(state={parsed_key: parsed}).state[key] is value


@given(level=st.integers(min_value=0, max_value=100))
def test_numbers(level: int) -> None:
    assert parse_state_assignment(f"battery_level={level}") == ("battery_level", level)


def test_json_lists() -> None:
    key, value = parse_state_assignment('alarms=[{"time": "07:30", "label": "Gym"}]')
    assert Simulator(state={key: value}).state["alarms"] == [
        {"time": "07:30", "enabled": True, "label": "Gym"}
    ]


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ("wifi", "expected KEY=VALUE"),
        ("wify=on", "unknown state key 'wify'"),
        ("wifi=maybe", "wifi takes on/off"),
        ("battery_level=lots", "whole number"),
        ("battery_level=101", "battery_level"),
        ("alarms=[{", "takes JSON"),
        ('alarms=[{"time": "25:00"}]', "HH:MM"),
    ],
)
def test_bad_assignments_are_one_line_errors(assignment: str, message: str) -> None:
    with pytest.raises(StateError, match=message) as caught:
        parse_state_assignment(assignment)
    assert isinstance(caught.value, UsageError)  # the CLI exits with 2
    assert "\n" not in str(caught.value)


def test_later_assignments_win() -> None:
    assert parse_state_assignments(["wifi=off", "wifi=on"]) == {"wifi": True}


def test_state_is_a_copy_with_every_documented_key() -> None:
    sim = Simulator()
    state = sim.state
    assert tuple(state) == STATE_KEYS
    state["wifi"] = False
    assert sim.state["wifi"] is True
    assert {"from": "Alice Martin", "text": "Lunch at 12:30?"} in state["inbox"]


def test_set_state_validates_and_foreground_launches() -> None:
    sim = Simulator()
    sim.set_state("dark_theme", True)
    assert sim.state["dark_theme"] is True
    with pytest.raises(StateError):
        sim.set_state("battery_level", -3)
    with pytest.raises(StateError, match="unknown state key"):
        sim.set_state("volume", 3)
    sim.set_state("foreground", CLOCK)
    assert sim.foreground_app() == CLOCK


def test_initial_foreground_starts_in_that_app() -> None:
    assert Simulator(state={"foreground": CLOCK}).foreground_app() == CLOCK
