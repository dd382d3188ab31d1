"""`hallmon serve` refuses to expose an unauthenticated API; a worker's Prometheus port."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap

from typer.testing import CliRunner

from hallmon.cli import app


def test_a_non_loopback_bind_without_a_token_is_refused() -> None:
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0"], env={})
    assert result.exit_code == 2
    assert "HALLMON_SERVE__TOKEN" in result.output and "--no-auth" in result.output


def test_a_worker_serves_prometheus_metrics_on_its_port() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # A subprocess: exporters are installed once per process.
    code = textwrap.dedent(f"""
        import urllib.request
        from hallmon.topology.settings import OtelSettings
        from hallmon.workers.telemetry import Telemetry, configure_export
        assert configure_export(OtelSettings(prometheus_port={port}), "verifier")
        Telemetry("verifier").verdict("checked", 3, 1, 12.0)
        body = urllib.request.urlopen("http://127.0.0.1:{port}/metrics", timeout=5).read()
        print(body.decode())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "hallmon_verdicts_total{" in out.stdout and "hallmon_claims_total" in out.stdout
