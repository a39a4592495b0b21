"""A Gradescope export's ``submission_metadata.yml``, read with bounds (:mod:`grader.intake.layouts` reads the export).

The file is the export's, but its values are what students typed (names, e-mail addresses) and the file could be
replaced by anyone who handles the download, so it is read as untrusted data: never through a symbolic link, at
most :data:`MAX_METADATA_BYTES`, with YAML's safe loader, and its values counted with every alias (``*name``) and
merge (``<<``) standing for what it names, without expanding them, before any Python object is built: a billion
laughs, or an alias inside its own value, is refused in time linear in the file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import yaml

from grader.errors import GraderError, SubmissionError
from grader.intake.regular_files import open_regular

MAX_METADATA_BYTES = 8 << 20
"""Largest ``submission_metadata.yml`` read, in bytes."""
MAX_METADATA_VALUES = 4_000_000
"""Most values (scalars, lists, mappings) in ``submission_metadata.yml`` with each alias (``*name``) and merge
(``<<``) counted as the values it stands for: an 8 MB file holds fewer without aliases, and a few aliases of aliases
(a "billion laughs") stand for billions."""


def own_stat(path: Path) -> os.stat_result | None:
    """``path``'s own status (never a link's target's), or None when it is missing."""
    try:
        return path.lstat()
    except OSError:
        return None


def read_metadata(path: Path) -> dict[object, object]:
    """A Gradescope export's ``submission_metadata.yml``, parsed (never through a symbolic link).

    Raises:
        GraderError: If it is a link or not a file, larger than :data:`MAX_METADATA_BYTES`, not UTF-8 YAML, or not a
            mapping.
    """
    fix = "fix it, or remove it to grade each submission_<id> folder under its folder name"
    info = own_stat(path)
    if info is None or not stat.S_ISREG(info.st_mode):
        raise GraderError(f"{path} is not a regular file (a symbolic link is never followed): {fix}")
    if info.st_size > MAX_METADATA_BYTES:
        raise GraderError(f"{path} is {info.st_size} bytes, more than the {MAX_METADATA_BYTES} read of a Gradescope "
                          f"export's metadata: {fix}")
    try:
        with open_regular(path, path.name) as f:  # a FIFO swapped in since is never waited on
            raw = f.read(MAX_METADATA_BYTES + 1)
    except SubmissionError as exc:
        raise GraderError(f"{path}: {exc}: {fix}") from None
    except OSError as exc:
        raise GraderError(f"{path} could not be read ({exc.strerror or exc}): {fix}") from None
    try:
        if len(raw) > MAX_METADATA_BYTES:  # it grew since
            raise GraderError(f"{path} is more than the {MAX_METADATA_BYTES} bytes read: {fix}")
        doc = _load_yaml(raw.decode("utf-8"), path, fix)
    except UnicodeDecodeError:
        raise GraderError(f"{path} is not UTF-8 text: {fix}") from None
    except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError) as exc:
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        raise GraderError(f"{path} is not YAML Gradescope writes ({first}): {fix}") from None
    if not isinstance(doc, dict):
        raise GraderError(f"{path} is not a mapping of submission folders to their submitters (it holds "
                          f"{type(doc).__name__}): {fix}")
    return doc


def _load_yaml(text: str, path: Path, fix: str) -> object:
    """``text`` parsed with YAML's safe loader, once its values, aliases expanded, are counted (never expanded).

    Raises:
        GraderError: If it stands for more than :data:`MAX_METADATA_VALUES` values, or an alias holds itself.
        yaml.YAMLError: If it is not YAML (or more than one document).
    """
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        count = _expanded_values(node)
        if count is None:
            raise GraderError(f"{path} holds an alias (*name) inside the value it names, which Gradescope never "
                              f"writes: {fix}")
        if count > MAX_METADATA_VALUES:
            raise GraderError(f"{path} stands for more than {MAX_METADATA_VALUES} values once its aliases (*name) "
                              f"are expanded, more than Gradescope writes: {fix}")
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _expanded_values(root: yaml.Node) -> int | None:
    """How many values ``root`` stands for, each alias counted as what it names (more than
    :data:`MAX_METADATA_VALUES`: the count so far, past it); None when an alias holds itself.

    Linear in the nodes composed: each node (shared by its aliases) is counted once and its total reused.
    """
    totals: dict[int, int] = {}
    open_: set[int] = set()
    pending: list[tuple[yaml.Node, bool]] = [(root, False)]
    while pending:
        node, done = pending.pop()
        key = id(node)
        children: list[yaml.Node] = []
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        if done:
            open_.discard(key)
            totals[key] = 1 + sum(totals[id(child)] for child in children)
            if totals[key] > MAX_METADATA_VALUES:
                return totals[key]
        elif key in open_:
            return None  # a node inside itself: an alias to a node it is part of
        elif key not in totals:
            open_.add(key)
            pending.append((node, True))
            pending.extend((child, False) for child in children if id(child) not in totals)
    return totals[id(root)]
