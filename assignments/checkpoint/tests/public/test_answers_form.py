"""The form of your answers (``answers/checkpoint.yaml``): what ``grader check`` says before the due date."""

from grader.testing.concept_checks import form_test

test_answers_form = form_test(__file__)
