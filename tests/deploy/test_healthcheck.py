"""``python -m tablewatch.healthcheck URL`` against a real local HTTP server."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tablewatch.healthcheck import check


class Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        status = 200 if self.path == "/health" else 503
        self.send_response(status)
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_healthy_is_exit_0(server: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tablewatch.healthcheck", f"{server}/health"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert (result.returncode, result.stderr) == (0, "")


def test_a_503_is_exit_1_with_the_status(server: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tablewatch.healthcheck", f"{server}/starting"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.strip() == f"unhealthy: {server}/starting: HTTP 503"


def test_nothing_listening_is_unhealthy() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    problem = check(f"http://127.0.0.1:{port}/health", timeout=2)
    assert problem is not None and problem.startswith(f"http://127.0.0.1:{port}/health: ")


def test_no_url_is_a_usage_error() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "tablewatch.healthcheck"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert result.returncode == 2 and "usage" in result.stderr
