"""Tests of course configuration (grader.course.config) and template generation (grader.course.student_template)."""

from __future__ import annotations

from pathlib import Path

import pytest
from checkout import ROOT

from grader.course import student_template as template
from grader.course.config import FILE, VISIBILITIES, Limits, load_assignment
from grader.course.course import Course, find_course
from grader.errors import ConfigError, GraderError

COURSE_ROOT = ROOT
REAL_ASSIGNMENTS = ["value_ops", "backward", "mlp", "forward_mode", "graph", "classifier", "gradcheck", "checkpoint",
                    "modules", "checkpointing"]
MINIMAL = "title: Demo\nfiles: [micrograd/engine.py]\npoints: 10\n"


def write_assignment(folder: Path, text: str | bytes) -> Path:
    """Create ``folder/assignment.yaml`` holding ``text``; return ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "assignment.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return folder


def load_error(folder: Path) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_assignment(folder)
    return info.value


# load_assignment(): valid files ----------------------------------------------


def test_valid_assignment_loads_with_default_limits(tmp_path: Path) -> None:
    text = "title: '  Demo  '\nfiles: [micrograd/engine.py, micrograd/nn.py]\npoints: 10\n"
    root = write_assignment(tmp_path / "demo", text)

    a = load_assignment(root)

    assert a.id == "demo"
    assert a.title == "Demo"
    assert a.files == ("micrograd/engine.py", "micrograd/nn.py")
    assert a.points == 10.0
    assert a.visibility == "after_due_date"
    assert a.limits == Limits()
    assert a.root == root
    assert a.public_tests == root / "tests" / "public"
    assert a.hidden_tests == root / "tests" / "hidden"
    assert a.modules == ["micrograd.engine", "micrograd.nn"]


def test_given_limits_override_only_their_defaults(tmp_path: Path) -> None:
    root = write_assignment(tmp_path / "demo", MINIMAL + "limits:\n  test_seconds: 2.5\n  memory_mb: 2048.0\n")

    limits = load_assignment(root).limits

    assert limits.test_seconds == 2.5
    assert limits.memory_mb == 2048 and isinstance(limits.memory_mb, int)
    assert limits.cpu_seconds == Limits().cpu_seconds
    assert limits.for_worker()["memory_bytes"] == 2048 * 1024 * 1024


@pytest.mark.parametrize("visibility", VISIBILITIES)
def test_every_gradescope_visibility_is_accepted(tmp_path: Path, visibility: str) -> None:
    root = write_assignment(tmp_path / "demo", MINIMAL + f"visibility: {visibility}\n")

    assert load_assignment(root).visibility == visibility


def test_id_matching_the_folder_name_is_accepted(tmp_path: Path) -> None:
    root = write_assignment(tmp_path / "demo", MINIMAL + "id: demo\n")

    assert load_assignment(root).id == "demo"


def test_order_is_read(tmp_path: Path) -> None:
    root = write_assignment(tmp_path / "demo", MINIMAL + "order: 2\n")

    assert load_assignment(root).order == 2


# load_assignment(): invalid files ----------------------------------------------


def test_missing_file_is_a_config_error_naming_the_file(tmp_path: Path) -> None:
    folder = tmp_path / "demo"
    folder.mkdir()

    error = load_error(folder)

    assert str(folder / "assignment.yaml") in str(error)
    assert "not found" in str(error)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("title: [unclosed\n", id="not-yaml"),
        pytest.param(b"title: \xff\xfe\n", id="not-utf8"),
        pytest.param("- title: Demo\n", id="top-level-list"),
        pytest.param("just a string\n", id="top-level-string"),
        pytest.param("", id="empty-file"),
    ],
)
def test_unreadable_file_is_a_config_error_naming_the_file(tmp_path: Path, text: str | bytes) -> None:
    folder = write_assignment(tmp_path / "demo", text)

    error = load_error(folder)

    assert error.path == str(folder / "assignment.yaml")
    assert str(error).startswith(str(folder / "assignment.yaml"))
    assert error.key == ""


@pytest.mark.parametrize(
    ("text", "key"),
    [
        pytest.param(MINIMAL + "deadline: tomorrow\n", "deadline", id="unknown-key"),
        pytest.param("files: [micrograd/engine.py]\npoints: 10\n", "title", id="missing-title"),
        pytest.param("title: '   '\nfiles: [micrograd/engine.py]\npoints: 10\n", "title", id="empty-title"),
        pytest.param("title: 42\nfiles: [micrograd/engine.py]\npoints: 10\n", "title", id="title-not-a-string"),
        pytest.param("title: Demo\nfiles: micrograd/engine.py\npoints: 10\n", "files", id="files-not-a-list"),
        pytest.param("title: Demo\nfiles: []\npoints: 10\n", "files", id="files-empty"),
        pytest.param("title: Demo\npoints: 10\n", "files", id="files-missing"),
        pytest.param("title: Demo\nfiles: [micrograd/Utils.py]\npoints: 10\n", "files", id="file-not-a-module-name"),
        pytest.param("title: Demo\nfiles: [micrograd/../setup.py]\npoints: 10\n", "files", id="file-outside-the-package"),
        pytest.param("title: Demo\nfiles: [engine.py]\npoints: 10\n", "files", id="file-not-a-package-path"),
        pytest.param("title: Demo\nfiles: [micrograd/engine.py]\n", "points", id="missing-points"),
        pytest.param("title: Demo\nfiles: [micrograd/engine.py]\npoints: 0\n", "points", id="zero-points"),
        pytest.param("title: Demo\nfiles: [micrograd/engine.py]\npoints: -5\n", "points", id="negative-points"),
        pytest.param("title: Demo\nfiles: [micrograd/engine.py]\npoints: true\n", "points", id="boolean-points"),
        pytest.param("title: Demo\nfiles: [micrograd/engine.py]\npoints: ten\n", "points", id="text-points"),
        pytest.param(MINIMAL + "visibility: public\n", "visibility", id="bad-visibility"),
        pytest.param(MINIMAL + "limits: 5\n", "limits", id="limits-not-a-mapping"),
        pytest.param(MINIMAL + "limits: [test_seconds]\n", "limits", id="limits-a-list"),
        pytest.param(MINIMAL + "limits: {gpu_count: 1}\n", "limits.gpu_count", id="unknown-limit"),
        pytest.param(MINIMAL + "limits: {test_seconds: -1}\n", "limits.test_seconds", id="negative-limit"),
        pytest.param(MINIMAL + "limits: {cpu_seconds: 0}\n", "limits.cpu_seconds", id="zero-limit"),
        pytest.param(MINIMAL + "limits: {memory_mb: 1.5}\n", "limits.memory_mb", id="fractional-memory-mb"),
        pytest.param(MINIMAL + "limits: {memory_mb: 1GB}\n", "limits.memory_mb", id="text-memory-mb"),
        pytest.param(MINIMAL + "limits: {memory_mb: true}\n", "limits.memory_mb", id="boolean-memory-mb"),
        pytest.param(MINIMAL + "id: other\n", "id", id="id-differs-from-folder"),
        pytest.param(MINIMAL + "order: first\n", "order", id="order-not-a-number"),
        pytest.param(MINIMAL + "grader_parts: stand_ins\n", "grader_parts", id="parts-not-a-list"),
        pytest.param(MINIMAL + "grader_parts: [../reference/engine]\n", "grader_parts", id="part-a-path"),
        pytest.param(MINIMAL + "grader_parts: [Stand_Ins.py]\n", "grader_parts", id="part-not-a-module-name"),
    ],
)
def test_invalid_key_is_a_config_error_naming_file_and_key(tmp_path: Path, text: str, key: str) -> None:
    folder = write_assignment(tmp_path / "demo", text)

    error = load_error(folder)

    assert error.key == key
    assert str(error).startswith(f"{folder / 'assignment.yaml'}: {key}: ")


def test_config_error_is_a_grader_error(tmp_path: Path) -> None:
    folder = write_assignment(tmp_path / "demo", "title: Demo\n")

    with pytest.raises(GraderError):
        load_assignment(folder)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        pytest.param("title: Demo\nfiles: [micrograd/engine.py]\npoints: .nan\n", "points", id="nan-points"),
        pytest.param(MINIMAL + "limits: {memory_mb: .inf}\n", "limits.memory_mb", id="infinite-memory-mb"),
        pytest.param(MINIMAL + "limits: {cpu_seconds: .nan}\n", "limits.cpu_seconds", id="nan-cpu-seconds"),
    ],
)
def test_non_finite_number_is_a_config_error(tmp_path: Path, text: str, key: str) -> None:
    folder = write_assignment(tmp_path / "demo", text)

    assert load_error(folder).key == key


# Course and find_course() ------------------------------------------------------


def make_course(root: Path) -> Course:
    write_assignment(root / "assignments" / "alpha", MINIMAL)
    write_assignment(root / "assignments" / "gamma", MINIMAL)
    (root / "assignments" / "beta_draft").mkdir()
    (root / "assignments" / "notes.txt").write_text("not an assignment\n", encoding="utf-8")
    return Course(root)


def test_assignment_ids_lists_only_folders_with_assignment_yaml(tmp_path: Path) -> None:
    assert make_course(tmp_path).assignment_ids() == ["alpha", "gamma"]


def test_assignment_ids_is_empty_without_an_assignments_folder(tmp_path: Path) -> None:
    assert Course(tmp_path).assignment_ids() == []


def test_assignment_loads_one_assignment_by_id(tmp_path: Path) -> None:
    assert make_course(tmp_path).assignment("gamma").id == "gamma"


def test_unknown_assignment_lists_the_available_ids(tmp_path: Path) -> None:
    course = make_course(tmp_path)

    with pytest.raises(GraderError, match="'nope'.*alpha, gamma"):
        course.assignment("nope")


def test_find_course_walks_up_from_a_nested_folder(tmp_path: Path) -> None:
    make_course(tmp_path / "course")
    nested = tmp_path / "course" / "work" / "deep" / "deeper"
    nested.mkdir(parents=True)

    assert find_course(nested).root == (tmp_path / "course").resolve()


def test_find_course_accepts_the_course_folder_itself(tmp_path: Path) -> None:
    make_course(tmp_path)

    assert find_course(tmp_path).root == tmp_path.resolve()


def test_find_course_without_assignments_folder_above_is_an_error(tmp_path: Path) -> None:
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    (tmp_path / "a" / "assignments").write_text("a file, not a folder\n", encoding="utf-8")

    with pytest.raises(GraderError, match="no course found"):
        find_course(nested)


# the real course ---------------------------------------------------------------


def test_real_course_lists_its_assignments() -> None:
    assert Course(COURSE_ROOT).assignment_ids() == sorted(REAL_ASSIGNMENTS)


@pytest.mark.parametrize("assignment_id", REAL_ASSIGNMENTS)
def test_real_assignment_validates(assignment_id: str) -> None:
    a = Course(COURSE_ROOT).assignment(assignment_id)

    assert a.id == assignment_id
    assert a.title
    assert a.points > 0
    assert all(FILE.match(f) for f in a.files) or a.files == (f"answers/{a.id}.yaml",) and a.is_concept_check
    assert a.public_tests.is_dir()
    assert a.hidden_tests.is_dir()


def test_real_course_loads_every_assignment_in_course_order() -> None:
    assert [a.id for a in Course(COURSE_ROOT).assignments()] == REAL_ASSIGNMENTS


def test_find_course_finds_the_real_course_from_its_tests_folder() -> None:
    assert find_course(COURSE_ROOT / "tests").root == COURSE_ROOT


# template.strip_solutions() ----------------------------------------------------

METHOD_WITH_REGION = '''\
class Value:
    def __mul__(self, other):
        """Return self * other."""
        # BEGIN SOLUTION Task 1.2
        out = Value(self.data * other.data)
        return out
        # END SOLUTION

    def keep(self):
        return 1
'''


def test_region_becomes_one_raise_naming_task_and_method() -> None:
    stripped = template.strip_solutions(METHOD_WITH_REGION, "engine.py")

    assert stripped == (
        "class Value:\n"
        "    def __mul__(self, other):\n"
        '        """Return self * other."""\n'
        '        raise NotImplementedError("Task 1.2: implement Value.__mul__")\n'
        "\n"
        "    def keep(self):\n"
        "        return 1\n"
    )


def test_region_without_task_label_names_only_the_function() -> None:
    source = "def f(x):\n    # BEGIN SOLUTION\n    return x\n    # END SOLUTION\n"

    assert template.strip_solutions(source, "m.py") == 'def f(x):\n    raise NotImplementedError("implement f")\n'


def test_raise_uses_the_indentation_of_the_marker() -> None:
    source = (
        "def f(x):\n"
        "    if x:\n"
        "        # BEGIN SOLUTION Task 9.1\n"
        "        return x\n"
        "        # END SOLUTION\n"
        "    return 0\n"
    )

    stripped = template.strip_solutions(source, "m.py")

    assert '\n        raise NotImplementedError("Task 9.1: implement f")\n' in stripped
    compile(stripped, "m.py", "exec")


def test_file_without_markers_is_unchanged() -> None:
    source = "def f(x):\n    return x\n"

    assert template.strip_solutions(source, "m.py") == source


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        pytest.param("def f():\n    # BEGIN SOLUTION\n    return 1\n", "never closed", id="begin-without-end"),
        pytest.param("def f():\n    return 1\n    # END SOLUTION\n", "without BEGIN", id="end-without-begin"),
        pytest.param(
            "def f():\n    # BEGIN SOLUTION\n    # BEGIN SOLUTION\n"
            "    return 1\n    # END SOLUTION\n    # END SOLUTION\n",
            "inside another",
            id="nested-begin",
        ),
        pytest.param("# BEGIN SOLUTION\nX = 1\n# END SOLUTION\n", "inside a function", id="module-level-region"),
        pytest.param(
            "class C:\n    # BEGIN SOLUTION\n    X = 1\n    # END SOLUTION\n",
            "inside a function",
            id="class-level-region",
        ),
    ],
)
def test_invalid_markers_are_a_grader_error(source: str, problem: str) -> None:
    with pytest.raises(GraderError, match=problem) as info:
        template.strip_solutions(source, "m.py")

    assert str(info.value).startswith("m.py:")


# template.generate() and differences() ---------------------------------------


def region_lines(source: str) -> set[str]:
    """Stripped code lines between the solution markers of ``source`` (no blanks, no comments)."""
    lines: set[str] = set()
    inside = False
    for line in source.splitlines():
        text = line.strip()
        if text.startswith("# BEGIN SOLUTION"):
            inside = True
        elif text.startswith("# END SOLUTION"):
            inside = False
        elif inside and text and not text.startswith("#"):
            lines.add(text)
    return lines


def test_generated_template_compiles_and_holds_no_solution_line() -> None:
    reference = COURSE_ROOT / "reference"

    generated = template.generate(reference, "micrograd")

    assert {"micrograd/engine.py", "micrograd/nn.py"} <= set(generated)
    for rel, text in generated.items():
        compile(text, rel, "exec")
        solution = region_lines((reference / rel).read_text(encoding="utf-8"))
        leaked = solution & {line.strip() for line in text.splitlines()}
        assert not leaked, f"{rel} keeps solution lines: {sorted(leaked)}"


def test_generated_template_has_one_stub_per_region() -> None:
    reference = COURSE_ROOT / "reference"

    for rel, text in template.generate(reference, "micrograd").items():
        markers = (reference / rel).read_text(encoding="utf-8").count("# BEGIN SOLUTION")
        assert text.count("raise NotImplementedError(") == markers, rel


def test_generate_without_reference_package_is_a_grader_error(tmp_path: Path) -> None:
    with pytest.raises(GraderError, match="no reference package"):
        template.generate(tmp_path, "micrograd")


def test_differences_reports_changed_missing_and_extra_files(tmp_path: Path) -> None:
    package = tmp_path / "micrograd"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "engine.py").write_text("OLD = 1\n", encoding="utf-8")
    (package / "extra.py").write_text("X = 1\n", encoding="utf-8")
    generated = {"micrograd/__init__.py": "", "micrograd/engine.py": "NEW = 1\n", "micrograd/nn.py": "N = 1\n"}

    assert template.differences(generated, tmp_path) == ["micrograd/engine.py", "micrograd/extra.py", "micrograd/nn.py"]


def test_differences_is_empty_when_the_template_matches(tmp_path: Path) -> None:
    generated = {"micrograd/__init__.py": "", "micrograd/engine.py": "A = 1\n"}
    template.write(generated, tmp_path)

    assert template.differences(generated, tmp_path) == []


def test_grader_parts_are_read_and_default_to_none(tmp_path: Path) -> None:
    assert load_assignment(write_assignment(tmp_path / "a", MINIMAL)).grader_parts == ()
    folder = write_assignment(tmp_path / "b", MINIMAL + "grader_parts: [stand_ins, local_gradients]\n")
    assert load_assignment(folder).grader_parts == ("stand_ins", "local_gradients")
    assert Course(tmp_path).parts_dir == tmp_path / "assignments" / "shared" / "parts"
