"""Every YAML file TableWatch reads (the table configuration, the alert rules, the access
file) is read through here, with bounds on the work it can cause.

PyYAML's safe loader expands an alias (``*a``) into a reference to the one node or object
its anchor made, so composing a "billion laughs" file is quick; it is walking the result
(checking it, copying it, writing it as JSON) that takes time and memory exponential in
the file's size: 353 bytes at 6 levels are 9^6 leaves. So, before anything walks a
document:

- a file over :data:`MAX_BYTES` is refused, read no further than that (a device such as
  ``/dev/zero`` included);
- a collection nested deeper than :data:`MAX_DEPTH` is refused while it is composed (the
  composer recurses once a level);
- a document whose nodes, counted once per alias that reaches them, number over
  :data:`MAX_NODES` is refused (a count over the node graph, each node's size computed
  once: linear in the file), as is an alias inside its own anchor (a cycle).

Anchors and aliases within these bounds are accepted: a table configuration may share a
block of settings between tables. Each refusal is :class:`YamlRefused`, whose ``reason``
and ``line`` the callers put in their own one-line errors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

MAX_BYTES = 1 << 20  # 1 MiB: the largest example file is under 10 KiB
MAX_DEPTH = 64  # collections within collections
MAX_NODES = 100_000  # nodes once every alias is expanded (a 500-table file is ~15,000)


class YamlRefused(ValueError):
    """A YAML text past a bound; ``reason`` says which, ``line`` (1-based) where, when
    known."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


class BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader refusing collections nested past :data:`MAX_DEPTH`."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise YamlRefused(f"collections nested more than {MAX_DEPTH} deep", mark.line + 1)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def read_text(path: Path | str) -> str:
    """The UTF-8 text of the file at ``path``, read no further than :data:`MAX_BYTES`
    plus one byte; raises :class:`YamlRefused` past it, ``OSError`` or
    ``UnicodeDecodeError`` as ``Path.read_text`` would."""
    with open(path, "rb") as file:
        data = file.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise YamlRefused(f"over {MAX_BYTES:,} bytes: not a TableWatch YAML file")
    return data.decode("utf-8")


def loader(text: str) -> BoundedLoader:
    """A :class:`BoundedLoader` of ``text``, refused at once past :data:`MAX_BYTES`
    (characters): call :func:`single_node` on it, ``dispose()`` it after."""
    if len(text) > MAX_BYTES:
        raise YamlRefused(f"over {MAX_BYTES:,} characters: not a TableWatch YAML file")
    return BoundedLoader(text)


def single_node(reader: BoundedLoader) -> yaml.Node | None:
    """The document's root node (None: an empty document), its expanded size checked
    (:func:`check_expansion`); raises :class:`YamlRefused` or ``yaml.YAMLError``."""
    root: yaml.Node | None = reader.get_single_node()
    if root is not None:
        check_expansion(root)
    return root


def compose(text: str) -> yaml.Node | None:
    """``yaml.compose`` of ``text`` within the bounds; raises :class:`YamlRefused` or
    ``yaml.YAMLError``."""
    reader = loader(text)
    try:
        return single_node(reader)
    finally:
        reader.dispose()


def safe_load(text: str) -> Any:
    """``yaml.safe_load`` of ``text`` within the bounds; raises :class:`YamlRefused` or
    ``yaml.YAMLError``."""
    reader = loader(text)
    try:
        root = single_node(reader)
        return None if root is None else reader.construct_document(root)
    finally:
        reader.dispose()


def check_expansion(root: yaml.Node) -> None:
    """Refuse a node graph that, each alias expanded, holds over :data:`MAX_NODES` nodes,
    or holds a node within itself. Each node's expanded size is computed once (post-order,
    without recursion), so the check is linear in the graph."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()  # on the path from the root to the node being sized
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            size = 1 + sum(sizes[id(child)] for child in _children(node))
            if size > MAX_NODES:
                raise YamlRefused(
                    f"over {MAX_NODES:,} values once its aliases are expanded (an alias bomb?)",
                    node.start_mark.line + 1,
                )
            sizes[key] = size
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise YamlRefused("an alias within its own anchor", node.start_mark.line + 1)
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node))


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []
