"""Every command reads its values and reports bad input the same way, whatever it drives;
the commands that ask a model server take the same options and make the same client of them."""

from __future__ import annotations

import pytest

from agent.cli import build_parser, main
from agent.commands.model_server import model_client_settings

SERVER_OPTIONS = [
    "--base-url",
    "http://127.0.0.1:9/v1",
    "--model",
    "spark",
    "--thinking",
    "on",
    "--think-budget",
    "0",
    "--tool-choice",
    "required",
    "--temperature",
    "0",
    "--top-p",
    "0.5",
    "--timeout",
    "30",
]


@pytest.mark.parametrize(
    "command",
    [
        ["run", "Turn on Wi-Fi", "--max-steps", "0"],
        ["eval", "--runs", "0"],
        ["serve", "--max-num-seqs", "0"],
        ["bench", "serving", "--runs", "0"],
    ],
)
def test_a_count_below_one_is_the_same_usage_error_in_every_package(
    command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert err.rstrip().endswith(f"argument {command[-2]}: must be at least 1, got '0'")


@pytest.mark.parametrize(
    "command", [["run", "Turn on Wi-Fi"], ["eval"], ["bench", "step", "--thinking", "on"]]
)
def test_the_model_server_options_make_the_same_client_for_every_command(
    command: list[str],
) -> None:
    settings = model_client_settings(build_parser().parse_args([*command, *SERVER_OPTIONS]))
    assert settings.base_url == "http://127.0.0.1:9/v1" and settings.model == "spark"
    assert settings.thinking and settings.think_budget is None  # 0: no cap
    assert settings.tool_choice == "required" and settings.top_p == 0.5
    assert settings.temperature == 0 and settings.timeout_s == 30


def test_eval_refuses_a_temperature_no_request_could_carry(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["eval", "--temperature", "nan"]) == 2
    assert "argument --temperature: not a finite number: 'nan'" in capsys.readouterr().err
