"""`open_app` with a name the phone does not know goes back to the model, which can correct it.

The phone's answer (with the names it suggests) reaches the model, the run goes on, and the
guards bound a model that keeps asking for apps that are not there. On the simulator and on the
simulator behind the real ADB protocol, driven by the agent's own model client over loopback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from devices.adb import AdbDevice
from devices.adb_apps import resolve_package
from devices.base import AppNotFound
from evals.pytest_plugin import AdbEndpoint
from evals.scripted_model import call, tap
from simulator import Simulator
from tests.support.loop_harness import run_scripted

TURN_ON_WIFI = "Turn on Wi-Fi"
TO_WIFI = (tap("Network & internet"), tap("Internet"), tap("Wi-Fi"))

START_STATE = {"wifi": False, "permission_prompts": []}
pytestmark = pytest.mark.sim_phone(state=START_STATE)


def phone() -> Simulator:
    return Simulator(state=START_STATE)


@pytest.fixture
def over_adb(sim_phone: Simulator, sim_adb_server: AdbEndpoint) -> tuple[Simulator, AdbDevice]:
    return sim_phone, sim_adb_server.device()


def test_a_misspelt_app_goes_back_to_the_model_with_the_suggestion(tmp_path: Path) -> None:
    device = phone()
    episode = run_scripted(
        TURN_ON_WIFI,
        device,
        [call("open_app", name="Setings"), call("open_app", name="Settings"), *TO_WIFI],
        tmp_path / "run.jsonl",
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 5)
    assert device.state["wifi"] is True
    failed = episode.steps[0].result
    assert failed.executed and failed.no_op
    assert failed.error == "no app named 'Setings' is installed; did you mean 'Settings'?"
    told = episode.server.chat_requests[1].user_text
    assert "open_app \"Setings\": no app named 'Setings' is installed; did you mean" in told
    assert episode.guard_kinds[0] == ["no_op"]  # counted like any action that did nothing


def test_a_model_that_insists_on_a_missing_app_is_stopped(tmp_path: Path) -> None:
    episode = run_scripted(
        TURN_ON_WIFI,
        phone(),
        lambda body: call("open_app", name="Snapchat"),
        tmp_path / "run.jsonl",
    )
    # not the 15-step budget: a no-op, then the same call again (a hint), then a stop
    assert (episode.result.stop_reason, episode.result.steps) == ("stuck", 3)
    assert episode.steps[0].result.error == "no app named 'Snapchat' is installed"
    assert episode.guard_kinds[1] == ["repeat", "escalation"]


def test_a_misspelt_app_over_adb_goes_back_to_the_model(
    over_adb: tuple[Simulator, AdbDevice], tmp_path: Path
) -> None:
    simulator, device = over_adb
    episode = run_scripted(
        TURN_ON_WIFI,
        device,
        [call("open_app", name="Setings"), call("open_app", name="Settings"), *TO_WIFI],
        tmp_path / "run.jsonl",
    )
    assert (episode.result.stop_reason, episode.result.steps) == ("completed", 5)
    assert simulator.state["wifi"] is True
    error = episode.steps[0].result.error
    assert error is not None and "did you mean com.android.settings" in error
    assert "did you mean com.android.settings" in episode.server.chat_requests[1].user_text


def test_unknown_apps_over_adb_are_recoverable_and_say_what_would_work(
    over_adb: tuple[Simulator, AdbDevice],
) -> None:
    _, device = over_adb
    with pytest.raises(AppNotFound, match=r"'Mesages'; did you mean com\.google\.android\.apps"):
        device.open_app("Mesages")
    with pytest.raises(AppNotFound, match=r"is not installed.*did you mean com\.android\.settings"):
        device.open_app("com.android.setings")
    with pytest.raises(AppNotFound, match=r"no installed app matches 'Snapchat'"):
        device.open_app("Snapchat")
    assert device.open_app("Messages") == "com.google.android.apps.messaging"  # still usable


def test_suggestions_follow_package_words_folders_and_known_labels() -> None:
    packages = {
        "com.android.settings": None,
        "com.android.vending": "/product/priv-app/Phonesky/Phonesky.apk",
        "com.google.android.gm": "/product/app/PrebuiltGmail/PrebuiltGmail.apk",
        "com.google.android.deskclock": None,
    }
    expected = {
        "Setings": "com.android.settings",
        "Gmial": "com.google.android.gm",  # the APK's folder
        "Clok": "com.google.android.deskclock",  # the label Clock, known to name deskclock
        "Plya Store": "com.android.vending",
    }
    for name, package in expected.items():
        with pytest.raises(AppNotFound, match=rf"did you mean {package}\?"):
            resolve_package(name, packages)
    with pytest.raises(
        AppNotFound, match=r"could be any of com\.example\.notes, org\.other\.notes"
    ):
        resolve_package("Notes", {"com.example.notes": None, "org.other.notes": None})
