"""Rare hands on demand (``--jackpot-rate``): jackpots, Envy Bonuses, payout limits."""

from __future__ import annotations

import random

from tablewatch.rules.cards import Card, parse_cards


def rare_let_it_ride(rng: random.Random, seat: int) -> dict[str, list[Card]]:
    """A mini-royal (spades: the meter), a royal flush with the community, or a straight flush."""
    suit = rng.choice("shdc")
    kind = rng.random()
    if kind < 0.45:
        return {f"seat:{seat}": list(parse_cards([f"A{suit}", f"K{suit}", f"Q{suit}"]))}
    if kind < 0.7:
        return {
            f"seat:{seat}": list(parse_cards([f"A{suit}", f"K{suit}", f"Q{suit}"])),
            "community": list(parse_cards([f"J{suit}", f"T{suit}"])),
        }
    top = rng.randint(5, 12)
    ranks = "23456789TJQKA"
    run = [f"{ranks[top - i]}{suit}" for i in range(5)]
    return {f"seat:{seat}": list(parse_cards(run[:3])), "community": list(parse_cards(run[3:]))}


def rare_four_card_poker(rng: random.Random, seat: int) -> dict[str, list[Card]]:
    """Four aces (the meter), another four of a kind, or a straight flush."""
    kind = rng.random()
    if kind < 0.35:
        return {f"seat:{seat}": list(parse_cards(["Ah", "Ad", "Ac", "As"]))}
    ranks = "23456789TJQK"
    if kind < 0.7:
        rank = rng.choice(ranks)
        return {f"seat:{seat}": list(parse_cards([rank + s for s in "hdcs"]))}
    suit = rng.choice("shdc")
    top = rng.randint(3, 12)
    all_ranks = "23456789TJQKA"
    return {f"seat:{seat}": list(parse_cards([f"{all_ranks[top - i]}{suit}" for i in range(4)]))}
