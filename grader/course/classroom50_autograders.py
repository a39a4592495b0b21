"""What a teacher puts in the Classroom 50 config repository: one autograder per assignment.

Classroom 50 (github.com/foundation50/classroom50, the successor of GitHub
Classroom) grades a push to a student repository by running
``<classroom>/autograders/<slug>/autograder.py`` of the teacher's
``<org>/classroom50`` repository as ``python3 autograder.py`` in the student's
checkout, on GitHub's ``ubuntu-latest`` as a normal user with password-less
sudo (its wiki pages Autograding-Basics, Advanced-Autograding and Autograders;
``runner.py``). The autograder writes ``./result.json`` (schema
``classroom50/result/v1``) and ``./release-body.md``; exit 0 means grading
ran, anything else is an infrastructure error and records no score.

:func:`build_classroom50` writes, for every assignment handed out (``grader release``: those released, and those
named with ``-a``: :mod:`grader.course.handed_out`), the folder
``autograders/<slug>/`` (``value_ops`` becomes the slug ``value-ops``: Classroom
50 slugs are lower case, digits and hyphens):

* ``autograder.py``: standard library only; installs the grader pinned to
  ``dist/requirements.lock`` into a virtual environment under
  ``$RUNNER_TEMP``, lets the sandbox use user namespaces on a GitHub-hosted
  runner (see :data:`AUTOGRADER`), then runs ``grader check --format
  classroom50`` on the checkout with the course files of the bundle, never
  the student's copies (which a student can edit), in Python's isolated mode
  (``-I``) so a ``grader/`` folder in the checkout is never imported;
* ``dist/``: the grader's source and ``pyproject.toml``, ``requirements.lock``
  (:mod:`grader.course.pins`), and ``course/``: the assignment's
  ``assignment.yaml``, its probes and public tests, the shared probes and checks (never the parts: see
  :mod:`grader.course.public`) and the student template (without the modules
  only assignments not handed out name). No hidden
  test and no reference solution: Classroom 50 publishes the bundle on the
  classroom's public Pages site, and the student's code runs in the same job.

and ``runtime.json``, the per-assignment runtime (``gh teacher assignment add
... --runtime runtime.json``): the Python minor version the pins were made with.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.course.config import Assignment
from grader.course.course import Course
from grader.course.handed_out import template_ignore, withheld_modules
from grader.course.pins import LOCK_NAME, Lock, resolve, runtime_requirements
from grader.course.public import copy_assignment, copy_shared
from grader.errors import GraderError
from grader.files import require_new_folder

SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{1,38}$")
"""A Classroom 50 assignment slug (its runner's own check)."""

AUTOGRADER = '''\
#!/usr/bin/env python3
"""Classroom 50 autograder: {package} course, assignment {id} ({title}).

Written by `grader release`. Classroom 50's runner runs it as
`python3 autograder.py` in the student's checkout. It:

1. installs the grader, pinned to dist/requirements.lock (the versions the
   course was validated with, on Python {python}), into a virtual environment
   in $RUNNER_TEMP (MICROGRAD_GRADER_PYTHON names an interpreter that has the
   grader installed already, and skips this);
2. on a GitHub-hosted runner, lets unprivileged user namespaces through
   Ubuntu's AppArmor restriction (sudo sysctl
   kernel.apparmor_restrict_unprivileged_userns=0): the grader's sandbox then
   runs the student's code in its own user, PID, mount and network
   namespaces. Without it (self-hosted runners, no sudo, or
   MICROGRAD_KEEP_USERNS_RESTRICTION=1) the sandbox keeps Landlock, resource
   limits and time limits, reports the namespace layers as off, and the scores
   are the same: the verdict is computed outside the student's process either way;
3. runs the public tests of {id} in the grader's sandbox on the checkout
   (`grader check --format classroom50`, with this bundle's course files, never
   the student's copies), which writes ./result.json and ./release-body.md.

Exit status 0 whenever grading ran, whatever the score; otherwise the grader
could not be installed or failed itself, and Classroom 50 records an error
instead of a score.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ASSIGNMENT = "{id}"
HERE = Path(__file__).resolve().parent
DIST = HERE / "dist"
USERNS = Path("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")


def say(message):
    print(f"autograder: {{message}}", flush=True)


def installed_grader():
    """The Python of a virtual environment holding the pinned grader (made on first use)."""
    given = os.environ.get("MICROGRAD_GRADER_PYTHON")
    if given:
        return given
    venv = Path(os.environ.get("RUNNER_TEMP") or tempfile.gettempdir()) / "micrograd-grader-venv"
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    done = venv / "installed-from"  # written last: an installation cut short is made again
    if not done.is_file() or done.read_text(encoding="utf-8") != str(DIST):
        say(f"installing the grader (pinned, {{DIST / 'requirements.lock'}}) into {{venv}}")
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-input"]
        subprocess.run([*pip, "-r", str(DIST / "requirements.lock")], check=True)
        subprocess.run([*pip, "--no-deps", str(DIST)], check=True)
        done.write_text(str(DIST), encoding="utf-8")
    return str(python)


def allow_user_namespaces():
    """On a GitHub-hosted runner (a virtual machine discarded after the job), lift the AppArmor restriction."""
    if os.environ.get("RUNNER_ENVIRONMENT") != "github-hosted" or os.environ.get("MICROGRAD_KEEP_USERNS_RESTRICTION"):
        return
    try:
        if USERNS.read_text().strip() == "0":
            return
    except OSError:
        return  # no such restriction on this kernel
    done = subprocess.run(["sudo", "-n", "sysctl", "-q", "-w", "kernel.apparmor_restrict_unprivileged_userns=0"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False)
    if done.returncode == 0:
        say("user namespaces allowed for the sandbox (a GitHub-hosted runner, discarded after this job)")
    else:
        say("could not allow user namespaces (no password-less sudo): the sandbox runs without its namespace "
            "layers, with Landlock and resource limits; the scores are the same")


def main():
    try:
        python = installed_grader()
    except (OSError, subprocess.CalledProcessError) as exc:
        say(f"error: the grader could not be installed ({{exc}}): no score is recorded")
        return 2
    allow_user_namespaces()
    command = [python, "-I", "-m", "grader", "--course", str(DIST / "course"), "check", ".",
               "-a", ASSIGNMENT, "--format", "classroom50"]
    return subprocess.run(command, stdin=subprocess.DEVNULL, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
'''

BUNDLE_README = """\
# Classroom 50 autograders: {package} course

Written by `grader release`. Copy each folder of `autograders/` into your
Classroom 50 config repository as `<classroom>/autograders/<slug>/`, and create
each assignment with the same slug and the runtime of `runtime.json`:

| slug | assignment |
| --- | --- |
{rows}

These are the assignments out when `grader release` ran (and those it was given
with `-a`). Each week, copy in the new assignment's folder and leave those of
earlier weeks as they are.

`gh teacher assignment add ... --runtime runtime.json` (or, in the web form,
Advanced settings > runtime) sets Python {python_minor}, the version the pins
in `dist/requirements.lock` were made with.

Each `autograder.py` installs the pinned grader, runs the assignment's public
tests in the grader's sandbox, and writes `result.json` and `release-body.md`.
The bundle holds no hidden test and no reference solution: Classroom 50
publishes it on your classroom's public Pages site. Grade the hidden tests
yourself after the deadline: `grader grade REPOS --deadline TIME` (see the
course's docs/how-to/git-repositories.md).
"""


@dataclass(frozen=True)
class Classroom50Bundle:
    """What :func:`build_classroom50` wrote.

    Args:
        slugs: Assignment id to its Classroom 50 slug (the folder under ``autograders/``).
        lock: The pins written to each bundle's ``dist/requirements.lock``.
    """

    slugs: dict[str, str]
    lock: Lock


def slug_of(assignment_id: str) -> str:
    """The Classroom 50 slug of an assignment id (``value_ops`` gives ``value-ops``).

    Raises:
        GraderError: If the id cannot be made a slug (lower case letters, digits and hyphens, 2 to 39 characters).
    """
    slug = assignment_id.lower().replace("_", "-")
    if not SLUG.match(slug):
        raise GraderError(f"assignment {assignment_id!r} has no Classroom 50 slug: slugs are 2 to 39 lower case "
                          "letters, digits and hyphens")
    return slug


def build_classroom50(course: Course, dest: Path, lock: Lock | None = None,
                      assignments: Sequence[Assignment] | None = None) -> Classroom50Bundle:
    """Write the Classroom 50 autograders of ``assignments`` (None: every assignment; ``grader release`` passes those
    it hands out, :func:`grader.course.handed_out.hand_out`) into ``dest`` (which must be empty or missing), pinned
    to ``lock`` (None: resolved here, :func:`grader.course.pins.resolve`; ``grader release`` passes the release's, so
    the two install the same versions).

    Raises:
        GraderError: If ``dest`` is not empty, an assignment id has no slug, the template is missing, or a runtime
            dependency of the grader is not installed here (:func:`grader.course.pins.resolve`).
    """
    require_new_folder(dest, "the Classroom 50 autograders")
    package = Path(__file__).resolve().parent.parent  # the grader package
    pyproject = package.parent / "pyproject.toml"
    if not pyproject.is_file():
        raise GraderError(f"no pyproject.toml next to {package}: the autograders install the grader from it")
    if not course.template_package.is_dir():
        raise GraderError(f"no student template at {course.template_package} (run `grader template` first)")
    lock = lock or resolve(runtime_requirements(pyproject))
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    handed = list(course.assignments() if assignments is None else assignments)
    stubs = template_ignore(course.template_package, withheld_modules(course, handed))
    slugs: dict[str, str] = {}
    for a in handed:
        slug = slugs[a.id] = slug_of(a.id)
        folder = dest / "autograders" / slug
        dist = folder / "dist"
        shutil.copytree(package, dist / "grader", ignore=ignore)
        shutil.copy(pyproject, dist / "pyproject.toml")
        (dist / LOCK_NAME).write_text(lock.text(), encoding="utf-8")
        copy_shared(course, dist / "course" / "assignments")
        copy_assignment(a, dist / "course" / "assignments")
        shutil.copytree(course.template_package, dist / "course" / "student_template" / course.package, ignore=stubs)
        script = AUTOGRADER.format(id=a.id, title=a.title.replace('"', "'"), python=lock.python_minor,
                                   package=course.package)
        (folder / "autograder.py").write_text(script, encoding="utf-8")
        (folder / "autograder.py").chmod(0o755)
    rows = "\n".join(f"| `{slug}` | {a.title} |" for a in handed for slug in [slugs[a.id]])
    readme = BUNDLE_README.format(rows=rows, python_minor=lock.python_minor, package=course.package)
    (dest / "README.md").write_text(readme, encoding="utf-8")
    (dest / "runtime.json").write_text(json.dumps({"python": lock.python_minor}, indent=2) + "\n", encoding="utf-8")
    return Classroom50Bundle(slugs, lock)
