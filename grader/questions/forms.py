"""How each kind of answer is written, in the words students read: the answers template's comments, the sheet, and
the messages of ``grader check`` and of marking.

An example shown to a student must never be an answer, or the example is the key: it is described where it can be
(a choice's letter is "one letter", since any real letter would be a choice ruled in or out) and otherwise built
from numbers and formulas that no question's key takes (:mod:`grader.questions.examples` checks every example a
student sees against every question, at every draw of its numbers, and ``grader validate`` runs that check). Each
example is written in backticks, as code: the sheet is Markdown, where ``*`` would otherwise start an emphasis.
"""

from __future__ import annotations

from collections.abc import Sequence

NUMBER_EXAMPLE = "(1 + 2/7)*-3"
"""Arithmetic a number answer may be: no whole number and no number of two decimals (a product of two one-decimal
numbers), which drawn numbers often give."""
EXPRESSION_EXAMPLE = "3*{v}**2 - exp(-{v})"
"""An expression answer, ``{v}`` standing for the question's first variable."""
ONE_LETTER = "the letter of one choice"
LETTERS = "the letters of every right choice, in brackets: `[letter, letter, ...]`"


def expression_example(variables: Sequence[str] = ()) -> str:
    """:data:`EXPRESSION_EXAMPLE` in the first of ``variables`` (``x`` when there is none)."""
    return EXPRESSION_EXAMPLE.format(v=variables[0] if variables else "x")


def how(kind: str, multiple: bool = False, variables: Sequence[str] = ()) -> str:
    """How an answer to a question of ``kind`` is written (``multiple``: several choices may be right; ``variables``:
    an expression question's), as the template's comment and the sheet say it.

    Raises:
        KeyError: If ``kind`` is none of ``choice``, ``number`` and ``expression``.
    """
    return {
        "choice": f"{LETTERS} (each wrong one chosen takes a share back)" if multiple else ONE_LETTER,
        "number": f"a number, or arithmetic such as `{NUMBER_EXAMPLE}`",
        "expression": f"an expression in {', '.join(variables) or 'x'}, such as `{expression_example(variables)}` "
                      "(products with `*`, powers with `**`)",
    }[kind]
