"""Casework: every finding worked to a disposition (``docs/casework.md``).

- :mod:`.model`: the states, the commands and :func:`~.model.decide` (pure);
- :mod:`.dispositions`: the configured list a case is closed with;
- :mod:`.wire`: request bodies to commands, cases and steps to JSON;
- :mod:`.desk`: :class:`~.desk.CaseDesk`, the one place a step is decided and written;
- :mod:`.reads`: the queue and a case with its history, in SQL.
"""
