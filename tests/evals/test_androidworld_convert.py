"""Conversion between AndroidWorld's elements and actions and ours (no android_world needed)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent.actions import (
    LongPress,
    OpenApp,
    PressKey,
    Swipe,
    Tap,
    TaskComplete,
    TypeText,
    Wait,
)
from agent.cli import main
from evals.androidworld.convert import UnsupportedAction, action_to_aw, screen_from_aw


@dataclass
class Box:  # AndroidWorld's BoundingBox field order
    x_min: int
    x_max: int
    y_min: int
    y_max: int


@dataclass
class UI:
    text: str | None = None
    content_description: str | None = None
    class_name: str | None = "android.widget.TextView"
    bbox_pixels: Box | None = None
    is_checkable: bool | None = False
    is_checked: bool | None = False
    is_clickable: bool | None = False
    is_editable: bool | None = False
    is_scrollable: bool | None = False
    is_focused: bool | None = False
    is_visible: bool | None = True
    package_name: str | None = "com.android.settings"
    resource_name: str | None = None


SIZE = (1080, 2400)
ELEMENTS = [
    UI(text="Settings", bbox_pixels=Box(0, 1080, 100, 200)),
    UI(text="hidden", bbox_pixels=Box(0, 1080, 200, 300), is_visible=False),
    UI(class_name="android.widget.FrameLayout", bbox_pixels=Box(0, 1080, 300, 400)),
    UI(text="Wi-Fi", bbox_pixels=Box(40, 600, 420, 500)),
    UI(
        class_name="android.widget.Switch",
        bbox_pixels=Box(900, 1040, 420, 500),
        is_checkable=True,
        is_clickable=True,
    ),
    UI(text="off screen", bbox_pixels=Box(0, 1080, 2500, 2600)),
    UI(
        class_name="androidx.recyclerview.widget.RecyclerView",
        bbox_pixels=Box(0, 1080, 300, 2300),
        is_scrollable=True,
    ),
    UI(text="q", bbox_pixels=Box(0, 100, 2000, 2100),
       package_name="com.google.android.inputmethod.latin"),
    UI(class_name="android.widget.EditText", bbox_pixels=Box(40, 1040, 600, 700),
       is_editable=True, is_focused=True, content_description="Search"),
]  # fmt: skip


def test_elements_keep_their_original_positions_and_drop_what_agents_skip() -> None:
    observed = screen_from_aw(ELEMENTS, SIZE)
    screen = observed.screen
    assert [e.line() for e in screen.elements] == [
        '[1] text "Settings"',
        '[2] text "Wi-Fi"',
        '[3] switch "Wi-Fi" off',  # borrowed from the text on its line
        "[4] list scrollable",
        '[5] input "Search" focused',
    ]
    assert observed.aw_index == {1: 0, 2: 3, 3: 4, 4: 6, 5: 8}
    assert screen.keyboard is True and screen.app == "com.android.settings"
    assert screen.element(3).center == (970, 460)


def test_actions_map_to_json_actions_at_the_coordinates_the_model_saw() -> None:
    observed = screen_from_aw(ELEMENTS, SIZE)
    assert action_to_aw(Tap(index=3), observed) == [{"action_type": "click", "x": 970, "y": 460}]
    assert action_to_aw(LongPress(index=2), observed) == [
        {"action_type": "long_press", "x": 320, "y": 460}
    ]
    assert action_to_aw(TypeText(text="bob", index=5, clear=True), observed) == [
        {"action_type": "input_text", "text": "bob", "clear_text": True}  # already focused
    ]
    assert action_to_aw(TypeText(text="x", index=2), observed)[0] == {
        "action_type": "input_text", "text": "x", "x": 320, "y": 460,
    }  # fmt: skip
    assert action_to_aw(Swipe(direction="up", index=4), observed) == [
        {"action_type": "scroll", "direction": "down", "index": 6}
    ]
    assert action_to_aw(PressKey(key="back"), observed) == [{"action_type": "navigate_back"}]
    assert action_to_aw(PressKey(key="home"), observed) == [{"action_type": "navigate_home"}]
    assert action_to_aw(PressKey(key="enter"), observed) == [{"action_type": "keyboard_enter"}]
    assert action_to_aw(OpenApp(name="Clock"), observed) == [
        {"action_type": "open_app", "app_name": "Clock"}
    ]
    assert action_to_aw(Wait(seconds=2), observed) == [{"action_type": "wait"}]
    assert action_to_aw(TaskComplete(success=False), observed) == [
        {"action_type": "status", "goal_status": "infeasible"}
    ]
    assert action_to_aw(TaskComplete(answer="13"), observed) == [
        {"action_type": "answer", "text": "13"},
        {"action_type": "status", "goal_status": "complete"},
    ]
    with pytest.raises(UnsupportedAction, match="volume_up"):
        action_to_aw(PressKey(key="volume_up"), observed)


def test_a_scroll_on_the_element_at_position_zero_scrolls_the_screen() -> None:
    observed = screen_from_aw([ELEMENTS[6]], SIZE)  # AndroidWorld reads index 0 as "none"
    assert action_to_aw(Swipe(direction="left", index=1), observed) == [
        {"action_type": "scroll", "direction": "right"}
    ]


@given(st.sampled_from(["up", "down", "left", "right"]))
def test_scroll_directions_are_the_opposite_of_swipes(direction: str) -> None:
    observed = screen_from_aw(ELEMENTS, SIZE)
    [scroll] = action_to_aw(Swipe(direction=direction), observed)  # type: ignore[arg-type]
    opposite = {"up": "down", "down": "up", "left": "right", "right": "left"}
    assert scroll == {"action_type": "scroll", "direction": opposite[direction]}


boxes = st.builds(
    Box,
    x_min=st.integers(-200, 1200),
    x_max=st.integers(-200, 1200),
    y_min=st.integers(-200, 2600),
    y_max=st.integers(-200, 2600),
)
ui_elements = st.lists(
    st.builds(
        UI,
        text=st.one_of(st.none(), st.text(max_size=20)),
        bbox_pixels=st.one_of(st.none(), boxes),
        is_clickable=st.booleans(),
        is_checkable=st.booleans(),
        is_visible=st.one_of(st.none(), st.booleans()),
    ),
    max_size=15,
)


@given(ui_elements)
def test_any_element_list_gives_taps_inside_the_screen(elements: list[UI]) -> None:
    observed = screen_from_aw(elements, SIZE)
    for element in observed.screen.elements:
        [click] = action_to_aw(Tap(index=element.index), observed)
        assert 0 <= click["x"] <= SIZE[0] and 0 <= click["y"] <= SIZE[1]
        original = elements[observed.aw_index[element.index]]
        assert original.is_visible and original.bbox_pixels is not None


def test_eval_androidworld_without_android_world_says_how_to_install(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["eval", "--suite", "androidworld"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not on PyPI" in err[0] and "google-research/android_world" in err[0]
