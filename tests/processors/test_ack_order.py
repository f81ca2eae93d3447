"""Acks reach Faust in offset order per partition, never past a message still in work."""

from __future__ import annotations

from tablewatch.processors.ack_order import InOrderAcks


def test_acks_wait_for_every_earlier_message_of_the_partition() -> None:
    acked: list[str] = []
    acks: InOrderAcks[str] = InOrderAcks(acked.append)
    t = {
        name: acks.track(p, o, name)
        for name, p, o in [("a0", 0, 0), ("a1", 0, 1), ("a2", 0, 2), ("b0", 1, 0), ("b1", 1, 1)]
    }
    assert acks.release([t["a1"], t["a2"], t["b1"]]) == 0  # a0 and b0 still in work
    assert acked == []
    assert acks.release([t["a0"]]) == 3
    assert acked == ["a0", "a1", "a2"]
    assert acks.waiting() == 2
    acks.release([t["b0"]])
    assert acked == ["a0", "a1", "a2", "b0", "b1"]
    assert acks.waiting() == 0
