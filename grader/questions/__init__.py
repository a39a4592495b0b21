"""Concept checks: questions answered with a choice, a number or an expression, marked in the judge.

:mod:`~grader.questions.questions` reads an assignment's questions and its answer key,
:mod:`~grader.questions.params` draws each student's numbers, :mod:`~grader.questions.answer_sheet` reads a student's
``answers.yaml`` as bounded data, :mod:`~grader.questions.expressions` evaluates math written as text without
running it, and :mod:`~grader.questions.marking` marks one answer. :mod:`~grader.questions.forms` holds how each kind
of answer is written, in the words students read, and :mod:`~grader.questions.examples` checks that no example they
read is an answer. Arrows run that way only: nothing here imports the judge, the sandbox or the outputs.
"""
