"""``verify --kafka`` held against the record kept outside the store: the chain recomputed
from the topic must have each signed position's hash, and reach the last of them."""

from __future__ import annotations

from tablewatch.integrity.verify import ExternalAnchor, RecomputedLink, verify_recomputed

LINKS = [RecomputedLink(p, f"{p:064x}", 0, p - 1, p, 1_000 * p) for p in range(1, 6)]
STORED = {link.position: (link.hash, 0, link.offset) for link in LINKS}


def test_the_signed_positions_of_the_outside_record_hold() -> None:
    anchors = [ExternalAnchor(3, f"{3:064x}", "m:1"), ExternalAnchor(5, f"{5:064x}", "m:2")]
    report = verify_recomputed("T", LINKS, STORED, anchors=anchors)
    assert not report.broken and report.anchors == 2


def test_a_signed_hash_the_topic_does_not_give_is_broken() -> None:
    report = verify_recomputed("T", LINKS, STORED, anchors=[ExternalAnchor(3, "ab" * 32, "m:1")])
    assert report.broken
    assert "is not the one signed outside the store (m:1)" in report.summary()


def test_a_chain_shorter_than_the_outside_record_is_broken() -> None:
    report = verify_recomputed("T", LINKS, STORED, anchors=[ExternalAnchor(9, "cd" * 32, "m:3")])
    assert report.broken
    assert "signed outside the store up to position 9 (m:3) but the topic ends at 5" in (
        report.summary()
    )
