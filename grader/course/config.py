"""Course and assignment configuration: ``assignments/<id>/assignment.yaml``.

Example (every key but ``title``, ``files`` and ``points`` is optional)::

    title: "Value operations: forward values and local gradients"
    order: 1                         # position in the course (default: after numbered ones)
    files: [micrograd/engine.py]     # what students submit, as package paths
    points: 30                       # must equal the sum of the tests' points
    visibility: after_due_date       # default for hidden tests (Gradescope values)
    limits:
      test_seconds: 10               # per test: the student's seconds (CPU time on Linux)
      submission_seconds: 120        # for the whole assignment, counted as test_seconds
      startup_seconds: 10            # to import the submission, counted as test_seconds
      probe_floor_seconds: 0.5       # one call of the student's code may take this plus ...
      probe_multiple: 20             # ... this many times what the same call takes the reference
      after_timeout_floor_seconds: 0.25  # the same, once the submission has timed out in this assignment
      after_timeout_multiple: 10
      cpu_seconds: 120               # CPU time per sandbox worker
      memory_mb: 1024                # address space per sandbox worker
      file_mb: 16                    # largest file a worker may write
      scratch_mb: 64                 # all a worker may write (its scratch folder, where namespaces allow)
      processes: 64                  # processes (and threads) a worker may run
      output_kb: 8                   # captured output kept for feedback
    allow_network: false             # true: the sandbox keeps network access
    grader_parts: [recording]        # the grader's own parts (assignments/shared/parts/NAME.py) its sandbox
                                     # workers load before the student's code; never released to students
    judge_parts: [stand_ins]         # parts the judge itself uses for these tests (never a worker)
    uses: {Value.__sub__: [Value.__add__, Value.__neg__]}  # what a method is built from (plus the course's
                                     # assignments/shared/handout.yaml): its cases count for those methods too
    kind: code                       # or questions: a concept check (questions.yaml, answered in answers/<id>.yaml)
    released: 2026-11-23             # when it is handed out (or true, false); default true: out
    due: 2026-11-30T23:59            # ISO 8601; without a UTC offset, in the course's time_zone (course.yaml)
    late:                            # what late work costs (grader.course.late_policy); needs a due date
      grace: 15m
      penalty: 10%                   # of the points, per started day (per: day) or hour (per: hour)
      cap: 50%
      cutoff: 3d                     # later work is not graded

Validation errors name the file and the key (:class:`~grader.errors.ConfigError`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from grader.course.handout import Handout, parse_handout, parse_uses
from grader.course.late_policy import LatePolicy, parse_dates
from grader.course.term import Term, load_term
from grader.course.yaml_file import load_yaml
from grader.errors import ConfigError
from grader.sandbox.own_parts import NAME as PART_NAME

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
"""Gradescope's per-test visibility values (results.json specification)."""

FILE = re.compile(r"^([a-z_][a-z0-9_]{0,39})/[a-z_][a-z0-9_]{0,39}\.py$")
"""A file an assignment may ask for: a module of the student's package (``PACKAGE/NAME.py``, lower case), the package
being the course's (``handout.yaml``, key ``package``)."""

SHARED = "shared"
"""The folder of ``assignments/`` that holds what several assignments share (it has no ``assignment.yaml``)."""

KINDS = ("code", "questions")
"""What an assignment asks for: code (the student's package, graded by probes), or answers to questions (a concept
check: the assignment's ``questions.yaml``, answered in :data:`ANSWERS`/``<id>.yaml``, marked by :mod:`grader.questions`)."""

ANSWERS = "answers"
"""The folder of a release (and of the reference) holding a concept check's answers: ``answers/<id>.yaml``, the
student's filled in and the reference's the key."""

QUESTIONS = "questions.yaml"
"""A concept check's questions, in its assignment's folder (:mod:`grader.questions.questions`)."""

UNORDERED = 1000
"""The ``order`` of an assignment whose ``assignment.yaml`` gives none: after every numbered one."""

PARTS = "parts"
"""The folder of :data:`SHARED` holding the grader's own parts: course code that runs next to student code in
hidden grading, and is never released (:mod:`grader.sandbox.own_parts`)."""



@dataclass(frozen=True)
class Limits:
    """Resource limits for grading one submission on one assignment.

    Attributes:
        test_seconds: Budget of one test, in the student's seconds (what its calls were charged: CPU time where it
            can be read, :mod:`grader.judge.call_clock`).
        submission_seconds: Budget of the whole assignment, in the student's seconds.
        startup_seconds: Budget for importing the submission, in the student's seconds.
        probe_floor_seconds: With ``probe_multiple``, how long one call of the student's code (one probe) may
            take, in seconds: ``probe_floor_seconds + probe_multiple * step(r)``, where ``r`` is what the same
            probe took the reference solution in the same run, rounded up to the 1-2-5 series
            (:func:`grader.judge.deadlines.reference_step`); never more than the test's own limit.
        probe_multiple: See ``probe_floor_seconds``.
        after_timeout_floor_seconds: With ``after_timeout_multiple``, the same rule for the probes that follow
            a timeout of the same submission in the same assignment: it has shown that it hangs, so the rest
            of its tests stop waiting in full.
        after_timeout_multiple: See ``after_timeout_floor_seconds``.
        cpu_seconds: CPU-time limit of one sandbox worker process, in seconds.
        memory_mb: Address-space limit of one sandbox worker, in MiB.
        file_mb: Largest file a sandbox worker may write, in MiB.
        scratch_mb: Everything a sandbox worker may write, in MiB: its scratch folder is a tmpfs of
            this size inside the mount namespace (without one, only ``file_mb`` per file holds).
        processes: Processes and threads one sandbox worker may run.
        output_kb: How much of the program's own output is kept for feedback, in KiB.
    """

    test_seconds: float = 10.0
    submission_seconds: float = 120.0
    startup_seconds: float = 10.0
    probe_floor_seconds: float = 0.5
    probe_multiple: float = 20.0
    after_timeout_floor_seconds: float = 0.25
    after_timeout_multiple: float = 10.0
    cpu_seconds: int = 120
    memory_mb: int = 1024
    file_mb: int = 16
    scratch_mb: int = 64
    processes: int = 64
    output_kb: int = 8

    def for_worker(self) -> dict[str, int]:
        """The limits the worker applies to itself (``setrlimit`` units: bytes, seconds; the scratch budget in bytes)."""
        return {
            "memory_bytes": self.memory_mb * 1024 * 1024,
            "cpu_seconds": self.cpu_seconds,
            "file_bytes": self.file_mb * 1024 * 1024,
            "scratch_bytes": self.scratch_mb * 1024 * 1024,
            "processes": self.processes,
        }


def ordered_files(files: tuple[str, ...], order: tuple[str, ...]) -> list[str]:
    """``files`` in import order: the handout's modules first, in the order of ``order`` (short names: the engine,
    then the network built on it), then the others as listed."""
    def key(f: str) -> tuple[int, int]:
        short = f.rsplit("/", 1)[-1].removesuffix(".py")
        return (order.index(short) if short in order else len(order), files.index(f))
    return sorted(files, key=key)


@dataclass(frozen=True)
class Assignment:
    """One assignment of the course.

    Attributes:
        id: The folder name under ``assignments/``.
        title: Human-readable title.
        files: Package paths students submit (``micrograd/engine.py``), in import order (the handout's modules
            first, in its order).
        points: Total points; equals the sum of the tests' points.
        visibility: Default Gradescope visibility of hidden tests.
        limits: Resource limits.
        root: The assignment folder.
        order: Position in the course; assignments are listed by (order, id).
        allow_network: Whether the sandbox keeps network access (default: no network).
        grader_parts: The grader's own parts (modules of :attr:`Course.parts_dir`) that this assignment's
            sandbox workers load before any student code runs (see :mod:`grader.sandbox.own_parts`).
        judge_parts: The grader's own parts the judge uses for this assignment's tests, and never a worker (e.g.
            the local gradients of the graph nodes the judge makes).
        uses: The handout's table of what each method is built from (``Value.__sub__`` -> ``Value.__add__``,
            ``Value.__neg__``, ...): the course's (``assignments/shared/handout.yaml``, key ``uses``) and the
            assignment's own ``uses`` key. A case about a method counts for the methods it uses too.
        due: When the assignment is due (aware), or None: then no lateness is assessed.
        late: What late work costs (:class:`~grader.course.late_policy.LatePolicy`; none by default).
        kind: ``code`` or ``questions`` (:data:`KINDS`). A concept check's :attr:`files` is its answers file alone
            (``answers/<id>.yaml``), read as data and never run.
        own_modules: The short names of the modules that stand for a notebook's own code (``engine``, ``nn``...):
            the handout's modules and this assignment's.
        defines: The classes the handout puts in the assignment's first file (``Value``): a notebook defining none
            of them at its top level is a scratch notebook using the package, not the code to grade.
        released: Whether the assignment has been handed out: ``True`` (the default), ``False`` (not yet), or the
            moment it is (aware). Commands that default to every assignment (``grade``, ``check``, ``report``,
            ``similarity``, ``export``) default to the released ones (:meth:`Course.released_assignments`).
    """

    id: str
    title: str
    files: tuple[str, ...]
    points: float
    visibility: str
    limits: Limits
    root: Path
    order: int = UNORDERED
    allow_network: bool = False
    grader_parts: tuple[str, ...] = ()
    judge_parts: tuple[str, ...] = ()
    uses: dict[str, tuple[str, ...]] = field(default_factory=dict)
    due: datetime | None = None
    late: LatePolicy = LatePolicy()
    released: datetime | bool = True
    own_modules: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    kind: str = "code"

    @property
    def is_concept_check(self) -> bool:
        """Whether the assignment is questions answered in a file (``kind: questions``), not code."""
        return self.kind == "questions"

    @property
    def package(self) -> str:
        """The student's package the files are modules of (``micrograd``)."""
        return self.files[0].split("/", 1)[0]

    @property
    def own_names(self) -> frozenset[str]:
        """The names an import may give the submission's own code by: the package and :attr:`own_modules`."""
        return frozenset({self.package, *self.own_modules})

    def is_released(self, now: datetime | None = None) -> bool:
        """Whether the assignment is out at ``now`` (aware; None: this moment)."""
        if isinstance(self.released, bool):
            return self.released
        return self.released <= (now or datetime.now(timezone.utc))

    @property
    def public_tests(self) -> Path:
        """Folder of the tests shipped to students."""
        return self.root / "tests" / "public"

    @property
    def hidden_tests(self) -> Path:
        """Folder of the tests only the grader has."""
        return self.root / "tests" / "hidden"

    @property
    def modules(self) -> list[str]:
        """Importable module names of :attr:`files`, in import order (engine first)."""
        return [f[: -len(".py")].replace("/", ".") for f in self.files if f.endswith(".py")]


def _positive(path: Path, key: str, value: Any, kind: type) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigError(path, key, f"expected a positive number, got {value!r}")
    if kind is int and value != int(value):
        raise ConfigError(path, key, f"expected a whole number, got {value!r}")
    return kind(value)


def _limits(path: Path, raw: Any) -> Limits:
    if raw is None:
        return Limits()
    if not isinstance(raw, dict):
        raise ConfigError(path, "limits", f"expected a mapping of limit names to numbers, got {raw!r}")
    known = {f.name: f.type for f in fields(Limits)}
    values = {}
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(path, f"limits.{key}", f"unknown limit; known limits: {', '.join(known)}")
        values[key] = _positive(path, f"limits.{key}", value, float if known[key] == "float" else int)
    return Limits(**values)


HANDOUT = "handout.yaml"
"""The file of :data:`SHARED` holding the handout's tables the whole course shares (:mod:`grader.course.handout`)."""


ASSIGNMENT = "assignment.yaml"
"""An assignment's own file, in its folder: what makes a folder of ``assignments/`` an assignment."""


def load_assignment(root: Path, term: Term | None = None) -> Assignment:
    """Read one assignment folder on its own: ``root/assignment.yaml``, with the handout of the course it stands in
    (:meth:`grader.course.course.Course.assignments` reads several, the handout once).

    Raises:
        ConfigError: As :func:`parse_assignment`, and if the file is missing or is not YAML.
    """
    handout = root.parent / SHARED / HANDOUT
    return parse_assignment(root, load_yaml(root / ASSIGNMENT, required=True), parse_handout(load_yaml(handout), handout),
                            term)


def parse_assignment(root: Path, raw: dict[str, Any], handout: Handout, term: Term | None = None) -> Assignment:
    """Validate the assignment of folder ``root``, its ``assignment.yaml`` read (``raw``: its mapping).

    Args:
        root: The assignment's folder.
        raw: The mapping of its ``assignment.yaml``.
        handout: The course's handout (its modules order the files; its ``uses`` table is extended by the file's).
        term: The course's ``course.yaml``, for its time zone (None: read from ``root``'s parent if a date needs it).

    Raises:
        ConfigError: If a key is missing or invalid; the message names the file and the key.
    """
    path = root / ASSIGNMENT
    known = {"title", "files", "points", "visibility", "limits", "id", "order", "allow_network", "grader_parts", "judge_parts",
             "uses", "due", "late", "released", "kind"}
    for key in raw:
        if key not in known:
            raise ConfigError(path, str(key), f"unknown key; known keys: {', '.join(sorted(known))}")
    if "id" in raw and raw["id"] != root.name:
        raise ConfigError(path, "id", f"must match the folder name {root.name!r}, got {raw['id']!r}")
    title = raw.get("title")
    if not isinstance(title, str) or not title.strip():
        raise ConfigError(path, "title", "expected a non-empty string")
    kind = raw.get("kind", "code")
    if kind not in KINDS:
        raise ConfigError(path, "kind", f"expected one of {', '.join(KINDS)}, got {kind!r}")
    files = _files(path, raw, kind, handout)
    if "points" not in raw:
        raise ConfigError(path, "points", "missing: the assignment's total points")
    points = _positive(path, "points", raw["points"], float)
    visibility = raw.get("visibility", "after_due_date")
    if visibility not in VISIBILITIES:
        raise ConfigError(path, "visibility", f"expected one of {list(VISIBILITIES)}, got {visibility!r}")
    order = raw.get("order", UNORDERED)
    if isinstance(order, bool) or not isinstance(order, int):
        raise ConfigError(path, "order", f"expected a whole number, got {order!r}")
    allow_network = raw.get("allow_network", False)
    if not isinstance(allow_network, bool):
        raise ConfigError(path, "allow_network", f"expected true or false, got {allow_network!r}")
    grader_parts, judge_parts = (_parts(path, raw, key) for key in ("grader_parts", "judge_parts"))
    code = kind == "code"
    ordered = ordered_files(tuple(files), handout.modules) if code else list(files)
    uses = {**handout.uses, **parse_uses(path, raw.get("uses"))}
    dates = parse_dates(raw, lambda: (term if term is not None else load_term(root.parent)).time_zone, str(path))
    return Assignment(
        kind=kind,
        released=dates.released,
        id=root.name,
        due=dates.due,
        late=dates.late,
        uses=uses,
        grader_parts=tuple(grader_parts),
        judge_parts=tuple(judge_parts),
        order=order,
        allow_network=allow_network,
        title=title.strip(),
        files=tuple(ordered),
        own_modules=tuple(dict.fromkeys([*handout.modules, *(f.rsplit("/", 1)[-1][: -len(".py")] for f in ordered)]))
        if code else (),
        defines=handout.files.get(ordered[0].rsplit("/", 1)[-1], ()) if code else (),
        points=points,
        visibility=visibility,
        limits=_limits(path, raw.get("limits")),
        root=root,
    )


def _files(path: Path, raw: dict[str, Any], kind: str, handout: Handout) -> list[str]:
    """The ``files`` key: the student's modules (package paths), or a concept check's one answers file.

    Raises:
        ConfigError: If a code assignment's list is missing or names no module of the package, or a concept check
            lists files or has no questions.
    """
    root = path.parent
    if kind == "questions":
        if "files" in raw:
            raise ConfigError(path, "files", f"a concept check's only file is its answers, {ANSWERS}/{root.name}.yaml: "
                                             "leave files out")
        if not (root / QUESTIONS).is_file():
            raise ConfigError(path, "kind", f"a concept check needs its questions in {root / QUESTIONS}")
        return [f"{ANSWERS}/{root.name}.yaml"]
    files = raw.get("files")
    if not isinstance(files, list) or not files or not all(isinstance(f, str) for f in files):
        raise ConfigError(path, "files", "expected a non-empty list of package paths such as mypackage/name.py")
    first = FILE.match(files[0])
    package = handout.package or (first.group(1) if first else "")
    for f in files:
        if not FILE.match(f) or not f.startswith(f"{package}/"):
            raise ConfigError(path, "files", f"{f!r} is not a module of the {package or 'student'}'s package "
                                             f"({package or 'PACKAGE'}/NAME.py, NAME in lower case)")
    return list(files)


def _parts(path: Path, raw: dict[str, Any], key: str) -> list[str]:
    """The ``grader_parts`` or ``judge_parts`` key: module names of the shared parts folder.

    Raises:
        ConfigError: If it is not a list of lower-case module names.
    """
    names = raw.get(key, [])
    if not isinstance(names, list) or not all(isinstance(n, str) and PART_NAME.match(n) for n in names):
        raise ConfigError(path, key, f"expected a list of module names of assignments/{SHARED}/{PARTS}/ "
                                     f"(lower case, e.g. [stand_ins]), got {names!r}")
    return names
