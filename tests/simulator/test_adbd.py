"""The simulated phone over the real ADB host protocol: protocol, shell and Android commands.

A small fake phone (tests/support/adb_phone.py) stands in for the simulator here so these tests
pin the server's own behaviour; tests/devices/test_adb_device.py drives it through `devices.adb`.
"""

from __future__ import annotations

import base64
import io
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import adbutils
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.adbd import ADB_KEYBOARD_IME, AdbServer, DumpFault, decode_input_text
from simulator.adbd.sh import ShellSyntaxError, parse
from tests.support.adb_phone import FakePhone


@pytest.fixture
def phone() -> FakePhone:
    return FakePhone()


@pytest.fixture
def server(phone: FakePhone) -> Iterator[AdbServer]:
    with AdbServer([phone]) as running:
        yield running


@pytest.fixture
def adb_device(server: AdbServer) -> adbutils.AdbDevice:
    client = adbutils.AdbClient(host="127.0.0.1", port=server.port)
    return client.device("emulator-5554")


def run(device: adbutils.AdbDevice, command: str) -> tuple[str, str, int]:
    result = device.shell2(command, v2=True, timeout=10)
    return result.stdout, result.stderr, result.returncode


# --- the host protocol ----------------------------------------------------------------------


def test_adbutils_sees_version_and_devices(server: AdbServer) -> None:
    client = adbutils.AdbClient(host="127.0.0.1", port=server.port)
    assert client.server_version() == 41
    assert [info.serial for info in client.list()] == ["emulator-5554"]
    assert client.list(extended=True)[0].tags["transport_id"] == "1"
    assert [device.serial for device in client.device_list()] == ["emulator-5554"]


def test_device_services_through_every_transport_form(adb_device: adbutils.AdbDevice) -> None:
    assert adb_device.get_state() == "device"
    assert adb_device.get_serialno() == "emulator-5554"
    assert "shell_v2" in adb_device.get_features()
    assert adb_device.shell("echo hi") == "hi"  # shell v1 after host:tport:serial
    assert adb_device.shell2("echo hi; false").returncode == 1  # v1 with an exit marker
    assert run(adb_device, "echo out; echo err >&2; exit 3") == ("out\n", "err\n", 3)


def test_unknown_serial_and_ambiguous_selection_fail_like_adb() -> None:
    with AdbServer([FakePhone("emulator-5554"), FakePhone("emulator-5556")]) as server:
        client = adbutils.AdbClient(host="127.0.0.1", port=server.port)
        with pytest.raises(adbutils.AdbError, match="device 'nope' not found"):
            client.device("nope").shell("echo")
        with pytest.raises(adbutils.AdbError, match="more than one device"):
            client.device()  # adbutils refuses itself when two are listed
        with socket.create_connection(("127.0.0.1", server.port)) as sock:
            request = b"host:transport-any"
            sock.sendall(b"%04x" % len(request) + request)
            assert sock.recv(64) == b"FAIL001dmore than one device/emulator"
        assert client.device("emulator-5556").shell("echo two") == "two"


def test_sync_push_pull_stat_and_list(adb_device: adbutils.AdbDevice, tmp_path: Path) -> None:
    adb_device.sync.push(io.BytesIO(b"\x00binary\xff" * 10_000), "/data/local/tmp/blob")
    assert adb_device.sync.read_bytes("/data/local/tmp/blob") == b"\x00binary\xff" * 10_000
    assert adb_device.sync.stat("/data/local/tmp/blob").size == 80_000
    assert [entry.path for entry in adb_device.sync.list("/data/local/tmp")] == ["blob"]
    assert not adb_device.sync.exists("/data/local/tmp/missing")
    with pytest.raises(adbutils.AdbError, match="No such file"):
        adb_device.sync.read_bytes("/data/local/tmp/missing")
    assert adb_device.sync.pull("/data/local/tmp/blob", tmp_path / "blob") == 80_000


def test_stop_closes_open_connections_and_frees_the_port(phone: FakePhone) -> None:
    server = AdbServer([phone]).start()
    port = server.port
    idle = socket.create_connection(("127.0.0.1", port))  # a client that never speaks
    server.stop()
    try:
        closed = idle.recv(16) == b""
    except ConnectionResetError:  # not yet accepted when the listening socket closed
        closed = True
    assert closed
    idle.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1)


def test_connections_beyond_the_limit_are_refused(phone: FakePhone) -> None:
    with AdbServer([phone], max_connections=1) as server:
        first = socket.create_connection(("127.0.0.1", server.port))
        threading.Event().wait(0.1)  # let the server take the first connection
        with socket.create_connection(("127.0.0.1", server.port)) as second:
            assert second.recv(64).startswith(b"FAIL")
        first.close()


# --- ports on the phone and forwards to them ------------------------------------------------


def echo_service(sock: socket.socket) -> None:
    """A program on the phone that answers every line with the line in capitals."""
    while data := sock.recv(4096):
        sock.sendall(data.upper())


def test_a_tcp_connection_reaches_what_listens_on_the_phone(
    server: AdbServer, adb_device: adbutils.AdbDevice
) -> None:
    with pytest.raises(adbutils.AdbError, match="closed"):
        adb_device.create_connection(adbutils.Network.TCP, 7100)  # nothing listens yet
    server.session("emulator-5554").ports.listen(7100, echo_service)
    with adb_device.create_connection(adbutils.Network.TCP, 7100) as sock:
        sock.sendall(b"hello phone\n")
        assert sock.recv(64) == b"HELLO PHONE\n"
    with adb_device.open_transport() as connection:
        connection.send_command("tcp:10.0.0.1:7100")
        with pytest.raises(adbutils.AdbError, match="its own ports only"):
            connection.check_okay()


def test_forwards_carry_local_connections_to_the_phone(
    server: AdbServer, adb_device: adbutils.AdbDevice
) -> None:
    server.session("emulator-5554").ports.listen(7100, echo_service)
    local = adb_device.forward_port(7100)
    assert [(f.serial, f.local, f.remote) for f in adb_device.forward_list()] == [
        ("emulator-5554", f"tcp:{local}", "tcp:7100")
    ]
    assert adb_device.forward_port(7100) == local  # found, not forwarded twice
    with socket.create_connection(("127.0.0.1", local)) as sock:
        sock.sendall(b"over the forward")
        assert sock.recv(64) == b"OVER THE FORWARD"
    with pytest.raises(adbutils.AdbError, match="cannot rebind"):
        adb_device.forward(f"tcp:{local}", "tcp:7200", norebind=True)
    adb_device.forward(f"tcp:{local}", "tcp:7200")  # rebinds to a port nothing listens on
    with socket.create_connection(("127.0.0.1", local)) as sock:
        assert sock.recv(64) == b""  # closed at once, as adb closes it
    with pytest.raises(adbutils.AdbError, match="tcp: ports only"):
        adb_device.forward("tcp:0", "localabstract:scrcpy")
    adb_device.forward_remove_all()
    assert adb_device.forward_list() == []
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", local), timeout=1)


def test_stopping_the_server_removes_its_forwards(phone: FakePhone) -> None:
    with AdbServer([phone]) as server:
        device = adbutils.AdbClient(host="127.0.0.1", port=server.port).device("emulator-5554")
        local = device.forward_port(7100)
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", local), timeout=1)


# --- the shell ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "stdout"),
    [
        ("echo 'a;b' \"c d\" e\\ f", "a;b c d e f\n"),
        ("echo a; echo b", "a\nb\n"),
        ("false && echo no || echo yes", "yes\n"),
        ("echo $(echo inner) `echo tick`", "inner tick\n"),
        ("echo \"$(echo '  spaced  ')\"", "  spaced  \n"),
        ("X='1  2'; echo $X \"$X\"", "1 2 1  2\n"),
        ("echo a | cat | cat", "a\n"),
        ("echo gone > /data/local/tmp/f; cat /data/local/tmp/f", "gone\n"),
        ("echo x >> /sdcard/l; echo y >> /sdcard/l; cat < /sdcard/l", "x\ny\n"),
        ("echo $?; false; echo $?", "0\n1\n"),
        ("echo '$(not run)' \\$HOME # comment", "$(not run) $HOME\n"),
        ("touch-nothing 2>/dev/null; echo $?", "127\n"),
        ("(echo sub; exit 4); echo $?", "sub\n4\n"),
        ("echo /data/local/t*", "/data/local/tmp\n"),
        ("echo nomatch*", "nomatch*\n"),
        ("echo ''", "\n"),
        ("! false && echo negated", "negated\n"),
        ("echo abc | md5sum", "0bee89b07a248e27c83fc3d5951213c1  -\n"),
        (
            "echo hi > /sdcard/h; toybox md5sum /sdcard/h",
            "764efa883dda1e11db47671c4a3bbd9e  /sdcard/h\n",
        ),
        ("toybox md5sum /sdcard/none || echo $?", "1\n"),
    ],
)
def test_shell_follows_posix_rules(
    adb_device: adbutils.AdbDevice, command: str, stdout: str
) -> None:
    assert run(adb_device, command)[0] == stdout


def test_unknown_commands_and_syntax_errors_read_like_a_phone(
    adb_device: adbutils.AdbDevice,
) -> None:
    assert run(adb_device, "frobnicate now") == (
        "",
        "/system/bin/sh: frobnicate: inaccessible or not found\n",
        127,
    )
    _, error, status = run(adb_device, "echo 'open")
    assert "unterminated quoted string" in error and status == 1
    _, error, status = run(adb_device, "if true; then echo; fi")
    assert "not supported" in error and status == 1


def test_command_substitution_runs_on_the_phone(adb_device: adbutils.AdbDevice) -> None:
    run(adb_device, "echo secret > /sdcard/s")
    assert run(adb_device, "echo $(rm /sdcard/s)removed; cat /sdcard/s")[1] == (
        "cat: /sdcard/s: No such file or directory\n"
    )


@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=40))
@settings(max_examples=50, deadline=None)
def test_shell_parser_accepts_every_quoted_word(text: str) -> None:
    script = parse("echo " + shlex.quote(text))
    words = script.items[0].first.commands[0].words  # type: ignore[union-attr]
    assert "".join(part.text for part in words[1].parts) == text  # type: ignore[union-attr]


def test_parser_bounds_nesting() -> None:
    with pytest.raises(ShellSyntaxError, match="nested too deeply"):
        parse("echo " + "$(" * 100 + ")" * 100)


# --- Android commands -----------------------------------------------------------------------


def test_uiautomator_dump_writes_a_file_and_tty_prints_inline(
    adb_device: adbutils.AdbDevice,
) -> None:
    out, _, status = run(adb_device, "uiautomator dump /data/local/tmp/d.xml")
    assert (out, status) == ("UI hierchary dumped to: /data/local/tmp/d.xml\n", 0)
    assert adb_device.sync.read_text("/data/local/tmp/d.xml").endswith("</hierarchy>")
    inline = run(adb_device, "uiautomator dump /dev/tty")[0]
    assert inline.endswith("</hierarchy>UI hierchary dumped to: /dev/tty\n")
    assert run(adb_device, "uiautomator dump; cat /sdcard/window_dump.xml")[0].startswith(
        "UI hierchary dumped to: /sdcard/window_dump.xml\n<?xml"
    )


def test_dump_failures_look_like_the_real_tool(
    server: AdbServer, phone: FakePhone, adb_device: adbutils.AdbDevice
) -> None:
    phone.dump_errors = 1
    assert run(adb_device, "uiautomator dump /sdcard/a.xml") == (
        "ERROR: could not get idle state.\n",
        "",
        0,
    )
    server.session(phone.serial).inject_dump_faults([DumpFault.NULL_ROOT, DumpFault.TRUNCATED])
    assert "null root node" in run(adb_device, "uiautomator dump /sdcard/a.xml")[0]
    run(adb_device, "uiautomator dump /sdcard/a.xml")
    assert not adb_device.sync.read_text("/sdcard/a.xml").endswith("</hierarchy>")


def test_input_commands_reach_the_phone(adb_device: adbutils.AdbDevice, phone: FakePhone) -> None:
    for command in (
        "input tap 10 20",
        "input swipe 1 2 3 4 250",
        "input swipe 5 5 5 5 900",
        "input keyevent 4",
        "input keyevent KEYCODE_HOME",
    ):
        assert run(adb_device, command)[2] == 0
    assert phone.events == [
        ("tap", 10, 20),
        ("swipe", 1, 2, 3, 4, 250),
        ("long_press", 5, 5, 900),
        ("key", "back"),
        ("key", "home"),
    ]


def test_input_text_decodes_percent_s_and_refuses_non_ascii(
    adb_device: adbutils.AdbDevice, phone: FakePhone
) -> None:
    run(adb_device, "input text 'a%sb%%sc'")
    assert phone.field == "a b% c"
    _, error, status = run(adb_device, "input text 'café'")
    assert status == 255 and "NullPointerException" in error
    assert phone.field == "a b% c"


def test_select_all_then_delete_clears_the_field(
    adb_device: adbutils.AdbDevice, phone: FakePhone
) -> None:
    phone.field = "old text"
    run(adb_device, "input keycombination 113 29 && input keyevent 67")
    assert phone.field == ""


@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=30))
def test_decode_input_text_only_turns_percent_s_into_space(text: str) -> None:
    if "%" not in text:
        assert decode_input_text(text) == text
    assert decode_input_text(text.replace("%", "")) == text.replace("%", "")
    assert decode_input_text(text).count(" ") >= text.count(" ")


def test_packages_activities_and_launching(
    adb_device: adbutils.AdbDevice, phone: FakePhone
) -> None:
    packages = run(adb_device, "pm list packages")[0].split()
    assert "package:com.google.android.deskclock" in packages
    assert "package:com.android.adbkeyboard" in packages
    resolved = run(
        adb_device, "cmd package resolve-activity --brief -c android.intent.category.LAUNCHER "
        "com.android.chrome",
    )[0]  # fmt: skip
    assert resolved.splitlines()[-1] == "com.android.chrome/.MainActivity"
    assert run(adb_device, "am start -n com.android.chrome/.MainActivity")[2] == 0
    assert phone.foreground == "com.android.chrome"
    assert "Events injected: 1" in run(adb_device, "monkey -p com.google.android.deskclock 1")[0]
    assert phone.foreground == "com.google.android.deskclock"
    _, error, status = run(adb_device, "monkey -p com.example.none 1")
    assert "No activities found" in error and status != 0
    focus = run(adb_device, "dumpsys window displays")[0]
    assert "mCurrentFocus=Window{9b1c2e4 u0 com.google.android.deskclock/" in focus


def test_settings_window_size_and_screencap(adb_device: adbutils.AdbDevice) -> None:
    assert run(adb_device, "settings get global wifi_on")[0] == "1\n"
    assert run(adb_device, "settings get global bluetooth_on")[0] == "0\n"
    assert run(adb_device, "settings get global no_such_key")[0] == "null\n"
    assert run(adb_device, "wm size")[0] == "Physical size: 1080x2400\n"
    png = adb_device.shell("screencap -p", encoding=None)
    assert isinstance(png, bytes) and png.startswith(b"\x89PNG\r\n\x1a\n")
    assert struct.unpack(">II", png[16:24]) == (1080, 2400)


def test_adb_keyboard_types_only_while_it_is_the_input_method(
    adb_device: adbutils.AdbDevice, phone: FakePhone
) -> None:
    message = base64.b64encode("héllo 世界 🙂".encode()).decode()
    broadcast = f"am broadcast -a ADB_INPUT_B64 --es msg {message}"
    assert "Broadcast completed" in run(adb_device, broadcast)[0]
    assert phone.field == ""  # not the current input method yet: nobody listens
    assert ADB_KEYBOARD_IME not in run(adb_device, "ime list -s")[0]
    assert ADB_KEYBOARD_IME in run(adb_device, "ime list -a -s")[0]
    run(adb_device, f"ime enable {ADB_KEYBOARD_IME} && ime set {ADB_KEYBOARD_IME}")
    assert run(adb_device, "settings get secure default_input_method")[0].strip() == (
        ADB_KEYBOARD_IME
    )
    run(adb_device, broadcast)
    assert phone.field == "héllo 世界 🙂"


def test_phone_without_adb_keyboard_cannot_select_it() -> None:
    with AdbServer([FakePhone(adb_keyboard=False)]) as server:
        device = adbutils.AdbClient(host="127.0.0.1", port=server.port).device("emulator-5554")
        _, error, status = run(device, f"ime enable {ADB_KEYBOARD_IME}")
        assert status == 1 and "Unknown input method" in error


# --- the real adb client --------------------------------------------------------------------


def _real_adb() -> str | None:
    found = shutil.which("adb")
    if found:
        return found
    try:
        return adbutils.adb_path()
    except adbutils.AdbError:
        return None


@pytest.mark.slow
def test_real_adb_client_drives_the_server(
    server: AdbServer, phone: FakePhone, tmp_path: Path
) -> None:
    adb = _real_adb()
    if adb is None:
        pytest.skip("no adb binary on PATH or bundled with adbutils")
    base = [adb, "-H", "127.0.0.1", "-P", str(server.port)]

    def adb_run(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([*base, *args], capture_output=True, timeout=30, check=False)

    assert b"emulator-5554\tdevice" in adb_run("devices").stdout
    shell = adb_run("shell", "echo", "hello;", "exit", "7")
    assert (shell.stdout, shell.returncode) == (b"hello\n", 7)
    assert adb_run("shell", "input", "text", "'a%sb;$(x)'").returncode == 0
    assert phone.field == "a b;$(x)"
    png = adb_run("exec-out", "screencap", "-p").stdout
    assert png.startswith(b"\x89PNG")
    (tmp_path / "up.txt").write_bytes(b"pushed by adb\n")
    assert adb_run("push", str(tmp_path / "up.txt"), "/sdcard/up.txt").returncode == 0
    assert adb_run("pull", "/sdcard/up.txt", str(tmp_path / "down.txt")).returncode == 0
    assert (tmp_path / "down.txt").read_bytes() == b"pushed by adb\n"
    server.session("emulator-5554").ports.listen(7100, echo_service)
    forwarded = adb_run("forward", "tcp:0", "tcp:7100")
    assert forwarded.returncode == 0, forwarded.stderr
    local = int(forwarded.stdout)
    assert f"emulator-5554 tcp:{local} tcp:7100".encode() in adb_run("forward", "--list").stdout
    with socket.create_connection(("127.0.0.1", local)) as sock:
        sock.sendall(b"via adb forward")
        assert sock.recv(64) == b"VIA ADB FORWARD"
    assert adb_run("forward", "--remove", f"tcp:{local}").returncode == 0
    assert b"tcp:7100" not in adb_run("forward", "--list").stdout


# --- the command line -----------------------------------------------------------------------


@pytest.mark.slow
def test_cli_serves_the_simulator_until_interrupted() -> None:
    from devices.adb import AdbDevice

    command = [sys.executable, "-m", "agent.cli", "sim", "adb-server", "--port", "0"]
    command += ["--sim-state", "wifi=off", "--serial", "emulator-5580"]
    # A test run started in the background inherits an ignored SIGINT, as the shell arranges
    # for background jobs; the server must see Ctrl-C as a terminal would deliver it.
    server = subprocess.Popen(
        command,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert server.stderr is not None
        banner = server.stderr.readline()
        match = re.search(r"serving emulator-5580 on 127\.0\.0\.1:(\d+)", banner)
        assert match, banner
        device = AdbDevice(host="127.0.0.1", port=int(match.group(1)))
        assert device.shell(["settings", "get", "global", "wifi_on"]).stdout == "0\n"
        assert device.foreground_app() == "com.google.android.apps.nexuslauncher"
    finally:
        server.send_signal(signal.SIGINT)
        assert server.wait(timeout=30) == 0  # generous: CI machines can be loaded


def test_cli_rejects_bad_options_in_one_line() -> None:
    command = [sys.executable, "-m", "agent.cli", "sim", "adb-server", "--dump-fault", "melted"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 2
    assert result.stderr.startswith("error: --dump-fault:") and result.stderr.count("\n") == 1
