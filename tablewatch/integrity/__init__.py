"""Tamper evidence of the stored records: the per-table hash chain, signed checkpoints, verify.

- :mod:`.chain`: the hash of each stored event, linked to the one before it;
- :mod:`.keys`: Ed25519 key files, key ids, signing and checking signatures;
- :mod:`.checkpoints`: signed checkpoints (a table's chain hash at a position);
- :mod:`.verify`: a table's chain walked, its links and checkpoints checked;
- :mod:`.store_source`, :mod:`.kafka_source`: what ``tablewatch verify`` reads, from the
  store or from the events topic.

See "Tamper evidence" in ``docs/store.md``.
"""
