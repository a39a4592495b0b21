"""The worker contract both sandbox backends keep: what crosses the boundary, and how faults surface.

Every test runs on the Linux backend (a worker forked from a fork server, in
namespaces where the host allows) and on the portable one (a fresh
interpreter per worker, as on macOS and Windows): the ``worker_factory``
fixture of conftest.py; the Linux runs skip themselves elsewhere.
"""

from __future__ import annotations

import json
import sys
import time

import hostile_submissions as H
import psutil
import pytest
from checkout import ROOT

from grader.course.config import Limits
from grader.judge.backends import Sandbox, WorkerSpec
from grader.judge.linux_handle import prepare_runtime
from grader.judge.worker_handle import SandboxSetupError, WorkerCrashed, WorkerTimeout

ADD_SPEC = {"leaves": [2.0, 3.0], "nodes": [["add", 0, 1]], "mode": "backward", "backward": [-1]}


def test_probe_on_a_correct_engine_returns_plain_numbers(worker_factory):
    worker = worker_factory(H.CORRECT)
    assert worker.start() == {"micrograd.engine": None}
    response = worker.request("graph", [ADD_SPEC], 5.0, "test")
    assert response == {"id": 1, "ok": True, "value": {"data": [2.0, 3.0, 5.0], "grad": [1.0, 1.0, 1.0]}}


def test_syntax_error_is_reported_with_file_and_line(worker_factory):
    worker = worker_factory("class Value:\n    def __init__(self, data)\n        pass\n")
    error = worker.start()["micrograd.engine"]
    assert error["type"] == "SyntaxError"
    assert error["where"]["file"] == "micrograd/engine.py" and error["where"]["line"] == 2


def test_student_exception_names_the_method_and_line(worker_factory):
    worker = worker_factory(H.with_add("raise NotImplementedError('Task 1.1')"))
    worker.start()
    response = worker.request("graph", [ADD_SPEC], 5.0, "test")
    error = response["error"]
    assert response["ok"] is False and error["type"] == "NotImplementedError" and error["message"] == "Task 1.1"
    assert error["where"]["function"] == "__add__" and error["where"]["file"] == "micrograd/engine.py"
    assert "x0 + x1" in error["during"]


def test_infinite_loop_times_out_and_leaves_no_process(worker_factory):
    worker = worker_factory(H.with_add("while True:\n    pass"))
    worker.start()
    process = psutil.Process(worker.pid)
    started = time.monotonic()
    with pytest.raises(WorkerTimeout):
        worker.request("graph", [ADD_SPEC], 0.5, "test")
    assert time.monotonic() - started < 5
    assert not worker.alive
    assert H.dead_within(process), f"the worker (pid {process.pid}) still runs 10 s after its timeout"


def test_exit_during_a_probe_is_a_crash_not_a_pass(worker_factory):
    worker = worker_factory(H.with_add("import os\nos._exit(0)"))
    worker.start()
    with pytest.raises(WorkerCrashed, match="exited with status 0"):
        worker.request("graph", [ADD_SPEC], 5.0, "test")


def test_sys_exit_is_reported_as_an_exception(worker_factory):
    worker = worker_factory(H.with_add("import sys\nsys.exit(0)"))
    worker.start()
    response = worker.request("graph", [ADD_SPEC], 5.0, "test")
    assert response["ok"] is False and response["error"]["type"] == "SystemExit"


def test_printed_protocol_lookalikes_do_not_become_responses(worker_factory):
    fake = json.dumps({"id": 1, "ok": True, "value": {"data": [0, 0, 5.0], "grad": [1.0, 1.0, 1.0]}})
    worker = worker_factory(H.with_add(f"print({fake!r}, flush=True)\nraise ValueError('nope')"))
    worker.start()
    response = worker.request("graph", [ADD_SPEC], 5.0, "test")
    assert response["ok"] is False and response["error"]["type"] == "ValueError"
    assert fake in worker.output_excerpt(10_000)


def test_lying_float_subclass_crosses_as_a_plain_float(worker_factory):
    engine = H.with_add(
        """
        class Liar(float):
            def __eq__(self, other): return True
            def __sub__(self, other): return 0.0
            def __abs__(self): return 0.0
            def __repr__(self): return "5.0"
        other = other if isinstance(other, Value) else Value(other)
        out = Value(0.0, (self, other), "+")
        out.data = Liar(-1.0)
        return out
        """
    )
    worker = worker_factory(engine)
    worker.start()
    value = worker.request("graph", [ADD_SPEC], 5.0, "test")["value"]
    assert value["data"][2] == -1.0 and type(value["data"][2]) is float


def test_a_value_where_a_number_is_expected_is_marked_not_a_number(worker_factory):
    engine = H.with_add(
        """
        other = other if isinstance(other, Value) else Value(other)
        out = Value(0.0, (self, other), "+")
        out.data = Value(self.data + other.data)
        return out
        """
    )
    worker = worker_factory(engine)
    worker.start()
    data = worker.request("graph", [ADD_SPEC], 5.0, "test")["value"]["data"][2]
    assert data["nonnumeric"] == "Value"


def test_worker_cannot_import_the_grader_or_the_reference(worker_factory):
    engine = H.with_add(
        """
        import importlib, sys
        found = []
        for name in ("grader", "reference", "pytest", "hypothesis", "_grader_reference_micrograd"):
            try:
                importlib.import_module(name)
                found.append(name)
            except ImportError:
                pass
        raise RuntimeError(f"importable={found} path={sys.path}")
        """
    )
    worker = worker_factory(engine)
    worker.start()
    message = worker.request("graph", [ADD_SPEC], 5.0, "test")["error"]["message"]
    assert "importable=[]" in message
    assert str(ROOT) + "'" not in message and f"'{ROOT}/reference" not in message


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="macOS does not enforce RLIMIT_AS; Windows has no limits")
def test_memory_limit_turns_a_memory_bomb_into_an_error(worker_factory):
    worker = worker_factory(H.with_add("x = bytearray(2 * 1024**3)"), Limits(memory_mb=256))
    worker.start()
    response = worker.request("graph", [ADD_SPEC], 10.0, "test")
    assert response["ok"] is False and response["error"]["type"] == "MemoryError"


def test_import_time_hang_is_bounded_by_startup_seconds(worker_factory):
    worker = worker_factory("while True:\n    pass\n", Limits(startup_seconds=0.5))
    with pytest.raises(WorkerTimeout):
        worker.start()
    assert not worker.alive


def test_a_sandbox_that_cannot_start_is_a_setup_error_not_a_student_fault(worker_factory, monkeypatch):
    monkeypatch.setenv("GRADER_SANDBOX_FAULTS", "launcher")
    with pytest.raises(SandboxSetupError):
        worker_factory(H.CORRECT).start()


def open_descriptors() -> int:
    """Descriptors (handles on Windows) this process holds now."""
    me = psutil.Process()
    return me.num_handles() if sys.platform == "win32" else me.num_fds()


@pytest.mark.parametrize("kind", [pytest.param("linux", marks=pytest.mark.linux_only), "portable"])
def test_forty_crashed_workers_leave_the_judge_no_more_descriptors(kind, tmp_path, refused_layers):
    """Every path of a worker's life (start, crash, kill, close) releases what the judge opened for it: a descriptor
    kept per worker would leave 40 more (200 workers, as before, took the portable backend 23 s of the suite)."""
    code = tmp_path / "code" / "micrograd"
    code.mkdir(parents=True)
    (code / "__init__.py").write_text("")
    (code / "engine.py").write_text(H.with_add("import os\nos._exit(3)"))
    sandbox = Sandbox(kind, prepare_runtime(tmp_path / "runtime"))
    sandbox.off.update(refused_layers if kind == "linux" else {})
    spec = WorkerSpec(code.parent, tmp_path / "scratch", ("micrograd.engine",), Limits())
    try:
        sandbox.start(spec).close()  # the fork server and the threads' first use are not a leak
        before = open_descriptors()
        for _ in range(40):
            worker = sandbox.start(spec)
            with pytest.raises(WorkerCrashed):
                worker.request("graph", [ADD_SPEC], 5.0, "test")
            worker.output_excerpt(1000)
            worker.close()
        assert open_descriptors() <= before
    finally:
        sandbox.close()


def test_the_capture_file_is_no_path_in_the_scratch_folder(worker_factory, tmp_path):
    """A worker that replaces every name in its scratch folder with links and a FIFO cannot make the
    judge open, block on or write any of them: the judge reads output from its own descriptor."""
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched")
    trap = (f"import os\nfor name in ('.output', 'output', 'stdout'):\n    os.symlink({str(victim)!r}, name)\n"
            "os.mkfifo('.fifo')\nprint('hello from the student', flush=True)\nos._exit(3)")
    worker = worker_factory(H.with_add(trap))
    worker.start()
    with pytest.raises(WorkerCrashed):
        worker.request("graph", [ADD_SPEC], 5.0, "test")
    assert "hello from the student" in worker.output_excerpt(1000)
    worker.close()
    assert victim.read_text() == "untouched"
