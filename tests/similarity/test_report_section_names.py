"""The class report's "Similar submissions" section shows student text inert and capped, as the evidence pages do.

``similarity.json`` keeps ids, corpus folder names, labels and notes as they are; the report's section must not pass
a terminal escape, a bell or a bidirectional override from them into ``report.html`` (Jinja's autoescaping handles
``<>&``, not these), nor a name of any length.
"""

from __future__ import annotations

from pathlib import Path

from checkout import ROOT

from grader.course.course import Course
from grader.outputs.class_report import write_report
from grader.outputs.similarity_section import similarity_section
from grader.similarity import similarity_json as R
from grader.similarity.evidence import MAX_LABEL

CONTROLS = ("\x00", "\x07", "\x1b", "\x9b", "\u202e", "\u2066", "\u200f")
HOSTILE_ID = "mallory\u202e\x1b[2J\x07"
HOSTILE_CORPUS = "last\x1b]0;pwned\x07\u202eterm"
HOSTILE_LABEL = "micrograd/\u2066engine\x9b31m.py"
LONG_ID = "x" * 10_000


def hostile_report(out: Path) -> None:
    """A ``similarity.json`` whose every student-controlled string holds control and bidi characters."""
    def pair(a: str, b: str, origin: str) -> R.PairRecord:
        return R.PairRecord("value_ops", origin, R.Side("class", a, HOSTILE_LABEL), R.Side(origin, b, HOSTILE_LABEL),
                            0.97, 0.97, 0.97, 12.0, 99.9, True, [R.RegionRecord((1, 9), (1, 9), 40)],
                            "similarity/pair-0001.html")

    distribution = R.DistributionRecord("value_ops", HOSTILE_CORPUS, 3, 2, 0.3, 0.05, 0.07, 0.6, [1] * 20, 1)
    R.save(out, R.SimilarityReport(
        generated="2026-11-30 12:00 UTC", submissions="/subs", corpora=[HOSTILE_CORPUS], assignments=["value_ops"],
        settings=R.Settings(4.0, 0.5, 0.95, 20, 12, 12),
        distributions=[R.DistributionRecord("value_ops", "class", 3, 3, 0.3, 0.05, 0.07, 0.6, [1] * 20, 1),
                       distribution],
        pairs=[pair(HOSTILE_ID, "bob", "class"), pair("alice", HOSTILE_ID, HOSTILE_CORPUS), pair(LONG_ID, "bob", "class")],
        notes=[R.NoteRecord(HOSTILE_CORPUS, HOSTILE_ID, "value_ops", "cannot be read: \x1b[31m\u202e" + "n" * 5000)]))


def test_control_and_bidi_characters_in_ids_corpus_names_labels_and_notes_never_reach_the_report_raw(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "grades.csv").write_text("student,value_ops,total,notes\nbob,1,1,\n", encoding="utf-8")
    hostile_report(out)
    html = write_report(out, Course(ROOT)).read_text(encoding="utf-8")
    start = html.index('<section id="similarity">')
    section = html[start: html.index("</section>", start)]
    assert not sorted({repr(c) for c in CONTROLS if c in section}), "a control or bidi character reached report.html"
    assert "mallory\\u202e\\x1b[2J\\x07" in section  # shown, as the escapes the evidence page shows
    assert "last\\x1b]0;pwned\\x07\\u202eterm" in section and "micrograd/\\u2066engine\\x9b31m.py" in section


def test_an_id_or_note_of_any_length_is_capped_in_the_similar_submissions_section(tmp_path):
    hostile_report(tmp_path)
    section = similarity_section(tmp_path)
    assert section is not None and not section.error
    shown = [s for p in section.flagged for side in (p.a, p.b) for s in (side.id, side.label, side.origin)]
    shown += [p.against for p in section.flagged] + section.corpora
    shown += [s for n in section.notes for s in (n.id, n.origin, n.note)]
    shown += [c.distribution.against for c in section.charts] + [c.title for c in section.charts]
    assert shown and max(len(s) for s in shown if not s.startswith("value_ops:")) <= 400
    assert not [s for s in shown if any(c in s for c in CONTROLS)]
    long_ids = [p.a.id for p in section.flagged if p.a.id.startswith("xxx")]
    assert long_ids and len(long_ids[0]) <= MAX_LABEL and long_ids[0].endswith("…")
