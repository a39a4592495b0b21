"""The Gradescope autograder zip: built here, then set up and run on a fake /autograder tree.

``setup.sh`` really runs, with ``python3`` on ``PATH`` being each interpreter
below: it creates ``$AUTOGRADER_ROOT/venv`` and pip-installs the pinned versions
from the index pip is configured with (PyPI), once per interpreter (a
module-scoped fixture). The interpreters:

* ``ordinary``: the base interpreter of the Python running the tests (not
  externally managed);
* ``managed``: an externally managed interpreter (PEP 668): ``/usr/bin/python3`` where it is one and has venv, as
  on Debian 12 and Ubuntu 24.04; elsewhere a throwaway prefix of the ordinary interpreter (its binary and a copy of
  its standard library) whose stdlib folder holds an ``EXTERNALLY-MANAGED`` file, so the managed case is tested on
  any machine. It is first shown to refuse ``pip install``, and its lock pins an older tqdm than the index's newest,
  so installing anything but the pins shows.

The whole module takes about a minute on two cores (mostly the two installs, 15-25 s each). (A case for each kind of
managed interpreter, the real and the emulated one, was one install more for what either shows; a case of
another minor version, for the warning about a lock made with another Python, was dropped to keep the suite under
ten minutes: setup.sh's warning path is not exercised here.)
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from importlib.metadata import version as installed_version
from pathlib import Path

import hostile_submissions as H
import pytest
from checkout import ROOT
from doc_quotes import assert_quoted
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from grader.cli import main
from grader.course.config import VISIBILITIES
from grader.course.pins import read_lock, resolve, runtime_requirements
from grader.errors import GraderError

EXAMPLES = ROOT / "examples" / "submissions"
SYSTEM_PATH = "/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
DESCRIBE = ("import json, platform, sys, sysconfig; print(json.dumps({'executable': sys.executable, "
            "'base_prefix': sys.base_prefix, 'stdlib': sysconfig.get_path('stdlib'), "
            "'minor': '%d.%d' % sys.version_info[:2]}))")

# The managed tree's lock pins this older tqdm (>= 4.60, as pyproject.toml asks), as if the course had
# been validated with it: an install of anything but the pins would get a newer one.
OLDER_TQDM = "4.66.5" if installed_version("tqdm") != "4.66.5" else "4.66.4"

pytestmark = [pytest.mark.timeout(1200), pytest.mark.linux_only]  # Gradescope images are Linux; setup.sh is bash


def describe(python: str) -> dict[str, str]:
    """Where ``python`` keeps its standard library, and its version."""
    done = subprocess.run([python, "-I", "-c", DESCRIBE], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def externally_managed(python: str) -> bool:
    """PEP 668: a file ``EXTERNALLY-MANAGED`` in the interpreter's stdlib folder."""
    return (Path(describe(python)["stdlib"]) / "EXTERNALLY-MANAGED").is_file()


def assert_pip_refuses(python: str) -> None:
    """``python -m pip install`` fails because the environment is externally managed (installs nothing)."""
    done = subprocess.run([python, "-m", "pip", "install", "--dry-run", "--no-index", "--no-deps", "micrograd-grader"],
                          capture_output=True, text=True, timeout=120, env=clean_env(SYSTEM_PATH))
    assert done.returncode != 0 and "externally-managed-environment" in done.stderr, done.stdout + done.stderr


def clean_env(path: str, root: Path | None = None) -> dict[str, str]:
    """The environment of Gradescope's scripts: no virtualenv of ours, ``PATH`` as given."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PIP_REQUIRE_VIRTUALENV")}
    env["PATH"] = path
    if root is not None:
        env["AUTOGRADER_ROOT"] = str(root)
    return env


def managed_copy(python: str, dest: Path, without: tuple[str, ...] = ()) -> str:
    """A throwaway prefix of ``python`` whose stdlib folder holds the PEP 668 marker; its ``bin/python3``.

    The binary and the standard library are copied (the test suite and
    ``site-packages`` are linked, not copied; ``without`` names top-level stdlib
    entries to leave out), so the copy finds its prefix, and its stdlib, in
    ``dest``, and leaves the original alone.
    """
    info = describe(python)
    base, stdlib = Path(info["base_prefix"]), Path(info["stdlib"])
    if os.name != "posix" or stdlib.parent != base / "lib" or not (stdlib / "site-packages" / "pip").is_dir():
        pytest.skip(f"cannot emulate an externally managed copy of {python}: stdlib {stdlib}, prefix {base}")
    (dest / "bin").mkdir(parents=True)
    shutil.copy2(os.path.realpath(info["executable"]), dest / "bin" / "python3")
    for entry in (base / "lib").iterdir():  # libpython, for a binary linked relative to itself
        if entry.name != stdlib.name:
            (dest / "lib" / entry.name).parent.mkdir(exist_ok=True)
            (dest / "lib" / entry.name).symlink_to(entry)
    linked = ("site-packages", "test")
    shutil.copytree(stdlib, dest / "lib" / stdlib.name, symlinks=True,
                    ignore=lambda d, names: [n for n in names if n == "__pycache__"
                                             or Path(d) == stdlib and n in linked + without])
    for name in linked:
        if (stdlib / name).exists():
            (dest / "lib" / stdlib.name / name).symlink_to(stdlib / name)
    (dest / "lib" / stdlib.name / "EXTERNALLY-MANAGED").write_text(
        "[externally-managed]\nError=Managed by the grader's test suite (a PEP 668 emulation).\n")
    copy = str(dest / "bin" / "python3")
    assert describe(copy)["stdlib"] == str(dest / "lib" / stdlib.name)
    return copy


@dataclass
class Tree:
    """A fake /autograder after setup.sh: its root, the environment the scripts ran with, setup's outcome."""

    root: Path
    env: dict[str, str]
    python: str
    setup: subprocess.CompletedProcess[str]

    def run_autograder(self, submission: Path) -> dict:
        """Run ``run_autograder`` on a copy of ``submission``; return its results.json."""
        shutil.rmtree(self.root / "submission", ignore_errors=True)
        shutil.rmtree(self.root / "results", ignore_errors=True)
        shutil.copytree(submission, self.root / "submission", ignore=shutil.ignore_patterns("__pycache__"))
        done = subprocess.run(["bash", str(self.root / "source" / "run_autograder")], env=self.env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return json.loads((self.root / "results" / "results.json").read_text())


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """``grader gradescope -a backward``: the zip and what the command printed."""
    archive = tmp_path_factory.mktemp("zip") / "autograder.zip"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--course", str(ROOT), "gradescope", "-a", "backward", "-o", str(archive)]) == 0
    return archive, out.getvalue()


def unpack(archive: Path, root: Path) -> None:
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(root / "source")
    for script in ("setup.sh", "run_autograder"):  # zipfile drops the mode bits; Gradescope does not
        (root / "source" / script).chmod(0o755)


@pytest.fixture(scope="module", params=["ordinary", "managed"])
def tree(request: pytest.FixtureRequest, built: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory) -> Tree:
    """The zip unpacked in a fake /autograder and set up by setup.sh, with ``python3`` the interpreter named."""
    work = tmp_path_factory.mktemp(request.param)
    base = getattr(sys, "_base_executable", None) or sys.executable
    if request.param == "ordinary":
        python = os.path.realpath(base)
        if externally_managed(python):
            pytest.skip(f"the base interpreter {python} is externally managed: see the managed case")
    else:
        python = "/usr/bin/python3"
        real = os.access(python, os.X_OK) and externally_managed(python) and subprocess.run(
            [python, "-c", "import venv, ensurepip"], capture_output=True).returncode == 0
        if not real:  # no managed interpreter with venv here (setup.sh would apt-get install venv): emulate one
            python = managed_copy(os.path.realpath(base), work / "managed-python")
        assert externally_managed(python)
        assert_pip_refuses(python)
    bindir = work / "bin"
    bindir.mkdir()
    (bindir / "python3").symlink_to(python)
    root = work / "autograder"
    unpack(built[0], root)
    if request.param == "managed":  # pins older than what the index serves now: no install can match by luck
        lock = root / "source" / "requirements.lock"
        lock.write_text(lock.read_text().replace(f"tqdm=={installed_version('tqdm')} ", f"tqdm=={OLDER_TQDM} ", 1))
        assert read_lock(lock.read_text())["tqdm"] == OLDER_TQDM
    env = clean_env(f"{bindir}:{SYSTEM_PATH}", root)
    before = installed_in(python)
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], env=env, capture_output=True, text=True,
                           timeout=900)
    assert installed_in(python) == before, "setup.sh changed the system Python's packages"
    return Tree(root, env, python, setup)


def installed_in(python: str) -> list[str]:
    """The distributions an interpreter's own environment holds, as ``name==version``."""
    code = "import importlib.metadata as m; print(sorted(f'{d.metadata[\"Name\"]}=={d.version}' for d in m.distributions()))"
    return subprocess.run([python, "-I", "-c", code], capture_output=True, text=True, timeout=60, check=True).stdout


def test_the_zip_pins_the_validated_environment(built):
    archive, printed = built
    with zipfile.ZipFile(archive) as zf:
        names = zf.namelist()
        lock = read_lock(zf.read("requirements.lock").decode())
        setup = zf.read("setup.sh").decode()
        readme = zf.read("README.md").decode()
    assert {"setup.sh", "run_autograder", "requirements.lock", "grader/cli.py", "grader/course/pins.py", "pyproject.toml",
            "reference/micrograd/engine.py"} <= set(names)
    assert any(n.startswith("assignments/backward/tests/hidden/") for n in names)
    assert not any("bugs.yaml" in n or n.startswith("assignments/mlp/") for n in names)

    requirements = [Requirement(r) for r in runtime_requirements(ROOT / "pyproject.toml")]
    roots = {canonicalize_name(r.name) for r in requirements if r.marker is None or r.marker.evaluate({"extra": ""})}
    assert roots <= set(lock)
    assert {"pluggy", "iniconfig", "sortedcontainers", "markupsafe", "jsonschema", "traitlets"} <= set(lock)
    assert "micrograd-grader" not in lock and "selenium" not in lock  # not the grader, not a test extra
    assert lock == {name: installed_version(name) for name in lock}
    assert f'LOCK_PYTHON="{sys.version_info[0]}.{sys.version_info[1]}"' in setup
    assert f"pinned {len(lock)} dependencies" in printed and sys.prefix in printed
    # docs/how-to/gradescope.md quotes it; the environment pinned is this host's (its folder, Python, how many)
    assert_quoted("how-to/gradescope.md", 0, printed, masks=[
        (r"^wrote \S*autograder\.zip \(\d+ files\)", "wrote autograder.zip (N files)"),  # one more per module added
        (r"pinned \d+ dependencies to the versions installed in \S+ \(Python [\d.]+\)", "pinned N dependencies to ENV")])
    assert "requirements.lock" in readme and "grader gradescope -a backward" in readme and "refresh" in readme


def test_setup_installs_exactly_the_pins_in_a_venv(tree):
    output = tree.setup.stdout + tree.setup.stderr
    assert tree.setup.returncode == 0, output[-4000:]
    python = tree.root / "venv" / "bin" / "python"
    freeze = subprocess.run([str(python), "-m", "pip", "freeze"], capture_output=True, text=True, check=True,
                            env=tree.env).stdout.splitlines()
    grader_lines = [line for line in freeze if line.startswith("micrograd-grader")]
    assert len(grader_lines) == 1 and "-e" not in grader_lines[0]  # the grader itself, not editable
    pinned = read_lock((tree.root / "source" / "requirements.lock").read_text())
    assert read_lock("\n".join(line for line in freeze if line not in grader_lines)) == pinned
    assert describe(str(python))["stdlib"] == describe(tree.python)["stdlib"]  # a venv of the python3 on PATH
    warned = "WARNING: requirements.lock was made with Python" in output
    assert warned == (describe(tree.python)["minor"] != "{}.{}".format(*sys.version_info[:2]))


def test_run_autograder_gives_full_marks_to_a_correct_submission_and_zero_to_the_template(tree):
    assert tree.setup.returncode == 0, tree.setup.stderr[-4000:]
    correct = tree.run_autograder(ROOT / "reference")
    assert correct["score"] == sum(t["max_score"] for t in correct["tests"]) == 50
    assert all(t["status"] == "passed" for t in correct["tests"])
    template = tree.run_autograder(EXAMPLES / "template_unchanged")
    assert template["score"] == 0 and template["tests"]
    # every test fails but the contract test (worth no points), which the template's given constructor keeps
    assert [t["name"] for t in template["tests"] if t["status"] != "failed"] == [
        "Value(data, children, op) keeps data, grad = 0, _prev and _op"]


def test_results_json_follows_gradescope_schema_with_feedback(tree):
    assert tree.setup.returncode == 0, tree.setup.stderr[-4000:]
    results = tree.run_autograder(EXAMPLES / "bug_wrong_tanh")
    assert isinstance(results["score"], (int, float)) and isinstance(results["execution_time"], (int, float))
    assert 0 < results["score"] < 50
    assert results["score"] == sum(t["score"] for t in results["tests"])
    for test in results["tests"]:
        assert test["status"] in ("passed", "failed")
        assert test["visibility"] in VISIBILITIES
        assert {"name", "score", "max_score", "output"} <= set(test)
    assert {t["visibility"] for t in results["tests"]} == {"visible", "after_due_date"}
    assert any("Value.tanh" in t["output"] for t in results["tests"] if t["status"] == "failed")


def test_setup_without_the_venv_module_tries_apt_then_says_what_to_install(built, tmp_path):
    python = managed_copy(os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable),
                          tmp_path / "no-venv-python", without=("ensurepip",))
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "python3").symlink_to(python)
    log = tmp_path / "apt.log"
    (bindir / "apt-get").write_text(f'#!/bin/sh\necho "$@" >> {log}\n')  # installs nothing
    (bindir / "apt-get").chmod(0o755)
    unpack(built[0], tmp_path / "autograder")
    done = subprocess.run(["bash", str(tmp_path / "autograder" / "source" / "setup.sh")], capture_output=True,
                          text=True, timeout=120, env=clean_env(f"{bindir}:{SYSTEM_PATH}", tmp_path / "autograder"))
    assert done.returncode != 0
    assert "lacks the venv and ensurepip modules" in done.stderr and "apt-get install python3-venv" in done.stderr
    minor = describe(python)["minor"]
    if os.geteuid() == 0:
        assert f"install -y -qq python{minor}-venv" in log.read_text()
    else:
        assert not log.exists()
    assert not (tmp_path / "autograder" / "venv").exists()


def test_run_autograder_without_setup_says_so(built, tmp_path):
    unpack(built[0], tmp_path / "autograder")
    shutil.copytree(ROOT / "reference" / "micrograd", tmp_path / "autograder" / "submission" / "micrograd")
    done = subprocess.run(["bash", str(tmp_path / "autograder" / "source" / "run_autograder")], capture_output=True,
                          text=True, timeout=60, env=clean_env(SYSTEM_PATH, tmp_path / "autograder"))
    assert done.returncode != 0 and "setup.sh did not complete" in done.stderr


def dist(site: Path, name: str, version: str, *requires: str) -> None:
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}", *(f"Requires-Dist: {r}" for r in requires)]
    (info / "METADATA").write_text("\n".join(lines) + "\n")


def test_the_closure_honours_markers_and_asked_extras_only(tmp_path):
    site = tmp_path / "site"
    dist(site, "Alpha", "1.0", "beta>=2", 'gamma; extra == "fast"', 'delta; python_version < "3"',
         'epsilon; extra == "docs"')
    dist(site, "beta", "2.5")
    dist(site, "gamma", "0.3", "beta")
    path = [str(site)]

    def pins(*reqs: str) -> dict[str, str]:
        return {p.name: p.version for p in resolve(list(reqs), path=path).pins}

    assert pins("alpha") == {"Alpha": "1.0", "beta": "2.5"}
    assert pins("alpha[fast]") == {"Alpha": "1.0", "beta": "2.5", "gamma": "0.3"}
    assert pins("alpha", "alpha[fast]") == pins("alpha[fast]")  # an extra asked on a later visit counts too
    assert pins('alpha; python_version < "3"') == {}
    lock = resolve(["alpha[fast]"], path=path)
    assert [p.required_by for p in lock.pins] == [("pyproject.toml",), ("alpha", "gamma"), ("alpha",)]
    assert read_lock(lock.text()) == {"alpha": "1.0", "beta": "2.5", "gamma": "0.3"}


def test_an_environment_the_grader_cannot_run_in_is_an_instructor_error(tmp_path):
    site = tmp_path / "site"
    dist(site, "alpha", "1.0", "beta>=2")
    dist(site, "beta", "1.5")
    dist(site, "omega", "1.0", 'epsilon; extra == "docs"')
    with pytest.raises(GraderError, match=r"alpha requires beta>=2, but beta 1\.5 is installed"):
        resolve(["alpha"], path=[str(site)])
    assert [p.name for p in resolve(["omega"], path=[str(site)]).pins] == ["omega"]
    with pytest.raises(GraderError, match=r"epsilon \(required by omega\) is not installed"):
        resolve(["omega[docs]"], path=[str(site)])
    with pytest.raises(GraderError, match="malformed requirement"):
        resolve(["alpha >>> 1"], path=[str(site)])
    with pytest.raises(GraderError, match="not a pin"):
        read_lock("alpha>=1\n")


def test_nothing_appended_to_run_autograder_while_it_runs_is_executed(built, tmp_path):
    """Bash reads a script as it goes: run_autograder hands over to the grader with exec, so a line
    appended during grading (a submission with write access, where no isolation layer was available)
    never runs and never rewrites results.json."""
    root = tmp_path / "autograder"
    unpack(built[0], root)
    script = root / "source" / "run_autograder"
    fake = root / "venv" / "bin" / "python"
    fake.parent.mkdir(parents=True)
    fake.write_text(f"#!/bin/sh\nprintf '\\necho 999 > {root}/results.json\\n' >> {script}\nexit 0\n")
    fake.chmod(0o755)
    done = subprocess.run(["bash", str(script)], env=clean_env(SYSTEM_PATH, root), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "999" in script.read_text() and not (root / "results.json").exists()


def tree_digest(root: Path) -> dict[str, str]:
    """Every file and link under ``root`` (caches and the results folder aside) to its content's hash or target."""
    import hashlib

    found = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__" and Path(folder, d) != root / "results"]
        for name in files:
            path = Path(folder, name)
            rel = str(path.relative_to(root))
            found[rel] = ("link:" + os.readlink(path)) if path.is_symlink() else hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def test_a_submission_changes_nothing_under_autograder_and_results_are_the_judges(tree, tmp_path):
    """Issue 12, C: student code writes nowhere under /autograder but its scratch folder; results.json is
    written by the judge after the sandbox ended, with the honest score."""
    if tree.setup.returncode != 0:
        pytest.skip("setup.sh failed on this variant (its own test says why)")
    honest = tree.run_autograder(_package(tmp_path / "honest", H.NO_POW))
    before = tree_digest(tree.root)
    hostile = tree.run_autograder(_package(
        tmp_path / "hostile", H.with_import_code(H.AUTOGRADER_TEMPLATE.format(root=str(tree.root)))))
    after = tree_digest(tree.root)
    changed = sorted(k for k in before.keys() | after.keys()
                     if before.get(k) != after.get(k) and not k.startswith("submission/"))
    assert changed == []
    assert hostile["score"] == honest["score"] and hostile["score"] < 999


def _package(folder: Path, engine: str) -> Path:
    H.write(folder, engine)
    return folder
