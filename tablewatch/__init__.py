"""TableWatch: surveillance and audit of casino table games."""

import os

# numpy serves TableWatch for integer table lookups only, never linear algebra, yet
# OpenBLAS starts a worker thread per core at import that busy-waits: 4% of a one-process
# audit, and CPU taken from the other `--jobs` share. Set before numpy is imported (kept
# if the environment says otherwise).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from tablewatch import native  # after the environment is set

native.activate()  # the compiled rules engine, when a build matches the sources
