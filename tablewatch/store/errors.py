"""Telling a failed insert's cause: the rows themselves, or the store.

A *data* error is the rows' fault: a value a column cannot hold, text the
server cannot parse, a block spanning too many partitions. Written again, the
same rows fail again, so the worker looks for the rows at fault (see
``processors/batch_writer.py``) and writes the others. Anything else is the
store's: it is down, unreachable, overloaded, read-only, or its schema is not
what the worker expects. Written again later, the same rows go in, so the
worker waits and retries, and never sets rows aside for it. An error this
module does not recognise is the store's: a store fault mistaken for bad data
would set good rows aside, a data fault mistaken for the store's only holds
the worker back until someone looks.
"""

from __future__ import annotations

import re
import struct
from typing import Final

from clickhouse_connect.driver.exceptions import DatabaseError, DataError, OperationalError

# ClickHouse's error codes (src/Common/ErrorCodes.cpp) for values the server refused.
DATA_CODES: Final = frozenset(
    {
        6,  # CANNOT_PARSE_TEXT
        26,  # CANNOT_PARSE_QUOTED_STRING
        27,  # CANNOT_PARSE_INPUT_ASSERTION_FAILED
        38,  # CANNOT_PARSE_DATE
        41,  # CANNOT_PARSE_DATETIME
        43,  # ILLEGAL_TYPE_OF_ARGUMENT
        53,  # TYPE_MISMATCH
        69,  # ARGUMENT_OUT_OF_BOUND
        70,  # CANNOT_CONVERT_TYPE
        72,  # CANNOT_PARSE_NUMBER
        117,  # INCORRECT_DATA
        128,  # TOO_LARGE_ARRAY_SIZE
        131,  # TOO_LARGE_STRING_SIZE
        321,  # VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE
        349,  # CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN
        407,  # DECIMAL_OVERFLOW
    }
)
# Code 252 is TOO_MANY_PARTS both for a merge backlog (the store's: wait) and for one
# insert block spanning more partitions than allowed (the rows': split the block).
_PARTITIONS_PER_BLOCK = "Too many partitions for single INSERT block"
_CODE = re.compile(r"\bCode: (\d+)\b")
# Raised by clickhouse-connect while it serializes rows, before anything is sent.
_SERIALIZING: Final = (DataError, struct.error, OverflowError, TypeError, UnicodeEncodeError)


def error_code(exc: BaseException) -> int | None:
    """The ClickHouse error code in the message of ``exc`` ("Code: 53. DB::Exception: ...")."""
    found = _CODE.search(str(exc))
    return int(found.group(1)) if found else None


def is_data_error(exc: BaseException) -> bool:
    """Whether ``exc`` (an insert's failure) is the rows' fault rather than the store's."""
    if isinstance(exc, _SERIALIZING):
        return True
    if isinstance(exc, ValueError) and not isinstance(exc, DatabaseError):
        return True  # a value clickhouse-connect could not convert ("invalid literal ...")
    if isinstance(exc, DatabaseError) and not isinstance(exc, OperationalError):
        code = error_code(exc)
        if code in DATA_CODES:
            return True
        return code == 252 and _PARTITIONS_PER_BLOCK in str(exc)
    return False


def describe(exc: BaseException, limit: int = 500) -> str:
    """A one-line account of ``exc`` for logs, dead letters and findings."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    text = f"{type(exc).__name__}: {text}"
    return text if len(text) <= limit else text[:limit] + "..."
