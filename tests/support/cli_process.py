"""`phone-agent` as a separate process, for tests of what a user sees from the shell."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from serving.launcher import ServerRecord
from tests.support.paths import REPO_ROOT


def run_cli(
    *args: str, env: dict[str, str], timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agent", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO_ROOT,
        timeout=timeout,
        check=False,
    )


@dataclass(frozen=True)
class DetachedServer:
    """A server `serve --detach` left running: where it answers, what `serve --stop --port`
    needs, and the environment (its cache) later commands must share with it."""

    base_url: str
    port: int
    env: dict[str, str]
    record: ServerRecord


def serve_detached(*options: str, cache: Path, timeout: float = 900) -> DetachedServer:
    """`phone-agent serve OPTIONS --port P --detach`, with `cache` as its cache."""
    from serving import launcher

    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    port = launcher.free_port()
    started = run_cli("serve", *options, "--port", str(port), "--detach", env=env, timeout=timeout)
    assert started.returncode == 0, started.stderr[-3000:]
    record_file = cache / "phone-agent" / "serve" / f"server-{port}.json"
    return DetachedServer(
        base_url=started.stdout.strip().splitlines()[-1],
        port=port,
        env=env,
        record=ServerRecord.model_validate_json(record_file.read_text()),
    )
