"""The caps that keep a screen inside the model's prompt and a hostile dump inside bounded work:
bytes per dump, windows per dump, elements per screen."""

from __future__ import annotations

import pytest

from agent.screen import MAX_ELEMENTS, Screen, ScreenParseError
from agent.screen_xml import MAX_DUMP_BYTES, MAX_WINDOWS
from tests.support.work import lines_run

_WIDTH = 1080


def _dump(windows: list[str]) -> str:
    return f'<hierarchy rotation="0">{"".join(windows)}</hierarchy>'


def _window(body: str, height: int = 2400) -> str:
    return (
        '<node class="android.widget.FrameLayout" package="com.example" '
        f'bounds="[0,0][{_WIDTH},{height}]">{body}</node>'
    )


def rows(count: int) -> str:
    """A window of `count` clickable rows, one under the other."""
    body = "".join(
        f'<node text="Row {n}" class="android.widget.TextView" package="com.example" '
        f'clickable="true" bounds="[0,{10 * n}][{_WIDTH},{10 * n + 10}]"/>'
        for n in range(count)
    )
    return _dump([_window(body, height=10 * count + 10)])


def unlabeled_switches(count: int) -> str:
    """`count` switches without a label on one line, each with its label beside it: the one
    layout where each field looks along its line at every other element for a label."""
    body = "".join(
        f'<node class="android.widget.Switch" package="com.example" checkable="true" '
        f'clickable="true" bounds="[{20 * n},0][{20 * n + 10},40]"/>'
        f'<node text="Label {n}" class="android.widget.TextView" package="com.example" '
        f'bounds="[{20 * n + 10},0][{20 * n + 20},40]"/>'
        for n in range(count)
    )
    return (
        '<hierarchy rotation="0"><node class="android.widget.FrameLayout" package="com.example" '
        f'bounds="[0,0][{20 * count},2400]">{body}</node></hierarchy>'
    )


def test_a_screen_lists_the_first_elements_in_reading_order_and_counts_the_rest() -> None:
    screen = Screen.parse(rows(MAX_ELEMENTS + 50))
    assert len(screen.elements) == MAX_ELEMENTS
    assert [e.label for e in screen.elements[:2]] == ["Row 0", "Row 1"]
    assert screen.elements[-1].label == f"Row {MAX_ELEMENTS - 1}"
    assert screen.omitted == 50
    # the model reads that the list goes on
    assert screen.render().splitlines()[-1] == "(50 more elements further down are not listed)"
    assert screen.to_json()["omitted"] == 50


def test_a_screen_within_the_cap_lists_everything() -> None:
    screen = Screen.parse(rows(MAX_ELEMENTS))
    assert len(screen.elements) == MAX_ELEMENTS and screen.omitted == 0
    assert screen.render().splitlines()[-1] == f'[{MAX_ELEMENTS}] button "Row {MAX_ELEMENTS - 1}"'


def test_a_screen_built_from_another_element_list_is_capped_too() -> None:
    element = Screen.parse(rows(1)).elements[0]
    many = [element.model_copy(update={"index": n}) for n in range(1, MAX_ELEMENTS + 11)]
    screen = Screen("com.example", False, _WIDTH, 2400, 0, many)
    assert len(screen.elements) == MAX_ELEMENTS and screen.omitted == 10
    assert "(10 more elements" in screen.render()


def test_more_elements_left_out_is_a_change_of_screen() -> None:
    """The listed elements are the same; the loop must still see that the screen changed (a
    list that loaded more rows below)."""
    fewer, more = Screen.parse(rows(MAX_ELEMENTS + 1)), Screen.parse(rows(MAX_ELEMENTS + 2))
    assert fewer.elements == more.elements
    assert fewer.signature != more.signature


def test_work_on_a_huge_screen_grows_linearly() -> None:
    small, small_screen = lines_run(Screen.parse, unlabeled_switches(1_000))
    large, large_screen = lines_run(Screen.parse, unlabeled_switches(4_000))
    assert large <= 4.5 * small, f"4x the elements cost {large / small:.1f}x the work"
    assert large_screen.elements[0].label == "Label 0"  # still labelled from its line
    assert large_screen.omitted == 2 * 4_000 - MAX_ELEMENTS
    assert small_screen.omitted == 2 * 1_000 - MAX_ELEMENTS


def test_a_dump_larger_than_the_cap_is_refused_before_it_is_read() -> None:
    padding = " " * MAX_DUMP_BYTES
    with pytest.raises(ScreenParseError, match=r"more than the 8 MiB"):
        Screen.parse(rows(1).replace("<hierarchy", f"{padding}<hierarchy"))


def test_a_dump_with_more_windows_than_a_phone_shows_is_refused() -> None:
    window = _window('<node text="Hi" class="android.widget.TextView" bounds="[0,0][10,10]"/>')
    assert Screen.parse(_dump([window] * MAX_WINDOWS)).elements
    with pytest.raises(ScreenParseError, match=f"lists {MAX_WINDOWS + 1} windows"):
        Screen.parse(_dump([window] * (MAX_WINDOWS + 1)))
