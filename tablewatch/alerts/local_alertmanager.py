"""A local Alertmanager as a child process, as ``deploy/alertmanager.sh`` starts one
(127.0.0.1 only, clustering off, configuration and data in a run dir): for ``tablewatch
live``, the tests and the benchmark, which each want one of their own on a free port."""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

BINARIES = ("prometheus-alertmanager", "alertmanager")


def binary() -> str:
    for name in BINARIES:
        found = shutil.which(name)
        if found:
            return found
    raise FileNotFoundError(
        "no Alertmanager on PATH (apt-get install prometheus-alertmanager; scripts/setup.sh does)"
    )


def check_config(path: Path) -> str:
    """``amtool check-config``'s output; CalledProcessError when it refuses the file."""
    amtool = shutil.which("amtool") or str(Path(binary()).with_name("amtool"))
    done = subprocess.run([amtool, "check-config", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, done.args, done.stdout, done.stderr)
    return done.stdout


class LocalAlertmanager:
    def __init__(self, port: int, run_dir: Path, *, new_session: bool = False) -> None:
        self.port = port
        self.run_dir = run_dir
        self.new_session = new_session  # a session of its own: a terminal's Ctrl-C not sent it
        self.url = f"http://127.0.0.1:{port}"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def config(self) -> Path:
        return self.run_dir / "alertmanager.yml"

    def start(self, config_text: str | None = None, timeout: float = 30) -> LocalAlertmanager:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "data").mkdir(exist_ok=True)
        if config_text is not None:
            self.config.write_text(config_text, encoding="utf-8")
        log = (self.run_dir / "alertmanager.log").open("ab")
        self.process = subprocess.Popen(
            [
                binary(), f"--config.file={self.config}",
                f"--storage.path={self.run_dir / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}", f"--web.external-url={self.url}",
                "--cluster.listen-address=", "--log.level=info",
            ],
            stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=self.new_session,
        )  # fmt: skip
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Alertmanager exited: see {self.run_dir / 'alertmanager.log'}")
            try:
                urllib.request.urlopen(self.url + "/-/ready", timeout=2).close()
                return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"Alertmanager not ready on {self.url} in {timeout:g} s")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> LocalAlertmanager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
