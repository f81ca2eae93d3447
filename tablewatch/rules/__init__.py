"""The pure domain: cards, hands, pay tables, events, rounds, settlement, checks."""
