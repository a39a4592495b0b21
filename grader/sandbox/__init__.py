"""The sandbox side of the judge/sandbox boundary.

Everything in this package runs *inside* the sandbox worker process, next to
untrusted student code, so it follows three rules:

* it imports only the standard library and its own modules (relative
  imports), never the rest of ``grader``, the reference solution or a test;
* it turns every student object into plain data (floats, strings, lists,
  dicts) before anything crosses the boundary;
* it never decides a verdict: probes measure, the judge compares.

The judge copies this package into a private runtime directory and starts
``worker.py`` from there, so the worker's ``sys.path`` never contains the
course repository. The judge also imports these modules itself to run the
same probes on the reference solution.
"""
