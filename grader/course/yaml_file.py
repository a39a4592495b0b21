"""Reading a course's YAML files (``assignment.yaml``, ``assignments/course.yaml``, ``handout.yaml``) safely."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from grader.errors import ConfigError

SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""PyYAML's safe loader in C (libyaml, in PyYAML's wheels), else in Python: the same documents and types, about ten
times faster (every judge reads each assignment's files and the handout at its start)."""


def parse_yaml(text: str) -> Any:
    """The one YAML document in ``text``, with the safe loader (no Python objects); None when it is empty.

    Raises:
        yaml.YAMLError: If it is not YAML.
    """
    return yaml.load(text, Loader=SAFE_LOADER)  # noqa: S506 - a safe loader


def load_yaml(path: Path, *, required: bool = False) -> dict[str, Any]:
    """The mapping in the YAML file ``path``: an empty one when there is no such file or it is empty, unless the file
    is ``required`` (an ``assignment.yaml``).

    Raises:
        ConfigError: If the file is not YAML or holds something else than a mapping, or a required file is missing
            or empty.
    """
    try:
        raw = parse_yaml(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if required:
            raise ConfigError(path, "", "file not found") from None
        return {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(path, "", f"not valid YAML: {exc}") from None
    if raw is None and not required:
        return {}
    if not isinstance(raw, dict):
        raise ConfigError(path, "", "expected a mapping at the top level")
    return raw
