"""Reading a course's YAML files (``assignment.yaml``, ``assignments/course.yaml``, ``handout.yaml``) safely."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from grader.errors import ConfigError


def load_yaml(path: Path) -> dict[str, Any]:
    """The mapping in the YAML file ``path``, or an empty one when there is no such file.

    Raises:
        ConfigError: If the file is not YAML or holds something else than a mapping.
    """
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ConfigError(path, "", f"not valid YAML: {exc}") from None
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ConfigError(path, "", "expected a mapping at the top level")
    return raw
