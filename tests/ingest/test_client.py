"""The batching poster used by `tablewatch simulate --follow --post`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tablewatch.ingest.client import BatchPoster


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds


def poster(
    max_events: int = 3, max_delay: float = 0.2
) -> tuple[BatchPoster, list[list[bytes]], Clock]:
    posted: list[list[bytes]] = []
    clock = Clock()

    def post(url: str, events: Sequence[bytes]) -> dict[str, Any]:
        posted.append(list(events))
        return {"accepted": len(events), "duplicates": 0, "rejected": 0, "results": []}

    return (
        BatchPoster(
            "http://x/events",
            max_events=max_events,
            max_delay=max_delay,
            post=post,
            clock=clock,
            sleep=clock.sleep,
        ),
        posted,
        clock,
    )


def test_posts_when_full() -> None:
    p, posted, _ = poster(max_events=3)
    for i in range(7):
        p.add(b"%d" % i)
    assert posted == [[b"0", b"1", b"2"], [b"3", b"4", b"5"]]
    p.close()
    assert posted[-1] == [b"6"]
    assert (p.posts, p.accepted) == (3, 7)


def test_posts_when_the_oldest_event_waited_long_enough() -> None:
    p, posted, clock = poster(max_events=100, max_delay=0.2)
    p.add(b"a")
    p.wait(1.0)  # posts at 0.2 s, then sleeps the rest
    assert posted == [[b"a"]]
    assert clock.sleeps == [0.2, 0.8]
    p.add(b"b")
    clock.now += 0.25
    p.add(b"c")  # the buffer is overdue: posted at once
    assert posted[-1] == [b"b", b"c"]
    p.wait(0.1)
    assert len(posted) == 2
