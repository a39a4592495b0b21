"""A whole term, simulated: eight assignments (the last a concept check) handed out weekly, a class of git repositories with the server's push
records, a roster, extensions, and the scores the policy gives, computed here without the grader.

The course runs as Classroom 50 runs one: each assignment is its own repository per student
(``repos/<assignment>/<name>``, made from the template: that first commit is no push), each push recorded by the
server (``pushes/<assignment>/<name>.json``, GitHub's repository activity list). Week ``k``'s assignment is handed
out (``released``) a week before its due date, Sunday 23:59 in New York; each week, after the due date, the
instructor fetches the repositories and grades into the course's one output folder, then fills Canvas's gradebook
export, which holds only the assignments created in Canvas so far (the first one worth 100 points there).

Students (``s01``..``sNN``, deterministic, their repositories named by their id or their GitHub name in turn): most
push the reference on time; some within the grace period, one or two started days late, after the cut-off, or with a
backdated commit pushed late; some hand in the template; one has an extension on every assignment, one on one
assignment (given by their GitHub name); one has no push record (dated by their commit dates: always on time); one
hands in a folder a TA copied without its times; one never hands in anything; the first's course id changes before
the fourth week (the roster's ``previous``), her later repositories named by the new one, her concept check's
``student:`` line her new id and its numbers still drawn from her first (as the docs say); one student pushes one
assignment to another branch (``master``, while the repository's HEAD is ``main``: graded as the template it holds,
0, and said); one hands in a classmate's answers file (its ``student:`` line names the classmate: the numbers are
hers, so its number questions are wrong, and said). The concept check's right answers are worked out at each
student's numbers by :mod:`concept_answers` (hand formulas). :meth:`Term.expected` computes each final score from the
policy by itself, for the tests and ``bench/term.py`` to compare with the grader's gradebook and the filled Canvas
file; :meth:`Term.evidence` says what each anomaly's student must find in their gradebook notes.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import yaml
from concept_answers import QUESTIONS, right_answers

ZONE = ZoneInfo("America/New_York")
ORDER = ("value_ops", "backward", "mlp", "forward_mode", "graph", "classifier", "gradcheck", "checkpoint")
POINTS = {"value_ops": 40, "backward": 50, "mlp": 40, "forward_mode": 40, "graph": 30, "classifier": 50,
          "gradcheck": 40, "checkpoint": 12}
CONCEPT = "checkpoint"
NUMBER_POINTS = sum(q.points for q in QUESTIONS.values() if q.params)
"""The concept check's points on questions whose answer depends on the student's numbers."""
BRANCH = ("s02", "classifier")
"""Who pushes which assignment to ``master`` instead of ``main``."""
COPIER = ("s02", "s04")
"""Who hands in whose concept-check answers file."""
FIRST_DUE = datetime(2026, 9, 13, 23, 59, tzinfo=ZONE)  # Sundays, all before New York's clocks change (1 November)
POLICY = {"grace": "15m", "penalty": "10%", "per": "day", "cap": "50%", "cutoff": "3d"}
CANVAS_POINTS = {"value_ops": 100}
"""Assignments whose Canvas column is worth another number of points than the assignment."""
H = timedelta(hours=1)
BEHAVIOURS = ("on_time", "grace", "one_day", "two_days", "after_cutoff", "template", "backdated", "on_time",
              "on_time", "on_time")
"""What a student does on an assignment, drawn in turn (``(student + week) % len``): two students over the eight
weeks meet every kind of late work; a class is mostly on time."""


@dataclass(frozen=True)
class Student:
    """One row of the roster, and the name of the student's repositories (their id or their GitHub name)."""

    id: str
    github: str
    repo: str
    email: str
    sis_id: str


@dataclass(frozen=True)
class Push:
    """One push of a student's work on one assignment: when the server received it, the commit's own date, and what
    it holds (``reference``: the solution, full points; ``template``: the untouched stubs, no points), on which branch,
    and for the concept check, whose answers file (``answers``: the id its numbers were worked out for, and its
    ``student:`` line)."""

    student: str
    assignment: str
    pushed: datetime
    committed: datetime
    content: str
    branch: str = "main"
    answers: tuple[str, str] = ("", "")


@dataclass(frozen=True)
class Adjusted:
    """A score a person changes in week ``week`` (after its grading, with ``grader adjust``): ``points`` added (or
    the score set, ``sets``) before the late penalty (``raw``) or after it (``final``)."""

    week: int
    student: str
    assignment: str
    points: float
    sets: bool
    stage: str
    reason: str

    def args(self, roster_id: str) -> list[str]:
        """``grader adjust``'s arguments for it, the student named by ``roster_id``."""
        return [roster_id, self.assignment, "--set" if self.sets else "--add", f"{self.points:g}", "--stage",
                self.stage, "--reason", self.reason, "--by", "TA Lee"]


@dataclass
class Term:
    """The simulated term in ``root`` (see the module docstring)."""

    root: Path
    checkout: Path
    students: int = 40
    provisional: bool = True
    """True: each week grades the assignment just due (a day after its due date, provisional: late work is still
    coming) and the one before (final: its cut-off has passed); False: each assignment once, after its cut-off."""
    pushes: list[Push] = field(default_factory=list)
    applied: set[int] = field(default_factory=set)
    roster: list[Student] = field(default_factory=list)
    extra_days: dict[tuple[str, str], int] = field(default_factory=dict)
    copied: str = ""
    never: str = ""
    unrecorded: str = ""
    late_template: tuple[str, str] = ("", "")
    """(student, assignment): the student hands in the template, a day late (for a regrade that still pays the
    penalty: none by default)."""
    adjustments: list[Adjusted] = field(default_factory=list)
    """The scores a person changes over the term (:meth:`expected` applies them: none by default)."""
    renamed: tuple[str, str, int] = ("", "", 0)
    """(old id, new id, week): a student whose course id changes before that week's grading (the roster then gives
    the old one as ``previous``, and her repositories of later assignments are named by the new one)."""

    @property
    def course(self) -> Path:
        return self.root / "course"

    @property
    def repos(self) -> Path:
        return self.root / "repos"

    @property
    def records(self) -> Path:
        return self.root / "pushes"

    @property
    def out(self) -> Path:
        return self.root / "out"

    def due(self, aid: str) -> datetime:
        """The assignment's due date for everyone (aware, New York)."""
        return FIRST_DUE + timedelta(weeks=ORDER.index(aid))

    @property
    def weeks(self) -> int:
        """How many weekly cycles the term has: one per assignment, and one after the last cut-off if provisional."""
        return len(ORDER) + (1 if self.provisional else 0)

    def run_time(self, week: int) -> datetime:
        """When week ``week``'s grading happens (1-based): a day after its due date if provisional, else an hour after
        its cut-off (due + 3 d)."""
        after = timedelta(days=1) if self.provisional else timedelta(days=3, hours=3)
        return FIRST_DUE + timedelta(weeks=week - 1) + after

    def set_up(self) -> Term:
        """Write the course (its term settings included), the roster, the extensions and every student's plan."""
        for name in ("assignments", "reference", "student_template"):
            shutil.copytree(self.checkout / name, self.course / name, ignore=shutil.ignore_patterns("__pycache__"))
        for aid in ORDER:
            path = self.course / "assignments" / aid / "assignment.yaml"
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            data.update(due=self.due(aid).strftime("%Y-%m-%dT%H:%M"), late=dict(POLICY), released=False)
            path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        (self.course / "term").mkdir()
        (self.course / "assignments" / "course.yaml").write_text(
            "time_zone: America/New_York\nroster: term/roster.csv\nextensions: term/extensions.csv\n"
            "adjustments: term/adjustments.csv\n",
            encoding="utf-8")
        for i in range(1, self.students + 1):
            sid = f"s{i:02d}"
            self.roster.append(Student(sid, f"{sid}-gh", sid if i % 2 else f"{sid}-gh", f"{sid}@example.edu",
                                       f"2026{i:04d}"))
        self._write_roster(week=1)
        extended, one, self.unrecorded, self.copied, self.never = (s.id for s in self.roster[-5:])
        first = self.roster[0]  # named by its id (odd): its id changes before the fourth week's grading
        self.renamed = (first.id, f"{first.id}-silva", min(4, len(ORDER)))
        self.extra_days = {(extended, aid): 2 for aid in ORDER}
        self.extra_days[(one, "mlp")] = 3
        (self.course / "term" / "extensions.csv").write_text(
            "student,assignment,due,extra,reason\n"
            f"{extended},*,,2d,accommodation letter\n"
            f"{self.student(one).github},mlp,{(self.due('mlp') + timedelta(days=3)).strftime('%Y-%m-%dT%H:%M')},,"
            "illness\n", encoding="utf-8")
        for n, s in enumerate(self.roster):
            for k, aid in enumerate(ORDER):
                if s.id == self.never:
                    continue
                own = self.due(aid) + timedelta(days=self.extra_days.get((s.id, aid), 0))
                kind = "on_time" if s.id in (self.unrecorded, self.copied, extended, one) \
                    else BEHAVIOURS[(n + k) % len(BEHAVIOURS)]
                if s.id in (extended, one) and (s.id, aid) in self.extra_days:
                    kind = "extension"
                if (s.id, aid) == self.late_template:
                    kind = "template_late"
                self.pushes.append(self._push(s.id, aid, kind, own))
        return self

    def _hand_in(self, folder: Path, p: Push) -> None:
        """Write what push ``p`` holds into ``folder`` (the package, and for the concept check its answers file)."""
        source = self.checkout / ("reference" if p.content == "reference" else "student_template") / "micrograd"
        shutil.rmtree(folder / "micrograd", ignore_errors=True)
        shutil.copytree(source, folder / "micrograd", copy_function=shutil.copy,
                        ignore=shutil.ignore_patterns("__pycache__"))
        if p.assignment == CONCEPT and p.content == "reference":
            numbers, line = p.answers
            (folder / "answers").mkdir(exist_ok=True)
            (folder / "answers" / "checkpoint.yaml").write_text(
                yaml.safe_dump({**right_answers(numbers), "student": line}), encoding="utf-8")

    def _write_roster(self, week: int) -> None:
        """The roster as it is at week ``week``'s grading (the renamed student under her new id from its week on)."""
        with open(self.course / "term" / "roster.csv", "w", encoding="utf-8", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["student", "github", "email", "sis_id", "name", "previous"])
            for s in self.roster:
                old = s.id if s.id == self.renamed[0] and week >= self.renamed[2] else ""
                w.writerow([self.roster_id(s.id, week), s.github, s.email, s.sis_id, f"Student {s.id}", old])

    def roster_id(self, sid: str, week: int) -> str:
        """The course id of the student ``sid`` at week ``week`` (the new one once it changed)."""
        old, new, when = self.renamed
        return new if sid == old and week >= when else sid

    def repo(self, s: Student, aid: str) -> str:
        """The name of ``s``'s repository of ``aid``: as the roster named them when it was handed out."""
        return self.roster_id(s.id, ORDER.index(aid) + 1) if s.repo == s.id else s.repo

    def _push(self, sid: str, aid: str, kind: str, own: datetime) -> Push:
        due = self.due(aid)
        at = {"on_time": due - 2 * H, "grace": due + timedelta(minutes=10), "one_day": due + 5 * H,
              "two_days": due + 30 * H, "after_cutoff": due + timedelta(days=3, hours=2), "template": due - 3 * H,
              "backdated": due + 7 * H, "extension": own - H, "template_late": due + 5 * H}[kind]
        committed = due - 20 * H if kind == "backdated" else at  # a commit dated before the due date, pushed after
        week = ORDER.index(aid) + 1
        copied = COPIER[0] == sid and aid == CONCEPT
        answers = (COPIER[1], COPIER[1]) if copied else (sid, self.roster_id(sid, week))  # her first id's numbers
        return Push(sid, aid, at.astimezone(timezone.utc), committed.astimezone(timezone.utc),
                    "template" if kind in ("template", "template_late") else "reference",
                    branch="master" if (sid, aid) == BRANCH else "main", answers=answers)

    def student(self, sid: str) -> Student:
        return next(s for s in self.roster if s.id == sid)

    def release(self, week: int) -> None:
        """Hand out the first ``week`` assignments (``released: true``), the others not yet; the roster as it is."""
        self._write_roster(week)
        for k, aid in enumerate(ORDER):
            path = self.course / "assignments" / aid / "assignment.yaml"
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            data["released"] = k < week
            path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")

    def advance(self, until: datetime) -> None:
        """Everything students did until ``until`` (aware): repositories made from the template when an assignment is
        handed out, commits and the server's push records; the copied folder when its assignment is due."""
        for aid in ORDER:
            if self.due(aid) - timedelta(weeks=1) > until:
                continue
            for s in self.roster:
                repo = self.repos / aid / self.repo(s, aid)
                if s.id == self.never or s.id == self.copied or repo.exists():
                    continue
                _git_init(repo, self.checkout / "student_template" / "micrograd", self.due(aid) - timedelta(days=6))
                if s.id != self.unrecorded:
                    _write_records(self.records / aid / f"{self.repo(s, aid)}.json", [])
        for i, p in enumerate(self.pushes):
            if i in self.applied or p.pushed > until:
                continue
            self.applied.add(i)
            s = self.student(p.student)
            if s.id == self.copied:  # handed in by e-mail, copied into place by a TA without its times (cp -r)
                folder = self.repos / p.assignment / self.repo(s, p.assignment)
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir(parents=True)
                self._hand_in(folder, p)
                continue
            repo = self.repos / p.assignment / self.repo(s, p.assignment)
            if p.branch != "main":
                _git(repo, p.committed, "switch", "-q", "-c", p.branch)
            self._hand_in(repo, p)
            commit = _git_commit(repo, p.committed, f"{p.assignment} work")
            if p.branch != "main":  # the repository's HEAD stays main, as the server's does
                _git(repo, p.committed, "switch", "-q", "main")
            if s.id != self.unrecorded:
                path = self.records / p.assignment / f"{self.repo(s, p.assignment)}.json"
                records = json.loads(path.read_text(encoding="utf-8"))
                records.insert(0, {"id": len(records) + 1, "before": "0" * 40, "after": commit,
                                   "ref": f"refs/heads/{p.branch}",
                                   "activity_type": "push" if p.branch == "main" else "branch_creation",
                                   "timestamp": p.pushed.strftime("%Y-%m-%dT%H:%M:%SZ"), "actor": {"login": s.github}})
                _write_records(path, records)  # GitHub lists the newest first

    def runs(self, week: int) -> list[str]:
        """The assignments week ``week``'s grading grades: the one just due, and the one before it (its late work has
        come in since: the cut-off is 3 days), or, not provisional, the one whose cut-off has just passed."""
        return [aid for k, aid in enumerate(ORDER, start=1) if k == week or self.provisional and k == week - 1]

    def expected(self, week: int) -> dict[str, dict[str, float | None]]:
        """Each roster student's score on each assignment as the runs up to week ``week`` graded it (None: not graded,
        no submission), from the policy alone: the last push at or before the student's own due date (else at or before
        the cut-off, late; else the last push, not graded), its lateness in started days (a day is 24 hours here:
        no clock change in the term) past a 15-minute grace, 10% of the points a day, at most 50%; after the cut-off,
        0. The folder copied without its times is graded without its due date; the repository without push records
        is dated by its commits (always on time). Work pushed to another branch is not graded: the repository's
        main holds the template, on time (0). A concept check's answers at another student's numbers lose the
        points of every number question (the others are the same for everyone). Each adjustment made by week
        ``week`` applies: its raw rows to the tests' points, then the penalty, then its final rows."""
        scores: dict[str, dict[str, float | None]] = {}
        for s in self.roster:
            mine: dict[str, float | None] = {}
            for k, aid in enumerate(ORDER[:min(week, len(ORDER))], start=1):
                now = self.run_time(min(k + 1, week) if self.provisional else k)  # the last run that graded it
                got = [p for p in self.pushes if p.student == s.id and p.assignment == aid and p.pushed <= now
                       and p.branch == "main"]
                if s.id == self.never:
                    mine[aid] = None
                    continue
                mine[aid] = self._adjusted(s.id, aid, week, *self._scored(s, aid, got))
            scores[s.id] = mine
        return scores

    def _scored(self, s: Student, aid: str, got: list[Push]) -> tuple[float, float, bool]:
        """(the tests' points, the fraction of the points the late policy takes, graded before the cut-off) of what
        ``s`` pushed on ``aid`` (``got``: to main, by the run that graded it)."""
        if not got:  # the repository holds the template alone: graded, and on time
            return 0.0, 0.0, True
        if s.id == self.copied:
            return self._raw(got[-1]), 0.0, True
        own = self.due(aid) + timedelta(days=self.extra_days.get((s.id, aid), 0))
        cutoff = own + timedelta(days=3)
        dated = [(p.committed if s.id == self.unrecorded else p.pushed, p) for p in got]
        before = [dp for dp in dated if dp[0] <= own] or [dp for dp in dated if dp[0] <= cutoff] or dated[-1:]
        when, p = before[-1]
        seconds = math.ceil((when - own).total_seconds())
        if seconds <= 15 * 60:
            return self._raw(p), 0.0, True
        if when > cutoff:
            return self._raw(p), 0.0, False
        return self._raw(p), min(0.5, 0.1 * math.ceil(seconds / 86400)), True

    def _adjusted(self, sid: str, aid: str, week: int, raw: float, fraction: float, graded: bool) -> float:
        """The score from the policy, with the adjustments made by week ``week``: raw rows, the penalty, final rows."""
        rows = [a for a in self.adjustments if a.week <= week and a.student == sid and a.assignment == aid]
        for a in (a for a in rows if a.stage == "raw"):
            raw = a.points if a.sets else raw + a.points
        final = round(max(0.0, raw - fraction * POINTS[aid]), 4) if graded else 0.0
        for a in (a for a in rows if a.stage == "final"):
            final = a.points if a.sets else final + a.points
        return final

    def _raw(self, p: Push) -> float:
        """The tests' points of what push ``p`` holds, before any late penalty."""
        if p.content != "reference":
            return 0.0
        if p.assignment == CONCEPT and p.answers[0] != p.student:  # right at another student's numbers
            return float(POINTS[CONCEPT] - NUMBER_POINTS)
        return float(POINTS[p.assignment])

    def evidence(self, week: int) -> dict[str, list[str]]:
        """What the gradebook's notes must say by week ``week`` (roster id to phrases): work on another branch, an
        answers file naming a classmate."""
        said: dict[str, list[str]] = {}
        who, aid = BRANCH
        if ORDER.index(aid) < week:
            said.setdefault(self.roster_id(who, week), []).append(f"{aid}: work on another branch: ")
        who, whose = COPIER
        if ORDER.index(CONCEPT) < week:
            said.setdefault(self.roster_id(who, week), []).append(
                f"{CONCEPT}: the answers file says student: '{whose}', which is {whose} on the roster, another student")
        return said

    def canvas_export(self, week: int, carried: dict[str, dict[str, str]] | None = None) -> str:
        """Canvas's gradebook export as Canvas writes it when the first ``week`` assignments exist there: a header,
        the Points Possible row, one row per student (the Test Student too), every score cell empty but those
        ``carried`` (SIS User ID to column title to the cell: what was imported, and what a TA changed in Canvas)."""
        buffer = io.StringIO()
        w = csv.writer(buffer, lineterminator="\r\n")
        columns = [f"{title(self.course, aid)} ({1000 + k})" for k, aid in enumerate(ORDER[:week])]
        w.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", *columns, "Current Score"])
        w.writerow(["    Points Possible", "", "", "", "", *[f"{CANVAS_POINTS.get(a, POINTS[a]):.2f}"
                                                               for a in ORDER[:week]], "(read only)"])
        for n, s in enumerate(self.roster):
            cells = [(carried or {}).get(s.sis_id, {}).get(title(self.course, aid), "") for aid in ORDER[:week]]
            w.writerow([f"Student {s.id}", str(100 + n), s.sis_id, s.email, "A", *cells, ""])
        w.writerow(["Student, Test", "999", "", "", "A", *[""] * week, ""])
        return buffer.getvalue()


def canvas_week(week: int) -> int:
    """How many assignments Canvas holds at week ``week``'s export: the instructor creates each one there the week
    after handing it out (so each export has one graded assignment Canvas does not have yet), all of them in the last
    week."""
    return len(ORDER) if week >= len(ORDER) else week - 1


def gradebook_differences(term: Term, week: int) -> list[str]:
    """Every cell of ``term.out/grades.csv`` that differs from :meth:`Term.expected` after week ``week``."""
    with open(term.out / "grades.csv", encoding="utf-8") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    wrong = []
    for sid, scores in term.expected(week).items():
        row = rows.get(term.roster_id(sid, week))  # the roster's id, whatever its repositories are named
        for aid, want in scores.items():
            got = row.get(aid, "") if row is not None else ""
            if (want is None and got != "") or (want is not None and (got == "" or abs(float(got) - want) > 1e-6)):
                wrong.append(f"week {week}: gradebook {sid} {aid}: {got!r}, by the policy {want}")
    return wrong


def missing_evidence(term: Term, week: int) -> list[str]:
    """Every phrase of :meth:`Term.evidence` the gradebook's notes do not hold after week ``week``."""
    with open(term.out / "grades.csv", encoding="utf-8") as f:
        notes = {r["student"]: r["notes"] for r in csv.DictReader(f)}
    return [f"week {week}: {who}'s notes lack {phrase!r}: {notes.get(who)!r}" for who, phrases in
            term.evidence(week).items() for phrase in phrases if phrase not in notes.get(who, "")]


def canvas_differences(term: Term, week: int, filled: str, hand: dict[tuple[str, str], float] | None = None
                       ) -> list[str]:
    """Every cell of the filled Canvas file that differs from the policy's score, scaled to the column's points (or
    from what a TA wrote in Canvas by hand, ``hand``: (student, assignment) to the cell, which the export keeps)."""
    cells = canvas_scores(filled)
    wrong = []
    for sid, scores in term.expected(week).items():
        s = term.student(sid)
        for aid in ORDER[:canvas_week(week)]:
            want = scores.get(aid)
            scaled = None if want is None else round(want * CANVAS_POINTS.get(aid, POINTS[aid]) / POINTS[aid], 2)
            scaled = (hand or {}).get((sid, aid), scaled)
            got = cells.get(s.sis_id, {}).get(title(term.course, aid), "")
            if (scaled is None and got != "") or (scaled is not None and (got == "" or abs(float(got) - scaled) > 1e-9)):
                wrong.append(f"week {week}: Canvas {sid} {aid}: {got!r}, by the policy {scaled}")
    return wrong


def title(course: Path, aid: str) -> str:
    data = yaml.safe_load((course / "assignments" / aid / "assignment.yaml").read_text(encoding="utf-8"))
    return str(data["title"])


def canvas_scores(text: str) -> dict[str, dict[str, str]]:
    """A filled Canvas file's cells: SIS User ID to column title (without its Canvas id) to the cell."""
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    found: dict[str, dict[str, str]] = {}
    for row in rows[2:]:
        if row[2]:
            found[row[2]] = {h.rsplit(" (", 1)[0]: c for h, c in zip(header[5:-1], row[5:-1])}
    return found


def _env(when: datetime, home: Path) -> dict[str, str]:
    stamp = f"@{int(when.timestamp())} +0000"
    return {"PATH": os.environ["PATH"], "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}


def _git(repo: Path, when: datetime, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=Student", "-c", "user.email=s@example.edu", "-c",
                           "commit.gpgSign=false", "-C", str(repo), *args], env=_env(when, repo.parent), check=True,
                          capture_output=True, text=True)
    return done.stdout.strip()


def _git_init(repo: Path, template: Path, when: datetime) -> None:
    """A repository made from the template (its first commit is the template's, not a push of the student's)."""
    shutil.copytree(template, repo / "micrograd", ignore=shutil.ignore_patterns("__pycache__"))
    _git(repo, when, "init", "-q", "-b", "main")
    _git(repo, when, "add", "-A")
    _git(repo, when, "commit", "-q", "-m", "Initial commit from the template")


def _git_commit(repo: Path, when: datetime, message: str) -> str:
    (repo / "micrograd" / "NOTES.md").write_text(f"{message} at {when.isoformat()}\n", encoding="utf-8")
    _git(repo, when, "add", "-A")
    _git(repo, when, "commit", "-q", "-m", message)
    return _git(repo, when, "rev-parse", "HEAD")


def _write_records(path: Path, records: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(records), encoding="utf-8")
