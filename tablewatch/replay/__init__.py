"""Replay: recorded events judged again by the rules engine, and compared with the live findings.

One module per event source (``files``, ``store_source``, ``kafka_source``), all folded
through the same :class:`~tablewatch.rules.audit.Auditor` as the worker and
``tablewatch audit``; ``parallel`` shares an audit of files among processes; ``run``
records a replay in the store, ``diff`` compares it with the live findings, ``runs``
reads the recorded runs. See ``docs/replay.md``.
"""
