"""The screen readers of `devices.screen_readers` against the simulator over the real ADB
protocol: uiautomator2's server shows what `uiautomator dump` shows, every read after an action
is the screen after it (even when the server's cache lags), a missing or broken server never
stops a run under `auto`, and the commands that read phones offer the choice."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import simulator.adbd.app_process
from agent.cli import main
from agent.loop import RunSettings, run_episode
from agent.screen import Screen
from devices import DeviceError
from devices.adb import AdbDevice
from devices.screen_readers import ScreenReadError, ScreenReaderUnavailable
from evals.oracle import OraclePolicy
from evals.runner import goal_confirmation, oracle_screens
from simulator import Simulator
from simulator.adbd import AdbServer, UiAutomationOptions
from simulator.tasks import TASKS, Task
from tests.support.polling import wait_until


def no_sleep(seconds: float) -> None:
    pass


def open_phone(server: AdbServer, reader: str, **options: Any) -> AdbDevice:
    host, port = server.address
    return AdbDevice(host=host, port=port, screen_reader=reader, sleep=no_sleep, **options)  # type: ignore[arg-type]


class ShownScreen(Simulator):
    """A simulated phone showing whatever dump a test gives it."""

    shown: str = ""

    def dump_xml(self) -> str:
        return self.shown


class Swappable:
    """One served phone whose simulator a test replaces between tasks, so one server and one
    uiautomator2 server serve a whole suite."""

    def __init__(self, phone: Simulator) -> None:
        self.phone = phone

    @property
    def serial(self) -> str:
        return self.phone.serial

    def __getattr__(self, name: str) -> Any:
        return getattr(self.phone, name)


class FreshnessCheck:
    """The phone over ADB, each screen it reads compared with the simulator's own."""

    def __init__(self, device: AdbDevice, served: Swappable) -> None:
        self.device = device
        self.served = served
        self.serial = device.serial
        self.reads = 0
        self.stale: list[str] = []

    def dump_xml(self) -> str:
        xml = self.device.dump_xml()
        self.reads += 1
        if xml != self.served.phone.dump_xml():
            self.stale.append(Screen.parse(xml).render().splitlines()[0])
        return xml

    def __getattr__(self, name: str) -> Any:
        return getattr(self.device, name)


def play_oracle(
    tasks: list[Task], options: UiAutomationOptions, trajectories: Path, reader: str = "u2"
) -> tuple[FreshnessCheck, list[str]]:
    """Every task's oracle plan over ADB, the screen read by `reader`; the failed tasks."""
    served = Swappable(Simulator())
    failed = []
    with AdbServer([served], ui_automation=options) as server:  # type: ignore[list-item]
        device = open_phone(server, reader)
        checked = FreshnessCheck(device, served)
        for task in tasks:
            served.phone = Simulator(state=task.initial_state(0), seed=0)
            device.screen.screen_may_change()  # the phone now shows the task's first screen
            goal = task.goal(0)
            result = run_episode(
                goal,
                checked,
                OraclePolicy(task, 0),
                RunSettings(max_steps=task.max_steps),
                trajectories / f"{task.name}.jsonl",
                confirm=goal_confirmation(goal),
                sleep=no_sleep,
            )
            if result.stop_reason != "completed" or not task.success(
                served.phone.state, 0, result.answer
            ):
                failed.append(task.name)
        device.close()
    return checked, failed


# --- the same screens ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def oracle_dumps() -> list[str]:
    visited = oracle_screens()
    assert visited.all_succeeded
    return visited.dumps


@pytest.mark.slow  # plays every task's oracle plan
def test_u2_shows_the_elements_dump_shows_on_every_oracle_screen(oracle_dumps: list[str]) -> None:
    phone = ShownScreen()
    read: dict[str, list[str]] = {}
    with AdbServer([phone]) as server:
        for reader in ("u2", "dump"):  # one at a time: dump fails while u2's server runs
            device = open_phone(server, reader)
            assert device.screen.name == reader
            read[reader] = []
            for xml in oracle_dumps:
                phone.shown = xml
                device.screen.screen_may_change()
                read[reader].append(Screen.parse(device.dump_xml()).render())
            device.close()
    assert len(read["u2"]) == len(oracle_dumps) > 100
    assert read["u2"] == read["dump"]


# --- fresh after every action ------------------------------------------------------------------


@pytest.mark.slow  # the whole suite over ADB: about a minute
def test_a_full_oracle_run_over_adb_reads_every_screen_fresh_through_a_lagging_cache(
    tmp_path: Path,
) -> None:
    # API 33: the server cannot clear its cache, which answers the first read after each
    # change with the screen from before it; the reader must notice and read again.
    options = UiAutomationOptions(sdk_level=33, stale_reads=1)
    checked, failed = play_oracle(list(TASKS), options, tmp_path / "u2")
    assert checked.stale == [] and checked.reads > 500
    stats = checked.device.screen.stats
    assert stats.unchanged_after_input > 0 and stats.changed_on_reread > 0
    assert failed == []  # every task, "Pro Expense" opened by its store name included


@pytest.mark.parametrize(
    ("options", "settled_by", "apps"),
    [
        (UiAutomationOptions(sdk_level=34, stale_reads=3), "cache_clears", 10),
        # Each settled by a server restart, which takes a while: fewer apps.
        (UiAutomationOptions(sdk_level=33, stale_reads=5), "changed_after_restart", 2),
    ],
)
def test_a_cache_the_reader_clears_or_outlasts_never_shows_an_old_screen(
    options: UiAutomationOptions, settled_by: str, apps: int, tmp_path: Path
) -> None:
    first_of_each_app: dict[str, Task] = {}
    for task in TASKS:
        first_of_each_app.setdefault(task.app, task)
    tasks = list(first_of_each_app.values())[:apps]
    assert len(tasks) == apps
    checked, failed = play_oracle(tasks, options, tmp_path)
    assert failed == [] and checked.stale == []
    stats = checked.device.screen.stats
    assert getattr(stats, settled_by) > 0
    if settled_by == "cache_clears":  # cleared before each read: never stale to begin with
        assert stats.changed_on_reread == 0 and stats.restarts == 0


def test_an_action_that_changes_nothing_is_confirmed_not_taken_for_stale() -> None:
    phone = Simulator()
    with AdbServer([phone], ui_automation=UiAutomationOptions(sdk_level=33)) as server:
        device = open_phone(server, "u2")
        before = device.dump_xml()
        device.tap(5, 1200)  # nothing there
        assert device.dump_xml() == before == phone.dump_xml()
        stats = device.screen.stats
        assert (stats.rereads, stats.restarts, stats.changed_after_restart) == (2, 1, 0)
        device.close()


# --- typing and the keyboard with either reader --------------------------------------------


@pytest.mark.parametrize("reader", ["dump", "u2"])
def test_typing_switches_keyboards_and_never_reaches_the_shell(reader: str) -> None:
    phone = Simulator(state={"permission_prompts": []})
    with AdbServer([phone]) as server:
        device = open_phone(server, reader)
        device.open_app("Messages")
        xml = device.dump_xml()
        node = next(n for n in Screen.parse(xml).elements if n.label == "Start chat")
        device.tap(*node.center)
        text = "$(reboot); `id` && rm -rf / | 100%s — Zoë 李雷"
        device.type_text(text)  # reads the field back: raises if the text went astray
        assert device.shell(["settings", "get", "secure", "default_input_method"]).stdout != (
            "com.android.adbkeyboard/.AdbIME\n"
        )
        files = server.session(phone.serial).files.paths()
        assert not any("reboot" in path or "rf" in path for path in files)
        assert device.screen.name == reader
        device.close()


# --- a server that is missing or breaks ------------------------------------------------------


def test_auto_reads_with_dump_when_the_server_cannot_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(simulator.adbd.app_process, "U2_JAR_VERSIONS", {})  # a jar it cannot run
    phone = Simulator()
    notices: list[str] = []
    with AdbServer([phone]) as server:
        device = open_phone(server, "auto", notice=notices.append)
        assert device.screen.name == "dump"
        assert device.dump_xml() == phone.dump_xml()
        with pytest.raises(ScreenReaderUnavailable, match=r"did not start.*has md5"):
            open_phone(server, "u2")
    assert len(notices) == 1
    assert notices[0].startswith("screen reader: the uiautomator2 server did not start on ")
    assert notices[0].endswith("; reading with uiautomator dump")


def test_auto_falls_back_to_dump_when_the_server_breaks_mid_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    phone = Simulator()
    notices: list[str] = []
    with AdbServer([phone]) as server:
        device = open_phone(server, "auto", notice=notices.append)
        assert device.screen.name == "u2" and device.dump_xml() == phone.dump_xml()
        # The server dies and cannot come back (its restart fails as an unknown jar would).
        monkeypatch.setattr(simulator.adbd.app_process, "U2_JAR_VERSIONS", {})
        running = server.session(phone.serial).app_process.running
        assert running is not None
        running.stopped.set()
        wait_until(lambda: server.session(phone.serial).app_process.running is None)
        device.open_app("Settings")
        assert device.dump_xml() == phone.dump_xml()  # read with dump, the server stopped
        assert device.screen.name == "dump"
        device.press_key("home")
        assert device.dump_xml() == phone.dump_xml()
    assert len(notices) == 1 and "reading with uiautomator dump from now on" in notices[0]


def test_a_screen_the_server_cannot_see_is_an_error_never_an_empty_screen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    phone = Simulator()
    with AdbServer([phone]) as server:
        device = open_phone(server, "u2", dump_timeout=0.3)

        def no_window() -> str:
            raise DeviceError("ERROR: null root node returned by UiTestAutomationBridge.")

        monkeypatch.setattr(phone, "dump_xml", no_window)
        with pytest.raises(ScreenReadError, match=r"gave no usable screen.*empty hierarchy"):
            device.dump_xml()
        device.close()


# --- the commands ------------------------------------------------------------------------------


@pytest.fixture
def served_phone() -> Iterator[tuple[Simulator, list[str]]]:
    phone = Simulator()
    with AdbServer([phone]) as server:
        host, port = server.address
        yield phone, ["--device", "adb", "--adb-host", host, "--adb-port", str(port)]


def test_elements_prints_a_phone_screen_alike_with_either_reader(
    served_phone: tuple[Simulator, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    phone, options = served_phone
    printed = {}
    for reader in ("u2", "dump", "auto"):
        assert main(["elements", *options, "--screen-reader", reader]) == 0
        printed[reader] = capsys.readouterr().out
    expected = Screen.parse(phone.dump_xml()).render() + "\n"
    assert printed == {"u2": expected, "dump": expected, "auto": expected}
    assert main(["elements", *options, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["app"] == phone.foreground_app()


def test_elements_reads_the_simulator_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["elements", "--device", "sim", "--sim-state", "wifi=off"]) == 0
    assert capsys.readouterr().out.startswith("app: com.google.android.apps.nexuslauncher")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ([], "give either XMLFILE or --device adb|sim"),
        (["screen.xml", "--device", "sim"], "give either XMLFILE or --device adb|sim"),
        (["screen.xml", "--serial", "x"], "--serial applies with --device only"),
        (["--device", "sim", "--screen-reader", "u2"], "--screen-reader applies to --device adb"),
        (["--device", "adb", "--screen-reader", "fast"], "invalid choice: 'fast'"),
    ],
)
def test_elements_refuses_unclear_requests_in_one_line(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["elements", *arguments]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_bench_device_times_both_readers_and_counts_what_kept_them_fresh(
    capsys: pytest.CaptureFixture[str],
) -> None:
    arguments = ["bench", "device", "--reads", "3", "--inputs", "4", "--json"]
    assert main([*arguments, "--sdk-level", "33", "--stale-reads", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [timing["reader"] for timing in report["readers"]] == ["dump", "u2"]
    dump, u2 = report["readers"]
    for timing in (dump, u2):
        assert timing["error"] is None and timing["reads"] == 3 and timing["inputs"] == 4
        assert timing["read_ms_median"] > 0 and timing["after_input_ms_median"] > 0
    assert u2["stats"]["unchanged_after_input"] == 4 and u2["stats"]["changed_on_reread"] == 4
    assert dump["stats"]["reads"] == 1 + 3 + 4
    assert report["read_speedup"] > 0 and report["stale_reads"] == 1


def test_bench_device_refuses_bad_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "device", "--readers", "dump,fast"]) == 2
    assert "unknown reader 'fast'" in capsys.readouterr().err
    assert main(["bench", "device", "--device", "adb", "--stale-reads", "2"]) == 2
    assert "apply to --device sim" in capsys.readouterr().err


def test_bench_device_reads_a_phone_on_an_adb_server(
    served_phone: tuple[Simulator, list[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    _, options = served_phone  # the simulator's ADB server stands in for a phone's
    arguments = ["bench", "device", *options, "--readers", "auto", "--reads", "2", "--inputs", "2"]
    assert main([*arguments, "--settle", "0", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["target"] == "a phone over ADB" and report["serial"] == "emulator-5554"
    (auto,) = report["readers"]
    assert (auto["reader"], auto["answered_by"], auto["error"]) == ("auto", "u2", None)
    assert report["read_speedup"] is None  # one reader: nothing to compare


def test_sim_adb_server_refuses_a_negative_cache_lag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "adb-server", "--port", "0", "--stale-reads", "-1"]) == 2
    assert capsys.readouterr().err == "error: --stale-reads must be 0 or more, got -1\n"
