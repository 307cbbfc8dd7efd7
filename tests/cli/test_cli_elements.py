"""`phone-agent elements XMLFILE [--json]`: the text the model sees, JSON, and clean failures."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from agent.cli import main
from tests.support.paths import CORPUS_DIR, REPO_ROOT

SCREEN = REPO_ROOT / "fixtures" / "screens" / "settings_internet.xml"
EXPECTED_TEXT = """\
app: com.android.settings, keyboard: hidden
[1] button "Navigate up"
[2] text "Internet"
[3] list "recycler view" scrollable
[4] switch "Wi-Fi" off
[5] button "Saved networks, 2 networks"
[6] button "Non-carrier data usage" disabled
"""


def test_text_is_the_element_list_the_model_sees(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["elements", str(SCREEN)]) == 0
    captured = capsys.readouterr()
    assert captured.out == EXPECTED_TEXT
    assert captured.err == ""


def test_json_has_the_documented_shape(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["elements", str(SCREEN), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["app"] == "com.android.settings"
    assert data["keyboard"] is False
    assert isinstance(data["signature"], str) and data["signature"]
    assert [e["index"] for e in data["elements"]] == [1, 2, 3, 4, 5, 6]
    wifi = data["elements"][3]
    assert list(wifi) == [
        "index", "label", "role", "checked", "enabled", "focused", "selected", "password",
        "scrollable", "bounds", "center", "package", "resource_id",
    ]  # fmt: skip
    assert (wifi["label"], wifi["role"], wifi["checked"]) == ("Wi-Fi", "switch", False)
    assert wifi["bounds"] == [0, 300, 1080, 480] and wifi["center"] == [955, 390]
    assert data["elements"][5]["enabled"] is False
    assert data["elements"][2]["scrollable"] is True


def test_standard_input_is_read_with_a_dash(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SCREEN.read_bytes())))
    assert main(["elements", "-"]) == 0
    assert capsys.readouterr().out == EXPECTED_TEXT


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"ERROR: could not get idle state.\n", "no <hierarchy> element"),
        (b'<hierarchy rotation="0"><node text="', "cut short"),
    ],
)
def test_bad_file_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    bad = tmp_path / "dump.xml"
    bad.write_bytes(content)
    assert main(["elements", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("error: ")
    assert message in captured.err and "dump.xml" in captured.err


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["elements", str(tmp_path / "absent.xml")]) == 2
    assert capsys.readouterr().err.startswith("error: cannot read ")


def test_installed_command_refuses_a_transcript_without_a_traceback(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("phone-agent")
    if not script.exists():
        pytest.skip("the phone-agent console script is not installed beside this Python")
    transcript = CORPUS_DIR / "broken" / "B05_cli_transcript_20_inline_dumps.txt"
    if not transcript.exists():
        transcript = tmp_path / "two.xml"
        transcript.write_text(SCREEN.read_text(encoding="utf-8") * 2, encoding="utf-8")
    result = subprocess.run(
        [str(script), "elements", str(transcript)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "uiautomator dumps; give one dump per file" in result.stderr
    assert "Traceback" not in result.stderr
