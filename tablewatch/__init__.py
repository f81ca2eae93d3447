"""TableWatch: surveillance and audit of casino table games.

Importing the package loads nothing else. The compiled rules engine is
activated by what runs the rules, before they are imported
(:func:`tablewatch.native.activate`).
"""

import os

# numpy serves TableWatch for integer table lookups only, never linear algebra, yet
# OpenBLAS starts a worker thread per core at import that busy-waits: 4% of a one-process
# audit, and CPU taken from the other `--jobs` share. Set before numpy is imported (kept
# if the environment says otherwise).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
