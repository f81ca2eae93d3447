"""The variables' filters, as SQL fragments the panels share.

Each is a ``$__conditionalAll``: with the variable at "All" it is ``1=1`` (no filter),
else the condition with the selected values (``${name:singlequote}``: 'a','b'). A table's
pit and game come from the table directory (``tables_v``, written by the worker).
"""

from __future__ import annotations


def tables(column: str = "table_id") -> str:
    """The `table`, `pit` and `game` variables on a table id column."""
    return (
        f"$__conditionalAll({column} IN (${{table:singlequote}}), $table)"
        f" AND $__conditionalAll({column} IN (SELECT table_id FROM tables_v"
        f" WHERE pit IN (${{pit:singlequote}})), $pit)"
        f" AND $__conditionalAll({column} IN (SELECT table_id FROM tables_v"
        f" WHERE game IN (${{game:singlequote}})), $game)"
    )


def dealers(column: str = "dealer_id") -> str:
    """The `dealer` variable on a dealer id column."""
    return f"$__conditionalAll({column} IN (${{dealer:singlequote}}), $dealer)"
