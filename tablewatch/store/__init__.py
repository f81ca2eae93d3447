"""The ClickHouse store: raw events, judged rounds, settlement lines and findings.

- :mod:`~tablewatch.store.client`: ``connect(dsn)`` (embedded chDB directory or server)
- :mod:`~tablewatch.store.migrate`: ``migrate(client)``, the numbered SQL of ``migrations/``
- :mod:`~tablewatch.store.rows`: events and outcomes to rows (pure); :mod:`.batch`
- :mod:`~tablewatch.store.writer`: ``StoreWriter`` batch inserts
- :mod:`~tablewatch.store.queries`: duplicate-free reads (``summary``, ``findings``,
  ``round_detail``)

Nothing is imported here, so that ``tablewatch.store.dsn`` and ``.sql_text`` stay
cheap to import (clickhouse-connect takes ~0.2 s): import the submodules.
See ``docs/store.md``.
"""
