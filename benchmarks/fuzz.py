"""The fuzzers of ``tests/fuzz`` at length, outside the test suite.

    python benchmarks/fuzz.py --examples 100000 [--seed 20260] [--only decode|http|query]
                              [--atheris-runs 200000] [--json figures.json]

``--examples`` inputs in all, shared among the targets by weight (the decoder's eight
targets 64 parts, ``POST /events`` 25, ``ReadOnlyReader.run`` 15), drawn by Hypothesis from
the same strategies and checked by the same properties as the suite's ``pytest -m fuzz``
(``tests/fuzz/``), from a fixed seed (``--seed``) rather than the suite's derandomised few
hundred. Printed per target: inputs run, crashes (inputs that broke a property: an
exception other than the documented rejections, a 500, a secret returned, a file
written, ...), outcomes, rejections counted by the shape of their reason, and seconds.
Exit status 1 on any crash (Hypothesis prints the smallest failing input), else 0.

Coverage-guided, with atheris (libFuzzer for Python; ``pip install atheris``: it ships
manylinux wheels for CPython 3.11 on x86-64, so no compiler is needed there; elsewhere it
builds from source and needs clang with libFuzzer): ``decode_event`` and ``decode_lines``
on the bytes libFuzzer mutates, the decoder's modules instrumented, seeded with valid
events and a dictionary of the protocol's tokens, checked by the same properties, for
``--atheris-runs`` inputs (0: skipped). It runs in a child process (libFuzzer owns the
process and exits at the end). Without atheris this part is skipped, and said so.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import traceback
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.fuzz.tally import Tally
    from tests.fuzz.targets import Target

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = f"{tempfile.gettempdir()}/tw-atheris-crash-"  # libFuzzer's name for what broke it
CHILD = "--atheris-child"
TOKENS = [
    '"v"', '"type"', '"event_id"', '"table_id"', '"seq"', '"ts"', '"round_id"', '"seat"',
    '"bet"', '"amount"', '"card"', '"to"', '"paid"', '"result"', '"reason"', '"deck_id"',
    '"wager"', '"settle"', '"decision"', '"card"', '"meter"', '"void"', "true", "null",
    '"2026-11-29T20:15:03.123Z"', "9007199254740992", "\\u0000", "\\ud800", "{", "}", "[", ":",
]  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=100_000, help="inputs in all")
    parser.add_argument("--seed", type=int, default=20260)
    parser.add_argument("--only", action="append", choices=["decode", "http", "query", "alerts"])
    parser.add_argument("--atheris-runs", type=int, default=200_000)
    parser.add_argument("--json", type=Path, help="write the figures there too")
    parser.add_argument("--top", type=int, default=8, help="reasons shown per target")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.fuzz.targets import alerts_targets, decoder_targets, http_targets, query_targets

    groups: dict[str, AbstractContextManager[list[Target]]] = {
        "decode": nullcontext(decoder_targets()),
        "http": http_targets(),
        "query": query_targets(),
        "alerts": alerts_targets(),
    }
    chosen = args.only or list(groups)
    started = time.monotonic()
    print(_machine(), flush=True)
    atheris = None
    if args.atheris_runs and "decode" in chosen:  # first: see _atheris
        atheris = _atheris(args.atheris_runs, args.seed)
    tallies: list[Tally] = []
    for name in chosen:
        with groups[name] as targets:
            tallies += _fuzz_group(targets, _shares(args.examples, chosen), args.seed)
    figures: dict[str, Any] = {"machine": _machine(), "seed": args.seed, "targets": []}
    for tally in tallies:
        figures["targets"].append(_report(tally, args.top))
    crashes = sum(t.crashes for t in tallies)
    if atheris is not None:
        _print_atheris(atheris)
        figures["atheris"] = atheris
        crashes += int(atheris.get("crashes", 0))
    inputs = sum(t.inputs for t in tallies) + int((atheris or {}).get("inputs", 0))
    seconds = time.monotonic() - started
    print(f"\nin all: {inputs:,} inputs, {crashes} crashes, {seconds:,.0f} s")
    figures.update(inputs=inputs, crashes=crashes, seconds=round(seconds, 1))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 1 if crashes else 0


def _shares(total: int, groups: list[str]) -> dict[str, int]:
    """``total`` inputs shared by weight among the targets of ``groups``."""
    from tests.fuzz.targets import (
        ALERTS_SHARE,
        HTTP_SHARE,
        QUERY_SHARE,
        RAW_SHARE,
        decoder_targets,
    )

    weights = {t.name: t.share for t in decoder_targets()} if "decode" in groups else {}
    if "http" in groups:
        weights["POST /events"] = HTTP_SHARE
        weights["POST /events: raw requests"] = RAW_SHARE
    if "query" in groups:
        weights["ReadOnlyReader.run"] = QUERY_SHARE
    if "alerts" in groups:
        weights["alerter and API: ack, webhook, listing"] = ALERTS_SHARE
    whole = sum(weights.values())
    return {name: max(1, round(total * weight / whole)) for name, weight in weights.items()}


def _fuzz_group(targets: list[Target], shares: dict[str, int], seed: int) -> list[Tally]:
    from tests.fuzz.tally import Tally
    from tests.fuzz.targets import run, settings_for

    tallies = []
    for target in targets:
        tally = Tally(target.name)
        examples = shares[target.name]
        print(f"\n== {target.name}: {examples:,} examples", flush=True)
        try:
            run(target, tally, settings_for(examples, derandomize=False), seed)
        except Exception as exc:
            failures = exc.exceptions if isinstance(exc, ExceptionGroup) else [exc]
            tally.crashes = len(failures)
            traceback.print_exception(exc)
        tally.stop()
        tallies.append(tally)
    return tallies


def _report(tally: Tally, top: int) -> dict[str, Any]:
    print(
        f"\n{tally.name}: {tally.inputs:,} inputs, {tally.crashes} crashes, "
        f"{tally.rejections:,} rejections, {tally.seconds:,.1f} s"
    )
    print("  outcomes: " + ", ".join(f"{k} {v:,}" for k, v in tally.outcomes.most_common()))
    for reason, count in tally.reasons.most_common(top):
        print(f"  {count:>8,}  {reason}")
    if len(tally.reasons) > top:
        print(f"  ({len(tally.reasons) - top} other kinds of reason)")
    return {
        "target": tally.name,
        "inputs": tally.inputs,
        "crashes": tally.crashes,
        "rejections": tally.rejections,
        "reason_kinds": len(tally.reasons),
        "top_reasons": dict(tally.reasons.most_common(top)),
        "outcomes": dict(tally.outcomes),
        "seconds": round(tally.seconds, 1),
    }


def _machine() -> str:
    versions = []
    for package in ("hypothesis", "atheris", "msgspec", "aiohttp", "chdb"):
        try:
            versions.append(f"{package} {importlib.metadata.version(package)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{package} absent")
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"{now}; {platform.machine()} {os.cpu_count()} cores; Python "
        f"{platform.python_version()}; " + ", ".join(versions)
    )


# ---- atheris --------------------------------------------------------------------------


def _atheris(runs: int, seed: int) -> dict[str, Any]:
    """libFuzzer in a child process, run before the rest: a child's peak memory as Linux
    counts it starts at its parent's (the embedded store's engine takes gigabytes), and
    libFuzzer would take that for its own and stop at its 2 GiB limit."""
    print(f"\n== atheris (coverage-guided): decode_event and decode_lines, {runs:,} runs")
    if importlib.util.find_spec("atheris") is None:
        print("  skipped: atheris is not installed (pip install atheris)")
        return {"target": "atheris: decoder", "skipped": "atheris is not installed"}
    from tests.fuzz.corpus import valid_raws

    with tempfile.TemporaryDirectory(prefix="tw-atheris-") as work:
        corpus = Path(work) / "corpus"
        corpus.mkdir()
        for i, raw in enumerate(valid_raws()[:64]):
            (corpus / f"valid-{i}").write_bytes(raw)
        tokens = Path(work) / "tokens.dict"
        tokens.write_text("".join(f"{json.dumps(t)}\n" for t in TOKENS))
        command = [sys.executable, __file__, CHILD, f"-runs={runs}", f"-seed={seed}"]
        command += [f"-dict={tokens}", "-max_len=4096", "-timeout=20", str(corpus)]
        command += [f"-artifact_prefix={ARTIFACTS}"]
        started = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)
        seconds = time.monotonic() - started
    output = done.stdout + done.stderr
    ran = re.findall(r"Done (\d+) runs in (\d+) second", output)
    coverage = re.findall(r"cov: (\d+) ft: (\d+)", output)
    crashed = done.returncode != 0
    if crashed:
        print(output[-6000:])
    progress = re.findall(r"^#(\d+)\s", output, re.MULTILINE)  # the last before a crash
    inputs = int(ran[-1][0]) if ran else int(progress[-1]) if progress else 0
    result = {
        "target": "atheris: decoder",
        "inputs": inputs,
        "crashes": 1 if crashed else 0,
        "seconds": round(seconds, 1),
        "coverage": {"edges": int(coverage[-1][0]), "features": int(coverage[-1][1])}
        if coverage
        else None,
        "exit": done.returncode,
    }
    _print_atheris(result)
    return result


def _print_atheris(result: dict[str, Any]) -> None:
    if "skipped" in result:
        print(f"\natheris: skipped ({result['skipped']})")
        return
    coverage = result["coverage"]
    edges = ""
    if coverage:
        edges = f", coverage {coverage['edges']} edges, {coverage['features']} features"
    print(
        f"\natheris: decoder: {result['inputs']:,} inputs, {result['crashes']} crashes, "
        f"{result['seconds']:,.1f} s{edges}"
    )
    if result["crashes"]:
        print(f"  the input that crashed it is in {ARTIFACTS}*")


def _atheris_child() -> None:
    """libFuzzer's process: instrument the decoder, then feed it what libFuzzer mutates."""
    atheris = importlib.import_module("atheris")  # untyped, and absent where it does not build
    sys.path.insert(0, str(ROOT))
    with atheris.instrument_imports(include=["tablewatch.rules.decode", "tablewatch.rules.events"]):
        import tablewatch.rules.decode
        import tablewatch.rules.events  # noqa: F401
    from tests.fuzz.decoder import check_event, check_lines
    from tests.fuzz.tally import Tally

    tally = Tally("atheris")

    def one_input(data: bytes) -> None:
        check_event(data, tally)
        check_lines(data.split(b"\n")[:16], tally)

    atheris.Setup([sys.argv[0], *sys.argv[2:]], one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == CHILD:
        _atheris_child()
    else:
        sys.exit(main())
