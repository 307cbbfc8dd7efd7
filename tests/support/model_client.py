"""A decision request on the fake phone's screen and a model client that never really sleeps."""

from __future__ import annotations

from agent import prompt
from agent.actions import tools_schema
from agent.model_client import ClientSettings, DecisionRequest, ModelClient
from agent.screen import Screen
from tests.support.fake_device import FakePhone


def request(thinking: bool | None = None) -> DecisionRequest:
    screen = Screen.parse(FakePhone().dump_xml())
    user = prompt.user_turn("Turn on Wi-Fi", [], [], screen)
    return DecisionRequest(
        goal="Turn on Wi-Fi",
        step=1,
        screen=screen,
        messages=prompt.messages(user),
        tools=tools_schema(),
        thinking=thinking,
    )


def client_for(url: str, sleeps: list[float] | None = None, **options: object) -> ModelClient:
    settings = ClientSettings(base_url=url, backoff_s=0.001, **options)
    return ModelClient(settings, sleep=(sleeps.append if sleeps is not None else lambda s: None))
