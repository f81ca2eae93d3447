"""The live pipeline's stream processors: thin adapters around :mod:`tablewatch.rules`."""
