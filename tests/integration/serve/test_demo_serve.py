"""`hallmon demo --serve` (what `make demo` runs): the sessions stream through, the dashboard's
URL is printed, `hallmon serve` answers on it with the demo's sessions, and Ctrl-C stops it all."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest

from tests.conftest import Services, pipeline_env
from tests.integration.serve.conftest import _cleanup, free_port

pytestmark = [pytest.mark.integration, pytest.mark.model]


def test_demo_prints_the_dashboard_url_and_serves_until_interrupted(
    services: Services, nli_model_dir: Path
) -> None:
    prefix = f"test-{uuid.uuid4().hex[:12]}."
    port = free_port()
    env = pipeline_env(
        services,
        prefix,
        nli_model_dir,
        HALLMON_FATIGUE__APP_ID=f"{prefix}fatigue",
        HALLMON_SERVE__PORT=str(port),
    )
    demo = subprocess.Popen(
        [sys.executable, "-m", "hallmon.cli", "demo", "--serve", "--pace-ms", "0"],
        env={**env, "COLUMNS": "200"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # Ctrl-C reaches the demo and its worker, as in a terminal
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(demo.stdout or []), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 240
        url = None
        while url is None and time.monotonic() < deadline and demo.poll() is None:
            found = re.search(r"Dashboard: (http://\S+/)", "".join(lines))
            url = found.group(1) if found else None
            time.sleep(0.5)
        assert url == f"http://127.0.0.1:{port}/", "".join(lines)[-3000:]
        for _ in range(60):  # the server starts right after the line is printed
            try:
                sessions = httpx.get(f"{url}sessions", timeout=10).json()
                break
            except httpx.TransportError:
                time.sleep(0.5)
        names = {s["session_id"].rsplit("-", 1)[0] for s in sessions["sessions"]}
        assert {"steady", "tired", "orders"} <= names
        assert "/static/app.js" in httpx.get(url, timeout=10).text
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGINT)
        try:
            code = demo.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(demo.pid, signal.SIGKILL)
            code = demo.wait()
        _cleanup(services, prefix, prefix.rstrip("."))
    assert code == 0, "".join(lines)[-3000:]
