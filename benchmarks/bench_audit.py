"""Benchmark ``tablewatch audit``: events/s and rounds/s, against decoding the same file.

    python benchmarks/bench_audit.py [--events-file F] [--config C] [--jobs 1 2]
                                     [--repeat 3] [--json] [--profile N] [--pure]

Without ``--events-file`` the simulated floor of the "audit throughput" issue
(``tablewatch simulate --games let_it_ride,four_card_poker --tables 12 --rounds 20000
--seed 1 --error-rate 0.05``, about 1.08 M events) is made once and kept in
``.cache/bench/``. Measured in the same run, each in a fresh process so that
every run pays for the lookup tables it builds on first use (the interpreter's
start and the imports are not counted):

- decode only: read the file, decode and validate every line;
- the audit command (``--format json``, output to /dev/null) with each ``--jobs``,
  on the compiled rules engine when its build is current (``tablewatch.native``);
- with ``--pure``, also a one-process audit on the pure-Python rules.

Every figure is the best of ``--repeat`` runs (``time.perf_counter``), the
modes measured in turn (decode, audit, audit --jobs 2, decode, ...).
``--profile N`` also prints the N costliest functions of a one-process audit
(cProfile, own time; the profiler slows calls down, so read it as shares).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import json
import os
import pstats
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):  # run as a script from a checkout: make the repo importable
    sys.path.insert(0, str(ROOT))

CACHE = ROOT / ".cache" / "bench"
SIMULATE = [  # the first two games: the floor of the published figures
    *("--games", "let_it_ride,four_card_poker", "--tables", "12", "--rounds", "20000"),
    *("--seed", "1", "--error-rate", "0.05"),
]


def ensure_floor() -> tuple[Path, Path]:
    """The cached simulated floor: (events file, configuration); made if missing."""
    events, config = CACHE / "events.jsonl", CACHE / "tables.yaml"
    if not (events.exists() and config.exists()):
        print(f"making {events} (once, about half a minute) ...", file=sys.stderr)
        command = [sys.executable, "-m", "tablewatch.cli", "simulate", *SIMULATE]
        subprocess.run([*command, "--out", str(CACHE)], check=True, cwd=ROOT)
    return events, config


# ---- one measurement, in a child process -------------------------------------


@contextlib.contextmanager
def quiet(stderr_to: Path) -> Iterator[None]:
    """stdout to /dev/null and stderr to a file, at the descriptor level."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(os.devnull, "wb") as null, stderr_to.open("wb") as err:
        os.dup2(null.fileno(), 1)
        os.dup2(err.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def child(mode: str, events: Path, config: Path, jobs: int, profile: int) -> dict[str, Any]:
    from tablewatch import native

    native.activate()  # before the rules are imported, as the tablewatch command does
    from tablewatch.commands.audit import audit
    from tablewatch.ingest.files import read_blocks

    if mode == "decode":
        count = rejected = 0
        start = time.perf_counter()
        for block in read_blocks([events]):
            count += len(block.decoded.events)
            rejected += sum(1 for _, rejection in block.decoded.failed if rejection)
        return {"seconds": time.perf_counter() - start, "events": count, "rejected": rejected}
    args = [str(events), "--config", str(config), "--format", "json", "--jobs", str(jobs)]
    profiler = cProfile.Profile() if profile else None
    with tempfile.TemporaryDirectory() as tmp:
        summary = Path(tmp) / "stderr.txt"
        with quiet(summary):
            start = time.perf_counter()
            if profiler:
                profiler.enable()
            with contextlib.suppress(SystemExit):  # its exit code: findings or not
                audit.main(args, standalone_mode=False)
            if profiler:
                profiler.disable()
            seconds = time.perf_counter() - start
        text = " ".join(summary.read_text().split())
    found = re.search(r"([\d,]+) events .* ([\d,]+) rounds, ([\d,]+) findings", text)
    if found is None:
        raise RuntimeError(f"no summary from the audit: {text[-500:]}")
    events_n, rounds, findings = (int(group.replace(",", "")) for group in found.groups())
    out: dict[str, Any] = {
        "seconds": seconds,
        "events": events_n,
        "rounds": rounds,
        "findings": findings,
        "compiled": native.STATUS.active,
    }
    if profiler:
        stats = pstats.Stats(profiler)
        rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)  # type: ignore[attr-defined]
        out["profile"] = [
            {
                "function": f"{Path(file).name}:{line}({name})" if line else name,
                "calls": calls,
                "own_s": round(own, 3),
                "cumulative_s": round(cumulative, 3),
            }
            for (file, line, name), (_, calls, own, cumulative, _) in rows[:profile]
        ]
    return out


def measure(
    mode: str, events: Path, config: Path, jobs: int, profile: int = 0, pure: bool = False
) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", mode, str(events), str(config), str(jobs)]
    env = {**os.environ, "TABLEWATCH_PURE_PYTHON": "1"} if pure else None
    done = subprocess.run(
        [*command, str(profile)], check=True, capture_output=True, text=True, env=env
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def best_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    best = dict(min(runs, key=lambda run: run["seconds"]))
    best["runs_s"] = [round(run["seconds"], 3) for run in runs]
    return best


# ---- the report ------------------------------------------------------------------


def run(
    events: Path, config: Path, jobs: Sequence[int], repeat: int, pure: bool = False
) -> dict[str, Any]:
    # Interleaved (decode, audit with each --jobs, then again): the machine's speed
    # drifts, and measuring each mode in its own minutes skewed the ratios by up to 40%.
    decodes: list[dict[str, Any]] = []
    audits: dict[int, list[dict[str, Any]]] = {n: [] for n in jobs}
    pure_runs: list[dict[str, Any]] = []
    for _ in range(repeat):
        decodes.append(measure("decode", events, config, 1))
        for n in jobs:
            audits[n].append(measure("audit", events, config, n))
        if pure:
            pure_runs.append(measure("audit", events, config, 1, pure=True))
    decode = best_of(decodes)
    results: dict[str, Any] = {
        "events_file": str(events),
        "bytes": events.stat().st_size,
        "cores": os.cpu_count(),
        "repeat": repeat,
        "decode": decode | {"events_per_s": decode["events"] / decode["seconds"]},
        "audit": {},
    }
    rows = {str(n): audits[n] for n in jobs} | ({"pure": pure_runs} if pure else {})
    one: float | None = None
    for name, runs in rows.items():
        audit = best_of(runs)
        audit["events_per_s"] = audit["events"] / audit["seconds"]
        audit["rounds_per_s"] = audit["rounds"] / audit["seconds"]
        audit["x_decode"] = audit["seconds"] / decode["seconds"]
        if name == "1":
            one = audit["seconds"]
        if one is not None and name != "pure":
            audit["speed_up"] = one / audit["seconds"]
        results["audit"][name] = audit
    return results


def print_report(results: dict[str, Any]) -> None:
    decode = results["decode"]
    print(
        f"{results['events_file']}: {decode['events']:,} events, "
        f"{results['bytes'] / 1e6:,.1f} MB; {results['cores']} cores; "
        f"best of {results['repeat']} (time.perf_counter)"
    )
    print(f"  {'':22} {'seconds':>8} {'events/s':>10} {'rounds/s':>9} {'x decode':>9}")
    print(f"  {'decode only':22} {decode['seconds']:8.2f} {decode['events_per_s']:10,.0f}")
    for jobs, audit in results["audit"].items():
        name = {"1": "audit, 1 process", "pure": "audit, 1, pure Python"}.get(
            jobs, f"audit, --jobs {jobs}"
        )
        speed_up = (
            f"  speed-up x{audit['speed_up']:.2f}" if jobs != "1" and "speed_up" in audit else ""
        )
        print(
            f"  {name:22} {audit['seconds']:8.2f} {audit['events_per_s']:10,.0f} "
            f"{audit['rounds_per_s']:9,.0f} {audit['x_decode']:9.2f}{speed_up}"
        )
    compiled = {row["compiled"] for key, row in results["audit"].items() if key != "pure"}
    engine = "compiled (tablewatch.native)" if compiled == {True} else "pure Python"
    print(f"  rules engine: {engine}")
    rows = results.get("profile")
    if rows:
        print("profile of a one-process audit (cProfile, by own time):")
        for row in rows:
            print(
                f"  {row['own_s']:7.3f} s own {row['cumulative_s']:7.3f} s cum "
                f"{row['calls']:>9,}  {row['function']}"
            )


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--child"]:
        mode, events_arg, config_arg, jobs, profile = argv[1:6]
        result = child(mode, Path(events_arg), Path(config_arg), int(jobs), int(profile))
        print(json.dumps(result))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events-file", type=Path, help="JSON Lines (default: simulated, cached)")
    parser.add_argument("--config", type=Path, help="default: tables.yaml beside the events")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="default: 1 2")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each, best kept")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="top N functions")
    parser.add_argument(
        "--pure", action="store_true", help="also a one-process audit on the pure-Python rules"
    )
    args = parser.parse_args(argv)
    if args.events_file is None:
        events, config = ensure_floor()
    else:
        events, config = args.events_file, args.config or args.events_file.with_name("tables.yaml")
    results = run(events, config, args.jobs, args.repeat, args.pure)
    if args.profile:
        results["profile"] = measure("audit", events, config, 1, args.profile)["profile"]
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
