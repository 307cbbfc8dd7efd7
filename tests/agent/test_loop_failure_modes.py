"""Each failure mode measured with the small model, replayed by a scripted server against the
simulator: every run ends as a completed task or with the right stop reason, in a few steps,
with the device in the right state. (Risky actions use the fake phone's Reset row.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.loop import RunSettings
from evals.scripted_model import Scripted, Turn, call, error, hang, raw, screen_lines, tap, text
from simulator import Simulator
from tests.support.fake_device import FakePhone
from tests.support.loop_harness import run_scripted

NETWORK, INTERNET, WIFI = "Network & internet", "Internet", "Wi-Fi"
TURN_ON_WIFI = "Turn on Wi-Fi"
COMPACT = "<tool_call>tap<arg_key>index</arg_key><arg_value>{index}</arg_value></tool_call>"
# Home screen -> Settings -> Network & internet -> Internet, where the Wi-Fi switch is.
TO_WIFI_PAGE: tuple[Turn, ...] = (call("open_app", name="Settings"), tap(NETWORK), tap(INTERNET))


def phone(**state: Any) -> Simulator:
    """The simulator with Wi-Fi off unless told otherwise."""
    return Simulator(state={"wifi": False, **state})


def test_unterminated_bracketed_json_is_repaired(tmp_path: Path) -> None:
    device = phone()
    episode = run_scripted(
        TURN_ON_WIFI,
        device,
        [
            call("open_app", name="Settings"),
            raw('[tap]\n{"tool": "tap", "parameters": {"index": {index}}', NETWORK),
            raw('[tap]\n{"tool": "tap", "parameters": {"index": {index}}', INTERNET),
            raw('[tap]\n{"tool": "tap", "parameters": {"index": {index}}', WIFI),
        ],
        tmp_path / "run.jsonl",
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 4)
    assert device.state["wifi"] is True
    assert all(step.call.repairs for step in episode.steps[1:])
    assert episode.guard_kinds[-1] == ["goal_state"]


def test_unclosed_thinking_at_the_cap_continues_after_closing_it(tmp_path: Path) -> None:
    device = phone()
    cut = Scripted(reasoning="I need the network page first. " * 20, finish_reason="length")
    episode = run_scripted(
        TURN_ON_WIFI,
        device,
        [*TO_WIFI_PAGE, cut],
        tmp_path / "run.jsonl",
        completions=[raw(COMPACT, WIFI)],
        think_budget=64,
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 4)
    assert device.state["wifi"] is True
    assert [step.reply.path for step in episode.steps] == ["chat"] * 3 + ["continuation"]
    assert episode.steps[-1].call.source == "compact"


def test_unclosed_thinking_falls_back_to_thinking_off(tmp_path: Path) -> None:
    device = phone()
    cut = Scripted(reasoning="Maybe the network page. " * 20, finish_reason="length")
    episode = run_scripted(
        TURN_ON_WIFI,
        device,
        [*TO_WIFI_PAGE, cut, tap(WIFI)],
        tmp_path / "run.jsonl",
        tokenize=False,  # a server without /tokenize: no continuation possible
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 4)
    assert device.state["wifi"] is True
    assert episode.steps[-1].reply.path == "thinking_off"
    assert [request.thinking for request in episode.server.chat_requests][-2:] == [True, False]


def taps_everything() -> Turn:
    """The thinking-off collapse: tap each element of the screen in turn, top to bottom, and go
    back whenever a tap led to another page."""
    tapped: set[str] = set()
    home_page: set[str] = set()

    def next_tap(body: dict[str, Any]) -> Scripted:
        lines = screen_lines(body)
        # Titles only: a switch's summary changes when it is tapped, its page does not.
        titles = {label.partition(",")[0] for _, label in lines}
        if not home_page:
            home_page.update(titles)
        if len(titles & home_page) < len(home_page) // 2:
            return call("press_key", key="back")
        for index, label in lines:
            if label not in tapped and label != "Navigate up":
                tapped.add(label)
                return call("tap", index=index)
        return call("press_key", key="back")

    return next_tap


def test_tapping_everything_stops_when_the_goal_state_is_reached(tmp_path: Path) -> None:
    device = phone()
    collapse = taps_everything()
    episode = run_scripted(
        TURN_ON_WIFI,
        device,
        [*TO_WIFI_PAGE, *[collapse] * 20],
        tmp_path / "run.jsonl",
        thinking=False,
    )
    assert episode.result.stop_reason == "completed"
    # The five elements above the switch, each a tap and perhaps a back, then the switch.
    assert episode.result.steps <= 3 + 2 * 5 + 1
    assert device.state["wifi"] is True  # and never tapped off again
    assert episode.guard_kinds[-1] == ["goal_state"]


def test_undo_after_success_never_happens(tmp_path: Path) -> None:
    device = phone()
    episode = run_scripted(
        TURN_ON_WIFI,
        device,
        [*TO_WIFI_PAGE, tap(WIFI), tap(WIFI)],  # the last would turn it off again
        tmp_path / "run.jsonl",
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 4)
    assert device.state["wifi"] is True
    assert len(episode.server.chat_requests) == 4
    assert episode.end.detail == "Wi-Fi is now on as asked"


def test_insisting_on_undoing_own_change_stops_with_undo_detected(tmp_path: Path) -> None:
    device = phone()
    episode = run_scripted(
        "Open the Internet page and enable Wi-Fi there",  # beyond the goal rules
        device,
        [*TO_WIFI_PAGE, tap(WIFI), tap(WIFI), tap(WIFI)],
        tmp_path / "run.jsonl",
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("undo_detected", 6)
    assert device.state["wifi"] is True
    assert episode.guard_kinds[4:] == [["self_undo"], ["self_undo"]]
    assert "would undo that" in episode.server.chat_requests[5].user_text


def test_already_done_goal_completes_instead_of_flipping(tmp_path: Path) -> None:
    device = phone(wifi=True)
    episode = run_scripted(TURN_ON_WIFI, device, [*TO_WIFI_PAGE, tap(WIFI)], tmp_path / "run.jsonl")
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 4)
    assert device.state["wifi"] is True
    assert episode.steps[-1].result.executed is False
    assert "already on" in episode.end.detail


def test_false_completion_claim_is_refused(tmp_path: Path) -> None:
    device = phone()
    episode = run_scripted(
        TURN_ON_WIFI,
        device,
        [*TO_WIFI_PAGE, call("task_complete", success=True), tap(WIFI)],
        tmp_path / "run.jsonl",
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 5)
    assert device.state["wifi"] is True
    assert episode.guard_kinds[3] == ["completion_check"]
    assert "Not done yet: no screen has shown Wi-Fi on" in episode.server.chat_requests[4].user_text
    assert episode.result.refused_completions == 1


def test_back_and_forth_loop_stops_as_stuck(tmp_path: Path) -> None:
    device = phone()
    back = call("press_key", key="back")
    episode = run_scripted(
        "Open the display settings and read them",
        device,
        [call("open_app", name="Settings"), tap(NETWORK), back, tap(NETWORK), back, back],
        tmp_path / "run.jsonl",
    )
    # the first return to Settings came from a page not seen before; the second round is a loop
    assert (episode.result.stop_reason, episode.result.steps) == ("stuck", 6)
    assert episode.guard_kinds[4] == ["repeat", "escalation"]
    assert episode.server.chat_requests[5].thinking is True


def test_repeating_a_dead_tap_stops_as_stuck(tmp_path: Path) -> None:
    episode = run_scripted(
        TURN_ON_WIFI,
        phone(),
        lambda body: call("tap", index=2),  # the home screen's "Home" title does nothing
        tmp_path / "run.jsonl",
        thinking=False,
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("stuck", 3)
    assert episode.guard_kinds[0] == ["no_op"]


def test_http_500s_are_retried_and_the_run_goes_on(tmp_path: Path) -> None:
    device = phone()
    episode = run_scripted(
        TURN_ON_WIFI,
        device,
        [error(500), error(502), *TO_WIFI_PAGE, error(500), tap(WIFI)],
        tmp_path / "run.jsonl",
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 4)
    assert [step.reply.attempts for step in episode.steps] == [3, 1, 1, 2]
    assert device.state["wifi"] is True


def test_persistent_http_500s_stop_with_model_error(tmp_path: Path) -> None:
    episode = run_scripted(
        TURN_ON_WIFI, phone(), lambda body: error(500), tmp_path / "run.jsonl", retries=2
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("model_error", 0)
    assert "failed 3 times (last: HTTP 500)" in episode.end.detail


def test_a_hanging_server_stops_with_model_error(tmp_path: Path) -> None:
    episode = run_scripted(
        TURN_ON_WIFI, phone(), [hang(5)], tmp_path / "run.jsonl", retries=0, timeout_s=0.2
    )
    assert episode.result.stop_reason == "model_error"
    assert "no answer within 0.2 s" in episode.end.detail


def test_prose_without_a_call_goes_back_to_the_model(tmp_path: Path) -> None:
    device = phone()
    prose = text("I should open the network settings and then turn on Wi-Fi.")
    episode = run_scripted(
        TURN_ON_WIFI, device, [prose, *TO_WIFI_PAGE, tap(WIFI)], tmp_path / "run.jsonl"
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 5)
    assert episode.guard_kinds[0] == ["bad_call"]
    assert "Your last reply was not run: no tool call" in episode.server.chat_requests[1].user_text


def test_only_prose_stops_with_model_error(tmp_path: Path) -> None:
    prose = text("Wi-Fi is an important feature of modern phones.")
    episode = run_scripted(TURN_ON_WIFI, phone(), lambda body: prose, tmp_path / "run.jsonl")
    assert (episode.result.stop_reason, episode.result.steps) == ("model_error", 3)
    assert episode.end.detail.startswith("no tool call in the reply")


def test_invalid_index_goes_back_with_the_valid_range(tmp_path: Path) -> None:
    device = phone()
    episode = run_scripted(
        TURN_ON_WIFI,
        device,
        [call("tap", index=42), *TO_WIFI_PAGE, tap(WIFI)],
        tmp_path / "run.jsonl",
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 5)
    assert episode.steps[0].call.error == "tap: no element [42]: valid indices are 1 to 8"
    assert "valid indices are 1 to 8" in episode.server.chat_requests[1].user_text


RESET = "Reset options"


def test_risky_action_is_refused_without_a_terminal(tmp_path: Path) -> None:
    device = FakePhone()
    episode = run_scripted(
        "Reset the phone's settings",
        device,
        [tap(RESET), call("task_complete", success=False)],
        tmp_path / "run.jsonl",
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("infeasible", 2)
    assert device.state["reset"] is False
    assert episode.guard_kinds[0] == ["risky"]
    assert "needs the user's confirmation" in episode.server.chat_requests[1].user_text


def test_risky_action_runs_once_confirmed(tmp_path: Path) -> None:
    device = FakePhone()
    asked: list[str] = []

    def accept(described: str) -> bool:
        asked.append(described)
        return True

    episode = run_scripted(
        "Reset the phone's settings",
        device,
        [tap(RESET), call("task_complete")],
        tmp_path / "run.jsonl",
        confirm=accept,
        settings=RunSettings(max_steps=5),
    )
    assert episode.result.stop_reason == "completed"
    assert device.state["reset"] is True
    assert asked == ['tap [5] "Reset options"']


def test_undo_after_success_on_a_row_whose_summary_follows_the_switch(tmp_path: Path) -> None:
    device = phone(dark_theme=False)  # "Dark theme, Will never turn on automatically"
    episode = run_scripted(
        "Turn on dark theme.",
        device,
        [call("open_app", name="Settings"), tap("Display"), tap("Dark theme"), tap("Dark theme")],
        tmp_path / "run.jsonl",
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 3)
    assert device.state["dark_theme"] is True
    assert episode.end.detail == "Dark theme is now on as asked"


def test_tapping_build_number_seven_times_is_deliberate_not_stuck(tmp_path: Path) -> None:
    device = phone()
    up = call("swipe", direction="up")
    episode = run_scripted(
        "Enable developer options on this phone.",
        device,
        [
            call("open_app", name="Settings"),
            up,
            up,
            tap("About phone"),
            up,
            *[tap("Build number")] * 7,  # real Android answers with toasts a dump never shows
            call("task_complete", success=True),
        ],
        tmp_path / "run.jsonl",
        settings=RunSettings(max_steps=20),
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 13)
    assert device.state["developer_options"] is True
    assert episode.guard_kinds[5:12] == [["no_op"]] + [["repeat", "no_op"]] * 6
