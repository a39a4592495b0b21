"""Code that does nothing, added for free to hide a copy, changes no fingerprint (``grader.similarity.normalise``).

A copy with names renamed and a ``pass`` after every statement was 46% similar to its source and not flagged. Each
disguise here (``pass``, ``...``, bare constants, code after ``return``, ``if True:`` and other clauses that change
nothing, redundant parentheses, all at once) is blanked in place: the copy's tokens are its source's, it is flagged
in a class of honest engines (which are not), a copy that does not parse is still compared, and the evidence still
points at the lines the copier wrote.
"""

from __future__ import annotations

import ast
import re
import time

import pytest
from checkout import ROOT
from evidence_pages import Page, package

from grader.course.course import Course
from grader.similarity.class_pairs import score_class, template_texts
from grader.similarity.evidence import Evidence, render
from grader.similarity.fingerprints import boilerplate, fingerprint, tokenise
from grader.similarity.run import line_starts, lines_of, regions_of
from grader.similarity.similarity_json import PairRecord, RegionRecord, Side
from grader.similarity.sources import Document

VARIANTS = ROOT / "reference" / "variants"
HONEST = ["factory_ops", "int_data_tuple", "kahn_list", "local_grads", "matrix_layer", "recursive_set"]
KINDS = ["pass", "ellipsis", "constants", "after_return", "if_true", "clauses", "parentheses", "mixed"]
CONSTANTS = ["0", "None", "1.0", "-1", "()", "True", "'x'"]


def engine(name: str) -> str:
    return (VARIANTS / name / "micrograd" / "engine.py").read_text(encoding="utf-8")


def rename(text: str) -> str:
    for old, new in (("other", "rhs"), ("out", "result"), ("node", "vertex"), ("topo", "order")):
        text = re.sub(rf"\b{old}\b", new, text)
    return text


def _own_lines(tree: ast.Module, lines: list[str]) -> list[ast.stmt]:
    """The simple statements with lines of their own (after any ``from __future__`` import)."""
    future = max((n.end_lineno or 0 for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"),
                 default=0)
    found = []
    for node in ast.walk(tree):
        for block in (getattr(node, f, None) for f in ("body", "orelse", "finalbody")):
            for s in block if isinstance(block, list) else []:
                if hasattr(s, "body") or s.lineno <= future or lines[s.lineno - 1][: s.col_offset].strip() or \
                        lines[(s.end_lineno or s.lineno) - 1][s.end_col_offset:].strip():
                    continue
                found.append(s)
    return sorted(found, key=lambda s: s.lineno)


def _parenthesised(text: str) -> str:
    """Every statement's value, and every name or attribute in an operation, in parentheses."""
    tree, starts = ast.parse(text), line_starts(text)
    nodes = [n.value for n in ast.walk(tree) if isinstance(n, (ast.Assign, ast.AugAssign, ast.Return)) and n.value]
    nodes += [x for n in ast.walk(tree) if isinstance(n, ast.BinOp) for x in (n.left, n.right)
              if isinstance(x, (ast.Name, ast.Attribute))]
    marks: list[tuple[int, int, str]] = []
    for n in nodes:
        marks.append((starts[n.lineno - 1] + n.col_offset, 1, "("))
        marks.append((starts[(n.end_lineno or n.lineno) - 1] + (n.end_col_offset or 0), 0, ")"))
    for at, _, mark in sorted(marks, reverse=True):
        text = text[:at] + mark + text[at:]
    return text


def disguise(text: str, kind: str) -> str:
    """``text`` with code that does nothing added: after, around or instead of every statement, as ``kind`` says."""
    if kind == "parentheses":
        return _parenthesised(text)
    if kind == "mixed":
        text = _parenthesised(text)
    tree, lines = ast.parse(text), text.splitlines(keepends=True)
    own = _own_lines(tree, lines)
    pasted = [lines[s.lineno - 1].strip() for s in own if isinstance(s, ast.Assign)]
    edits: list[tuple[int, int, str]] = []  # lines[start - 1: end] becomes the text
    for n, s in enumerate(own):
        pad, end = " " * s.col_offset, s.end_lineno or s.lineno
        how = KINDS[n % 6] if kind == "mixed" else kind
        single = s.lineno == end and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        if how in ("pass", "ellipsis", "constants"):
            word = {"pass": "pass", "ellipsis": "...", "constants": CONSTANTS[n % len(CONSTANTS)]}[how]
            edits.append((end + 1, end, f"{pad}{word}\n"))
        elif how == "after_return" and isinstance(s, ast.Return):
            edits.append((end + 1, end, f"{pad}{pasted[n % len(pasted)]}\n{pad}raise ValueError(0)\n"))
        elif how == "if_true" and single:
            edits.append((end, end, f"{pad}if True:\n    {lines[end - 1]}"))
        elif how == "clauses" and single:
            body = lines[end - 1]
            edits.append((end, end, [f"{pad}if False:\n{pad}    {pasted[0]}\n{pad}else:\n    {body}",
                                     f"{pad}try:\n    {body}{pad}finally:\n{pad}    pass\n",
                                     f"{pad}while False:\n{pad}    {pasted[-1]}\n{body}",
                                     f"{pad}if True:\n    {body}{pad}else:\n{pad}    {pasted[-1]}\n",
                                     f"{body.rstrip()};\n{pad}self = self\n"][n % 5]))
    for start, end, new in sorted(edits, reverse=True):
        lines[start - 1: end] = [new]
    out = "".join(lines)
    compile(out, "<disguised>", "exec")
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_a_disguised_copy_has_its_sources_tokens(kind):
    source = engine("kahn_list")
    copy = rename(disguise(source, kind))
    assert copy != source
    assert tokenise(copy).filtered == tokenise(source).filtered


@pytest.mark.parametrize(("noisy", "plain"), [
    ("x = (a) + (b * c)\ny = ((a * b))\nz = f((a + b))\nif (x):\n    w = (x, y)\n", "x = a + (b * c)\ny = a * b\n"
     "z = f(a + b)\nif x:\n    w = x, y\n"),
    ("if a:\n    x = 1\nelif True:\n    y = 2\nelse:\n    z = 3\n", "if a:\n    x = 1\nelse:\n    y = 2\n"),
    ("if a:\n    x = 1\nelif False:\n    y = 2\nelif b:\n    z = 3\n", "if a:\n    x = 1\nelif b:\n    z = 3\n"),
    ("if False:\n    y = 2\nelif b:\n    z = 3\n", "if b:\n    z = 3\n"),
    ("while False:\n    y = 2\nelse:\n    z = 3\n", "z = 3\n"),
    ("for i in x:\n    f(i)\n    continue\nelse:\n    pass\n", "for i in x:\n    f(i)\n"),
    ("def f(a):\n    if a: return None\n    g(a); -a; assert True\n    return\n",
     "def f(a):\n    if a: return\n    g(a)\n"),
    ("if x:\n    pass\nelif y.z:\n    ...\n", ""),
])
def test_what_does_nothing_reads_as_if_it_were_not_there(noisy, plain):
    assert tokenise(noisy).filtered == tokenise(plain).filtered


@pytest.mark.parametrize(("code", "without"), [
    ("class A:\n    x = x\n", "class A:\n    pass\n"),  # copies a name into the class
    ("while True:\n    f()\nelse:\n    pass\n", "f()\n"),  # the else never runs, the loop does
    ("x = a + (b * c)\n", "x = a + b * c\n"),  # precedence made explicit: style, kept
    ("y = self + (-other)\n", "y = self + -other\n"),
    ("z = f((a, b))\n", "z = f(a, b)\n"),
    ("if x:\n    pass\nelse:\n    f()\n", "f()\n"),  # the test decides whether f runs
    ("if x():\n    pass\n", ""),
    ("try:\n    f()\nexcept ValueError:\n    pass\n", "f()\n"),
    ("def f():\n    return x\n", "def f():\n    return\n"),
])
def test_code_that_does_something_is_kept(code, without):
    assert tokenise(code).filtered != tokenise(without).filtered


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[frozenset[str], tuple[float, bool]]:
    """A class of the six honest engines, a disguised copy of one of them per disguise (and one that does not parse),
    scored on ``value_ops``: each pair's similarity and whether it is flagged."""
    subs = tmp_path_factory.mktemp("noise") / "submissions"
    for name in HONEST:
        package(subs / name, engine(name), "")
    for n, kind in enumerate(KINDS):
        package(subs / f"copy_{kind}", rename(disguise(engine(HONEST[n % len(HONEST)]), kind)), "")
    broken = rename(disguise(engine("recursive_set"), "pass")).replace("def __mul__(self, other):", "def __mul__(:", 1)
    package(subs / "copy_broken", broken, "")
    scored = score_class(Course(ROOT), subs, assignment_ids=["value_ops"])
    dist = scored.distributions[0]
    return {frozenset((dist.mine[p.a].owner, dist.others[p.b].owner)): (p.similarity, p.flagged) for p in dist.pairs}


@pytest.mark.parametrize("kind", KINDS)
def test_each_disguised_copy_is_flagged_against_its_source(scored, kind):
    source = HONEST[KINDS.index(kind) % len(HONEST)]
    similarity, flagged = scored[frozenset((f"copy_{kind}", source))]
    assert flagged and similarity > 0.95, (kind, similarity)


def test_honest_engines_are_not_flagged(scored):
    flagged = [(sorted(pair), s) for pair, (s, f) in scored.items() if f and pair <= set(HONEST)]
    assert not flagged


def test_a_copy_that_does_not_parse_is_still_compared_and_flagged(scored):
    similarity, flagged = scored[frozenset(("copy_broken", "recursive_set"))]
    assert flagged and similarity > 0.9, similarity


def test_a_text_that_does_not_parse_is_normalised_around_the_error():
    from grader.similarity.normalise import blank

    text = "import math\npass\n\nclass A:\n    def f(self):\n        x = 1\n        pass\n\n    def g(self:\n" \
           "        pass\n\n    def h(self):\n        return 1\n        pass\n"
    blanked = blank(text)
    assert len(blanked) == len(text) and blanked.count("\n") == text.count("\n")
    assert "pass" not in blanked and "def g(self:\n" in blanked, blanked  # the line that does not parse is kept


def test_hostile_code_is_compared_as_it_is_and_quickly():
    from grader.similarity.normalise import blank

    deep = "x.y = x.y" + ".b" * 2000 + "\npass\n"  # parses, but nests deeper than Python's recursion
    assert blank(deep) == deep
    broken = "x = (\n" * 30_000  # an error on every line: a bounded number of blocks is parsed
    started = time.monotonic()
    assert blank(broken) == broken
    assert time.monotonic() - started < 10


def test_the_evidence_points_at_the_copiers_own_lines():
    course = Course(ROOT)
    template = boilerplate(template_texts(course, course.assignments(["value_ops"])[0]))
    source = engine("kahn_list")
    copy = disguise(source, "pass")
    docs = [Document("class", who, "micrograd/engine.py", text, ((0, "micrograd/engine.py"),))
            for who, text in (("copier", copy), ("source", source))]
    regions = regions_of(*docs, fingerprint(tokenise(copy), template), fingerprint(tokenise(source), template))
    copy_lines, source_lines = copy.split("\n"), source.split("\n")
    starts_copy, starts_source = line_starts(copy), line_starts(source)
    records = [RegionRecord(lines_of(starts_copy, r.a), lines_of(starts_source, r.b), r.fingerprints) for r in regions]
    covered: set[int] = set()
    for r in records:  # each region starts and ends on the same code on both sides
        assert copy_lines[r.a[0] - 1].strip() == source_lines[r.b[0] - 1].strip(), r
        assert copy_lines[r.a[1] - 1].strip() == source_lines[r.b[1] - 1].strip(), r
        covered.update(range(r.a[0], r.a[1] + 1))
    first = next(n for n, line in enumerate(copy_lines, start=1) if line.startswith("class Value"))
    code = {n for n, line in enumerate(copy_lines, start=1) if n > first and line.strip() not in ("", "pass")}
    assert records and len(code & covered) >= 0.9 * len(code), sorted(code - covered)
    # the page numbers the copy's lines as the copier wrote them, its `pass` lines included
    record = PairRecord("value_ops", "class", Side("class", "copier", "micrograd/engine.py"),
                        Side("class", "source", "micrograd/engine.py"), 1.0, 1.0, 1.0, 10.0, 99.0, True, records)
    html = render(Evidence(record, docs[0], docs[1], regions), None)
    shown = {(side, int(n)): int(line) for side, n, line in
             re.findall(r'id="([ab])-r(\d+)"><span class="no">(\d+)</span>', html)}
    for n, r in enumerate(records, start=1):
        assert shown.get(("a", n), r.a[0]) == r.a[0] and shown.get(("b", n), r.b[0]) == r.b[0]
    assert len(shown) > len(records) // 2
    assert Page(html).marked["a"] > 0.8 * len(re.sub(r"\s|pass", "", copy[copy.index("class Value"):]))
