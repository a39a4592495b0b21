"""The course: assignment configuration, the bug catalogue, the student template, hand-outs and releases.

Everything here reads or writes the instructor's course repository (``assignments/``, ``reference/``,
``student_template/``); nothing here runs student code.
"""
