"""Actions become the right device calls: coordinates, swipe directions, typing steps."""

from __future__ import annotations

import pytest

from agent.actions import LongPress, OpenApp, PressKey, Swipe, Tap, TaskComplete, TypeText, Wait
from agent.execute import execute, swipe_path
from agent.screen import Screen
from tests.support.fake_device import FakePhone


class FieldPhone(FakePhone):
    """The fake phone with a focused text field at the bottom of the screen, below the rows."""

    def dump_xml(self) -> str:
        field = (
            '<node index="0" text="" resource-id="" class="android.widget.EditText" '
            'package="com.android.settings" content-desc="" checkable="false" checked="false" '
            'clickable="true" enabled="true" focusable="true" focused="true" scrollable="false" '
            'long-clickable="false" password="false" selected="false" '
            'bounds="[40,2000][1040,2150]" />'
        )
        return super().dump_xml().replace("</node></hierarchy>", field + "</node></hierarchy>")


def settings(phone: FakePhone | None = None) -> tuple[FakePhone, Screen]:
    phone = phone or FakePhone()
    screen = Screen.parse(phone.dump_xml())
    phone.calls.clear()
    return phone, screen


def test_taps_go_to_the_element_centre() -> None:
    phone, screen = settings()
    done = execute(Tap(index=2), screen, phone)
    assert done.device_calls == ["tap(540, 390)"] == phone.calls
    assert phone.page == "network"
    execute(LongPress(index=3), screen, phone)
    assert phone.calls[-1] == "long_press(540, 570)"


@pytest.mark.parametrize(
    ("direction", "path"),
    [
        # the finger, and so the content, moves that way: "up" reveals what is further down
        ("up", (540, 1800, 540, 600)),
        ("down", (540, 600, 540, 1800)),
        ("left", (810, 1200, 270, 1200)),
        ("right", (270, 1200, 810, 1200)),
    ],
)
def test_screen_swipes_follow_the_finger(direction: str, path: tuple[int, ...]) -> None:
    phone, screen = settings()
    execute(Swipe(direction=direction), screen, phone)  # type: ignore[arg-type]
    assert phone.calls == [f"swipe{path}"]


def test_element_swipes_stay_inside_its_bounds() -> None:
    x1, y1, x2, y2 = swipe_path((0, 300, 1080, 480), "up")
    assert (x1, x2) == (540, 540)
    assert 300 < y2 < y1 < 480


def test_typing_focuses_clears_types_reads_back_and_submits_in_order() -> None:
    phone, screen = settings(FieldPhone())
    done = execute(
        TypeText(text="héllo; rm -rf /", index=3, clear=True, submit=True), screen, phone
    )
    assert phone.calls == [
        "tap(540, 570)",
        "clear_text",
        "type_text",
        "dump_xml",  # the read-back, before Enter could move the focus on
        "press_key(enter)",
    ]
    assert phone.typed == ["héllo; rm -rf /"]  # passed through literally
    assert done.device_calls[2] == "type_text(15 chars)"
    assert done.error is None


def test_typing_into_the_focused_field_does_not_tap() -> None:
    phone, screen = settings(FieldPhone())
    execute(TypeText(text="abc"), screen, phone)
    assert phone.calls == ["type_text", "dump_xml"]


def test_keys_apps_waits_and_completion() -> None:
    phone, screen = settings()
    slept: list[float] = []
    execute(PressKey(key="back"), screen, phone)
    done = execute(OpenApp(name="Settings"), screen, phone)
    execute(Wait(seconds=1.5), screen, phone, sleep=slept.append)
    execute(TaskComplete(), screen, phone)
    assert phone.calls == ["press_key(back)", "open_app(Settings)"]
    assert done.package == "com.android.settings"
    assert slept == [1.5]
