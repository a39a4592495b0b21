"""Who a submission is, beyond its code: the id its concept check's numbers are drawn from, what its answers file
says of its student, and results kept under a name that is the student's no more.

A submission is graded as the roster's id of the student its name names (:func:`grader.course.roster.identify`, at
intake). A concept check's numbers are drawn from that id, or from the student's first id this term when it changed
(:attr:`grader.course.roster.Student.first_id`), never from the folder's name nor from the ``student:`` line of the
answers file: that line is only evidence, shown when it names someone else.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from grader.course.roster import HOW, Identities, Known, Student
from grader.files import remove_tree
from grader.inert import code_span, terminal
from grader.outputs.records import ATTENTION
from grader.outputs.store import FEEDBACK, INSTRUCTOR, ResultStore
from grader.questions.answer_sheet import AnswersError, read_answers

REPLACED = "replaced"
"""``OUT/_instructor/replaced/<assignment>/<name>/``: a result kept under an old name that the student's own id
already had (moved aside, never deleted)."""


def numbers_salt(who: Known) -> str:
    """What a concept check's result depends on besides the answers: the id its numbers are drawn from (the same
    answers at another student's numbers are marked again: an id that changed, a roster that now names the folder)."""
    return f"numbers:{who.numbers_from or who.student}"


def written_student(text: str, who: Known, identities: Identities | None) -> list[str]:
    """Notes for the instructor and the student on whose numbers a concept check is marked at: when the submission is
    not on the roster (``identities``: None without one), and what its answers file (``text``) says of its student
    when that is not one of this student's names (the numbers are drawn from the id it is graded as, never from the
    file); [] when there is nothing to say (a file that cannot be read: the marking says why)."""
    numbers = who.numbers_from or who.student
    unknown = [f"{ATTENTION}{who.name} is not on the roster: marked at the numbers drawn for its own name, "
               f"{numbers}"] if identities is not None and not who.on_roster else []
    try:
        written = read_answers(text.encode("utf-8", errors="replace")).student.strip()
    except AnswersError:
        return unknown
    mine = {who.name.lower(), who.student.lower(), numbers.lower()}
    own = identities.find(who.student) if identities is not None else None
    if own is not None:
        mine |= {n.lower() for _, n in own[0].names()}
    if not written or written.lower() in mine:
        return unknown
    shown = repr(terminal(written[:60], keep=""))  # the student's text: one inert line, quoted
    found = identities.find(written) if identities is not None else None
    if found is not None:
        return unknown + [f"{ATTENTION}the answers file says student: {shown}, which is {found[0].student} on "
                          f"the roster, another student (a copied file?); marked at the numbers drawn for {numbers}"]
    return unknown + [f"{ATTENTION}the answers file says student: {shown}, not this student's id; marked at "
                      f"the numbers drawn for {numbers}, the id it is graded as"]


def rename_results(store: ResultStore, roster: Sequence[Student]) -> list[str]:
    """Make every result the output folder keeps under another name of a roster student (a folder by GitHub name
    graded before the roster named it, an id that changed: the row's ``previous``) that student's: its folder is
    moved to the student's id (its ``feedback.md`` then names the id), unless the id has a result of its own there,
    graded under it; then the old one is moved aside (:data:`REPLACED`), never deleted. Returns a line for the
    terminal per name moved."""
    if not roster:
        return []
    identities = Identities(roster)
    moved: dict[tuple[str, str, str], list[str]] = {}
    for aid, name, folder in store.stored():
        found = identities.find(name)
        if found is None or found[0].student == name:
            continue
        row, how = found
        target = store.folder(aid, row.student)
        if (target / "results.json").is_file():
            aside = store.out / INSTRUCTOR / REPLACED / aid / name
            remove_tree(aside)
            aside.parent.mkdir(parents=True, exist_ok=True)
            os.replace(folder, aside)
            moved.setdefault((name, row.student, "aside"), []).append(aid)
            continue
        remove_tree(target)  # an incomplete folder (no results.json) holds nothing kept
        os.replace(folder, target)
        feedback = target / FEEDBACK
        try:
            text = feedback.read_text(encoding="utf-8")
            feedback.write_text(text.replace(f"Student: {code_span(name)}", f"Student: {code_span(row.student)}", 1),
                                encoding="utf-8")
        except OSError:
            pass
        moved.setdefault((name, row.student, how), []).append(aid)
    lines = []
    for (name, student, how), aids in moved.items():
        if how == "aside":
            lines.append(f"Roster: {name}'s results of {', '.join(aids)} were kept aside in "
                         f"{INSTRUCTOR}/{REPLACED}/: {student}, the same student, has its own")
        else:
            lines.append(f"Roster: {name}'s results ({', '.join(aids)}) are {student}'s now: {name} is {HOW[how]}")
    return lines
