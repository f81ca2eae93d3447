"""Numbered SQL migrations (``NNNN_<name>.sql``), applied in order by ``store.migrate``."""
