"""`--thinking auto`: no thinking, except on the step after the model was unsure (a `wait`, an
unusable reply) and after a guard escalated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.loop import RunSettings, run_episode
from agent.model_client import ModelReply
from tests.support.fake_device import FakePhone
from tests.support.loop_harness import ScriptedPolicy, tap_reply


def _call(name: str, **arguments: object) -> ModelReply:
    function = {"name": name, "arguments": json.dumps(arguments)}
    return ModelReply(tool_calls=[{"id": "1", "type": "function", "function": function}])


@pytest.mark.parametrize(
    ("think_when_unsure", "expected"),
    [(True, [None, True, None, True, None]), (False, [None] * 5)],
    ids=["auto", "off"],
)
def test_the_step_after_a_wait_or_an_unusable_reply_thinks_in_auto_mode(
    tmp_path: Path, think_when_unsure: bool, expected: list[bool | None]
) -> None:
    policy = ScriptedPolicy(
        _call("wait", seconds=1),
        tap_reply(2),
        ModelReply(content="I am not sure which one to pick."),
        tap_reply(3),
        _call("task_complete", success=True),
    )
    settings = RunSettings(think_when_unsure=think_when_unsure)
    result = run_episode("Open the display page", FakePhone(), policy, settings, tmp_path / "r")
    assert [request.thinking for request in policy.requests] == expected
    assert result.steps == 5
