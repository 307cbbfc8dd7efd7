"""The simulated phone: Device protocol, XML fidelity, navigation, input and faults."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lxml import etree

from agent.screen import Screen
from devices.base import KEYCODES, Device, DeviceError
from simulator import FaultConfig, Simulator
from simulator.state import CLOCK, CONTACTS, LAUNCHER, MESSAGES, SETTINGS

BASE_ATTRIBUTES = [
    "index",
    "text",
    "resource-id",
    "class",
    "package",
    "content-desc",
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
    "bounds",
]
RECENT_ATTRIBUTES = [*BASE_ATTRIBUTES, "drawing-order", "hint"]
DECLARATION = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"


def nodes(xml: str) -> list[etree._Element]:
    return list(etree.fromstring(xml.encode("utf-8")).iter("node"))


def find(root: etree._Element | etree._ElementTree, expression: str) -> list[etree._Element]:
    found = root.xpath(expression)
    assert isinstance(found, list)
    return [node for node in found if isinstance(node, etree._Element)]


def parent(node: etree._Element) -> etree._Element:
    up = node.getparent()
    assert up is not None
    return up


def has_area(node: etree._Element) -> bool:
    x1, y1, x2, y2 = (int(v) for v in re.findall(r"-?\d+", node.get("bounds", "")))
    return x1 < x2 and y1 < y2


def labels(sim: Simulator) -> list[str]:
    """Texts and descriptions a user can see (a row's clipped-away title has no area)."""
    return [
        n.get("text") or n.get("content-desc") or "" for n in nodes(sim.dump_xml()) if has_area(n)
    ]


def elements(sim: Simulator) -> list[str]:
    """The screen as the model reads it: one line per element, without the index."""
    return [
        line.split(" ", 1)[1] for line in Screen.parse(sim.dump_xml()).render().splitlines()[1:]
    ]


def scroll_to(sim: Simulator, label: str) -> None:
    """Swipe the list up a little at a time until `label` shows in full."""
    for _ in range(20):
        if any(v.bounds.height > 40 for v in sim.find_views(label)):
            return
        sim.swipe(540, 1800, 540, 1400)
    raise AssertionError(f"{label!r} never came into view")


def switch_checked(sim: Simulator, row_title: str) -> bool:
    """The Switch inside the settings row titled `row_title`."""
    root = etree.fromstring(sim.dump_xml().encode("utf-8"))
    title = find(root, f'//node[@resource-id="android:id/title"][@text="{row_title}"]')[0]
    row = parent(parent(title))
    switch = find(row, './/node[@class="android.widget.Switch"]')[0]
    return bool(switch.get("checked") == "true")


def test_implements_the_device_protocol() -> None:
    sim = Simulator()
    assert isinstance(sim, Device)
    assert sim.serial == "emulator-5554"
    assert sim.screen_size() == (1080, 2400)
    assert sim.foreground_app() == LAUNCHER
    assert sim.screenshot_png() is None
    assert set(sim.installed_apps()) >= {SETTINGS, CLOCK, CONTACTS, MESSAGES}


def test_xml_has_the_real_declaration_attribute_order_and_windows() -> None:
    sim = Simulator()
    sim.open_app("Contacts")
    sim.tap_on("Search contacts")  # focuses a field: the keyboard window appears
    xml = sim.dump_xml()
    assert xml.startswith(DECLARATION) and xml.endswith("</hierarchy>") and "\n" not in xml
    for node in nodes(xml):
        assert list(node.attrib) == RECENT_ATTRIBUTES
        assert re.fullmatch(r"\[\d+,\d+\]\[\d+,\d+\]", node.get("bounds", ""))
    windows = etree.fromstring(xml.encode()).findall("node")
    packages = [w.get("package") for w in windows]
    assert packages == [CONTACTS, "com.android.systemui", "com.google.android.inputmethod.latin"]
    for window in windows:
        assert window.get("index") == "0" and window.get("class") == "android.widget.FrameLayout"


def test_attribute_order_matches_real_recent_android_dumps(corpus_dir: Path) -> None:
    real = nodes((corpus_dir / "021_android_anr_dialog.xml").read_text(encoding="utf-8"))
    assert list(real[0].attrib) == list(nodes(Simulator().dump_xml())[0].attrib)


def test_settings_rows_are_built_like_real_settings(corpus_dir: Path) -> None:
    sim = Simulator()
    sim.open_app("Settings")
    sim.tap_on("Network & internet")
    sim.tap_on("Internet")
    root = etree.fromstring(sim.dump_xml().encode())
    title = find(root, '//node[@text="Wi-Fi"]')[0]
    row = parent(parent(title))
    assert row.get("clickable") == "true" and row.get("class") == "android.widget.LinearLayout"
    assert title.get("resource-id") == "android:id/title"
    switch = find(row, './/node[@resource-id="android:id/switch_widget"]')[0]
    assert switch.get("class") == "android.widget.Switch" and switch.get("clickable") == "false"
    real = etree.parse(str(corpus_dir / "003_settings_pixel_internet_wifi_list.xml"))
    real_switch = find(real, '//node[@resource-id="android:id/switch_widget"]')[0]
    assert real_switch.get("clickable") == switch.get("clickable")
    assert parent(real_switch).get("resource-id") == parent(switch).get("resource-id")


def test_text_beyond_the_bmp_and_newlines_are_character_references() -> None:
    sim = Simulator(state={"inbox": [{"from": "Alice Martin", "text": "hi 🙂\nbye"}]})
    sim.set_state("permission_prompts", [])
    sim.open_app("Messages")
    xml = sim.dump_xml()
    assert "hi &#128578;&#10;bye" in xml
    assert any(n.get("text") == "hi 🙂\nbye" for n in nodes(xml))


def test_toggle_changes_state_and_switch() -> None:
    sim = Simulator(state={"wifi": False})
    sim.open_app("settings")
    sim.tap_on("Network & internet")
    sim.tap_on("Internet")
    assert not switch_checked(sim, "Wi-Fi")
    sim.tap_on("Wi-Fi")
    assert sim.state["wifi"] is True and switch_checked(sim, "Wi-Fi")


def test_taps_hit_only_what_is_on_screen_and_lists_dump_only_their_viewport() -> None:
    sim = Simulator(state={"developer_options": True})
    sim.open_app("Settings")
    assert "System" not in labels(sim)  # below the fold of the homepage
    sim.swipe(540, 1800, 540, 600)
    sim.swipe(540, 1800, 540, 600)
    assert "Network & internet" not in labels(sim)
    sim.tap_on("System")
    assert "Developer options" not in labels(sim)
    sim.swipe(540, 1800, 540, 600)  # finger up: later rows come into view
    assert "Developer options" in labels(sim)
    sim.swipe(540, 600, 540, 1800)  # finger down: back to the top
    assert "Developer options" not in labels(sim) and "Languages" in labels(sim)


def test_build_number_seven_times_unlocks_developer_options() -> None:
    sim = Simulator()
    sim.open_app("Settings")
    for _ in range(2):
        sim.swipe(540, 1800, 540, 600)
    sim.tap_on("About phone")
    sim.swipe(540, 1800, 540, 600)
    for tap in range(7):
        assert sim.state["developer_options"] is (tap == 7)
        sim.tap_on("Build number")
    assert sim.state["developer_options"] is True


def test_back_stack_per_app_and_home_resumes_tasks() -> None:
    sim = Simulator()
    sim.open_app("Settings")
    sim.tap_on("Display")
    sim.press_key("home")
    assert sim.foreground_app() == LAUNCHER
    sim.open_app("Settings")
    assert "Dark theme" in labels(sim)  # resumed where it was left
    sim.press_key("back")
    assert "Network & internet" in labels(sim)
    sim.press_key("back")
    assert sim.foreground_app() == LAUNCHER
    sim.open_app("Settings")
    assert "Network & internet" in labels(sim)  # finished task starts fresh


def test_confirmation_dialog_cancel_and_ok() -> None:
    sim = Simulator(state={"developer_options": True})
    sim.open_app("Settings")
    sim.swipe(540, 1800, 540, 600)
    sim.swipe(540, 1800, 540, 600)
    sim.tap_on("System")
    sim.swipe(540, 1800, 540, 600)
    sim.tap_on("Developer options")
    scroll_to(sim, "USB debugging")
    sim.tap_on("USB debugging")
    assert "Allow USB debugging?" in labels(sim)
    sim.press_key("back")
    assert sim.state["usb_debugging"] is False and "Allow USB debugging?" not in labels(sim)
    sim.tap_on("USB debugging")
    sim.tap(540, 300)  # outside the dialog: cancels it, reaches nothing underneath
    assert sim.state["usb_debugging"] is False and "Allow USB debugging?" not in labels(sim)
    sim.tap_on("USB debugging")
    sim.tap_on("OK")
    assert sim.state["usb_debugging"] is True


def test_permission_prompt_on_first_launch_only() -> None:
    sim = Simulator()
    sim.open_app("Messages")
    assert sim.foreground_app() == "com.google.android.permissioncontroller"
    assert "Allow Messages to send you notifications?" in labels(sim)
    sim.tap(540, 300)  # the prompt is modal and does not cancel on an outside touch
    assert "Allow" in labels(sim)
    sim.tap_on("Allow")
    assert sim.foreground_app() == MESSAGES
    assert sim.state["notifications_allowed"] == [MESSAGES]
    sim.press_key("home")
    sim.open_app("Messages")
    assert "Allow" not in labels(sim)


def test_typing_goes_to_the_focused_field_with_cursor_and_clear() -> None:
    sim = Simulator(state={"permission_prompts": []})
    sim.open_app("Contacts")
    sim.tap_on("Create contact")
    sim.tap_on("First name")
    assert "com.google.android.inputmethod.latin" in sim.dump_xml()
    sim.type_text("Zoë")
    sim.press_key("move_home")
    sim.type_text("A ")
    sim.press_key("move_end")
    sim.press_key("delete")
    assert "A Zo" in labels(sim)
    sim.clear_text()
    sim.type_text("李雷 🙂")
    assert "李雷 🙂" in labels(sim)
    sim.press_key("back")  # hides the keyboard first
    assert "com.google.android.inputmethod.latin" not in sim.dump_xml()
    assert "Create contact" in labels(sim)


def test_keyboard_keys_type_like_typing() -> None:
    sim = Simulator()
    sim.open_app("Contacts")
    sim.tap_on("Search contacts")
    for letter in "bob":
        sim.tap_on(letter)
    assert "Bob Chen" in labels(sim) and "Alice Martin" not in labels(sim)


def test_non_ascii_needs_the_adb_keyboard() -> None:
    sim = Simulator(adb_keyboard=False)
    assert sim.adb_keyboard_installed is False
    sim.open_app("Contacts")
    sim.tap_on("Search contacts")
    sim.type_text("bob")
    with pytest.raises(DeviceError, match="non-ASCII"):
        sim.type_text("Zoë")


def test_time_picker_by_clock_face_and_by_text_input() -> None:
    sim = Simulator()
    sim.open_app("Clock")
    sim.tap_on("Add alarm")
    sim.tap_on("7 o'clock")
    sim.tap_on("30 minutes")
    sim.tap_on("PM")
    sim.tap_on("OK")
    assert sim.state["alarms"] == [{"time": "19:30", "enabled": True, "label": ""}]
    sim.tap_on("Add alarm")
    sim.tap_on("Switch to text input mode for the time input.")
    sim.type_text("0605")  # a full hour field passes the rest to the minutes
    sim.tap_on("OK")
    assert {"time": "06:05", "enabled": True, "label": ""} in sim.state["alarms"]


def test_a_full_hour_moves_the_focus_to_the_minutes_at_once() -> None:
    sim = Simulator()
    sim.open_app("Clock")
    sim.tap_on("Add alarm")
    sim.tap_on("Switch to text input mode for the time input.")
    sim.type_text("10")  # the hour the picker already shows: only the focus tells it was typed
    hour, minute = sorted(
        (e for e in Screen.parse(sim.dump_xml()).elements if e.role == "input"),
        key=lambda e: e.bounds[0],
    )
    assert (hour.label, hour.focused, minute.focused) == ("10", False, True)
    sim.type_text("10")
    sim.tap_on("OK")
    assert {"time": "10:10", "enabled": True, "label": ""} in sim.state["alarms"]


def test_time_picker_rejects_an_invalid_hour() -> None:
    sim = Simulator()
    sim.open_app("Clock")
    sim.tap_on("Add alarm")
    sim.tap_on("Switch to text input mode for the time input.")
    sim.type_text("13")
    sim.tap_on("OK")
    assert sim.state["alarms"] == [] and "Enter a valid hour (1-12)" in labels(sim)


def test_app_drawer_and_recents() -> None:
    sim = Simulator()
    sim.swipe(540, 1800, 540, 600)
    assert "Settings" in labels(sim)
    sim.tap_on("Settings")
    assert sim.foreground_app() == SETTINGS
    sim.press_key("recent_apps")
    assert sim.foreground_app() == SETTINGS and "Clear all" in labels(sim)
    sim.tap_on("Clear all")
    assert sim.foreground_app() == LAUNCHER


def test_open_app_by_label_or_package_and_errors() -> None:
    sim = Simulator(state={"permission_prompts": []})
    assert sim.open_app("CLOCK") == CLOCK
    assert sim.open_app(CONTACTS) == CONTACTS
    assert sim.state["foreground"] == CONTACTS
    with pytest.raises(DeviceError, match="did you mean 'Messages'"):
        sim.open_app("Mesages")


def test_every_key_name_is_accepted_and_unknown_ones_are_errors() -> None:
    sim = Simulator()
    sim.open_app("Clock")
    for name in KEYCODES:
        if name not in ("home", "back", "escape", "recent_apps", "app_switch"):
            sim.press_key(name)
    with pytest.raises(DeviceError, match="unknown key 'jump'"):
        sim.press_key("jump")


def test_taps_outside_the_screen_are_errors() -> None:
    with pytest.raises(DeviceError, match="outside"):
        Simulator().tap(1080, 10)


def test_dump_failures_carry_uiautomator_messages_and_are_seeded() -> None:
    def failures(seed: int) -> list[str]:
        sim = Simulator(seed=seed, faults=FaultConfig(dump_failure=0.5))
        messages = []
        for _ in range(20):
            try:
                sim.dump_xml()
                messages.append("")
            except DeviceError as exc:
                messages.append(str(exc))
        return messages

    first = failures(3)
    assert first == failures(3)
    assert {m for m in first if m} == {
        "ERROR: could not get idle state.",
        "ERROR: null root node returned by UiTestAutomationBridge.",
    }


def test_mid_transition_dump_shows_the_window_sliding_in() -> None:
    sim = Simulator(faults=FaultConfig(mid_transition=1.0))
    sim.open_app("Settings")
    sliding = nodes(sim.dump_xml())[0]
    assert sliding.get("bounds") == "[430,0][1080,2400]"
    assert nodes(sim.dump_xml())[0].get("bounds") == "[0,0][1080,2400]"


def test_slow_transition_shows_the_previous_screen_first() -> None:
    sim = Simulator(faults=FaultConfig(slow_transition=1.0, slow_transition_dumps=2))
    home = sim.dump_xml()
    sim.open_app("Clock")
    assert sim.dump_xml() == home and sim.dump_xml() == home
    assert 'package="com.google.android.deskclock"' in sim.dump_xml()


def test_unexpected_popup_on_launch_changes_nothing_when_dismissed() -> None:
    sim = Simulator(seed=1, faults=FaultConfig(popup=1.0))
    before = sim.state
    sim.open_app("Clock")
    shown = labels(sim)
    assert "Enjoying Clock?" in shown or "Battery may run out soon" in shown
    sim.press_key("back")
    assert sim.state == {**before, "foreground": CLOCK}


def test_faults_are_off_by_default() -> None:
    sim = Simulator()
    for _ in range(30):
        sim.dump_xml()
    assert not sim.faults.any()


# --- Settings rows, search ---------------------------------------------------------------------


def test_settings_rows_read_as_one_button_with_title_and_summary() -> None:
    sim = Simulator()
    sim.open_app("Settings")
    sim.tap_on("Network & internet")
    shown = elements(sim)
    for row in (
        'button "Internet, AndroidWifi"',
        'button "Calls & SMS, T-Mobile"',
        'button "SIMs, T-Mobile"',
        'switch "Airplane mode" off',
        'button "Hotspot & tethering, Off"',
        'button "Data Saver, Off"',
        'button "VPN, None"',
        'button "Mobile plan"',
    ):
        assert row in shown
    # the page title is the only plain text: no row is a dead line of text
    assert [line for line in shown if line.startswith("text")] == ['text "Network & internet"']


def test_a_row_with_a_page_opens_it_and_one_without_changes_nothing() -> None:
    sim = Simulator()
    sim.open_app("Settings")
    sim.tap_on("Network & internet")
    before = sim.dump_xml()
    sim.tap_on("Mobile plan")
    assert sim.dump_xml() == before
    sim.tap_on("Calls & SMS")
    assert 'text "Calls & SMS"' in elements(sim)
    assert 'button "SMS preference, T-Mobile"' in elements(sim)


def test_a_row_clipped_at_the_edge_of_the_list_keeps_its_label() -> None:
    sim = Simulator(state={"developer_options": True})
    sim.open_app("Settings")
    for _ in range(12):  # small steps: some land with a row's title scrolled out of view
        screen = Screen.parse(sim.dump_xml())
        unlabelled = [e for e in screen.elements if e.role == "button" and not e.label]
        assert unlabelled == []
        sim.swipe(540, 1800, 540, 1690)


def test_search_filters_rows_and_a_hit_opens_its_page() -> None:
    sim = Simulator(state={"wifi": False})
    sim.open_app("Settings")
    sim.tap_on("Search settings")
    assert sim.find_views("Search settings")[0].focused  # the query field, keyboard up
    assert "com.google.android.inputmethod.latin" in sim.dump_xml()
    sim.type_text("wi-fi")
    hits = [line for line in elements(sim) if line.startswith("button")]
    assert 'button "Wi-Fi, Network & internet > Internet"' in hits
    assert not any("Bluetooth" in hit for hit in hits)
    sim.tap_on("Wi-Fi")
    assert 'switch "Wi-Fi" off' in elements(sim)
    sim.tap_on("Wi-Fi")
    assert sim.state["wifi"] is True
    sim.press_key("back")  # back to the results, as they were
    assert any(line.startswith('button "Wi-Fi,') for line in elements(sim))


def test_search_reaches_only_pages_the_phone_shows() -> None:
    sim = Simulator()
    sim.open_app("Settings")
    sim.tap_on("Search settings")
    sim.type_text("usb debugging")
    assert "No results" in labels(sim)
    sim.set_state("developer_options", True)
    sim.clear_text()
    sim.type_text("usb debugging")
    sim.tap_on("USB debugging")
    assert 'text "Developer options"' in elements(sim)


# --- the shade, quick settings and toasts ------------------------------------------------------


def pull_shade(sim: Simulator) -> None:
    sim.swipe(540, 20, 540, 1000)  # from the status bar down


def test_a_swipe_down_from_the_status_bar_opens_the_shade_with_the_inbox() -> None:
    sim = Simulator()
    sim.open_app("Settings")
    sim.swipe(540, 900, 540, 1900)  # inside an app, lower down it is no pull
    assert sim.foreground_app() == SETTINGS
    pull_shade(sim)
    assert sim.foreground_app() == "com.android.systemui"
    shown = elements(sim)
    assert 'button "Alice Martin, •, now, Lunch at 12:30?"' in shown
    assert 'button "Bob Chen, •, now, The parcel arrived"' in shown
    assert 'switch "Internet, AndroidWifi" on' in shown
    sim.tap_on("Alice Martin")
    assert sim.foreground_app() == "com.google.android.permissioncontroller"  # first launch
    sim.tap_on("Allow")
    assert sim.foreground_app() == MESSAGES and 'button "Call"' in elements(sim)
    pull_shade(sim)
    assert not any("Alice Martin" in line for line in elements(sim))  # read, so cleared


def test_on_the_home_screen_a_swipe_down_anywhere_opens_the_shade() -> None:
    sim = Simulator()
    sim.swipe(540, 600, 540, 1800)  # what the agent's swipe "down" does
    assert sim.foreground_app() == "com.android.systemui" and "Clear all" in labels(sim)


def test_clear_all_and_refused_notifications_empty_the_shade() -> None:
    sim = Simulator()
    pull_shade(sim)
    sim.tap_on("Clear all")
    assert sim.foreground_app() == LAUNCHER
    pull_shade(sim)
    assert "No notifications" in labels(sim)
    refused = Simulator(state={"permission_prompts": []})  # Messages was asked and said no
    pull_shade(refused)
    assert "No notifications" in labels(refused)


def test_quick_settings_tiles_change_the_state_settings_shows() -> None:
    sim = Simulator(state={"bluetooth": False})
    pull_shade(sim)
    pull_shade(sim)  # the second pull shows every tile
    shown = elements(sim)
    for tile in ("Bluetooth", "Flashlight", "Do Not Disturb", "Airplane mode"):
        assert f'switch "{tile}, Off" off' in shown
    sim.tap_on("Bluetooth, Off")
    sim.tap_on("Flashlight, Off")
    sim.tap_on("Do Not Disturb, Off")
    assert (sim.state["bluetooth"], sim.state["flashlight"], sim.state["do_not_disturb"]) == (
        True,
        True,
        True,
    )
    assert 'switch "Bluetooth, On" on' in elements(sim)
    sim.swipe(900, 1000, 200, 1000)  # the next page of tiles
    sim.tap_on("Dark theme, Off")
    sim.tap_on("Battery Saver, Off")
    assert sim.state["dark_theme"] is True and sim.state["battery_saver"] is True
    sim.press_key("back")
    assert sim.foreground_app() == LAUNCHER
    sim.open_app("Settings")
    sim.tap_on("Connected devices")
    sim.tap_on("Connection preferences")
    assert 'button "Bluetooth, On"' in elements(sim)


def test_the_internet_tile_opens_its_panel_with_the_wifi_switch() -> None:
    sim = Simulator()
    pull_shade(sim)
    sim.tap_on("Internet, AndroidWifi")
    assert 'switch "Wi-Fi" on' in elements(sim)
    sim.tap_on("Wi‑Fi")
    assert sim.state["wifi"] is False and 'switch "Wi-Fi" off' in elements(sim)
    sim.tap_on("See all")
    assert sim.foreground_app() == SETTINGS and 'text "Internet"' in elements(sim)


def test_swiping_up_folds_quick_settings_then_closes_the_shade() -> None:
    sim = Simulator()
    pull_shade(sim)
    pull_shade(sim)
    assert "Edit order of settings." in labels(sim)
    sim.swipe(540, 1900, 540, 700)
    assert "Edit order of settings." not in labels(sim) and "Clear all" in labels(sim)
    sim.swipe(540, 1900, 540, 700)
    assert sim.foreground_app() == LAUNCHER


def toast(sim: Simulator) -> etree._Element | None:
    """The toast's text: System UI's own window, `text_toast.xml`'s icon and text, no decor."""
    root = etree.fromstring(sim.dump_xml().encode())
    for window in root.findall("node"):
        children = list(window)
        if (
            window.get("package") == "com.android.systemui"
            and window.get("class") == "android.widget.LinearLayout"
            and [c.get("resource-id") for c in children]
            == ["com.android.systemui:id/icon", "com.android.systemui:id/text"]
        ):
            return children[1]
    return None


def test_a_toast_shows_after_an_alarm_is_set_until_the_next_action() -> None:
    sim = Simulator(state={"time": "09:41"})
    sim.open_app("Clock")
    sim.tap_on("Add alarm")
    sim.tap_on("7 o'clock")
    sim.tap_on("PM")
    sim.tap_on("OK")
    shown = toast(sim)
    assert shown is not None
    assert shown.get("text") == "Alarm set for 10 hours from now."
    x1, y1, x2, y2 = (int(v) for v in re.findall(r"\d+", shown.get("bounds", "")))
    assert 1800 < y1 < y2 < 2337 and x1 > 0 and x2 < 1080  # above the navigation bar
    assert 'text "Alarm set for 10 hours from now."' in elements(sim)
    sim.press_key("home")
    assert toast(sim) is None


def test_a_toast_shows_after_a_message_is_sent_and_lets_taps_through() -> None:
    sim = Simulator(state={"permission_prompts": []})
    sim.open_app("Messages")
    sim.tap_on("Alice Martin")
    sim.tap_on("Text message")
    sim.type_text("On my way")
    sim.tap_on("Send SMS")
    shown = toast(sim)
    assert shown is not None and shown.get("text") == "Message sent"
    assert sim.state["messages"] == [{"to": "Alice Martin", "text": "On my way"}]
    x1, y1, x2, y2 = (int(v) for v in re.findall(r"\d+", shown.get("bounds", "")))
    sim.tap((x1 + x2) // 2, (y1 + y2) // 2)  # the keyboard's space bar lies under the toast
    root = etree.fromstring(sim.dump_xml().encode())
    draft = find(
        root, '//node[@resource-id="com.google.android.apps.messaging:id/compose_message_text"]'
    )
    assert draft[0].get("text") == " " and toast(sim) is None


def test_a_dump_of_a_dialog_holds_the_dialog_alone_and_the_page_comes_back() -> None:
    """Real dumps of a dialog hold its window alone: a page under it takes no touch, so its
    tabs and buttons must not be offered (a tap on one would only close the dialog)."""
    sim = Simulator(state={"foreground": CLOCK}, seed=0)
    page = [element.label for element in Screen.parse(sim.dump_xml()).elements]
    assert {"Add alarm", "Timer"} <= set(page)
    sim.tap_on("Add alarm")
    dialog = Screen.parse(sim.dump_xml())
    labels = [element.label for element in dialog.elements]
    assert dialog.app == CLOCK
    assert {"Select time", "Cancel", "OK"} <= set(labels)
    assert not set(page) & set(labels)
    assert "9:41" not in labels  # nor the status bar: the dump's screen is the dialog's window
    sim.press_key("back")
    assert [element.label for element in Screen.parse(sim.dump_xml()).elements] == page
