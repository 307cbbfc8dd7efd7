"""The Clock's timer and stopwatch tabs, as the element list shows them."""

from __future__ import annotations

from agent.screen import Screen
from simulator import Simulator


def labels(sim: Simulator) -> list[str]:
    return [e.label for e in Screen.parse(sim.dump_xml()).elements]


def on_tab(tab: str, state: dict[str, object] | None = None) -> Simulator:
    sim = Simulator(state)
    sim.open_app("Clock")
    sim.tap_on(tab)
    return sim


def test_timer_digits_fill_from_the_right_whether_typed_or_tapped() -> None:
    sim = on_tab("Timer")
    assert "00h 00m 00s" in labels(sim)
    assert "Start" not in labels(sim)  # nothing to start yet
    sim.type_text("130")
    assert "00h 01m 30s" in labels(sim)
    sim.tap_on("5")
    assert "00h 13m 05s" in labels(sim)
    sim.tap_on("Delete")
    assert "00h 01m 30s" in labels(sim)
    assert sim.state["timer"] == {"entry": "130", "duration": 0, "running": False}
    assert "Start" in labels(sim)


def test_typed_letters_and_a_seventh_digit_do_not_reach_the_timer() -> None:
    sim = on_tab("Timer")
    sim.type_text("1a2b3c4d5e6f7")
    assert "12h 34m 56s" in labels(sim)


def test_a_started_timer_pauses_gains_a_minute_and_is_deleted() -> None:
    sim = on_tab("Timer")
    sim.type_text("0230")
    sim.tap_on("Start")
    assert {"2:30", "Running", "Pause", "+1:00"} <= set(labels(sim))
    assert sim.state["timer"] == {"entry": "", "duration": 150, "running": True}
    sim.tap_on("+1:00")
    sim.tap_on("Pause")
    assert {"3:30", "Paused", "Start"} <= set(labels(sim))
    sim.tap_on("Delete")
    assert "00h 00m 00s" in labels(sim)
    assert sim.state["timer"]["duration"] == 0


def test_the_timer_survives_leaving_the_app() -> None:
    sim = on_tab("Timer")
    sim.type_text("45")
    sim.press_key("home")
    sim.open_app("Clock")
    assert "00h 00m 45s" in labels(sim)
    sim.type_text("1")  # the keypad still takes digits after the return
    assert "00h 04m 51s" in labels(sim)


def test_stopwatch_runs_laps_pauses_and_resets() -> None:
    sim = on_tab("Stopwatch")
    assert [label for label in labels(sim) if label in ("Start", "Pause", "Lap", "Reset")] == [
        "Start"
    ]
    sim.tap_on("Start")
    assert {"Lap", "Pause"} <= set(labels(sim))
    assert sim.state["stopwatch"]["running"] is True
    sim.tap_on("Lap")
    sim.tap_on("Pause")
    watch = sim.state["stopwatch"]
    assert watch["running"] is False
    assert watch["elapsed"] >= 2  # a running stopwatch moves on with every action
    assert len(watch["laps"]) == 1
    assert {"# 1", "Reset", "Start"} <= set(labels(sim))
    sim.tap_on("Reset")
    assert sim.state["stopwatch"] == {"running": False, "elapsed": 0, "laps": []}
    assert "0:00" in labels(sim)


def test_a_paused_stopwatch_shows_its_time() -> None:
    sim = on_tab("Stopwatch", {"stopwatch": {"running": False, "elapsed": 3725, "laps": []}})
    assert "1:02:05" in labels(sim)
