"""Shared fixtures: the course folder and one grading run of the examples."""

from __future__ import annotations

import compileall
import os
import shutil
import sys
import textwrap
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from checkout import ROOT

import grader
from grader.cli import main
from grader.course.config import Limits
from grader.course.course import Course
from grader.judge.backends import Sandbox, WorkerSpec
from grader.judge.linux_handle import SandboxWorker, prepare_runtime
from grader.judge.portable_handle import PortableWorker
from grader.sandbox import course_code, own_parts, probes
from grader.testing import attribution

EXAMPLES = ROOT / "examples" / "submissions"
COURSE = ROOT / "assignments"

collect_ignore = ["courses"]
"""Other courses the suite grades (``tests/courses/*``): their tests are the grader's to run, never this suite's."""
PARTS = COURSE / "shared" / "parts"


def use_course_parts() -> None:
    """Load this course's code (probe modules) and grader parts into the test process, as a judge of this course
    does (in-process probes on the reference use them)."""
    course_code.use(COURSE)
    if not probes.PROBES:
        course_code.load_probes(judge=True)
    attribution.use(Course(ROOT).handout)
    own_parts.use(str(PARTS))
    for name in ("local_gradients", "stand_ins", "recording", "network_judge"):
        own_parts.load(name)


use_course_parts()

# Every judge and `python -m grader` process the suite starts imports the grader package, and every judge the
# course's code (its probes, checks, parts and tests) and the reference. Where PYTHONDONTWRITEBYTECODE is set (every
# judge), no process ever writes its bytecode, so each of them compiled those from source: it is written once here,
# where Python keeps it (__pycache__; files already up to date are skipped; releases, fingerprints and copies of the
# course leave __pycache__ out).
for _folder in (Path(grader.__file__).parent, ROOT / "assignments", ROOT / "reference"):
    compileall.compile_dir(_folder, quiet=2)


@pytest.fixture(autouse=True)
def _course_parts():
    """Every test starts with the course's parts loaded, whatever a test before it did to this process's parts."""
    if (own_parts.folder() != str(PARTS) or own_parts.get("recording") is None or course_code.folder() != str(COURSE)
            or not probes.PROBES):
        use_course_parts()
    yield


@pytest.fixture
def without_parts():
    """This process without the grader's parts, as in a student's release (the next test gets them back)."""
    own_parts.use(None)
    yield


def zip_folder(folder: Path, dest: Path) -> Path:
    """Zip ``folder``'s files under a top-level folder of the same name."""
    with zipfile.ZipFile(dest, "w") as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                zf.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    return dest


@pytest.fixture(scope="session")
def refused_layers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The Linux sandbox layers this host refuses (none here; namespaces under Ubuntu 24.04's AppArmor),
    learned by starting one worker the way a judge does (:meth:`grader.judge.backends.Sandbox.start`)."""
    base = tmp_path_factory.mktemp("probe")
    code = base / "code" / "micrograd"
    code.mkdir(parents=True)
    (code / "__init__.py").write_text("")
    shutil.copy(ROOT / "reference" / "micrograd" / "engine.py", code / "engine.py")
    sandbox = Sandbox("linux", prepare_runtime(base / "runtime"))
    sandbox.start(WorkerSpec(code.parent, base / "scratch", ("micrograd.engine",), Limits())).kill()
    sandbox.close()
    return dict(sandbox.off)


@pytest.fixture(params=[pytest.param("linux", marks=pytest.mark.linux_only), "portable"])
def worker_factory(request: pytest.FixtureRequest, tmp_path: Path):
    """``factory(engine, limits=None)``: a (not yet started) worker of each backend on a one-module submission.

    Parametrized over the backends; a test that needs one asks for it with
    ``@pytest.mark.parametrize("worker_factory", ["portable"], indirect=True)``.
    """
    workers = []

    def factory(engine, limits=None):
        code = tmp_path / f"w{len(workers)}" / "code" / "micrograd"
        code.mkdir(parents=True)
        (code / "__init__.py").write_text("")
        (code / "engine.py").write_text(textwrap.dedent(engine))
        runtime = prepare_runtime(tmp_path / "runtime")
        backend = {"linux": SandboxWorker, "portable": PortableWorker}[request.param]
        off = request.getfixturevalue("refused_layers") if request.param == "linux" else {}
        worker = backend(runtime, code.parent, code.parent.parent / "scratch", ["micrograd.engine"], limits or Limits(),
                         off=off)
        workers.append(worker)
        return worker

    yield factory
    for worker in workers:
        worker.kill()


def once_per_run(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """The folder where ``make(folder)`` wrote, made once for the whole run rather than once per test process.

    Under pytest-xdist the first worker to ask makes it in a folder all the run's workers share (the parent of their
    temporary folders), holding a lock meanwhile; the others wait for the lock and read what it made. A ``make`` that
    failed leaves no mark of completion, so the next worker to ask makes the folder again (and fails in its turn).
    Without xdist, or without ``fcntl`` (Windows), each test process makes its own. Tests only read the folder.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    try:
        import fcntl
    except ImportError:  # Windows: one per test process
        worker = None
    if worker is None:
        folder = tmp_path_factory.mktemp(name)
        make(folder)
        return folder
    shared = tmp_path_factory.getbasetemp().parent  # this run's, beside popen-gw0, popen-gw1, ...
    folder, done = shared / name, shared / f"{name}.done"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            done.write_text(worker)
    return folder


@pytest.fixture(scope="session")
def built_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The student release (``grader release``) of every assignment, released or not (``-a``: the leak tests then cover
    each one whatever the course's dates), built once per run (:func:`once_per_run`): read it through
    :func:`release`."""

    def build(folder: Path) -> None:
        every = [x for aid in Course(ROOT).assignment_ids() for x in ("-a", aid)]
        assert main(["--course", str(ROOT), "release", "-o", str(folder / "micrograd-course"), *every]) == 0

    return once_per_run(tmp_path_factory, "built-release", build) / "micrograd-course"


@pytest.fixture(scope="module")
def release(built_release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh copy of the student release for each test module (what one module's tests write stays there), with
    what ``grader release`` writes beside it (the Classroom 50 autograders)."""
    dest = tmp_path_factory.mktemp("release")
    for made in built_release.parent.iterdir():
        shutil.copytree(made, dest / made.name, symlinks=True)
    return dest / built_release.name


@pytest.fixture(scope="session")
def course_root() -> Path:
    return ROOT


@pytest.fixture
def course_copy(tmp_path: Path) -> Path:
    """A copy of the course (``assignments/``, ``reference/``, ``student_template/``, ``pyproject.toml``) that a test
    may change."""
    course = tmp_path / "course"
    for name in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", course / "pyproject.toml")
    return course


@pytest.fixture(scope="session")
def graded_class(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Grade the examples plus the reference solution and a zipped correct solution, once per run
    (:func:`once_per_run`)."""

    def grade(folder: Path) -> None:
        subs = folder / "submissions"
        shutil.copytree(EXAMPLES, subs, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(ROOT / "reference", subs / "reference_solution", ignore=shutil.ignore_patterns("__pycache__"))
        zip_folder(EXAMPLES / "correct_recursive", subs / "zipped_correct.zip")
        status = main(["--course", str(ROOT), "grade", str(subs), "-o", str(folder / "out"), "-j", "2"])
        assert status == 0

    return once_per_run(tmp_path_factory, "class", grade) / "out"


LONG_FIRST = (
    "tests/test_docs.py",  # the tutorials, run as a reader runs them
    "tests/commands/test_validate.py",  # the real course's validate, one assignment a test
    "tests/sandbox/test_python_versions.py",  # a venv of another interpreter each
    "tests/commands/test_term_weekly.py",  # a term graded week by week
    "tests/commands/test_gradescope.py",  # two setup.sh installs
    "tests/grading/test_stress.py",
    "tests/sandbox/test_hostile.py",
    "tests/course/test_release.py",
    "tests/course/test_release_leaks.py",
)
"""The modules that take longest, longest first: the run starts them, so that no long test is left at the end to
keep one core busy while the other has nothing left to do (the other modules keep their order, each module's tests
stay together, so a module-scoped fixture is still made once)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The modules of :data:`LONG_FIRST` first. Skip ``linux_only`` tests elsewhere: macOS and Windows run the parts of
    the suite that apply to them."""
    rank = {module: n for n, module in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))  # (stable: the rest in order)
    if sys.platform.startswith("linux"):
        return
    skip = pytest.mark.skip(reason=f"needs Linux (this is {sys.platform})")
    for item in items:
        if item.get_closest_marker("linux_only") is not None:
            item.add_marker(skip)

