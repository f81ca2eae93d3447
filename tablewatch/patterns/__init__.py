"""Patterns no single round shows: what only many judged rounds together reveal.

Every check of :mod:`tablewatch.rules` judges one round (or one table's
sequence of events). The folds of this package read the judged rounds one after
another (:class:`tablewatch.rules.round_result.RoundResult`, with its
settlement lines and findings) and report a :class:`~tablewatch.patterns.finding.PatternFinding`
when a statistic over many rounds passes its threshold: a table holding out of
its band for a shift, a progressive meter moving at the wrong rate, a dealer
erring more often than the floor or in one seat's favour, a player deciding
as if he saw hidden cards.

Each fold is pure (no I/O, no clock): ``feed(round) -> list[PatternFinding]``,
so the same rounds in the same order give the same findings, live or in replay.
"""
