"""The API's routers, one per concern: each module's ``router`` (see :mod:`..app`)."""
