"""``python -m tablewatch.healthcheck URL``: exit 0 when ``URL`` answers 200, else 1.

For container health checks: the runtime image has no curl or wget, and this imports
nothing but the standard library (a check every few seconds must stay cheap). The
reason of a failure is printed on standard error in one line.
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request

TIMEOUT_S = 3.0


def check(url: str, timeout: float = TIMEOUT_S) -> str | None:
    """``None`` when ``url`` answers 200, else why not."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as reply:
            status = int(reply.status)
    except urllib.error.HTTPError as exc:
        return f"{url}: HTTP {exc.code}"
    except (OSError, ValueError) as exc:
        return f"{url}: {exc}"
    return None if status == 200 else f"{url}: HTTP {status}"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tablewatch.healthcheck URL", file=sys.stderr)
        return 2
    problem = check(argv[0])
    if problem is not None:
        print(f"unhealthy: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
