"""Typed text is read back: text that reached no field is reported to the model, not passed off
as typed.

The case: `type_text` names a conversation row in Messages rather than its compose field. The
tap opens the conversation, whose "Text message" field is not focused, so the text goes
nowhere. On the simulator and over ADB, through the agent's loop and its model client.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.actions import TypeText
from agent.execute import execute
from agent.screen import Screen
from devices.adb import AdbDevice, TextEntryError
from devices.base import Device
from evals.pytest_plugin import AdbEndpoint
from evals.scripted_model import call, index_of, tap
from simulator import Simulator
from tests.support.loop_harness import Episode, run_scripted

ROW = "Alice Martin"  # the conversation row: a button that opens a page
FIELD = "Text message"  # the compose field on that page, not focused when it opens
NOTHING_FOCUSED = (
    "typed 'cats', but no text field has focus, so the text went nowhere; "
    "tap the field first (the screen may have changed)"
)

START_STATE: dict[str, Any] = {"permission_prompts": []}
pytestmark = pytest.mark.sim_phone(state=START_STATE)


def phone() -> Simulator:
    return Simulator(state=START_STATE)


def type_into(label: str, text: str) -> Any:
    return lambda body: call("type_text", index=index_of(body, label), text=text)


def reply_to_alice(device: Device, trajectory: Path) -> Episode:
    """Type into the row (lost), then tap the field and type again, then finish."""
    return run_scripted(
        "Write 'cats' to Alice",
        device,
        [
            call("open_app", name="Messages"),
            type_into(ROW, "cats"),
            tap(FIELD),
            type_into(FIELD, "cats"),
            call("task_complete", success=True),
        ],
        trajectory,
    )


@pytest.fixture
def over_adb(sim_phone: Simulator, sim_adb_server: AdbEndpoint) -> tuple[Simulator, AdbDevice]:
    return sim_phone, sim_adb_server.device()


def test_text_typed_with_no_field_focused_is_reported_and_typed_again(tmp_path: Path) -> None:
    device = phone()
    episode = reply_to_alice(device, tmp_path / "run.jsonl")
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 5)
    lost = episode.steps[1].result
    assert lost.error == NOTHING_FOCUSED
    assert lost.no_op is False  # the tap did open the conversation
    assert [call.split("(")[0] for call in lost.device_calls] == ["tap", "type_text"]
    assert NOTHING_FOCUSED in episode.server.chat_requests[2].user_text
    typed = episode.steps[3].result
    assert (typed.error, typed.no_op) == (None, False)
    assert device.find_views("cats")  # the draft holds the text once the field had focus


def test_text_typed_with_no_field_focused_over_adb_is_reported(
    over_adb: tuple[Simulator, AdbDevice], tmp_path: Path
) -> None:
    simulator, device = over_adb
    episode = reply_to_alice(device, tmp_path / "run.jsonl")
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 5)
    lost = episode.steps[1].result.error
    assert lost == "typed 'cats', but no text field has focus: it went nowhere"
    assert lost in episode.server.chat_requests[2].user_text
    assert episode.steps[3].result.error is None
    assert simulator.find_views("cats")


def test_the_adb_device_reads_back_a_missing_focus(over_adb: tuple[Simulator, AdbDevice]) -> None:
    simulator, device = over_adb
    device.open_app("Messages")
    simulator.tap_on(ROW)
    with pytest.raises(TextEntryError, match="no text field has focus: it went nowhere"):
        device.type_text("cats")
    with pytest.raises(TextEntryError, match="no text field has focus"):
        device.clear_text()


def test_enter_is_not_pressed_after_text_that_went_nowhere() -> None:
    device = phone()
    device.open_app("Messages")
    screen = Screen.parse(device.dump_xml())
    row = next(element for element in screen.elements if element.label.startswith(ROW))
    done = execute(TypeText(text="cats", index=row.index, submit=True), screen, device)
    assert done.error == NOTHING_FOCUSED
    assert [call.split("(")[0] for call in done.device_calls] == ["tap", "type_text"]


def test_a_field_focused_by_the_tap_passes_the_read_back() -> None:
    device = phone()
    device.open_app("Contacts")
    screen = Screen.parse(device.dump_xml())
    search = next(element for element in screen.elements if element.label == "Search contacts")
    done = execute(TypeText(text="Ali", index=search.index), screen, device)
    assert done.error is None
    assert [view.text for view in device.find_views("Alice Martin")] == ["Alice Martin"]


def test_typing_without_an_index_into_the_focused_field_passes_the_read_back() -> None:
    device = phone()
    device.open_app("Messages")
    device.tap_on("Start chat")  # focuses the recipient field
    screen = Screen.parse(device.dump_xml())
    assert execute(TypeText(text="Bob"), screen, device).error is None
    assert device.find_views("Bob")
