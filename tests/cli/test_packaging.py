"""What an installed phone-agent holds: the code and its data, the trained checkpoints that
`phone-agent serve --model NAME` finds, and none of the test data under fixtures/."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.paths import REPO_ROOT

SOURCES = ("agent", "devices", "simulator", "serving", "evals", "fixtures")
TEST_DATA = ("fixtures/replies/", "fixtures/screens/", "fixtures/androidworld/")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built from a copy of the checkout, so the build leaves nothing in it."""
    pytest.importorskip("setuptools")
    source = tmp_path_factory.mktemp("source")
    for name in SOURCES:
        shutil.copytree(
            REPO_ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO_ROOT / name, source / name)
    out = tmp_path_factory.mktemp("wheel")
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    built = subprocess.run(
        [*command, "--no-index", "--quiet", "-w", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (path,) = out.glob("*.whl")
    return path


@pytest.mark.slow
def test_the_wheel_ships_code_data_and_checkpoints_but_no_test_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert not [name for name in names if name.startswith(TEST_DATA)]
    for data in (
        "serving/chat_template.jinja",
        "serving/install.sh",
        "serving/quantization/int4_kernel.cpp",
        "serving/quantization/int8_kernel.cpp",
        "agent/py.typed",
        "agent/commands/serve.py",
        "simulator/tasks/phrasings/clock.json",
        "evals/goals/others_words.jsonl",  # the test split's goals: `eval --split test`
        "evals/goals/others_words_validation.jsonl",  # the validation split's
    ):
        assert data in names
    bundled = REPO_ROOT / "fixtures" / "models"
    shipped = {
        path.relative_to(REPO_ROOT).as_posix()
        for path in bundled.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    assert shipped <= names, f"not installed: {sorted(shipped - names)}"


@pytest.mark.slow
def test_serve_finds_a_bundled_checkpoint_with_its_weights_once_installed(
    wheel: Path, tmp_path: Path
) -> None:
    models = sorted(
        path.parent.name for path in (REPO_ROOT / "fixtures" / "models").glob("*/config.json")
    )
    if not models:
        pytest.skip("no trained checkpoint in fixtures/models")
    installed = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(installed)
    script = (
        "import sys\n"
        "from serving.checkpoint import bundled_checkpoint\n"
        "path = bundled_checkpoint(sys.argv[1])\n"
        "print(path)\n"
        "print(*sorted(p.name for p in path.iterdir()))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", script, models[0]],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(installed), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert found.returncode == 0, found.stderr[-2000:]
    where, files = found.stdout.splitlines()
    assert Path(where) == installed / "fixtures" / "models" / models[0]
    expected = {path.name for path in (REPO_ROOT / "fixtures" / "models" / models[0]).iterdir()}
    assert set(files.split()) == expected
