"""The optional keys of a table's configuration that no rule of a game reads.

- ``pit``: the floor area the table belongs to, a name of 1 to 64 printable characters;
- ``cameras``: the ids of the surveillance cameras on it, each 1 to 64 printable;
- ``signing``: ``required`` or ``off`` (the default), whether its events must be signed;
- ``keys``: ``{KID: ENV_VAR_NAME, ...}``, the environment variables that hold the table's
  HMAC keys, in the file's order (the first is the one ``tablewatch sign`` signs with).
  Keys themselves are never written in the file; they are read from the environment by
  what signs or verifies (:mod:`tablewatch.table_keys`), not here.

The same for every game: the game descriptors know nothing of them. Checked here in
Python rather than by msgspec so that a refusal says what YAML did (it reads ``off`` as
false and ``2026`` as a number). A refusal never repeats a value given for a key's
variable: a key pasted there by mistake must not reach a log.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NoReturn

NAME_MAX_LENGTH = 64
SIGNING_REQUIRED = "required"
SIGNING_OFF = "off"
_NAME_RULE = f"1 to {NAME_MAX_LENGTH} printable characters"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True, slots=True)
class OptionalKeys:
    pit: str | None
    cameras: tuple[str, ...]
    signing: str  # SIGNING_REQUIRED or SIGNING_OFF
    keys: dict[str, str]  # kid -> the name of the environment variable holding its key


def parse_optional(pit: Any, cameras: Any, signing: Any, keys: Any) -> OptionalKeys:
    """The optional keys as the file gives them (``None``: absent, ``signing`` ``"off"``);
    ``ValueError`` naming the key and the reason."""
    parsed_keys = _keys(keys)
    parsed_signing = _signing(signing)
    if parsed_signing == SIGNING_REQUIRED and not parsed_keys:
        raise ValueError(
            "signing: required needs at least one key in `keys` ({KID: ENV_VAR_NAME}): "
            "the environment variables that hold the table's HMAC keys"
        )
    return OptionalKeys(
        pit=None if pit is None else _name("pit", pit, "a name"),
        cameras=_cameras(cameras),
        signing=parsed_signing,
        keys=parsed_keys,
    )


def _name(where: str, value: Any, what: str) -> str:
    """``value`` if it is a name of 1 to 64 printable characters."""
    rule = f"{what} is {_NAME_RULE}"
    if not isinstance(value, str):
        _not_text(where, value, rule)
    if not value:
        raise ValueError(f"{where}: empty: {rule}")
    if len(value) > NAME_MAX_LENGTH:
        raise ValueError(f"{where}: longer than {NAME_MAX_LENGTH} characters: {rule}")
    if not value.isprintable():
        bad = next(c for c in value if not c.isprintable())
        raise ValueError(
            f"{where}: holds U+{ord(bad):04X}, which is not a printable character: {rule}"
        )
    return value


def _not_text(where: str, value: Any, rule: str) -> NoReturn:
    kind = "a number" if isinstance(value, int | float) else f"a {type(value).__name__}"
    if isinstance(value, bool):
        kind = "true/false"
    hint = " (quote it)" if isinstance(value, int | float) else ""
    raise ValueError(f"{where}: {rule}, not {kind}{hint}")


def _cameras(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        kind = "a string" if isinstance(value, str) else f"a {type(value).__name__}"
        raise ValueError(f"cameras: a list of camera ids ([CAM-031, CAM-032]), not {kind}")
    return tuple(_name(f"cameras[{i}]", camera, "a camera id") for i, camera in enumerate(value))


def _signing(value: Any) -> str:
    if value is False or value == SIGNING_OFF:  # YAML reads an unquoted off as false
        return SIGNING_OFF
    if value == SIGNING_REQUIRED:
        return SIGNING_REQUIRED
    shown = "true (YAML reads on, yes and true so)" if value is True else repr(value)
    raise ValueError(f"signing: {shown} is not `{SIGNING_REQUIRED}` or `{SIGNING_OFF}`")


def _keys(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(
            "keys: a mapping {KID: ENV_VAR_NAME} of each key's id to the environment "
            f"variable that holds it, not a {type(value).__name__}"
        )
    keys: dict[str, str] = {}
    for kid, variable in value.items():
        _name(f"keys: kid {kid!r}", kid, "a kid")
        if not isinstance(variable, str) or _ENV_NAME.fullmatch(variable) is None:
            raise ValueError(
                f"keys.{kid}: not the name of an environment variable (letters, digits and _, "
                "not starting with a digit): `keys` names the variable that holds the key, "
                "never the key itself"
            )
        keys[kid] = variable
    return keys
