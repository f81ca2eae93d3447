"""Standard output read by a process that stopped reading (``tablewatch audit ... | head -1``).

That is not a failure of the command: it ends at once, with no message, and
with the status a shell gives a process killed by SIGPIPE, 141 (128 + 13),
as ``yes | head -1`` does. Python ignores SIGPIPE, so the write fails with
``BrokenPipeError`` instead; the ``tablewatch`` group turns that into this
exit when it is standard output that is closed (a socket's broken pipe is an
error, reported as such: :class:`PeerClosed`, exit 2).
"""

from __future__ import annotations

import os
import select
import signal
import sys
from typing import NoReturn

import click

EXIT_CLOSED_PIPE = 128 + signal.SIGPIPE


class PeerClosed(click.ClickException):
    """A broken pipe that is not standard output: a connection closed by its other end."""

    exit_code = 2

    def __init__(self, cause: BrokenPipeError) -> None:
        super().__init__(f"the other end closed a connection this was writing to ({cause})")


def stdout_closed() -> bool:
    """Whether standard output is a pipe (or socket) that no one reads any more."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):  # replaced by a buffer (tests), or closed
        return False
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & select.POLLERR for _, events in poller.poll(0))


def exit_quietly() -> NoReturn:
    """End with :data:`EXIT_CLOSED_PIPE`; what is still buffered for stdout is dropped
    (pointed at /dev/null, so that the interpreter's last flush does not fail again)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    sys.exit(EXIT_CLOSED_PIPE)
