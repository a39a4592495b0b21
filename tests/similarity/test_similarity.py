"""``grader similarity``: similarity evidence for a class, never a score (``grader.similarity``).

One small class, graded for real once: seven honest engines in different styles (the course's
correct variants), two untouched templates, a disguised copy of a classmate, a notebook copying
another one cell by cell, a copy of a corpus file, a copy under a hostile name that also holds
hostile file names and code, and submissions that cannot be read.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import nbformat
import pytest
from browser import chromium
from checkout import ROOT
from doc_quotes import assert_quoted
from evidence_pages import Page, package

from grader.cli import main
from grader.errors import GraderError
from grader.similarity.graded_class import CLASS_FILE, recorded_class
from grader.similarity.similarity_json import load
from grader.similarity.sources import MAX_DOCUMENT_CHARS

VARIANTS = ROOT / "reference" / "variants"
MARKER = re.compile(r"^\s*# (BEGIN|END) SOLUTION.*\n", re.M)
HOSTILE_ID = "<img src=x onerror=alert(1)>&co"
HOSTILE_FOLDER = "<iframe src=javascript:alert('f')>&lt;"  # a folder name: anything but "/"
HOSTILE_CODE = "# </span></pre><script>alert('code')</script>\u202e evil\n"
HONEST = ["factory_ops", "int_data_tuple", "kahn_list", "local_grads", "matrix_layer", "recursive_set"]


def variant(name: str, module: str) -> str:
    return (VARIANTS / name / "micrograd" / module).read_text(encoding="utf-8")


def reference(module: str) -> str:
    return MARKER.sub("", (ROOT / "reference" / "micrograd" / module).read_text(encoding="utf-8"))


def disguise(text: str) -> str:
    """A copier's disguise: names renamed, comments and docstrings rewritten, two methods swapped, dead code added."""
    for old, new in (("other", "rhs"), ("out", "result"), ("node", "vertex"), ("_as_value", "wrap"),
                     ("consumers", "pending"), ("todo", "queue_"), ("ready", "free")):
        text = re.sub(rf"\b{old}\b", new, text)
    text = re.sub(r"#.*", "# my own code", text)
    text = re.sub(r'"""(.|\n)*?"""', '"""Written by me."""', text)
    exp = re.search(r"    def exp\(self\).*:\n(.*\n)*?(?=    def )", text)
    log = re.search(r"    def log\(self\).*:\n(.*\n)*?(?=    def )", text)
    assert exp and log and exp.end() == log.start()
    text = text[: exp.start()] + log.group(0) + exp.group(0) + text[log.end():]
    text = re.sub(r"(    def tanh\(self\).*:\n)", r"\1        unused = 0\n", text)
    return text + "\n\ndef _debug(v):\n    print(v.data, v.grad)\n"


def notebook(path: Path, engine: str, nn: str) -> Path:
    """A notebook holding ``engine`` split over two code cells (at its class), then ``nn``, between Markdown cells."""
    cut = engine.index("class Value")
    cells = [nbformat.v4.new_markdown_cell("# My micrograd"), nbformat.v4.new_code_cell(engine[:cut]),
             nbformat.v4.new_markdown_cell("The engine"), nbformat.v4.new_code_cell(engine[cut:]),
             nbformat.v4.new_code_cell(nn.replace("from .engine import Value", "")),
             nbformat.v4.new_code_cell("%matplotlib inline\n!pip install graphviz")]
    nbformat.write(nbformat.v4.new_notebook(cells=cells), str(path))
    return path


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The class, graded with `grader grade` (so OUT records its folder), and `grader similarity` run on it."""
    base = tmp_path_factory.mktemp("similarity")
    subs, corpus = base / "submissions", base / "last-term"
    for name in HONEST:
        package(subs / name, variant(name, "engine.py"), variant(name, "nn.py"))
    template = ROOT / "student_template" / "micrograd"
    for name in ("template_a", "template_b"):
        shutil.copytree(template, subs / name / "micrograd")
    package(subs / "copier", disguise(variant("kahn_list", "engine.py")), variant("kahn_list", "nn.py"))
    notebook(subs / "nb_student.ipynb", disguise(variant("local_grads", "engine.py")), variant("local_grads", "nn.py"))
    package(subs / HOSTILE_ID / HOSTILE_FOLDER, HOSTILE_CODE + disguise(variant("factory_ops", "engine.py")),
            variant("factory_ops", "nn.py"))
    package(subs / "binary", "", "")
    (subs / "binary" / "micrograd" / "engine.py").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe" * 100)
    package(subs / "huge", "x = 1  # padding\n" * (MAX_DOCUMENT_CHARS // 16), variant("kahn_list", "nn.py"))
    (subs / "broken.ipynb").write_text("{not a notebook", encoding="utf-8")
    package(subs / "public_copier", disguise(reference("engine.py")), reference("nn.py"))
    corpus.mkdir()
    (corpus / "engine.py").write_text(reference("engine.py"), encoding="utf-8")
    (corpus / "README.md").write_text("not code")
    package(corpus / "old_student", variant("matrix_layer", "engine.py"), variant("matrix_layer", "nn.py"))
    out = base / "out"
    assert main(["--course", str(ROOT), "grade", str(subs), "-o", str(out), "-j", "2"]) == 0
    return out


def digests(out: Path) -> dict[str, str]:
    files = [out / "grades.csv", *sorted(out.glob("*/*/results.json"))]
    return {str(f.relative_to(out)): hashlib.sha256(f.read_bytes()).hexdigest() for f in files}


@pytest.fixture(scope="module")
def compared(graded: Path) -> tuple[Path, dict[str, str], dict[str, str]]:
    """`grader similarity OUT --corpus last-term` on the graded class: OUT, and the digests before and after."""
    before = digests(graded)
    assert main(["--course", str(ROOT), "similarity", str(graded), "--corpus", str(graded.parent / "last-term"),
                 "-j", "1"]) == 0
    return graded, before, digests(graded)


def flagged(out: Path, assignment: str, against: str = "class") -> set[frozenset[str]]:
    doc = load(out)
    return {frozenset((p.a.id, p.b.id)) for p in doc.pairs if p.flagged and p.assignment == assignment
            and p.against == against}


def test_a_disguised_copy_is_flagged_and_honest_engines_are_not(compared):
    out = compared[0]
    for assignment in ("value_ops", "backward"):
        pairs = flagged(out, assignment)
        assert frozenset(("copier", "kahn_list")) in pairs
        assert frozenset((HOSTILE_ID, "factory_ops")) in pairs
        assert not [p for p in pairs if p <= set(HONEST)], pairs  # no two honest engines
    doc = load(out)
    pair = next(p for p in doc.pairs if p.flagged and {p.a.id, p.b.id} == {"copier", "kahn_list"})
    assert pair.similarity > 0.8 and pair.score >= doc.settings.threshold and pair.regions
    assert pair.evidence and (out / pair.evidence).is_file()
    dist = next(d for d in doc.distributions if d.assignment == "value_ops" and d.against == "class")
    assert dist.median < 0.6 and sum(dist.counts) == dist.pairs


def test_the_template_is_subtracted_so_two_untouched_templates_match_nothing(compared):
    out = compared[0]
    doc = load(out)
    assert not [p for p in doc.pairs if {"template_a", "template_b"} & {p.a.id, p.b.id}]
    notes = {(n.id, n.assignment): n.note for n in doc.notes}
    assert "too little code of its own" in notes[("template_a", "value_ops")]
    assert "0 fingerprints beyond the template" in notes[("template_b", "mlp")]


def test_a_notebook_is_compared_by_its_code_cells(compared):
    doc = load(compared[0])
    pair = next(p for p in doc.pairs if p.flagged and p.assignment == "value_ops" and
                {p.a.id, p.b.id} == {"nb_student", "local_grads"})
    side = pair.a if pair.a.id == "nb_student" else pair.b
    assert side.label == "nb_student.ipynb (code cells)"
    assert pair.similarity > 0.8


def test_each_submission_is_compared_with_a_corpus_folder_of_plain_files_and_submissions(compared):
    out = compared[0]
    doc = load(out)
    assert doc.corpora == ["last-term"]
    assert frozenset(("public_copier", "engine.py")) in flagged(out, "value_ops", "last-term")
    against = {frozenset((p.a.id, p.b.id)) for p in doc.pairs if p.against == "last-term"}
    assert frozenset(("matrix_layer", "old_student")) in against  # last term's student, in the class's layout
    assert frozenset(("matrix_layer", "old_student")) in flagged(out, "mlp", "last-term")


def test_what_cannot_be_read_gets_a_note_and_the_run_goes_on(compared):
    notes = {(n.id, n.assignment): n.note for n in load(compared[0]).notes}
    assert "not UTF-8" in notes[("binary", "value_ops")]
    assert f"more than the {MAX_DOCUMENT_CHARS} compared" in notes[("huge", "value_ops")]
    assert "not a valid Jupyter notebook" in notes[("broken", "value_ops")]


def test_grades_and_results_are_byte_identical_after_grader_similarity(compared):
    out, before, after = compared
    assert before == after and len(before) > 3 * 10
    record = json.loads((out / CLASS_FILE).read_text())
    assert record["submissions"] == str(out.parent / "submissions") and record["deadline"] is None


def test_hostile_names_and_code_are_escaped_text_in_the_evidence_page_and_the_report(compared):
    out = compared[0]
    doc = load(out)
    pair = next(p for p in doc.pairs if p.flagged and HOSTILE_ID in (p.a.id, p.b.id) and p.assignment == "value_ops")
    raw = (out / pair.evidence).read_text(encoding="utf-8")
    page = Page(raw)
    assert not [t for t, _ in page.tags if t in ("script", "img", "iframe")]
    assert HOSTILE_ID in page.text and f"{HOSTILE_FOLDER}/micrograd/engine.py" in page.text
    assert "</span></pre><script>alert('code')</script>\\u202e evil" in page.text  # the bidi override made visible
    assert "\u202e" not in raw
    report = Page((out / "report.html").read_text(encoding="utf-8"))
    assert not [t for t, _ in report.tags if t in ("script", "img", "iframe")]
    assert HOSTILE_ID in report.text and HOSTILE_FOLDER in report.text
    links = [a.get("href") for t, a in report.tags if t == "a" and (a.get("href") or "").startswith("similarity/")]
    assert pair.evidence in links and all((out / str(link)).is_file() for link in links)
    for words in (report.words, page.words):
        assert "Evidence for a person to review, not a verdict" in words and "never changes a score" in words


def test_grader_report_keeps_the_section_and_a_damaged_file_is_said_so(compared, tmp_path):
    out = compared[0]
    copy = tmp_path / "out"
    shutil.copytree(out, copy)
    assert main(["--course", str(ROOT), "report", str(copy)]) == 0
    assert 'id="similarity"' in (copy / "report.html").read_text(encoding="utf-8")
    (copy / "similarity.json").write_text('{"version": 1, "pairs": "<b>"}')
    assert main(["--course", str(ROOT), "report", str(copy)]) == 0
    text = Page((copy / "report.html").read_text(encoding="utf-8")).text
    assert "The similarity results could not be read" in text
    (copy / "similarity.json").unlink()
    assert main(["--course", str(ROOT), "report", str(copy)]) == 0
    assert 'id="similarity"' not in (copy / "report.html").read_text(encoding="utf-8")


def test_the_recorded_folder_is_checked_and_submissions_overrides_it(compared, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(GraderError, match="--submissions"):
        recorded_class(out)
    for bad in ('{"version": 1, "submissions": "relative/path"}', "[1, 2]", '{"version": 1, "submissions": "/no/such"}',
                '{"version": 1, "submissions": "/", "deadline": "tomorrow"}'):
        (out / CLASS_FILE).parent.mkdir(exist_ok=True)
        (out / CLASS_FILE).write_text(bad)
        with pytest.raises(GraderError, match="--submissions"):
            recorded_class(out)
    assert main(["--course", str(ROOT), "similarity", str(out)]) == 2
    assert "--submissions" in capsys.readouterr().err
    subs = compared[0].parent / "submissions"
    assert main(["--course", str(ROOT), "similarity", str(out), "--submissions", str(subs), "-a", "value_ops"]) == 0
    printed = capsys.readouterr().out
    assert "copier ~ kahn_list" in printed or "kahn_list ~ copier" in printed
    assert "no report.html" in printed and not (out / "report.html").exists()
    assert_quoted("how-to/similarity.md", 0, printed)


def test_scores_are_the_same_in_every_process_whatever_its_string_hashes():
    """copydetect hashes with Python's string hash, which differs between processes: every k-gram is kept (no
    winnowing choice), so only which are shared counts, and that does not depend on the hash."""
    code = ("import json, sys; from pathlib import Path; from grader.course.course import Course; "
            "from grader.similarity.class_pairs import score_class; "
            "s = score_class(Course(Path(sys.argv[1])), Path(sys.argv[2]), assignment_ids=['value_ops']); "
            "print(json.dumps([(p.a, p.b, p.shared) for p in s.distributions[0].pairs]))")
    runs = [subprocess.run([sys.executable, "-c", code, str(ROOT), str(ROOT / "examples" / "submissions")],
                           capture_output=True, text=True, check=True, env={**os.environ, "PYTHONHASHSEED": seed})
            for seed in ("1", "2")]
    assert runs[0].stdout == runs[1].stdout and json.loads(runs[0].stdout)



def test_the_similar_submissions_section_in_chromium_shows_flagged_pairs_and_escaped_names(compared, tmp_path):
    out = compared[0]
    with chromium(tmp_path) as driver:
        from selenium.webdriver.common.by import By

        driver.get((out / "report.html").as_uri())
        assert driver.execute_script("return document.readyState") == "complete"
        assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)") == []
        assert not driver.find_elements(By.CSS_SELECTOR, "img, script, iframe")  # hostile names stayed text
        section = driver.find_element(By.ID, "similarity")
        assert "not a verdict" in section.text and "never changes a score" in section.text
        rows = section.find_elements(By.CSS_SELECTOR, "tr.similar-row")
        assert rows and all(r.is_displayed() for r in rows)
        who = [r.text for r in rows]
        assert any("copier" in w and "kahn_list" in w for w in who)
        assert any(HOSTILE_ID in w and HOSTILE_FOLDER in w for w in who)
        charts = section.find_elements(By.CSS_SELECTOR, "svg.chart")
        assert charts and all(c.is_displayed() and c.rect["width"] > 100 for c in charts)
        link = next(r for r in rows if HOSTILE_ID in r.text).find_element(By.LINK_TEXT, "side by side")
        link.click()
        assert driver.title.startswith("Similar code")
        assert not driver.find_elements(By.CSS_SELECTOR, "img, script, iframe")
        assert HOSTILE_ID in driver.find_element(By.TAG_NAME, "h1").text
        headers = [h.text for h in driver.find_elements(By.CSS_SELECTOR, ".side h3")]
        assert any(HOSTILE_ID in h and f"{HOSTILE_FOLDER}/micrograd/engine.py" in h for h in headers), headers
        marks = driver.find_elements(By.CSS_SELECTOR, "#side-a mark, #side-b mark")
        assert marks and marks[0].is_displayed()
        assert "<script>alert('code')</script>" in driver.find_element(By.ID, "side-a").text + \
            driver.find_element(By.ID, "side-b").text


def test_shared_counts_are_the_set_intersections_of_every_pair(monkeypatch):
    import random

    from grader.similarity import fingerprints as F

    monkeypatch.setattr(F, "BLOCK", 5)  # many blocks of columns
    rng = random.Random(4)
    prints = [F.Fingerprint(frozenset(rng.randrange(60) for _ in range(rng.randrange(0, 40))), {}, F.tokenise(""))
              for _ in range(12)]
    inner, outer = F.shared_counts(prints), F.shared_counts(prints[:5], prints[5:])
    for i, a in enumerate(prints):
        for j, b in enumerate(prints):
            assert i == j or inner[i, j] == len(a.hashes & b.hashes)
            if i < 5 <= j:
                assert outer[i, j - 5] == len(a.hashes & b.hashes)


def test_docstrings_and_annotations_are_blanked_in_place():
    from grader.similarity.fingerprints import tokenise
    from grader.similarity.normalise import blank

    typed = 'def f(self, other: "Value | int" = 1) -> "Value":\n    """Doc é."""\n    x: int = other\n    return x\n'
    plain = "def f(self, other=1):\n    x = other\n    return x\n"
    blanked = blank(typed)
    assert len(blanked) == len(typed) and blanked.count("\n") == typed.count("\n")
    assert "Doc" not in blanked and "Value" not in blanked and "other" in blanked
    assert tokenise(typed).filtered == tokenise(plain).filtered
    assert blank("def broken(:\n") == "def broken(:\n"  # code that does not parse is left as it is


def test_without_copydetect_the_command_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    """copydetect is an extra (it brings numpy and matplotlib, which no student install needs): without it the
    command is an instructor error that says what to install, and nothing is written."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "copydetect" else real(name, *a))
    out = tmp_path / "out"
    out.mkdir()
    assert main(["--course", str(ROOT), "similarity", str(out)]) == 2
    assert "pip install 'micrograd-grader[similarity]'" in capsys.readouterr().err
    assert list(out.iterdir()) == []


def test_documents_that_share_no_fingerprint_count_zero_instead_of_failing():
    """An assignment only one submission holds code for (the others lack its file) shares nothing: the counts are
    zeros, not an IndexError that stops the whole run."""
    from grader.similarity.fingerprints import Fingerprint, shared_counts

    a, b = Fingerprint(frozenset({1, 2}), {}, None), Fingerprint(frozenset({3}), {}, None)  # type: ignore[arg-type]
    assert shared_counts([a, b]).tolist() == [[0, 0], [0, 0]]
    assert shared_counts([a], [b]).tolist() == [[0]]


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX permissions")
def test_a_corpus_folder_that_cannot_be_opened_is_a_note_not_a_crash_or_an_empty_folder():
    # a folder of mode 000 (as unzip or tar leave it): looking for its .git raised, and listing it found "nothing"
    base = Path(tempfile.mkdtemp(prefix="corpus-locked-", dir="/tmp"))  # where user 65534 can look in
    try:
        base.chmod(0o755)
        package(base / "old_student", variant("kahn_list", "engine.py"), variant("kahn_list", "nn.py"))
        package(base / "locked", variant("kahn_list", "engine.py"), variant("kahn_list", "nn.py"))
        (base / "locked").chmod(0)
        drop = "os.setgroups([]); os.setgid(65534); os.setuid(65534)" if os.geteuid() == 0 else "pass"
        code = f"""
            import json, os, sys
            sys.path.insert(0, {str(ROOT)!r})
            from pathlib import Path
            from grader.course.course import Course
            from grader.similarity.sources import read_folder
            assignments = Course(Path({str(ROOT)!r})).assignments(["value_ops", "mlp"])
            import codecs; codecs.lookup("utf-8-sig")  # imported while this interpreter's files can be read
            try:
                {drop}  # root reads any file, whatever its mode
            except OSError as exc:
                print(json.dumps({{"skip": str(exc)}}))
                sys.exit(0)
            source = read_folder(Path({str(base)!r}), "last-term", assignments, None)
            print(json.dumps({{"documents": [d.owner for d in source.documents["mlp"]],
                               "notes": [[n.owner, n.assignment, n.note] for n in source.notes]}}))
        """
        done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL)
    finally:
        (base / "locked").chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-1500:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    if "skip" in found:
        pytest.skip(f"cannot read as another user than root: {found['skip']}")
    assert found["documents"] == ["old_student"]
    fix = "make it readable (unzip keeps a member's permissions from the zip: chmod -R a+rX fixes them) and grade again"
    assert found["notes"] == [["locked", a, f"locked could not be read (Permission denied): {fix}"]
                              for a in ("value_ops", "mlp")]
