"""Who may read, and a record of who read what.

- :mod:`.roles`: the roles, the permissions and which role holds which (data);
- :mod:`.tokens`: bearer tokens, kept only as SHA-256 hashes, compared in constant time;
- :mod:`.access_file`: the YAML file of token holders (``tablewatch access``);
- :mod:`.authenticate`: :class:`Authenticator` (token in, :class:`Principal` out) and the
  access file's implementation; an OIDC verifier implements the same protocol;
- :mod:`.gate`: what an endpoint runs first (token, permission, HTTP refusal) and the
  binding rule (no access control: loopback only);
- :mod:`.log`: the access log's records, their bounded queue and their writer.

See ``docs/access.md``.
"""

from tablewatch.access.access_file import (
    ENV_VAR,
    AccessEntry,
    AccessError,
    AccessFile,
    AccessFileError,
)
from tablewatch.access.authenticate import (
    AccessUnavailable,
    Authenticator,
    FileTokenAuthenticator,
    Principal,
    TokenAuthenticator,
    Unauthenticated,
)
from tablewatch.access.gate import Forbidden, Gate, HttpRefusal, binding_refusal, http_refusal
from tablewatch.access.log import AccessLog, AccessLogFull, AccessLogWriter, AccessOutcome
from tablewatch.access.roles import PERMISSIONS, Permission, Role, allowed, extra_tables

__all__ = [
    "ENV_VAR",
    "PERMISSIONS",
    "AccessEntry",
    "AccessError",
    "AccessFile",
    "AccessFileError",
    "AccessLog",
    "AccessLogFull",
    "AccessLogWriter",
    "AccessOutcome",
    "AccessUnavailable",
    "Authenticator",
    "FileTokenAuthenticator",
    "Forbidden",
    "Gate",
    "HttpRefusal",
    "Permission",
    "Principal",
    "Role",
    "TokenAuthenticator",
    "Unauthenticated",
    "allowed",
    "binding_refusal",
    "extra_tables",
    "http_refusal",
]
