"""The access file: who holds a token, with which role, until when. Hashes only, never tokens.

```yaml
# TableWatch access file (tablewatch access add | list | revoke). Tokens are kept as hashes.
version: 1
principals:
- name: alice
  role: auditor
  token_hash: sha256:5e88...   # 64 hex digits
  created: '2026-12-01T10:00:00Z'
  expires: '2027-01-31T00:00:00Z'   # optional: refused from this instant on
  pits: [A, B]                       # optional: a floor manager reads these pits' cases
```

A file that is not exactly this is refused, with its line and the reason: an unknown key
(a misspelt ``expires`` would otherwise make a token last for ever), a role that does not
exist, a hash that is not ``sha256:`` and 64 hex digits, a name or a hash given twice. Times
are ISO 8601; without a time zone they are UTC, a date alone is its midnight UTC.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any, Final

import yaml

from tablewatch import safe_yaml
from tablewatch.access.roles import Role, parse_role
from tablewatch.access.tokens import HASH_FORMAT

FORMAT_VERSION: Final = 1
NAME_FORMAT: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$")
ENV_VAR: Final = "TABLEWATCH_ACCESS_FILE"
_ENTRY_KEYS: Final = ("name", "role", "token_hash", "created", "expires", "pits")
PIT_FORMAT: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.:/-]{0,63}$")
_REQUIRED: Final = ("name", "role", "token_hash", "created")
_HEADER: Final = (
    "# TableWatch access file (tablewatch access add | list | revoke).\n"
    "# Tokens are kept as SHA-256 hashes only; a token is shown once, when it is made.\n"
)


class AccessError(Exception):
    """Access control cannot be set up as asked (a bad file, a binding refused...)."""


class AccessFileError(AccessError):
    """The access file is refused: ``path``, ``line`` (1-based, None when not one line)."""

    def __init__(self, path: str, line: int | None, reason: str) -> None:
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {reason}")
        self.path = path
        self.line = line
        self.reason = reason


@dataclass(frozen=True, slots=True)
class AccessEntry:
    """One token holder."""

    name: str
    role: Role
    token_hash: str  # sha256:<hex>
    created: datetime  # UTC
    expires: datetime | None = None  # UTC; refused from this instant on
    pits: tuple[str, ...] = ()  # a floor manager reads the cases of these pits only

    def expired(self, now: datetime) -> bool:
        return self.expires is not None and now >= self.expires


@dataclass(frozen=True, slots=True)
class AccessFile:
    entries: tuple[AccessEntry, ...] = ()

    def find(self, name: str) -> AccessEntry | None:
        return next((e for e in self.entries if e.name == name), None)

    def with_entry(self, entry: AccessEntry) -> AccessFile:
        """This file with ``entry`` added; ValueError if its name or hash is taken."""
        if self.find(entry.name) is not None:
            raise ValueError(f"{entry.name!r} already holds a token: revoke it first")
        if any(e.token_hash == entry.token_hash for e in self.entries):
            raise ValueError("that token hash is already in the file")
        _check_name(entry.name)
        for pit in entry.pits:
            _check_pit(pit)
        if not HASH_FORMAT.match(entry.token_hash):
            raise ValueError("a token hash is sha256: and 64 lower-case hex digits")
        return replace(self, entries=(*self.entries, entry))

    def without(self, name: str) -> AccessFile:
        """This file without ``name``'s entry; KeyError if there is none."""
        if self.find(name) is None:
            raise KeyError(name)
        return replace(self, entries=tuple(e for e in self.entries if e.name != name))


def utc(moment: datetime | date) -> datetime:
    """A date (its midnight) or a datetime, as an aware UTC datetime (naive: read as UTC)."""
    if not isinstance(moment, datetime):
        moment = datetime.combine(moment, time(0), tzinfo=UTC)
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def parse_time(text: str) -> datetime:
    """An ISO 8601 date or time as UTC (see :func:`utc`); ValueError otherwise."""
    text = text.strip()
    try:
        if len(text) == 10:
            return utc(date.fromisoformat(text))
        return utc(datetime.fromisoformat(text))
    except ValueError:
        raise ValueError(
            f"{text!r} is not an ISO 8601 date or time (2027-01-31, 2027-01-31T18:00:00Z)"
        ) from None


def format_time(moment: datetime) -> str:
    return utc(moment).isoformat(timespec="seconds").replace("+00:00", "Z")


# ---- reading ---------------------------------------------------------------------------


def load(path: Path | str) -> AccessFile:
    """The access file at ``path``; :class:`AccessFileError` with the line and reason."""
    source = str(path)
    try:
        text = safe_yaml.read_text(path)
    except safe_yaml.YamlRefused as exc:
        raise AccessFileError(source, None, exc.reason) from None
    except FileNotFoundError:
        raise AccessFileError(source, None, "no such file") from None
    except UnicodeDecodeError as exc:
        raise AccessFileError(source, None, f"not UTF-8 ({exc.reason})") from None
    except OSError as exc:
        raise AccessFileError(source, None, f"cannot be read: {exc.strerror or exc}") from None
    return parse(text, source)


def parse(text: str, source: str = "<access file>") -> AccessFile:
    """An access file's text; :class:`AccessFileError` with the line and reason."""
    try:
        loader = safe_yaml.loader(text)
    except safe_yaml.YamlRefused as exc:
        raise AccessFileError(source, None, exc.reason) from None
    try:
        try:
            root = safe_yaml.single_node(loader)
        except safe_yaml.YamlRefused as exc:
            raise AccessFileError(source, exc.line, exc.reason) from None
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark is not None else None
            raise AccessFileError(source, line, f"not YAML: {exc.problem or exc}") from None
        except yaml.YAMLError as exc:
            raise AccessFileError(source, None, f"not YAML: {exc}") from None
        return _Reader(loader, source).file(root)
    finally:
        loader.dispose()


class _Reader:
    def __init__(self, loader: yaml.SafeLoader, source: str) -> None:
        self.loader = loader
        self.source = source

    def fail(self, node: yaml.Node | None, reason: str) -> AccessFileError:
        return AccessFileError(self.source, _line(node), reason)

    def file(self, root: yaml.Node | None) -> AccessFile:
        if root is None:
            raise AccessFileError(self.source, 1, "empty: expected version and principals")
        fields = self.mapping(root, "the file", ("version", "principals"))
        version = fields.get("version")
        if version is None:
            raise self.fail(root, f"no version: expected version: {FORMAT_VERSION}")
        if self.scalar(version) != FORMAT_VERSION:
            raise self.fail(version, f"version must be {FORMAT_VERSION}")
        listed = fields.get("principals")
        if listed is None:
            raise self.fail(root, "no principals: expected a list (principals: [] for none)")
        if not isinstance(listed, yaml.SequenceNode):
            raise self.fail(listed, "principals must be a list")
        entries: list[AccessEntry] = []
        names: dict[str, int | None] = {}
        hashes: dict[str, int | None] = {}
        for item in listed.value:
            entry = self.entry(item)
            if entry.name in names:
                raise self.fail(item, f"{entry.name!r} is listed twice (line {names[entry.name]})")
            if entry.token_hash in hashes:
                raise self.fail(
                    item, f"the token hash of line {hashes[entry.token_hash]} is given again"
                )
            names[entry.name] = hashes[entry.token_hash] = _line(item)
            entries.append(entry)
        return AccessFile(tuple(entries))

    def entry(self, node: yaml.Node) -> AccessEntry:
        fields = self.mapping(node, "a principal", _ENTRY_KEYS)
        for key in _REQUIRED:
            if key not in fields:
                raise self.fail(node, f"a principal without {key}")
        name = self.text(fields["name"], "name")
        try:
            _check_name(name)
        except ValueError as exc:
            raise self.fail(fields["name"], str(exc)) from None
        try:
            role = parse_role(self.text(fields["role"], "role"))
        except ValueError as exc:
            raise self.fail(fields["role"], str(exc)) from None
        token_hash = self.text(fields["token_hash"], "token_hash")
        if not HASH_FORMAT.match(token_hash):
            raise self.fail(
                fields["token_hash"],
                "token_hash must be sha256: and 64 lower-case hex digits (never the token)",
            )
        created = self.moment(fields["created"], "created")
        if created is None:
            raise self.fail(fields["created"], "created must be a time")
        expires = self.moment(fields["expires"], "expires") if "expires" in fields else None
        pits = self.pits(fields["pits"]) if "pits" in fields else ()
        return AccessEntry(name, role, token_hash, created, expires, pits)

    def pits(self, node: yaml.Node) -> tuple[str, ...]:
        if not isinstance(node, yaml.SequenceNode):
            raise self.fail(node, "pits must be a list of pit names ([A, B])")
        pits: list[str] = []
        for item in node.value:
            pit = self.text(item, "a pit")
            try:
                _check_pit(pit)
            except ValueError as exc:
                raise self.fail(item, str(exc)) from None
            if pit in pits:
                raise self.fail(item, f"pit {pit!r} is listed twice")
            pits.append(pit)
        return tuple(pits)

    def mapping(self, node: yaml.Node, what: str, keys: tuple[str, ...]) -> dict[str, yaml.Node]:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, f"{what} must be a mapping ({', '.join(keys)})")
        fields: dict[str, yaml.Node] = {}
        for key_node, value_node in node.value:
            key = self.scalar(key_node)
            if not isinstance(key, str) or key not in keys:
                raise self.fail(
                    key_node, f"unknown key {key!r} in {what}: expected {', '.join(keys)}"
                )
            if key in fields:
                raise self.fail(key_node, f"{key} is given twice in {what}")
            fields[key] = value_node
        return fields

    def scalar(self, node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            return node  # never equal to a value looked for, never a str
        return self.loader.construct_object(node, deep=True)

    def text(self, node: yaml.Node, key: str) -> str:
        value = self.scalar(node)
        if not isinstance(value, str):
            raise self.fail(node, f"{key} must be a string")
        return value

    def moment(self, node: yaml.Node, key: str) -> datetime | None:
        value = self.scalar(node)
        if value is None:
            return None
        if isinstance(value, datetime | date):
            return utc(value)
        if isinstance(value, str):
            try:
                return parse_time(value)
            except ValueError as exc:
                raise self.fail(node, f"{key}: {exc}") from None
        raise self.fail(node, f"{key} must be an ISO 8601 time")


def _line(node: yaml.Node | None) -> int | None:
    return node.start_mark.line + 1 if node is not None else None


def _check_pit(pit: str) -> None:
    if not PIT_FORMAT.match(pit):
        raise ValueError(
            f"pit {pit!r}: 1 to 64 letters, digits, spaces and _ . : / - (starting with a "
            "letter or digit)"
        )


def _check_name(name: str) -> None:
    if not NAME_FORMAT.match(name):
        raise ValueError(
            f"name {name!r}: 1 to 64 letters, digits and . _ @ + - (starting with a letter "
            "or digit)"
        )


# ---- writing ---------------------------------------------------------------------------


def dumps(access: AccessFile) -> str:
    principals = []
    for entry in access.entries:
        item: dict[str, str | list[str]] = {
            "name": entry.name,
            "role": entry.role.value,
            "token_hash": entry.token_hash,
            "created": format_time(entry.created),
        }
        if entry.expires is not None:
            item["expires"] = format_time(entry.expires)
        if entry.pits:
            item["pits"] = list(entry.pits)
        principals.append(item)
    body = yaml.safe_dump(
        {"version": FORMAT_VERSION, "principals": principals},
        sort_keys=False,
        default_flow_style=False,
        allow_unicode=False,
    )
    return _HEADER + body


def save(path: Path | str, access: AccessFile) -> None:
    """Write ``access`` to ``path`` at once (a reader sees the old file or the new one).

    A new file is made readable by its owner only; an existing one keeps its mode.
    """
    target = Path(path)
    try:
        mode = target.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o600
    text = dumps(access)
    parse(text, str(target))  # never write a file this module would refuse
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
