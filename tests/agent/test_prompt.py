"""The prompt: short fixed system message, per-step content last."""

from __future__ import annotations

import pytest

from agent import prompt
from agent.actions import OpenApp, Swipe, Tap, TaskComplete, TypeText, Wait
from agent.screen import Screen
from tests.support.fake_device import FakePhone


def settings_screen() -> Screen:
    return Screen.parse(FakePhone().dump_xml())


def test_system_prompt_is_short_and_names_the_rules() -> None:
    text = prompt.SYSTEM_PROMPT
    assert len(text.split()) < 160  # paid on every step on a CPU
    for phrase in ("one tool call", "index", "task_complete", "Never undo"):
        assert phrase in text


def test_messages_keep_the_system_prefix_identical() -> None:
    first = prompt.messages("Goal: a")
    second = prompt.messages("Goal: b")
    assert first[0] == second[0] == prompt.system_message()
    assert [m["role"] for m in first] == ["system", "user"]


def test_user_turn_goal_first_screen_last_history_bounded() -> None:
    screen = settings_screen()
    history = [prompt.StepSummary(n, f"tap [{n}]", "nothing changed") for n in range(1, 7)]
    text = prompt.user_turn(
        "Turn on Wi-Fi", history, ["Your last reply was not run: x"], screen, history_steps=2
    )
    assert text.startswith("Goal: Turn on Wi-Fi\n")
    assert text.endswith(screen.render())
    assert "5. tap [5] -> nothing changed" in text
    assert "6. tap [6]" in text
    assert "4. tap [4]" not in text
    assert "Note: Your last reply was not run: x" in text


@pytest.mark.parametrize(
    "typed",
    [
        "send “See you at 8” to Bob",
        "send „See you at 8“ to Bob",
        "send «See you at 8» to Bob",
        'send "See you at 8" to Bob',
    ],
)
def test_the_goal_shows_any_quotation_marks_as_plain_ones(typed: str) -> None:
    """A keyboard's curly quotes delimit the text to type as plain ones do; a model that
    learnt where a text ends from plain marks types on past a closing ” otherwise."""
    text = prompt.user_turn(typed, [], [], settings_screen())
    assert text.startswith('Goal: send "See you at 8" to Bob\n')


def test_the_goal_keeps_apostrophes_and_other_marks() -> None:
    goal = "text Ann “Don’t forget — it’s at 8…”"
    text = prompt.user_turn(goal, [], [], settings_screen())
    assert text.startswith('Goal: text Ann "Don’t forget — it’s at 8…"\n')


def test_user_turn_without_history_or_notes() -> None:
    screen = settings_screen()
    text = prompt.user_turn("Open Display", [], [], screen)
    assert text == "Goal: Open Display\n\nScreen:\n" + screen.render()


def test_remembered_values_sit_between_the_goal_and_the_steps() -> None:
    screen = settings_screen()
    history = [prompt.StepSummary(1, "tap [2]", "nothing changed")]
    text = prompt.user_turn(
        "Text Bob the code", history, [], screen, remembered=["code 4711", "gate B12"]
    )
    assert text.startswith(
        "Goal: Text Bob the code\n\nRemembered:\n- code 4711\n- gate B12\n\nRecent steps:\n"
    )
    # what does not change from step to step comes first, for the server's prefix cache
    grown = prompt.user_turn(
        "Text Bob the code", history, [], screen, remembered=["code 4711", "gate B12", "x"]
    )
    assert grown.startswith(text.partition("\n\nRecent steps")[0])


@pytest.mark.parametrize(
    ("content", "kept", "rest"),
    [
        ("Remember: code 4711\n<tool_call>tap", ["code 4711"], "\n<tool_call>tap"),
        (
            "Remember: code 4711 <tool_call>tap</tool_call>",
            ["code 4711"],
            "<tool_call>tap</tool_call>",
        ),
        ("remember:  gate B12  \n- Remember: seat 3\n", ["gate B12", "seat 3"], "\n\n"),
        (
            "<think>Remember: a guess</think>Remember: 42",
            ["42"],
            "<think>Remember: a guess</think>",
        ),
        ("I will remember: nothing", [], "I will remember: nothing"),
        ("Remember:\n", [], "\n"),
        (None, [], ""),
    ],
)
def test_remember_lines_are_taken_from_the_answer_only(
    content: str | None, kept: list[str], rest: str
) -> None:
    assert prompt.split_remembered(content) == (kept, rest)


def test_remembered_values_are_kept_once_and_the_oldest_dropped() -> None:
    assert prompt.split_remembered("Remember: " + "x" * 500)[0] == ["x" * 200]
    kept = prompt.keep_remembered(["a", "b"], ["b", "c", "c"])
    assert kept == ["a", "b", "c"]
    many = prompt.keep_remembered(kept, [str(n) for n in range(prompt.MAX_REMEMBERED)])
    assert many == [str(n) for n in range(prompt.MAX_REMEMBERED)]


def test_actions_are_described_with_their_target_labels() -> None:
    screen = settings_screen()
    assert prompt.describe_action(Tap(index=2), screen) == 'tap [2] "Network and internet"'
    assert prompt.describe_action(Tap(index=42), screen) == "tap [42]"
    typed = TypeText(text="hello", index=3, clear=True, submit=True)
    assert (
        prompt.describe_action(typed, screen)
        == 'type_text "hello" into [3] "Display" (clear, submit)'
    )
    assert prompt.describe_action(Swipe(direction="up")) == "swipe up"
    assert prompt.describe_action(OpenApp(name="Clock")) == 'open_app "Clock"'
    assert prompt.describe_action(Wait(seconds=2.0)) == "wait 2 s"
    done = TaskComplete(success=True, answer="42%")
    assert prompt.describe_action(done) == 'task_complete(success=true, answer="42%")'
