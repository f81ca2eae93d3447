"""The auditor pages' and API's paths of a table and a round, built and read back.

A ``table_id`` or a ``round_id`` may hold any printable character, a ``/`` among them
(docs/protocol.md). Every link the product writes (the pages, the alerts' mails, the
command line) writes each id as one path segment with every character but the unreserved
ones percent-encoded (:func:`id_segment`: ``PIT/1`` is ``PIT%2F1``). A server decodes
``%2F`` before it routes, so the routes with two ids take the rest of the path and read
the ids back from the path as it was sent (:func:`ids_from_raw_path`).
"""

from __future__ import annotations

from urllib.parse import quote, unquote

__all__ = ["id_segment", "ids_from_raw_path", "round_api_path", "round_path", "table_path"]


def id_segment(value: str) -> str:
    """``value`` as one path segment: ``/`` and every other reserved character encoded."""
    return quote(value, safe="")


def table_path(table_id: str) -> str:
    """The table's page: ``/tables/{table_id}``."""
    return f"/tables/{id_segment(table_id)}"


def round_path(table_id: str, round_id: str) -> str:
    """The round's page: ``/rounds/{table_id}/{round_id}``."""
    return f"/rounds/{id_segment(table_id)}/{id_segment(round_id)}"


def round_api_path(table_id: str, round_id: str) -> str:
    """The round's reconstruction as JSON: ``/api/v1/rounds/{table_id}/{round_id}``."""
    return f"/api/v1{round_path(table_id, round_id)}"


def ids_from_raw_path(raw_path: bytes | None, rest: str, count: int) -> tuple[str, ...] | None:
    """The ``count`` ids at the end of a path: ``rest`` is the route's last part as the
    server decoded it (``PIT/1/R/7``), ``raw_path`` the path as it was sent
    (``/rounds/PIT%2F1/R%2F7``; None when the server does not give it). The last ``count``
    segments of ``raw_path``, each percent-decoded, when they are ``rest`` once joined by
    ``/``; None when they are not (the path has another number of ids: an id's ``/`` was
    not written ``%2F``)."""
    if raw_path is None:  # no raw path: only ids without a '/' can be told apart
        parts = rest.split("/")
        return tuple(parts) if len(parts) == count and all(parts) else None
    segments = raw_path.split(b"?", 1)[0].decode("latin-1").split("/")
    if len(segments) < count + 1:
        return None
    ids = tuple(unquote(s) for s in segments[-count:])  # as the server decoded them
    return ids if all(ids) and "/".join(ids) == rest else None
