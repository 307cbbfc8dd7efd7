"""`phone-agent report` and `eval --html`: one offline HTML file, checked in a real browser."""

from __future__ import annotations

import html.parser
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from agent.cli import main
from agent.loop import RunSettings, run_episode
from agent.model_client import DecisionRequest, ModelReply
from simulator import Simulator

HOSTILE = '<script>alert(1)</script><img src="http://example.com/x.png"> & "quotes"'


class HostileModel:
    """Replies with markup in every field the report shows, then taps the first element."""

    def decide(self, request: DecisionRequest) -> ModelReply:
        return ModelReply(
            content=HOSTILE,
            reasoning=HOSTILE,
            tool_calls=[
                {"id": "1", "type": "function",
                 "function": {"name": "tap", "arguments": '{"index": 1}'}},
            ],
        )  # fmt: skip


class TagCollector(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.sources: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.sources += [v or "" for k, v in attrs if k in ("src", "href") and v]


def hostile_trajectory(tmp_path: Path) -> Path:
    path = tmp_path / "hostile.jsonl"
    run_episode(HOSTILE, Simulator(), HostileModel(), RunSettings(max_steps=2), path)
    return path


def test_report_escapes_model_text_and_loads_nothing(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    assert main(["report", str(hostile_trajectory(tmp_path)), "--html", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    collector = TagCollector()
    collector.feed(page)
    assert "script" not in collector.tags and "img" not in collector.tags
    assert all(source.startswith("#") for source in collector.sources)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "default-src 'none'" in page
    assert page.count("<svg") == 2 and page.count(' target"') == 2  # element [1] marked


def test_eval_html_has_the_summary_and_every_episode(tmp_path: Path) -> None:
    out = tmp_path / "eval.html"
    code = main(
        ["eval", "--policy", "faulty:undo-after-success", "--guards", "both",
         "--tasks", "SystemWifiTurnOn", "--run-dir", str(tmp_path / "run"), "--html", str(out)]
    )  # fmt: skip
    assert code == 0
    page = out.read_text(encoding="utf-8")
    assert "Guard effect" in page and page.count('class="episode"') == 2
    # the same tables as the terminal and the Markdown of `eval --guards both`
    assert "<th>turned into success</th>" in page and "<th>mean steps off → on</th>" in page
    assert "<th>model s/step p50</th><th>p90</th>" in page
    assert "<th>false completions</th><th>side effects</th><th>refused completions</th>" in page
    assert "<th>false completions off → on</th>" in page
    assert "self_undo" in page or "Wi-Fi is now on as asked" in page
    again = tmp_path / "again.html"
    assert main(["report", str(tmp_path / "run"), "--html", str(again)]) == 0
    assert again.read_text(encoding="utf-8").count('class="episode"') == 2


def test_report_of_nothing_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(tmp_path), "--html", str(tmp_path / "x.html")]) == 2
    assert "no trajectory found" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium is not installed")
def test_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    image = pytest.importorskip("PIL.Image", reason="Pillow reads the screenshot")
    out = tmp_path / "report.html"
    assert main(["report", str(hostile_trajectory(tmp_path)), "--html", str(out)]) == 0
    shot = tmp_path / "shot.png"
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={profile}", "--window-size=1000,1400",
             f"--screenshot={shot}", out.as_uri()],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
    with image.open(shot) as picture:
        gray = picture.convert("L")
        pixels = gray.tobytes()
    mean = sum(pixels) / len(pixels)
    variance = sum((p - mean) ** 2 for p in pixels) / len(pixels)
    assert variance > 100  # text, tables and drawn screens, not a blank page
    dark = sum(p < 128 for p in pixels) / len(pixels)
    assert 0.005 < dark < 0.5
