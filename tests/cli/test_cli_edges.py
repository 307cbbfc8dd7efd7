"""The CLI at its edges: version, --debug anywhere, exit codes, closed or endless input, values
no request could carry, readers that go away, and the two ways to start it as a module."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.cli import main
from evals.scripted_model import ScriptedServer, call
from tests.support.paths import REPO_ROOT

SCREEN = REPO_ROOT / "fixtures" / "screens" / "settings_internet.xml"
DEV_ZERO = Path("/dev/zero")


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    return lines[0]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--version"], capsys)
    assert code == 0
    assert out.startswith("phone-agent ") and out.split()[1][0].isdigit()


def test_debug_after_the_command_shows_the_traceback_and_keeps_the_exit_code(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(["elements", "/no/such/dump.xml", "--debug"], capsys)
    assert code == 2
    assert "Traceback" in err and err.strip().endswith("No such file or directory")


@pytest.mark.parametrize(
    "args", [["--debug", "run"], ["run", "--debug"], ["--debug", "elements", "a", "b"]]
)
def test_usage_errors_exit_2_with_debug_too(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(args, capsys)
    assert code == 2
    assert err.strip().splitlines()[-1].startswith("error: phone-agent")


@pytest.mark.parametrize("command", ["parse-call", "elements"])
def test_a_closed_standard_input_is_a_usage_error(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", None)  # what Python makes of `<&-`
    code, _, err = run([command, "-"], capsys)
    assert code == 2
    assert one_line(err) == "error: standard input is closed; give a file"


@pytest.mark.skipif(not DEV_ZERO.exists(), reason="no /dev/zero here")
@pytest.mark.parametrize(("command", "cap"), [("parse-call", "16 MiB"), ("elements", "8 MiB")])
def test_endless_input_is_refused_after_the_cap(
    command: str, cap: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run([command, str(DEV_ZERO)], capsys)
    assert code == 2
    assert f"more than {cap}" in one_line(err)


def test_endless_standard_input_is_refused_after_the_cap(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    endless = io.BufferedReader(io.FileIO(os.open(os.devnull, os.O_RDONLY)))
    if DEV_ZERO.exists():
        endless = io.BufferedReader(io.FileIO(os.open(DEV_ZERO, os.O_RDONLY)))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(endless))
    code, _, err = run(["parse-call"], capsys)
    assert code == 2
    one_line(err)


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--timeout", "nan", "argument --timeout: not a finite number: 'nan'"),
        ("--timeout", "inf", "argument --timeout: not a finite number: 'inf'"),
        ("--temperature", "nan", "argument --temperature: not a finite number: 'nan'"),
        ("--top-p", "2", "argument --top-p: must be above 0 and at most 1, got '2'"),
        ("--adb-port", "99999", "argument --adb-port: a port is a number from 1 to 65535"),
        ("--adb-port", "0", "argument --adb-port: a port is a number from 1 to 65535"),
    ],
)
def test_values_no_request_could_carry_are_usage_errors(
    option: str, value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["run", "Turn on Wi-Fi", option, value], capsys)
    assert code == 2
    assert message in one_line(err)


def test_a_goal_that_is_not_utf8_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    # the shell's $'Turn on Wi-Fi \xff' reaches Python as a lone surrogate
    code, _, err = run(["run", "Turn on Wi-Fi \udcff"], capsys)
    assert code == 2
    assert "argument goal: not valid UTF-8 text" in one_line(err)


def test_a_goal_that_is_not_utf8_from_the_shell() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "agent", "run", b"Turn on Wi-Fi \xff"],
        capture_output=True,
        cwd=REPO_ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert b"not valid UTF-8 text" in done.stderr and b"Traceback" not in done.stderr


def test_a_trajectory_path_that_cannot_be_written_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    trajectory = not_a_folder / "run.jsonl"
    with ScriptedServer([call("task_complete", success=True)]) as server:
        code, _, err = run(
            [
                "run",
                "Turn on Wi-Fi",
                "--base-url",
                server.base_url,
                "--trajectory",
                str(trajectory),
            ],
            capsys,
        )
    assert code == 2
    assert one_line(err).startswith(f"error: run: cannot write the trajectory {trajectory}: ")


@pytest.mark.parametrize("module", ["agent", "agent.cli"])
def test_both_module_forms_give_the_same_exit_codes(module: str) -> None:
    """`python -m agent.cli` once ran a second copy of the CLI whose usage errors exited 1."""

    def started(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", module, *args],
            capture_output=True,
            text=True,
            cwd=REPO_ROOT,
            timeout=120,
            check=False,
        )

    blank = started("run", "   ")
    assert (blank.returncode, blank.stderr.strip()) == (2, "error: run: the goal is empty")
    listed = started("elements", str(SCREEN))
    assert listed.returncode == 0 and '[4] switch "Wi-Fi" off' in listed.stdout


@pytest.fixture
def reader_gone() -> Iterator[io.TextIOWrapper]:
    """Standard output whose reader has already left, as for `phone-agent ... | head -1` once
    head has its line."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    stream = io.TextIOWrapper(io.FileIO(write_end, "w"), write_through=False)
    yield stream
    stream.close()


def test_a_reader_that_left_does_not_change_the_exit_code(
    reader_gone: io.TextIOWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdout", reader_gone)
    assert main(["elements", str(SCREEN)]) == 0
    assert main(["elements", "/no/such/dump.xml"]) == 2


def test_eval_tables_to_a_reader_that_left_keep_the_exit_code(
    reader_gone: io.TextIOWrapper, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdout", reader_gone)
    args = ["eval", "--policy", "oracle", "--tasks", "SystemWifiTurnOn", "--run-dir"]
    assert main([*args, str(tmp_path / "run")]) == 0
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert report["summary"]["successes"] == 1


def test_eval_tables_in_a_file_are_not_cut_to_80_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["eval", "--policy", "oracle", "--tasks", "SystemWifiTurnOn", "--run-dir"]
    code, out, _ = run([*args, str(tmp_path / "run")], capsys)
    assert code == 0
    header = next(line for line in out.splitlines() if "policy" in line and "guards" in line)
    assert header.split("┃")[-2].strip() == "p90"  # the last column, on the header's line
    assert len(header) > 80


def test_listing_the_commands_loads_no_heavy_module() -> None:
    """`phone-agent --help` must start fast: it imports command modules, and none of them may
    load the simulator's apps, the ADB server, pydantic, rich, lxml, HTTP clients or torch."""
    probe = (
        "import sys, contextlib, io\n"
        "from agent.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['--help']) == 0\n"
        "print('\\n'.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=120,
        check=True,
    )
    heavy = ("simulator.device", "simulator.apps", "simulator.adbd.server", "pydantic", "rich",
             "lxml", "httpx", "openai", "torch", "numpy", "serving.bench.llamacpp")  # fmt: skip
    loaded = [name for name in done.stdout.split() if name.startswith(heavy)]
    assert loaded == []
