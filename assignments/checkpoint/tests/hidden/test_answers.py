"""One test per question of the checkpoint, each marked against the answer key at the student's own numbers."""

from grader.testing.concept_checks import answer_tests

test_answer = answer_tests(__file__)
