"""Shared fixtures: the course folder and one grading run of the examples."""

from __future__ import annotations

import shutil
import sys
import zipfile
from pathlib import Path

import pytest

from grader.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "submissions"


def zip_folder(folder: Path, dest: Path) -> Path:
    """Zip ``folder``'s files under a top-level folder of the same name."""
    with zipfile.ZipFile(dest, "w") as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                zf.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    return dest


@pytest.fixture(scope="session")
def course_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def graded_class(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Grade the examples plus the reference solution and a zipped correct solution, once."""
    subs = tmp_path_factory.mktemp("class") / "submissions"
    shutil.copytree(EXAMPLES, subs, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "reference", subs / "reference_solution", ignore=shutil.ignore_patterns("__pycache__"))
    zip_folder(EXAMPLES / "correct_recursive", subs / "zipped_correct.zip")
    out = subs.parent / "out"
    status = main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-j", "2"])
    assert status == 0
    return out


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip ``linux_only`` tests elsewhere: macOS and Windows run the parts of the suite that apply to them."""
    if sys.platform.startswith("linux"):
        return
    skip = pytest.mark.skip(reason=f"needs Linux (this is {sys.platform})")
    for item in items:
        if item.get_closest_marker("linux_only") is not None:
            item.add_marker(skip)
