"""The simulated phone answers uiautomator2's real client: the jar is pushed, started with
`app_process`, asked over HTTP through the ADB connection, and what it shows is the phone's own
screen; a jar, method or argument the simulation does not know fails clearly."""

from __future__ import annotations

import hashlib
import json
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path

import adbutils
import pytest
import uiautomator2
import uiautomator2.exceptions

import simulator.adbd.app_process
from simulator import Simulator
from simulator.adbd import AdbServer, UiAutomationOptions
from simulator.adbd.uiautomator_server import U2_JAR_VERSIONS
from tests.support.polling import wait_until

JAR = Path(uiautomator2.__file__).parent / "assets" / "u2.jar"
REMOTE_JAR = "/data/local/tmp/u2.jar"
START = "CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main"


@pytest.fixture
def phone() -> Simulator:
    return Simulator(state={"wifi": True})


@pytest.fixture
def served(phone: Simulator) -> Iterator[AdbServer]:
    with AdbServer([phone]) as server:
        yield server


@pytest.fixture
def adb_device(served: AdbServer, phone: Simulator) -> adbutils.AdbDevice:
    return adbutils.AdbClient(host="127.0.0.1", port=served.port).device(phone.serial)


@pytest.fixture
def u2(adb_device: adbutils.AdbDevice) -> Iterator[uiautomator2.Device]:
    device = uiautomator2.connect(adb_device)
    yield device
    device.stop_uiautomator()


def http(adb_device: adbutils.AdbDevice, request: bytes, port: int = 9008) -> tuple[int, bytes]:
    """One raw HTTP exchange with what listens on the phone's `port`: (status, body)."""
    with adb_device.create_connection(adbutils.Network.TCP, port) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            lengths = [
                line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")
            ]
            if lengths and len(body) >= int(lengths[0].split(b":")[1]):
                break
    status = int(data.split(b" ", 2)[1])
    return status, data.partition(b"\r\n\r\n")[2]


def rpc(adb_device: adbutils.AdbDevice, payload: object) -> dict[str, object]:
    body = json.dumps(payload).encode()
    request = (
        b"POST /jsonrpc/0 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body
    )
    status, reply = http(adb_device, request)
    assert status == 200
    result: dict[str, object] = json.loads(reply)
    return result


def test_the_shipped_jar_is_the_one_the_simulation_answers_for() -> None:
    # A new uiautomator2 release with another jar makes this fail first, with the checksum.
    digest = hashlib.md5(JAR.read_bytes(), usedforsecurity=False).hexdigest()
    assert digest in U2_JAR_VERSIONS, f"u2.jar md5 {digest} is not one the simulation knows"


def test_the_real_client_pushes_starts_and_reads_the_phone_screen(
    u2: uiautomator2.Device, served: AdbServer, phone: Simulator
) -> None:
    files = served.session(phone.serial).files
    assert files.read(REMOTE_JAR) == JAR.read_bytes()
    assert u2.info["sdkInt"] == 34
    assert u2.info["currentPackageName"] == phone.foreground_app()
    assert u2.dump_hierarchy() == phone.dump_xml()
    phone.open_app("Settings")
    assert "Network &amp; internet" in u2.dump_hierarchy()


def test_the_real_client_acts_on_the_phone(u2: uiautomator2.Device, phone: Simulator) -> None:
    phone.open_app("Settings")
    bounds = u2(text="Network & internet").info["bounds"]
    u2.click((bounds["left"] + bounds["right"]) // 2, (bounds["top"] + bounds["bottom"]) // 2)
    assert "Internet" in u2.dump_hierarchy()
    u2.press("back")
    assert "Network &amp; internet" in u2.dump_hierarchy()
    u2.press("home")
    assert phone.foreground_app() == "com.google.android.apps.nexuslauncher"
    assert u2(textContains="Settings").count >= 1
    assert u2(text="No such label").count == 0
    assert u2(text="Settings").exists


def test_a_second_start_reuses_the_pushed_jar_and_the_running_server(
    u2: uiautomator2.Device, adb_device: adbutils.AdbDevice
) -> None:
    again = uiautomator2.connect(adb_device)  # finds the server answering on its port
    assert again.info["sdkInt"] == 34
    assert adb_device.shell(["toybox", "md5sum", REMOTE_JAR]).startswith(
        hashlib.md5(JAR.read_bytes(), usedforsecurity=False).hexdigest()
    )


def test_the_server_lives_as_long_as_its_shell_connection(
    adb_device: adbutils.AdbDevice, served: AdbServer, phone: Simulator
) -> None:
    adb_device.sync.push(JAR.read_bytes(), REMOTE_JAR)
    shell = adb_device.shell(START + " -p 9010", stream=True)
    programs = served.session(phone.serial).app_process
    wait_until(lambda: programs.running is not None)
    ping = b"GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    assert http(adb_device, ping, port=9010) == (200, b"pong")
    shell.close()  # the client hangs up: the phone ends the program
    wait_until(lambda: programs.running is None)
    with pytest.raises(adbutils.AdbError, match="closed"):
        adb_device.create_connection(adbutils.Network.TCP, 9010)


def test_one_ui_automation_at_a_time_and_dump_waits_for_it(
    u2: uiautomator2.Device, adb_device: adbutils.AdbDevice
) -> None:
    second = adb_device.shell2(START + " -p 9011", timeout=10)
    assert second.returncode == 1 and "already registered" in second.output
    dump = adb_device.shell2("uiautomator dump /sdcard/x.xml", timeout=10)
    assert dump.returncode != 0 and "already registered" in dump.output
    u2.stop_uiautomator()
    assert "dumped to" in adb_device.shell2("uiautomator dump /sdcard/x.xml", timeout=10).output


def test_an_unknown_jar_fails_to_start_and_names_its_checksum(
    adb_device: adbutils.AdbDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    adb_device.sync.push(b"not the server", "/data/local/tmp/other.jar")
    other = adb_device.shell2(
        "CLASSPATH=/data/local/tmp/other.jar app_process / com.wetest.uia2.Main", timeout=10
    )
    digest = hashlib.md5(b"not the server", usedforsecurity=False).hexdigest()
    assert other.returncode == 1
    assert (
        f"ClassNotFoundException: com.wetest.uia2.Main (/data/local/tmp/other.jar has md5 {digest}"
        in other.output
    )
    # The client built for a jar this simulation does not know reports the reason.
    monkeypatch.setattr(simulator.adbd.app_process, "U2_JAR_VERSIONS", {})
    with pytest.raises(uiautomator2.exceptions.LaunchUiAutomationError, match="has md5"):
        uiautomator2.connect(adb_device)


def test_app_process_refuses_what_a_phone_refuses(adb_device: adbutils.AdbDevice) -> None:
    adb_device.sync.push(JAR.read_bytes(), REMOTE_JAR)
    no_classpath = adb_device.shell2("app_process / com.wetest.uia2.Main", timeout=10)
    assert no_classpath.returncode == 1 and "CLASSPATH is not set" in no_classpath.output
    wrong_class = adb_device.shell2(START.replace("uia2.Main", "uia2.Other"), timeout=10)
    assert "main class is com.wetest.uia2.Main" in wrong_class.output
    bad_port = adb_device.shell2(START + " -p 70000", timeout=10)
    assert bad_port.returncode == 1 and "Invalid port: 70000" in bad_port.output


def test_json_rpc_errors_are_jsonrpc4j_errors(
    u2: uiautomator2.Device, adb_device: adbutils.AdbDevice
) -> None:
    missing = rpc(adb_device, {"jsonrpc": "2.0", "id": 7, "method": "getClipboard", "params": []})
    assert missing["id"] == 7
    assert missing["error"] == {
        "code": -32601,
        "message": "method not found: the simulated uiautomator2 server does not answer "
        "getClipboard with 0 argument(s)",
    }
    wrong_type = rpc(adb_device, {"jsonrpc": "2.0", "id": 1, "method": "click", "params": ["a", 1]})
    assert wrong_type["error"] == {"code": -32602, "message": "method parameters invalid"}
    named = rpc(adb_device, {"jsonrpc": "2.0", "id": 1, "method": "click", "params": {"x": 1}})
    assert named["error"] == {"code": -32602, "message": "method parameters invalid"}
    status, body = http(
        adb_device,
        b"POST /jsonrpc/0 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
        b"Connection: close\r\n\r\n{oops",
    )
    assert status == 200 and json.loads(body)["error"]["code"] == -32700
    assert http(adb_device, b"GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n") == (
        404,
        b"Not Found!!!",
    )
    with pytest.raises(uiautomator2.exceptions.RPCUnknownError, match="does not answer getClip"):
        u2.clipboard  # noqa: B018  # the property asks the server
    with pytest.raises(uiautomator2.exceptions.UiObjectNotFoundError):
        u2(text="No such label").info  # noqa: B018


def test_hierarchy_depth_and_an_empty_screen(
    u2: uiautomator2.Device, phone: Simulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    shallow = u2.jsonrpc.dumpWindowHierarchy(False, 1)
    windows = ElementTree.fromstring(shallow.encode())
    assert len(windows) and all(len(child) == 0 for window in windows for child in window)
    assert any(len(window) for window in windows)

    def no_window() -> str:
        from devices import DeviceError

        raise DeviceError("ERROR: null root node returned by UiTestAutomationBridge.")

    monkeypatch.setattr(phone, "dump_xml", no_window)
    assert u2.jsonrpc.dumpWindowHierarchy(False, 50).endswith('<hierarchy rotation="0" />')


@pytest.mark.parametrize("sdk_level", [33, 34])
def test_a_lagging_cache_serves_the_old_screen_until_cleared(
    phone: Simulator, sdk_level: int
) -> None:
    options = UiAutomationOptions(sdk_level=sdk_level, stale_reads=2)
    with AdbServer([phone], ui_automation=options) as server:
        device = uiautomator2.connect(
            adbutils.AdbClient(host="127.0.0.1", port=server.port).device(phone.serial)
        )
        home = device.jsonrpc.dumpWindowHierarchy(False, 50)
        phone.open_app("Settings")
        assert device.jsonrpc.dumpWindowHierarchy(False, 50) == home  # stale, as on a phone
        nothing = uiautomator2.Selector(resourceId="no:id/such-node")
        assert device.jsonrpc.objInfoOfAllInstances(nothing) == []
        after_clearing = device.jsonrpc.dumpWindowHierarchy(False, 50)
        # API 34 clears the cache on that call; older phones keep serving the old tree.
        assert (after_clearing == phone.dump_xml()) is (sdk_level >= 34)
        cache = server.session(phone.serial).app_process.running
        assert cache is not None and cache.service.cache.stale_served == (
            1 if sdk_level >= 34 else 2
        )
        device.stop_uiautomator()
