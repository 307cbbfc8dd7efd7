"""`devices.adb.AdbDevice` end to end: adbutils -> the ADB host protocol -> a simulated phone.

Every Device method runs against the simulator served by `simulator.adbd` on a loopback port,
so the bytes on the wire are those a real phone would get. The text tests prove that what the
model types reaches the field literally, whatever shell metacharacters or scripts it holds.
"""

from __future__ import annotations

import html
import re
import shlex
import socket
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from devices import AppNotFound, Device, DeviceError
from devices.adb import ADB_KEYBOARD_IME, AdbDevice, TextEntryError
from devices.adb_apps import resolve_package
from devices.adb_text import focused_field, input_text_chunks, typeable_by_input_text
from evals.pytest_plugin import AdbEndpoint
from simulator import Simulator
from simulator.adbd import LATIN_IME, AdbServer, DumpFault, decode_input_text
from tests.support.adb_phone import FakePhone

pytestmark = pytest.mark.sim_phone(state={"permission_prompts": []})

HOSTILE_TEXTS = [
    "$(reboot)",
    "`rm -rf /sdcard`",
    "a; input keyevent 3",
    "x && am start -n evil/.A",
    "a | cat",
    'it\'s "quoted"',
    "100%s sure",
    "%%s and %s and %",
    "back\\slash \\n",
    "tab\there",
    "*",
    "~ # not a comment",
    "-n",
    "--es msg x",
    "'; exit 1; '",
    "$HOME ${PATH} $?",
    "  leading and trailing  ",
    "line one\nline two",
]
NON_ASCII_TEXTS = ["café crème", "日本語の入力", "emoji 🙂👍🏽", "שלום עולם", "Ünïcödé; $(x) `y`"]


class Sleeps:
    """Records the back-off instead of waiting it out."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def center_of(xml: str, label: str) -> tuple[int, int]:
    for node in re.finditer(r"<node [^>]*>", xml):
        pairs = re.findall(r'([\w-]+)="([^"]*)"', node.group(0))
        attributes = {key: html.unescape(value) for key, value in pairs}
        if label in (attributes.get("text"), attributes.get("content-desc")):
            x1, y1, x2, y2 = map(int, re.findall(r"\d+", attributes["bounds"]))
            return (x1 + x2) // 2, (y1 + y2) // 2
    raise AssertionError(f"no element {label!r} on screen")


@pytest.fixture
def served(sim_adb_server: AdbEndpoint) -> AdbServer:
    return sim_adb_server.server


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture(params=["dump", "u2"])
def device(
    request: pytest.FixtureRequest, served: AdbServer, sleeps: Sleeps
) -> Iterator[AdbDevice]:
    """The phone with each screen reader in turn: all but the dump's own retries must work the
    same whichever reads the screen."""
    phone = AdbDevice(host="127.0.0.1", port=served.port, sleep=sleeps, screen_reader=request.param)
    yield phone
    phone.close()


@pytest.fixture
def dump_device(served: AdbServer, sleeps: Sleeps) -> AdbDevice:
    return AdbDevice(host="127.0.0.1", port=served.port, sleep=sleeps)


@pytest.fixture
def compose_field(device: AdbDevice) -> AdbDevice:
    """The device with Messages' recipient field focused."""
    device.open_app("Messages")
    device.tap(*center_of(device.dump_xml(), "Start chat"))
    assert focused_field(device.dump_xml()) is not None
    return device


def field_text(device: AdbDevice) -> str:
    field = focused_field(device.dump_xml())
    assert field is not None
    return "" if field.looks_empty else field.text


# --- selection ------------------------------------------------------------------------------


def test_the_only_phone_is_chosen_and_implements_the_protocol(device: AdbDevice) -> None:
    assert device.serial == "emulator-5554"
    assert isinstance(device, Device)


def test_two_phones_need_a_serial_and_the_error_lists_them() -> None:
    phones = [Simulator(serial="emulator-5554"), Simulator(serial="emulator-5556")]
    with AdbServer(phones) as server:
        with pytest.raises(DeviceError, match=r"2 phones are attached.*emulator-5556.*--serial"):
            AdbDevice(host="127.0.0.1", port=server.port)
        chosen = AdbDevice("emulator-5556", host="127.0.0.1", port=server.port)
        chosen.press_key("home")
        assert chosen.serial == "emulator-5556"
        with pytest.raises(DeviceError, match=r"no phone with serial 'emulator-9'.*emulator-5554"):
            AdbDevice("emulator-9", host="127.0.0.1", port=server.port)


def test_no_phone_and_no_server_are_clear_errors() -> None:
    with AdbServer([]) as server, pytest.raises(DeviceError, match="no phone is attached"):
        AdbDevice(host="127.0.0.1", port=server.port)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free_port = probe.getsockname()[1]
    with pytest.raises(DeviceError, match=f"cannot reach the ADB server at 127.0.0.1:{free_port}"):
        AdbDevice(host="127.0.0.1", port=free_port)


def test_a_lost_connection_becomes_a_device_error(served: AdbServer, device: AdbDevice) -> None:
    served.stop()
    with pytest.raises(DeviceError, match="emulator-5554"):
        device.tap(10, 10)


def test_a_command_that_hangs_times_out(served: AdbServer) -> None:
    device = AdbDevice(host="127.0.0.1", port=served.port, command_timeout=0.3)
    with pytest.raises(DeviceError, match="timed out"):
        device.shell(["sleep", "1"])


# --- the screen -----------------------------------------------------------------------------


def test_dump_is_whole_fresh_and_leaves_no_files(served: AdbServer, dump_device: AdbDevice) -> None:
    first = dump_device.dump_xml()
    assert first.startswith("<?xml") and first.endswith("</hierarchy>")
    dump_device.open_app("Settings")
    assert "Network &amp; internet" in dump_device.dump_xml()
    assert served.session("emulator-5554").files.list_directory("/data/local/tmp") == []


def test_every_reader_reads_whole_fresh_screens(device: AdbDevice, sim_phone: Simulator) -> None:
    assert device.dump_xml() == sim_phone.dump_xml()
    device.open_app("Settings")
    assert device.dump_xml() == sim_phone.dump_xml()
    assert "Network &amp; internet" in device.dump_xml()


def test_dump_retries_every_known_failure_with_backoff(
    served: AdbServer, dump_device: AdbDevice, sleeps: Sleeps
) -> None:
    served.session("emulator-5554").inject_dump_faults(list(DumpFault))
    assert dump_device.dump_xml().endswith("</hierarchy>")
    assert sleeps.calls == [0.25, 0.5, 1.0, 2.0, 2.0]


def test_dump_that_never_settles_reports_what_the_phone_said(served: AdbServer) -> None:
    served.session("emulator-5554").inject_dump_faults([DumpFault.IDLE_STATE] * 50)
    device = AdbDevice(host="127.0.0.1", port=served.port, dump_timeout=0.5, sleep=Sleeps())
    with pytest.raises(DeviceError, match=r"could not read the screen.*could not get idle state"):
        device.dump_xml()


def test_simulator_dump_failures_are_retried() -> None:
    from simulator import FaultConfig

    flaky = Simulator(seed=3, faults=FaultConfig(dump_failure=0.5))
    with AdbServer([flaky]) as server:
        device = AdbDevice(host="127.0.0.1", port=server.port, sleep=Sleeps())
        for _ in range(5):
            assert device.dump_xml().endswith("</hierarchy>")


def test_screen_size_rotation_foreground_and_screenshot(device: AdbDevice) -> None:
    assert device.screen_size() == (1080, 2400)
    assert device.rotation() == 0
    assert device.foreground_app() == "com.google.android.apps.nexuslauncher"
    png = device.screenshot_png()
    assert png is not None and png.startswith(b"\x89PNG\r\n\x1a\n")


# --- touch, keys, apps ----------------------------------------------------------------------


def test_taps_turn_wifi_off_and_the_phone_reports_it(device: AdbDevice) -> None:
    assert device.shell(["settings", "get", "global", "wifi_on"]).stdout == "1\n"
    device.open_app("Settings")
    for label in ("Network & internet", "Internet", "Wi-Fi"):
        device.tap(*center_of(device.dump_xml(), label))
    assert device.shell(["settings", "get", "global", "wifi_on"]).stdout == "0\n"


def test_keys_swipes_and_long_press(device: AdbDevice, sim_phone: Simulator) -> None:
    device.open_app("Settings")
    before = device.dump_xml()
    device.swipe(540, 1800, 540, 600)
    assert device.dump_xml() != before  # the list scrolled
    device.press_key("back")
    assert device.foreground_app() == "com.google.android.apps.nexuslauncher"
    device.long_press(540, 1200, 900)
    with pytest.raises(DeviceError, match="unknown key 'hyperspace'"):
        device.press_key("hyperspace")
    with pytest.raises(DeviceError, match="whole numbers"):
        device.tap("1; reboot", 2)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "package"),
    [
        ("Clock", "com.google.android.deskclock"),
        ("Messages", "com.google.android.apps.messaging"),
        ("contacts", "com.google.android.contacts"),
        ("com.google.android.calendar", "com.google.android.calendar"),
    ],
)
def test_open_app_by_label_or_package(device: AdbDevice, name: str, package: str) -> None:
    assert device.open_app(name) == package
    assert device.foreground_app() == package


def test_open_app_that_is_not_installed(device: AdbDevice) -> None:
    with pytest.raises(DeviceError, match="no installed app matches 'Snapchat'"):
        device.open_app("Snapchat")
    with pytest.raises(DeviceError, match=r"com\.example\.gone is not installed"):
        device.open_app("com.example.gone")


def test_labels_resolve_like_on_real_phones() -> None:
    packages = {
        "com.android.settings": None,
        "com.google.android.settings.intelligence": None,
        "com.android.vending": "/product/priv-app/Phonesky/Phonesky.apk",
        "com.google.android.gm": "/product/app/PrebuiltGmail/PrebuiltGmail.apk",
        "com.android.chrome": "/product/app/Chrome/Chrome.apk",
        "com.example.notes": "/data/app/~~Xx==/com.example.notes-Yy==/base.apk",
    }
    assert resolve_package("Settings", packages) == "com.android.settings"
    assert resolve_package("Play Store", packages) == "com.android.vending"
    assert resolve_package("Gmail", packages) == "com.google.android.gm"
    assert resolve_package("Chrome app", packages) == "com.android.chrome"
    assert resolve_package("Notes", packages) == "com.example.notes"


def test_a_store_name_finds_the_app_its_package_names_in_part() -> None:
    packages = {
        "com.arduia.expense": "/data/app/~~Aa==/com.arduia.expense-Bb==/base.apk",
        "com.google.android.calendar": "/product/app/CalendarGoogle/CalendarGoogle.apk",
    }
    assert resolve_package("Pro Expense", packages) == "com.arduia.expense"
    assert resolve_package("Simple Calendar Pro", packages) == "com.google.android.calendar"
    with pytest.raises(AppNotFound, match="Pro Expense"):  # two apps say "expense": no guess
        resolve_package("Pro Expense", {**packages, "com.other.expense": None})


# --- text -----------------------------------------------------------------------------------


@pytest.mark.parametrize("text", HOSTILE_TEXTS + NON_ASCII_TEXTS)
def test_typed_text_arrives_literally(compose_field: AdbDevice, text: str) -> None:
    compose_field.type_text(text)
    assert field_text(compose_field) == text
    compose_field.clear_text()
    assert field_text(compose_field) == ""


def test_nothing_typed_reaches_the_shell(served: AdbServer, compose_field: AdbDevice) -> None:
    session = served.session("emulator-5554")
    session.files.write("/sdcard/canary", b"alive", append=False)
    compose_field.type_text("$(rm /sdcard/canary)`rm /sdcard/canary`;rm /sdcard/canary")
    compose_field.type_text("ü $(rm /sdcard/canary)")
    assert session.files.read("/sdcard/canary") == b"alive"


def test_non_ascii_switches_to_adb_keyboard_and_back(
    served: AdbServer, compose_field: AdbDevice
) -> None:
    compose_field.type_text("naïve")
    assert compose_field.shell(["settings", "get", "secure", "default_input_method"]).stdout == (
        LATIN_IME + "\n"
    )
    assert ADB_KEYBOARD_IME in compose_field.shell(["ime", "list", "-s"]).stdout


def test_non_ascii_without_adb_keyboard_says_how_to_install_it() -> None:
    phone = Simulator(adb_keyboard=False, state={"permission_prompts": []})
    with AdbServer([phone]) as server:
        device = AdbDevice(host="127.0.0.1", port=server.port, sleep=Sleeps())
        device.open_app("Messages")
        device.tap(*center_of(device.dump_xml(), "Start chat"))
        with pytest.raises(DeviceError, match=r"install ADB Keyboard.*adb install ADBKeyBoard.apk"):
            device.type_text("Grüße")
        device.type_text("plain ascii still works")
        assert field_text(device) == "plain ascii still works"


def test_a_field_that_drops_text_is_reported() -> None:
    class LossyPhone(FakePhone):
        def type_text(self, text: str) -> None:
            super().type_text(text[:-1])

    with AdbServer([LossyPhone()]) as server:
        device = AdbDevice(host="127.0.0.1", port=server.port, sleep=Sleeps())
        with pytest.raises(
            TextEntryError, match="typed 'hello' but the focused field reads 'hell'"
        ):
            device.type_text("hello")
        AdbDevice(host="127.0.0.1", port=server.port, verify_text=False).type_text("unchecked")


def test_clear_text_on_an_old_phone_that_shows_the_hint_as_text() -> None:
    class OldPhone(FakePhone):
        def dump_xml(self) -> str:  # no `hint` attribute, as before Android 8
            return re.sub(r' hint="[^"]*"', "", super().dump_xml())

    phone = OldPhone()
    with AdbServer([phone]) as server:
        device = AdbDevice(host="127.0.0.1", port=server.port, sleep=Sleeps())
        device.clear_text()  # already empty: the hint is not mistaken for text
        assert phone.field == ""
        phone.field = "some words"
        device.clear_text()
        assert phone.field == ""


def test_clear_text_needs_a_focused_field(device: AdbDevice) -> None:
    with pytest.raises(DeviceError, match="no text field has focus"):
        device.clear_text()


@given(text=st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=40))
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_any_printable_ascii_round_trips(compose_field: AdbDevice, text: str) -> None:
    compose_field.clear_text()
    compose_field.type_text(text)
    assert field_text(compose_field) == text


@given(
    text=st.text(
        alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Co", "Cn")),
        min_size=1,
        max_size=20,
    )
)
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_any_unicode_text_round_trips(compose_field: AdbDevice, text: str) -> None:
    compose_field.clear_text()
    compose_field.type_text(text)
    assert field_text(compose_field) == text


@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126) | st.just("\n")))
def test_input_text_chunks_decode_to_the_text(text: str) -> None:
    assert typeable_by_input_text(text)
    chunks = input_text_chunks(text)
    assert "".join(decode_input_text(chunk) for chunk in chunks) == text
    assert all(chunk and " " not in chunk for chunk in chunks)
    # Each chunk is one quoted argument: the shell hands it over unchanged.
    assert all(shlex.split(shlex.quote(chunk)) == [chunk] for chunk in chunks)


def test_percent_s_is_split_so_android_cannot_turn_it_into_a_space() -> None:
    assert input_text_chunks("100%s sure") == ["100%", "s%ssure"]
    assert not typeable_by_input_text("é")


def test_phones_without_the_v2_shell_still_give_exit_codes_and_text() -> None:
    phone = Simulator(state={"permission_prompts": []})
    with AdbServer([phone], shell_v2=False) as server:
        device = AdbDevice(host="127.0.0.1", port=server.port, sleep=Sleeps())
        result = device.shell(["sh", "-c", "echo out; echo err >&2; exit 3"])
        assert (result.output, result.status) == ("out\nerr\n", 3)
        device.open_app("Messages")
        device.tap(*center_of(device.dump_xml(), "Start chat"))
        device.type_text("v1 $(x) ü")
        assert field_text(device) == "v1 $(x) ü"
