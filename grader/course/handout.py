"""The handout's tables a course declares once (``assignments/shared/handout.yaml``), for the feedback to name the
method at fault: the classes and methods students write, the files they live in, the attributes their constructors
set, the labels of a graph node's closures, and a hint about each method.

The grader knows no course: :mod:`grader.testing.attribution` reads these tables (:class:`Handout`), which the judge
loads from the course in use (:attr:`grader.course.course.Course.handout`). A course without the file gets an empty
handout: each failure is then reported under the method its case declares.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.errors import ConfigError

MODULE_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,39}$")
"""A module or package name a course may give its students (lower case, as PEP 8 asks)."""

KEYS = ("title", "package", "uses", "classes", "bases", "attributes", "parameters", "closures", "hints", "overflow_hints",
        "overflow_callees")
"""The keys of ``handout.yaml``."""


@dataclass(frozen=True)
class Handout:
    """What the feedback knows of a course's handout.

    Attributes:
        title: The course's name, the release README's title (``micrograd: build an autograd engine...``); "" when
            the course does not say (then its package's name).
        package: The student's package: the folder students hand in, whose modules the assignments name
            (``files: [PACKAGE/NAME.py]``); "" when the course does not say (then any one package will do).
        uses: What each method is built from (``Value.__sub__`` -> ``Value.__add__``, ``Value.__neg__``): a case
            about a method counts for these too (an assignment's own ``uses`` adds to it).
        classes: Each class of the handout to the methods students write or may call (``Value`` -> ``__add__``...).
        files: Each student file's name to the classes it holds (``engine.py`` -> ``Value``), to tell
            ``Value.__init__`` from ``Neuron.__init__`` by where a frame is.
        bases: A class to the class of the handout it inherits methods from (``Neuron`` -> ``Module``).
        attributes: Attributes the handout's constructors set: a missing one is ``__init__``'s fault.
        parameters: Keyword parameters the handout gives its constructors (``nonlin``): a constructor that refuses
            one is at fault, not its caller.
        node_class: The class whose nodes carry an operation's label (``_op``) and closure (``Value``).
        closures: A node's label to the method whose closure it got (``+`` -> ``__add__``).
        label_prefixes: A label's prefix to that method, for labels that carry an argument (``**2`` -> ``__pow__``).
        hints: A hint about each method (``Value.__add__``), shown when a failure is another method's than its case's.
        overflow_hints: The hint for an ``OverflowError`` raised in a method: a stability problem, not a wrong rule.
        overflow_callees: Methods right to raise ``OverflowError`` (``Value.exp``): a method of
            ``overflow_hints`` that called one owns the error.
    """

    title: str = ""
    package: str = ""
    uses: dict[str, tuple[str, ...]] = field(default_factory=dict)
    classes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    files: dict[str, tuple[str, ...]] = field(default_factory=dict)
    bases: dict[str, str] = field(default_factory=dict)
    attributes: frozenset[str] = frozenset()
    parameters: frozenset[str] = frozenset()
    node_class: str = ""
    closures: dict[str, str] = field(default_factory=dict)
    label_prefixes: dict[str, str] = field(default_factory=dict)
    hints: dict[str, str] = field(default_factory=dict)
    overflow_hints: dict[str, str] = field(default_factory=dict)
    overflow_callees: frozenset[str] = frozenset()

    @property
    def modules(self) -> tuple[str, ...]:
        """The short names of the handout's modules, in import order (the order of ``classes``): the names an
        import in a notebook may use for the notebook's own code."""
        return tuple(f.removesuffix(".py") for f in self.files)

    def has(self, method: str | None) -> bool:
        """Whether ``method`` (``Class.name``) is one of the handout's."""
        cls, _, name = (method or "").partition(".")
        return name in self.classes.get(cls, ())


def _strings(path: Path, key: str, raw: Any) -> list[str]:
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise ConfigError(path, key, "expected a list of names")
    return list(raw)


def _texts(path: Path, key: str, raw: Any) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in raw.items()):
        raise ConfigError(path, key, "expected a mapping of names to texts")
    return dict(raw)


def parse_uses(path: Path, raw: Any) -> dict[str, tuple[str, ...]]:
    """A ``uses`` table (``handout.yaml``'s or an ``assignment.yaml``'s): method name to the methods it is built from.

    Raises:
        ConfigError: If it is not a mapping of method names to lists of method names.
    """
    if raw is None:
        return {}
    if not isinstance(raw, dict) or not all(
            isinstance(k, str) and isinstance(v, list) and all(isinstance(m, str) for m in v) for k, v in raw.items()):
        raise ConfigError(path, "uses", "expected a mapping of method names to lists of method names, e.g. "
                                        "{Class.__sub__: [Class.__add__, Class.__neg__]}")
    return {k: tuple(v) for k, v in raw.items()}


def parse_handout(raw: dict[str, Any], path: Path) -> Handout:
    """The handout ``path`` holds, its mapping read (``raw``: an empty one gives an empty handout).

    Raises:
        ConfigError: If it has an unknown key, or a table is malformed (the message names the file and the key).
    """
    for key in raw:
        if key not in KEYS:
            raise ConfigError(path, str(key), f"unknown key; known keys: {', '.join(KEYS)}")
    title = raw.get("title", "")
    if not isinstance(title, str) or len(title) > 200 or "\n" in title:
        raise ConfigError(path, "title", "expected the course's name on one line (at most 200 characters)")
    package = raw.get("package", "")
    if not isinstance(package, str) or (package and not MODULE_NAME.match(package)):
        raise ConfigError(path, "package", f"expected a module name in lower case (such as mylib), got {package!r}")
    classes: dict[str, tuple[str, ...]] = {}
    files: dict[str, tuple[str, ...]] = {}
    by_file = raw.get("classes") or {}
    if not isinstance(by_file, dict):
        raise ConfigError(path, "classes", "expected a mapping of file names to {class: [methods]}")
    for file, held in by_file.items():
        if not isinstance(file, str) or not isinstance(held, dict):
            raise ConfigError(path, f"classes.{file}", "expected a mapping of class names to lists of methods")
        for cls, methods in held.items():
            classes[str(cls)] = tuple(_strings(path, f"classes.{file}.{cls}", methods))
        if not isinstance(file, str) or not MODULE_NAME.match(file.removesuffix(".py")) or not file.endswith(".py"):
            raise ConfigError(path, f"classes.{file}", "expected a file name such as name.py (lower case)")
        files[file] = tuple(str(c) for c in held)
    bases = _texts(path, "bases", raw.get("bases"))
    closures = raw.get("closures") or {}
    if not isinstance(closures, dict) or set(closures) - {"class", "labels", "prefixes"}:
        raise ConfigError(path, "closures", "expected {class: ..., labels: {label: method}, prefixes: {prefix: method}}")
    node_class = closures.get("class", "")
    if not isinstance(node_class, str) or (closures and node_class not in classes):
        raise ConfigError(path, "closures.class", "expected one of the classes of classes")
    return Handout(title=title.strip(), package=package, uses=parse_uses(path, raw.get("uses")), classes=classes, files=files, bases=bases,
                   attributes=frozenset(_strings(path, "attributes", raw.get("attributes") or [])),
                   parameters=frozenset(_strings(path, "parameters", raw.get("parameters") or [])),
                   node_class=node_class, closures=_texts(path, "closures.labels", closures.get("labels")),
                   label_prefixes=_texts(path, "closures.prefixes", closures.get("prefixes")),
                   hints=_texts(path, "hints", raw.get("hints")),
                   overflow_hints=_texts(path, "overflow_hints", raw.get("overflow_hints")),
                   overflow_callees=frozenset(_strings(path, "overflow_callees", raw.get("overflow_callees") or [])))
