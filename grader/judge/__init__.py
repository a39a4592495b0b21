"""The judge: one pytest process that grades submissions (``python -m grader.judge MANIFEST``).

Its pytest plugin (:mod:`grader.judge.plugin`) runs the assignments' tests; per-submission state lives in
:mod:`grader.judge.submission_run`; the judge's handle on the sandbox is :mod:`grader.judge.worker_handle`
(with :mod:`~grader.judge.linux_handle` and :mod:`~grader.judge.portable_handle`, the judge-side twins of
:mod:`grader.sandbox.worker` and :mod:`grader.sandbox.portable_worker`, and
:mod:`~grader.judge.forkserver_client`, the twin of :mod:`grader.sandbox.forkserver`).
"""
