"""A student's answers to a concept check (``answers.yaml``): read as bounded data, never trusted.

The file a student fills in::

    student: alice              # your id on the roster (your numbers are drawn from it)
    pick_one: q                 # a made-up question's answers: no question's here
    pick_every: [p, r]          # or "p, r"
    slope: -7/3                 # a number, or arithmetic such as (1 + 2/7)*-3
    dsquare: 3*x**2 - exp(-x)

The text is capped at :data:`MAX_BYTES` and parsed with PyYAML's safe loader only after its node tree is counted
(:data:`MAX_VALUES`), with no alias (``*name``) allowed: a student's answers need none, and a chain of aliases
can stand for billions of values. Each answer is built on its own and becomes a plain ``str``, number or list of
``str``, at most :data:`MAX_ANSWER_CHARS` characters; anything else (a number with no finite value, a date, a
mapping, a scalar no constructor takes) is that question's *unreadable* answer, worth 0 and said so. Nothing a
student writes raises anything but :class:`AnswersError`.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import yaml

from grader.intake.entry import MAX_ANSWERS_BYTES as MAX_BYTES

MAX_VALUES = 2_000
"""The most YAML nodes (keys, values, list items) an answers file may hold."""
MAX_ANSWER_CHARS = 400
"""The longest answer read, in characters: a longer one is unreadable (never cut, which could change its value)."""
MAX_LETTERS = 26
"""The most items of a list of choices."""
MAX_LETTER_CHARS = 40
"""The longest item of a list of choices read, in characters."""
MAX_NESTING = 64
"""The most ``[`` and ``{`` open at once: PyYAML's scanner looks ahead over every bracket that may open a key, in
time that grows with their number, and a list of letters needs one."""
MAPPING = "tag:yaml.org,2002:map"
NULL = "tag:yaml.org,2002:null"

Answer = str | float | list[str]


class AnswersError(ValueError):
    """An answers file that cannot be read at all (not UTF-8, too large, a control character, not YAML, not one
    mapping, an alias): every question scores 0, and the message, for the student, says why."""


@dataclass(frozen=True)
class Answers:
    """What a student answered.

    Attributes:
        student: The id the student wrote (``student:``), "" when none; grading uses the roster's id, never this.
        given: Each question id to its answer.
        unreadable: Each question id whose answer is of no kind an answer can be, to why.
    """

    student: str
    given: dict[str, Answer]
    unreadable: dict[str, str]


def read_answers(data: bytes) -> Answers:
    """The answers in ``data`` (the bytes of ``answers.yaml``; a byte order mark is dropped).

    Only the file as a whole can fail: each answer is built on its own, so an answer no reader can take (a number
    too large to print, a date that is no date, an unknown ``!!tag``, nesting too deep) is that question's
    unreadable answer, with why.

    Raises:
        AnswersError: If it is more than :data:`MAX_BYTES`, not UTF-8, holds a character YAML forbids (a control
            character: NUL, BEL, ESC, U+0080...), nests more than :data:`MAX_NESTING` brackets, is not one YAML
            mapping (several documents, a list, a tagged mapping, a question's id that is not a name), holds an
            alias, or more than :data:`MAX_VALUES` nodes.
    """
    if len(data) > MAX_BYTES:
        raise AnswersError(f"the answers file is {len(data):,} bytes, more than the {MAX_BYTES:,} read")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise AnswersError(f"the answers file is not UTF-8 text (byte {exc.start}): save it as UTF-8") from None
    depth = deepest = 0
    for char in text:  # before YAML: refused in milliseconds, where its scanner takes seconds
        depth += char in "[{"
        depth -= char in "]}"
        deepest = max(deepest, depth)
    if deepest > MAX_NESTING:
        raise AnswersError(f"the answers file nests brackets {deepest:,} deep, more than the {MAX_NESTING} read")
    loader: yaml.SafeLoader | None = None
    try:
        loader = yaml.SafeLoader(text)  # reads the characters first: a control character raises here
        root = loader.get_single_node()
        if root is None:
            return Answers("", {}, {})
        _count(root)
        return _answers(loader, root)
    except AnswersError:
        raise
    except yaml.reader.ReaderError as exc:
        raise AnswersError(_forbidden(text, exc)) from None
    except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError) as exc:
        raise AnswersError(_not_yaml(text, exc)) from None
    finally:
        if loader is not None:
            loader.dispose()


def _answers(loader: yaml.SafeLoader, root: yaml.Node) -> Answers:
    """The answers of the document ``root``, each built on its own by ``loader``."""
    if not isinstance(root, yaml.MappingNode) or root.tag != MAPPING:
        raise AnswersError("the answers file must map each question's id to your answer (id: answer, one a line)")
    student = ""
    read: dict[str, tuple[Answer | None, str]] = {}
    for key, value in root.value:
        if not isinstance(key, yaml.ScalarNode):
            raise AnswersError(f"line {key.start_mark.line + 1}: a question's id is a name (id: answer), not a "
                               f"{'list' if isinstance(key, yaml.SequenceNode) else 'mapping'}")
        if key.value == "student":  # the id as written (007 stays 007), never a number YAML made of it
            student = _text(value.value)[:80] if isinstance(value, yaml.ScalarNode) and value.tag != NULL else ""
            continue
        try:
            answer, why = _answer(loader.construct_object(value, deep=True))
        except (yaml.YAMLError, ValueError, TypeError, OverflowError, RecursionError) as exc:
            answer, why = None, _unread(value, exc)
        read[_text(key.value)[:40]] = answer, why
    given = {qid: answer for qid, (answer, _) in read.items() if answer is not None}
    unreadable = {qid: why for qid, (answer, why) in read.items() if answer is None}
    return Answers(student, given, unreadable)


def _unread(value: yaml.Node, exc: Exception) -> str:
    """Why the answer written as ``value`` was not read: a whole number longer than Python reads said as such (its
    own message asks for ``sys.set_int_max_str_digits()``, a setting of the grader's, not the student's)."""
    digits = sum(c.isdigit() for c in value.value) if isinstance(value, yaml.ScalarNode) else 0
    if isinstance(exc, ValueError) and digits > sys.get_int_max_str_digits():
        return (f"not read: a whole number of {digits:,} digits, more than the {sys.get_int_max_str_digits():,} "
                "read (no answer is that long: check what was pasted)")
    return f"not read ({_first_line(exc)})"


def _text(written: str) -> str:
    """``written`` stripped, a lone surrogate (which only a ``"\\ud800"`` escape makes) spelled out as that escape."""
    return written.strip().encode("utf-8", "backslashreplace").decode("utf-8")


def _first_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message, without Python's advice to the programmer (``; use sys...``)."""
    text = str(exc).strip()
    return text.splitlines()[0].split("; use ")[0][:200] if text else type(exc).__name__


def _not_yaml(text: str, exc: BaseException) -> str:
    """What a student reads of a file YAML cannot parse: the line, the problem as YAML states it, and a tab named as
    such (YAML allows none in indentation, and none where a value or a list's item starts)."""
    mark = getattr(exc, "problem_mark", None)
    if not isinstance(mark, yaml.Mark):
        return f"the answers file is not YAML ({_first_line(exc)})"
    lines = text.splitlines()
    line = lines[mark.line] if 0 <= mark.line < len(lines) else ""
    if "\t" in line:
        return (f"the answers file is not YAML: line {mark.line + 1} holds a tab, which YAML does not allow there: "
                "write spaces instead (one space after the colon: id: answer)")
    said = [str(getattr(exc, part, "") or "").strip() for part in ("context", "problem")]
    problem = (", ".join(p for p in said if p) or _first_line(exc)).splitlines()[0][:200]
    return f"the answers file is not YAML: line {mark.line + 1}, column {mark.column + 1}: {problem}"


def _forbidden(text: str, exc: yaml.reader.ReaderError) -> str:
    """What a student reads of a character YAML's reader refuses (a control character), and where it is."""
    code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "?")
    line = text.count("\n", 0, max(0, exc.position)) + 1
    return (f"the answers file holds the control character U+{code:04X} on line {line}, which YAML does not allow: "
            "delete it (or write the file again in a plain text editor)")


def _count(root: yaml.Node) -> None:
    seen: set[int] = set()
    pending = [root]
    while pending:
        node = pending.pop()
        if id(node) in seen:
            raise AnswersError("the answers file uses an alias (*name): write each answer out")
        seen.add(id(node))
        if len(seen) > MAX_VALUES:
            raise AnswersError(f"the answers file holds more than {MAX_VALUES:,} values")
        if isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                pending.extend((key, value))


def _answer(value: object) -> tuple[Answer | None, str]:
    """An answer as plain data, or None and why it is unreadable."""
    if value is None:
        return None, "no answer"
    if isinstance(value, bool):
        return None, "true/false is no answer here"
    if isinstance(value, (int, float)):
        try:
            number = float(value)
        except OverflowError:
            return None, "the number is too large"
        return (number, "") if math.isfinite(number) else (None, f"{number} is not a finite number")
    if isinstance(value, str):
        text = value.strip()
        odd = next((c for c in text if "\ud800" <= c <= "\udfff"), None)
        if odd is not None:  # only a "\ud800" escape makes one: no text holds it
            return None, f"the answer holds U+{ord(odd):04X}, half of a character, which is no text"
        if len(text) > MAX_ANSWER_CHARS:
            return None, f"the answer is {len(text):,} characters long, more than the {MAX_ANSWER_CHARS} read"
        return text, ""
    if isinstance(value, list):
        if len(value) > MAX_LETTERS or not all(isinstance(v, str) and len(v.strip()) <= MAX_LETTER_CHARS
                                              for v in value):
            return None, "expected a number, a text, or choices' letters in brackets"
        return [v.strip() for v in value], ""
    return None, f"expected a number, a text or a list of choices, not a {type(value).__name__}"
