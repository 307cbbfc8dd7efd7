"""Screen observation on small hand-built dumps: repair, element rules, render, diff, JSON."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any
from xml.sax.saxutils import quoteattr

import pytest

from agent.screen import Element, ElementNotFound, Screen, ScreenParseError
from devices.errors import UsageError

SETTINGS = "com.android.settings"
_FLAGS = (
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "scrollable",
    "long-clickable",
    "password",
    "selected",
)


def node(
    cls: str = "android.widget.FrameLayout",
    bounds: tuple[int, int, int, int] = (0, 0, 1080, 2400),
    *children: str,
    package: str = SETTINGS,
    **attrs: Any,
) -> str:
    """One `<node>` as uiautomator writes it; keyword names use `_` for `-`."""
    values = {"text": "", "resource-id": "", "content-desc": "", "enabled": True}
    values.update({key.replace("_", "-"): value for key, value in attrs.items()})
    flags = {flag: values.pop(flag, False) for flag in _FLAGS}
    x1, y1, x2, y2 = bounds
    rendered = " ".join(
        [f'index="0" class={quoteattr(cls)} package={quoteattr(package)}']
        + [f"{key}={quoteattr(str(value))}" for key, value in values.items()]
        + [f'{flag}="{str(value).lower()}"' for flag, value in flags.items()]
        + [f'bounds="[{x1},{y1}][{x2},{y2}]"']
    )
    if not children:
        return f"<node {rendered} />"
    return f"<node {rendered}>{''.join(children)}</node>"


def dump(*windows: str, rotation: int = 0) -> str:
    return (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
        f'<hierarchy rotation="{rotation}">{"".join(windows)}</hierarchy>'
    )


def text(label: str, bounds: tuple[int, int, int, int], **attrs: Any) -> str:
    return node("android.widget.TextView", bounds, text=label, **attrs)


def switch_row(
    title: str, summary: str, top: int, on: bool, switch_text: str = "", **row_attrs: Any
) -> str:
    """A settings row as AOSP draws it: clickable row, title and summary, a bare Switch."""
    bottom = top + 200
    return node(
        "android.widget.LinearLayout",
        (0, top, 1080, bottom),
        node(
            "android.widget.RelativeLayout",
            (60, top, 800, bottom),
            text(title, (60, top + 40, 500, top + 110), resource_id="android:id/title"),
            *([text(summary, (60, top + 110, 700, top + 160))] if summary else []),
        ),
        node(
            "android.widget.LinearLayout",
            (840, top, 1040, bottom),
            node(
                "android.widget.Switch",
                (880, top + 40, 1030, top + 160),
                resource_id="android:id/switch_widget",
                text=switch_text,
                checkable=True,
                checked=on,
                clickable=True,
                focusable=True,
            ),
        ),
        clickable=True,
        focusable=True,
        **row_attrs,
    )


def button(label: str, bounds: tuple[int, int, int, int], **attrs: Any) -> str:
    return node("android.widget.Button", bounds, text=label, clickable=True, **attrs)


def settings_screen(wifi: bool = True, bluetooth: bool = False) -> str:
    return dump(
        node(
            "android.widget.FrameLayout",
            (0, 0, 1080, 2400),
            node(
                "android.widget.ImageButton",
                (0, 80, 150, 230),
                content_desc="Navigate up",
                clickable=True,
            ),
            text("Network & internet", (180, 120, 800, 200)),
            node(
                "androidx.recyclerview.widget.RecyclerView",
                (0, 300, 1080, 2400),
                switch_row("Wi-Fi", "", 300, wifi),
                switch_row("Bluetooth", "Pairing, nearby devices", 500, bluetooth),
                resource_id=f"{SETTINGS}:id/recycler_view",
                scrollable=True,
            ),
        )
    )


def lines(screen: Screen) -> list[str]:
    return screen.render().splitlines()[1:]


# --- elements -----------------------------------------------------------------------------


def test_settings_row_and_its_switch_are_one_element_that_taps_the_switch() -> None:
    screen = Screen.parse(settings_screen())
    assert lines(screen) == [
        '[1] button "Navigate up"',
        '[2] text "Network & internet"',
        '[3] list "recycler view" scrollable',
        '[4] switch "Wi-Fi" on',
        '[5] switch "Bluetooth, Pairing, nearby devices" off',
    ]
    wifi = screen.element(4)
    assert wifi.checked is True and wifi.clickable
    assert wifi.bounds == (0, 300, 1080, 500)
    assert wifi.center == (955, 400)  # the switch, inside the row


def test_header_names_app_and_keyboard() -> None:
    screen = Screen.parse(settings_screen())
    assert screen.render().splitlines()[0] == f"app: {SETTINGS}, keyboard: hidden"
    assert (screen.width, screen.height, screen.rotation) == (1080, 2400, 0)


def test_switch_with_its_own_state_text_still_merges_into_the_row() -> None:
    # Samsung writes the state ("On") as the Switch's text; the row's title is the name.
    row = switch_row("Show taps", "", 300, True, switch_text="On")
    screen = Screen.parse(dump(node("android.widget.FrameLayout", (0, 0, 1080, 2400), row)))
    assert lines(screen) == ['[1] switch "Show taps" on']


def test_labelled_toggle_outside_a_row_keeps_its_label() -> None:
    screen = Screen.parse(
        dump(
            node(
                "android.widget.LinearLayout",
                (0, 0, 1000, 800),
                text("Allow access to your location?", (40, 40, 960, 200)),
                node(
                    "android.widget.CheckBox",
                    (40, 300, 960, 400),
                    text="Don't ask again",
                    checkable=True,
                    clickable=True,
                ),
                text("1 of 3", (40, 420, 200, 480)),
                button("Deny", (500, 600, 700, 700)),
                button("Allow", (720, 600, 960, 700), enabled=False),
            )
        )
    )
    assert lines(screen) == [
        '[1] text "Allow access to your location?"',
        '[2] checkbox "Don\'t ask again" off',
        '[3] text "1 of 3"',
        '[4] button "Deny"',
        '[5] button "Allow" disabled',
    ]


def test_radio_button_beside_checked_text_is_one_choice() -> None:
    def choice(label: str, top: int, on: bool) -> str:
        return node(
            "android.widget.LinearLayout",
            (0, top, 1080, top + 180),
            node(
                "android.widget.RadioButton",
                (60, top, 120, top + 180),
                checkable=True,
                checked=on,
                clickable=True,
            ),
            node(
                "android.widget.CheckedTextView",
                (160, top + 40, 800, top + 140),
                text=label,
                checkable=True,
                checked=on,
                clickable=True,
            ),
            clickable=True,
        )

    screen = Screen.parse(
        dump(
            node(
                "android.widget.FrameLayout",
                (0, 0, 1080, 2400),
                choice("5G", 0, True),
                choice("LTE", 200, False),
            )
        )
    )
    assert lines(screen) == ['[1] radio "5G" on', '[2] radio "LTE" off']


def test_unlabeled_text_field_takes_the_label_beside_it() -> None:
    screen = Screen.parse(
        dump(
            node(
                "android.widget.LinearLayout",
                (0, 0, 1080, 2400),
                text("To", (0, 400, 100, 500)),
                node(
                    "android.widget.EditText",
                    (120, 400, 1000, 500),
                    focused=True,
                    focusable=True,
                    clickable=True,
                ),
                node(
                    "android.widget.EditText",
                    (0, 600, 1000, 700),
                    text="\u25cf\u25cf\u25cf",
                    hint="Password",
                    password=True,
                    clickable=True,
                ),
            )
        )
    )
    assert lines(screen) == [
        '[1] text "To"',
        '[2] input "To" focused',
        '[3] input "Password: \u25cf\u25cf\u25cf" password',
    ]


def test_labels_are_cleaned_and_bounded() -> None:
    long_summary = "word " * 40
    screen = Screen.parse(
        dump(
            node(
                "android.widget.FrameLayout",
                (0, 0, 1080, 2400),
                text("\u200e+55 92 9316\u2011\u200f0919\u202c", (0, 0, 1080, 100)),
                text("Line one\nline  two", (0, 100, 1080, 200)),
                text(long_summary, (0, 200, 1080, 300)),
                node(
                    "android.widget.ImageView",
                    (0, 300, 100, 400),
                    clickable=True,
                    resource_id="com.x:id/settings_button",
                ),
                node(
                    "android.widget.ImageView",
                    (200, 300, 300, 400),
                    clickable=True,
                    resource_id="com.x:id/fo8",
                ),
                text('Say "hi"', (0, 400, 1080, 500)),
            )
        )
    )
    labels = [element.label for element in screen.elements]
    assert labels[:2] == ["+55 92 9316-0919", "Line one line two"]
    assert len(labels[2]) == 80 and labels[2].endswith("…")
    assert labels[3:5] == ["settings button", ""]  # minified ids are no name
    assert lines(screen)[4] == "[5] button"
    assert lines(screen)[5] == '[6] text "Say \\"hi\\""'


def test_invisible_and_covered_nodes_are_dropped() -> None:
    app = node(
        "android.widget.FrameLayout",
        (0, 0, 1080, 2400),
        button("Visible", (0, 100, 500, 200)),
        button("Zero size", (0, 300, 0, 300)),
        button("Upside down", (0, 400, 500, 350)),
        button("Off screen", (1200, 100, 1500, 200)),
        button("Under dialog", (300, 1000, 700, 1100)),
        button("Beside dialog", (0, 2000, 500, 2100)),
    )
    dialog = node(
        "android.widget.FrameLayout",
        (100, 800, 980, 1400),
        button("OK", (600, 1250, 900, 1350)),
        package="com.google.android.permissioncontroller",
    )
    screen = Screen.parse(dump(app, dialog))
    assert [e.label for e in screen.elements] == ["Visible", "OK", "Beside dialog"]
    assert screen.app == "com.google.android.permissioncontroller"  # the dialog takes input


def test_keyboard_keys_are_not_listed_and_header_says_so() -> None:
    app = node(
        "android.widget.FrameLayout",
        (0, 0, 1080, 2400),
        node("android.widget.EditText", (0, 200, 1080, 300), text="Search", focused=True),
        button("Hidden by keyboard", (0, 1800, 500, 1900)),
        package="com.example.app",
    )
    keyboard = node(
        "android.widget.FrameLayout",
        (0, 1500, 1080, 2400),
        *(
            node(
                "android.widget.FrameLayout",
                (i * 100, 1600, i * 100 + 100, 1750),
                content_desc=key,
                clickable=True,
            )
            for i, key in enumerate("qwertyuiop")
        ),
        package="com.google.android.inputmethod.latin",
    )
    screen = Screen.parse(dump(app, keyboard))
    assert screen.keyboard and screen.app == "com.example.app"
    settings_of_the_keyboard = node(
        "android.widget.FrameLayout",
        (0, 0, 1080, 2400),
        button("Languages", (0, 200, 1080, 300)),
        package="com.google.android.inputmethod.latin",
    )
    own_screen = Screen.parse(dump(settings_of_the_keyboard))
    assert not own_screen.keyboard and [e.label for e in own_screen.elements] == ["Languages"]
    assert screen.render().splitlines() == [
        "app: com.example.app, keyboard: shown",
        '[1] input "Search" focused',
    ]


def test_system_bars_are_left_out_and_do_not_decide_the_app() -> None:
    status_bar = node(
        "android.widget.FrameLayout",
        (0, 0, 1080, 80),
        text("12:30", (20, 0, 150, 80), resource_id="com.android.systemui:id/clock"),
        package="com.android.systemui",
    )
    app = node(
        "android.widget.FrameLayout",
        (0, 0, 1080, 2300),
        button("Compose", (0, 200, 500, 300)),
        package="com.google.android.gm",
    )
    nav_bar = node(
        "android.widget.FrameLayout",
        (0, 2300, 1080, 2400),
        button("Home", (400, 2300, 680, 2400)),
        package="com.miui.home",
    )
    screen = Screen.parse(dump(status_bar, app, nav_bar))
    assert screen.app == "com.google.android.gm"
    assert [e.label for e in screen.elements] == ["Compose"]


def test_full_screen_system_ui_is_the_foreground_but_a_small_one_is_not() -> None:
    app = node(
        "android.widget.FrameLayout",
        (0, 0, 1080, 2400),
        button("Play", (0, 2000, 500, 2100)),
        package="com.example.music",
    )
    heads_up = node(
        "android.widget.FrameLayout",
        (0, 100, 1080, 500),
        button("Reply", (0, 300, 500, 400)),
        package="com.android.systemui",
    )
    shade = node(
        "android.widget.FrameLayout",
        (0, 0, 1080, 2400),
        button("Wi-Fi", (0, 300, 500, 400)),
        package="com.android.systemui",
    )
    assert Screen.parse(dump(app, heads_up)).app == "com.example.music"
    assert Screen.parse(dump(app, shade)).app == "com.android.systemui"
    assert [e.label for e in Screen.parse(dump(app, shade)).elements] == ["Wi-Fi"]


def test_large_containers_and_unlabeled_wrappers_do_not_swallow_their_content() -> None:
    screen = Screen.parse(
        dump(
            node(
                "android.view.View",
                (0, 0, 1080, 2400),
                node(
                    "android.view.View",
                    (0, 0, 1080, 2400),
                    text("Hello,", (100, 800, 400, 900)),
                    button("Sign in", (100, 1500, 900, 1600)),
                    clickable=True,
                ),
                node(
                    "android.widget.LinearLayout",
                    (0, 200, 1080, 400),
                    button("Inner", (100, 250, 500, 350)),
                    clickable=True,
                ),
                clickable=True,
            )
        )
    )
    assert lines(screen) == ['[1] button "Inner"', '[2] text "Hello,"', '[3] button "Sign in"']


def test_reading_order_runs_by_lines_and_right_to_left_for_rtl_text() -> None:
    toolbar = [
        button("Back", (0, 60, 150, 220)),
        button("Menu", (930, 70, 1080, 210)),
        text("Title", (180, 100, 600, 180)),
        button("Below", (0, 300, 500, 400)),
    ]
    screen = Screen.parse(dump(node("android.widget.FrameLayout", (0, 0, 1080, 2400), *toolbar)))
    assert [e.label for e in screen.elements] == ["Back", "Title", "Menu", "Below"]
    arabic = [text("مرحبا", (600, 100, 1000, 200)), text("عالم", (100, 100, 500, 200))]
    screen = Screen.parse(dump(node("android.widget.FrameLayout", (0, 0, 1080, 2400), *arabic)))
    assert [e.label for e in screen.elements] == ["مرحبا", "عالم"]


# --- lookup, diff, signature, JSON ----------------------------------------------------------


def test_element_lookup_names_the_valid_range() -> None:
    screen = Screen.parse(settings_screen())
    assert screen.element(1).label == "Navigate up"
    with pytest.raises(ElementNotFound, match="valid indices are 1 to 5"):
        screen.element(6)
    with pytest.raises(ElementNotFound, match="no elements"):
        Screen.parse(dump()).element(1)


def test_diff_reports_toggle_appearance_and_disappearance() -> None:
    before = Screen.parse(settings_screen(wifi=False))
    after_xml = settings_screen(wifi=True).replace("Network &amp; internet", "Internet")
    diff = before.diff(Screen.parse(after_xml))
    assert diff.changed == ["Wi-Fi: off -> on"]
    assert diff.appeared == ['"Internet"']
    assert diff.disappeared == ['"Network & internet"']
    assert diff.summary() == (
        'Wi-Fi: off -> on; appeared: "Internet"; disappeared: "Network & internet"'
    )
    assert diff.summary(max_items=1) == "Wi-Fi: off -> on (+2 more)"
    unchanged = before.diff(Screen.parse(settings_screen(wifi=False)))
    assert unchanged.is_empty() and unchanged.summary() == "no visible change"


def test_diff_reports_typed_text_and_focus_on_the_same_field() -> None:
    def search(value: str, focused: bool) -> Screen:
        field = node(
            "android.widget.EditText",
            (0, 200, 1080, 300),
            text=value,
            hint="Search",
            focused=focused,
            resource_id="com.x:id/query",
        )
        return Screen.parse(dump(node("android.widget.FrameLayout", (0, 0, 1080, 2400), field)))

    diff = search("", False).diff(search("cats", True))
    assert diff.changed == ['"Search" -> "Search: cats"', "Search: cats: now focused"]
    assert not diff.appeared and not diff.disappeared


def test_signature_ignores_the_clock_but_not_a_toggle() -> None:
    def shade(clock: str, wifi: bool) -> Screen:
        return Screen.parse(
            dump(
                node(
                    "android.widget.FrameLayout",
                    (0, 0, 1080, 2400),
                    text(clock, (20, 20, 200, 100), package="com.android.systemui"),
                    node(
                        "android.widget.Switch",
                        (0, 300, 500, 400),
                        content_desc="Wi-Fi",
                        checkable=True,
                        checked=wifi,
                        clickable=True,
                        package="com.android.systemui",
                    ),
                    package="com.android.systemui",
                )
            )
        )

    assert shade("12:30", True).signature == shade("12:31", True).signature
    assert shade("12:30", True).signature != shade("12:30", False).signature


def test_signature_is_the_same_in_another_process() -> None:
    """Trajectories and recorded replies compare signatures across runs: no per-process salt."""
    xml = settings_screen()
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from agent.screen import Screen; "
            "print(Screen.parse(sys.stdin.read()).signature)",
        ],
        input=xml,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "12345"},
        timeout=60,
    )
    assert child.stdout.strip() == Screen.parse(xml).signature


def test_to_json_has_the_documented_shape() -> None:
    data = Screen.parse(settings_screen()).to_json()
    assert set(data) == {"app", "keyboard", "signature", "omitted", "elements"}
    assert data["omitted"] == 0
    wifi = data["elements"][3]
    assert wifi == {
        "index": 4,
        "label": "Wi-Fi",
        "role": "switch",
        "checked": True,
        "enabled": True,
        "focused": False,
        "selected": False,
        "password": False,
        "scrollable": False,
        "bounds": [0, 300, 1080, 500],
        "center": [955, 400],
        "package": SETTINGS,
        "resource_id": "",
    }
    assert data["elements"][0]["checked"] is None


def test_elements_are_frozen() -> None:
    element = Screen.parse(settings_screen()).element(1)
    assert isinstance(element, Element)
    with pytest.raises(ValueError):
        element.label = "changed"  # type: ignore[misc]


# --- parsing what devices and shells produce ---------------------------------------------------


def _expected() -> list[str]:
    return Screen.parse(settings_screen()).render().splitlines()


@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(lambda x: x + "UI hierchary dumped to: /dev/tty\n", id="trailing-line"),
        pytest.param(lambda x: "\ufeff" + x, id="utf8-bom"),
        pytest.param(lambda x: x.replace("><", ">\r\n  <"), id="crlf-indented"),
        pytest.param(
            lambda x: x.replace(
                'bounds="',
                'NAF="true" drawing-order="2" hint="" '
                'display-id="0" visible-to-user="true" xpos="3" bounds="',
            ),
            id="extra-attributes",
        ),
        pytest.param(
            lambda x: "$ adb exec-out uiautomator dump /dev/tty\n" + x, id="leading-prompt"
        ),
    ],
)
def test_text_variants_are_recovered(variant: Any) -> None:
    xml = variant(settings_screen())
    assert Screen.parse(xml).render().splitlines() == _expected()
    assert Screen.parse(xml.encode("utf-8")).render().splitlines() == _expected()


def test_utf16_with_a_utf8_declaration_is_recovered() -> None:
    data = ("\ufeff" + settings_screen() + "\r\n").encode("utf-16-le")
    assert Screen.parse(data).render().splitlines() == _expected()
    no_bom = settings_screen().encode("utf-16-le")
    assert Screen.parse(no_bom).render().splitlines() == _expected()


def test_text_with_a_foreign_declaration_is_read_as_the_text_it_is() -> None:
    xml = settings_screen().replace("encoding='UTF-8'", "encoding='UTF-16'")
    assert Screen.parse(xml).render().splitlines() == _expected()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "no <hierarchy> element"),
        ("ERROR: could not get idle state.", "no <hierarchy> element"),
        ("<window><node/></window>", "root element is <window>"),
        (settings_screen()[:400], "cut short"),
        (settings_screen() + "\n" + settings_screen(), "holds 2 uiautomator dumps"),
        ('<hierarchy rotation="0"><node text="a & b"/></hierarchy>', "not well-formed XML"),
        (
            '<!DOCTYPE h [<!ENTITY f SYSTEM "file:///etc/passwd">]>'
            '<hierarchy><node text="&f;"/></hierarchy>',
            "not well-formed XML",
        ),
    ],
)
def test_unusable_input_raises_one_line_error(data: bytes | str, message: str) -> None:
    with pytest.raises(ScreenParseError, match=message) as caught:
        Screen.parse(data)
    assert "\n" not in str(caught.value)
    assert isinstance(caught.value, UsageError)  # the CLI exits with 2


def test_empty_hierarchy_is_a_screen_without_elements() -> None:
    screen = Screen.parse('<hierarchy rotation="1"/>')
    assert screen.rotation == 1 and screen.elements == []
    assert screen.render() == "app: unknown, keyboard: hidden\n(no elements)"
