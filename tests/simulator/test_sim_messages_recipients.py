"""Messages' new-conversation picker: a matching contact or a typed number starts the chat."""

from __future__ import annotations

from agent.screen import Screen
from simulator import Simulator


def labels(sim: Simulator) -> list[str]:
    return [e.label for e in Screen.parse(sim.dump_xml()).elements]


def start_new_conversation(sim: Simulator) -> None:
    sim.open_app("Messages")
    sim.tap_on("Don’t allow")
    sim.tap_on("Start chat")


def test_a_typed_number_is_offered_and_opens_its_conversation() -> None:
    sim = Simulator()
    start_new_conversation(sim)
    sim.type_text("5551234")
    assert "Send to 5551234" in labels(sim)
    sim.tap_on("Send to 5551234")
    sim.tap_on("Text message")
    sim.type_text("On my way")
    sim.tap_on("Send SMS")
    assert sim.state["messages"] == [{"to": "5551234", "text": "On my way"}]


def test_a_contact_row_opens_the_conversation_with_that_contact() -> None:
    sim = Simulator()
    start_new_conversation(sim)
    sim.type_text("Ali")
    assert "Send to Ali" not in labels(sim)  # letters are a name to look up, not a number
    sim.tap_on("Alice Martin")
    sim.tap_on("Text message")
    sim.type_text("Running late")
    sim.tap_on("Send SMS")
    assert sim.state["messages"] == [{"to": "Alice Martin", "text": "Running late"}]
