"""Autograder for a course on automatic differentiation (micrograd-style).

The judge (a pytest session holding the hidden tests, the reference solution
and the scores) never imports student code; a sandbox worker process imports
the submission and runs probes whose plain-data results the judge compares
with the reference. See ``grader.sandbox`` for the sandbox side.
"""

__version__ = "0.1.0"
