"""Screen observation against real dumps from many devices, vendors, languages and apps."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.screen import Screen, ScreenParseError
from agent.screen_elements import is_edge_strip, is_keyboard_window
from agent.screen_text import MAX_LABEL_CHARS, clean
from agent.screen_xml import Node, parse_hierarchy
from tests.support.paths import CORPUS_DIR, corpus_files

_INVISIBLE = re.compile("[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\u00ad]")

pytestmark = pytest.mark.skipif(
    not corpus_files(), reason=f"real-dump corpus not found beside the checkout ({CORPUS_DIR})"
)


def parse(name: str) -> Screen:
    return Screen.parse((CORPUS_DIR / name).read_bytes())


def lines(name: str) -> list[str]:
    return [line.split(" ", 1)[1] for line in parse(name).render().splitlines()[1:]]


def _leaves(node: Node) -> Iterator[Node]:
    if not node.children:
        yield node
    for child in node.children:
        yield from _leaves(child)


def _visible_control_leaves(data: bytes, screen: Screen) -> Iterator[Node]:
    """Clickable, checkable or editable leaves a user can see and touch (not keyboard keys,
    not system bars, not under a window drawn above)."""
    windows = parse_hierarchy(data).windows
    strips = [is_edge_strip(w.bounds, screen.width, screen.height) for w in windows]
    for z, window in enumerate(windows):
        if strips[z] or is_keyboard_window(window):
            continue
        for leaf in _leaves(window):
            x1, y1, x2, y2 = leaf.bounds
            if not (leaf.clickable or leaf.checkable or leaf.editable) or x2 <= x1 or y2 <= y1:
                continue
            covered = any(
                not strips[above]
                and windows[above].bounds[0] <= x1
                and windows[above].bounds[1] <= y1
                and x2 <= windows[above].bounds[2]
                and y2 <= windows[above].bounds[3]
                for above in range(z + 1, len(windows))
            )
            if not covered:
                yield leaf


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name[:3])
def test_every_dump_gives_a_sane_element_list(path: Path) -> None:
    data = path.read_bytes()
    screen = Screen.parse(data)
    assert screen.app
    assert screen.elements, "every corpus screen has something to read or touch"
    assert [e.index for e in screen.elements] == list(range(1, len(screen.elements) + 1))
    rendered = screen.render().splitlines()
    assert len(rendered) == len(screen.elements) + 1
    for element, line in zip(screen.elements, rendered[1:], strict=True):
        assert line.startswith(f"[{element.index}] {element.role}")
        assert not _INVISIBLE.search(element.label) and "\n" not in element.label
        assert len(element.label) <= MAX_LABEL_CHARS
        x1, y1, x2, y2 = element.bounds
        assert x1 < x2 and y1 < y2
        assert x1 <= element.center[0] <= x2 and y1 <= element.center[1] <= y2
    assert Screen.parse(data).signature == screen.signature
    # Compact: the model pays for every character on a CPU.
    assert len(screen.render().encode()) <= 0.12 * len(data)


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.name[:3])
def test_no_visible_control_is_lost(path: Path) -> None:
    """Every control leaf a user could touch lies inside a listed element that carries its name
    (or is the toggle merged into a named row)."""
    data = path.read_bytes()
    screen = Screen.parse(data)
    for leaf in _visible_control_leaves(data, screen):
        cx = (leaf.bounds[0] + leaf.bounds[2]) // 2
        cy = (leaf.bounds[1] + leaf.bounds[3]) // 2
        hits = [
            e
            for e in screen.elements
            if e.role != "list"
            and e.bounds[0] <= cx <= e.bounds[2]
            and e.bounds[1] <= cy <= e.bounds[3]
        ]
        name = (clean(leaf.text) or clean(leaf.desc))[:40].casefold()
        assert hits, f"{leaf.class_name} {name!r} at {leaf.bounds} is not reachable"
        assert (
            not name
            or any(name in e.label.casefold() for e in hits)
            or any(e.checked is not None and e.label for e in hits)
        ), f"{leaf.class_name} {name!r} lost its name"


def test_wifi_row_and_switch_are_one_switch_that_is_on() -> None:
    assert 'switch "Wi-Fi" on' in lines("003_settings_pixel_internet_wifi_list.xml")


def test_developer_options_switches_keep_their_state() -> None:
    found = lines("004_settings_developer_options.xml")
    assert 'switch "USB debugging, Debug mode when USB is connected" on' in found
    assert 'switch "Wireless debugging, Debug mode when Wi-Fi is connected" off' in found
    assert 'switch "Automatic system updates, Apply updates when device restarts" on' in found
    assert sum(line.startswith("switch") for line in found) == 5


def test_samsung_switch_state_text_does_not_replace_the_setting_name() -> None:
    found = lines("005_settings_samsung_dev_options_pl.xml")
    assert 'switch "Pokaż dotknięcia, Pokaż potwierdzenie wizualne po dotknięciu" on' in found
    assert not any(line.startswith('switch "Włączono"') for line in found)


def test_radio_list_gives_one_choice_per_row() -> None:
    found = lines("009_phone_preferred_network_type_pt.xml")
    assert found[2:] == [
        'radio "5G preferencial" on',
        'radio "LTE preferencial" off',
        'radio "3G preferencial" off',
        'radio "Apenas 2G" off',
    ]


def test_keyboard_is_detected_and_its_keys_are_not_listed() -> None:
    screen = parse("027_gmail_compose_keyboard_visible.xml")
    assert screen.keyboard and screen.app == "com.google.android.gm"
    assert screen.render().startswith("app: com.google.android.gm, keyboard: shown\n")
    assert all(e.package != "com.google.android.inputmethod.latin" for e in screen.elements)
    assert 'input "Compose email" focused' in lines("027_gmail_compose_keyboard_visible.xml")
    assert not parse("003_settings_pixel_internet_wifi_list.xml").keyboard


def test_password_fields_say_so() -> None:
    (bank,) = [e for e in parse("049_bank_mbbank_login_password_vn.xml").elements if e.password]
    assert bank.role == "input" and bank.focused and bank.label == "●●●●●●●●"
    (pin,) = [e for e in parse("054_wawapp_auth_ar_password.xml").elements if e.password]
    assert pin.role == "input" and pin.label.startswith("••••")
    assert "input" in lines("054_wawapp_auth_ar_password.xml")[4]


def test_rtl_and_bidi_wrapped_labels_are_clean() -> None:
    arabic = [e.label for e in parse("053_sayhi_list_ar.xml").elements]
    assert "عزوز, 0.01km · online" in arabic
    assert "لا أحرف متبقية" in parse("054_wawapp_auth_ar_password.xml").element(5).label
    dialer = lines("030_dialer_call_log_pt.xml")
    assert 'button "Ligar para 03032228056"' in dialer  # number was wrapped in LRE ... PDF


def test_foreground_app_follows_the_window_that_takes_input() -> None:
    assert parse("017_permission_location_dialog.xml").app == (
        "com.google.android.permissioncontroller"
    )
    assert parse("013_systemui_hyperos_control_center_es.xml").app == "com.android.systemui"
    assert parse("045_bilibili_home_with_statusbar_zh.xml").app == "tv.danmaku.bili"
    assert parse("037_whatsapp_samsung_crlf_multiwindow.xml").app == "com.whatsapp"
    assert parse("052_indriver_requests_display_id.xml").app == "sinet.startup.inDriver"


def test_status_bar_windows_are_not_listed() -> None:
    screen = parse("038_instagram_profile_u2.xml")
    assert screen.app == "com.instagram.android"
    assert {e.package for e in screen.elements} == {"com.instagram.android"}


def test_dialog_and_lock_screen_controls_are_listed() -> None:
    assert lines("017_permission_location_dialog.xml") == [
        'text "Allow Camera to access this device’s location?"',
        'radio "Precise" on',
        'radio "Approximate" off',
        'button "While using the app"',
        'button "Only this time"',
        'button "Don’t allow"',
    ]
    pin_pad = lines("015_systemui_lockscreen_pin_pad.xml")
    for digit in ('button "1"', 'button "2, ABC"', 'button "0, +"', 'button "Enter"'):
        assert digit in pin_pad


@pytest.mark.parametrize(
    ("name", "app"),
    [
        ("B01_trailing_dumped_to_tty_twitter.xml", "com.twitter.android"),
        ("B02_utf8_bom_trailing_junk.xml", "com.askamo.mobile"),
        ("B03_utf16le_powershell_share_sheet.xml", "com.android.intentresolver"),
        ("B04_utf16le_no_junk_instagram.txt", "com.instagram.androil"),
    ],
)
def test_broken_captures_are_recovered(name: str, app: str) -> None:
    screen = Screen.parse((CORPUS_DIR / "broken" / name).read_bytes())
    assert screen.app == app
    assert len(screen.elements) > 10


def test_terminal_transcript_with_many_dumps_is_refused() -> None:
    data = (CORPUS_DIR / "broken" / "B05_cli_transcript_20_inline_dumps.txt").read_bytes()
    with pytest.raises(ScreenParseError, match="holds 20 uiautomator dumps"):
        Screen.parse(data)
