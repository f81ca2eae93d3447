"""CSV cells a spreadsheet reads as text, never as a formula (OWASP's CSV injection rule).

Every CSV the product writes (the findings page's download, ``tablewatch findings`` and
``tablewatch rounds list --format csv``) passes each cell through :func:`csv_cell`:

- text (ids, messages, names, times: anything that came from outside) that begins with
  ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is written with a single quote
  ``'`` before it, so that Excel, LibreOffice and Google Sheets show it as text instead of
  running it (``=HYPERLINK(...)``, ``@SUM(...)``, ``-2+3``); the csv module then quotes
  the cell as CSV needs;
- a number of a numeric column (an ``int``: money in cents, a seat, a count) is written as
  it is, a negative one too (``-2500``): it is a number the program made, not text, and a
  quote would stop the spreadsheet adding it up.

A reader that wants the exact text back drops the leading ``'`` of a cell that begins
with ``'`` followed by one of those characters; the JSON and Parquet outputs are exact.
"""

from __future__ import annotations

from typing import Final

__all__ = ["FORMULA_START", "csv_cell"]

FORMULA_START: Final = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> str | int:
    """The cell for ``value``: an ``int`` as it is (``bool`` as ``true``/``false``), None
    as empty, anything else as text neutralised (module docstring)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return value
    text = str(value)
    return "'" + text if text.startswith(FORMULA_START) else text
