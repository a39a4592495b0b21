"""The sandbox worker and its judge-side handle: what crosses the boundary."""

from __future__ import annotations

import json
import os
import textwrap
import time
from pathlib import Path

import pytest

from grader.config import Limits
from hostile_submissions import processes_named
from grader.worker_process import SandboxWorker, WorkerCrashed, WorkerTimeout, prepare_runtime

pytestmark = pytest.mark.linux_only  # the Linux backend, /proc, namespaces or Linux process semantics

ROOT = Path(__file__).resolve().parent.parent
ADD_SPEC = {"leaves": [2.0, 3.0], "nodes": [["add", 0, 1]], "mode": "backward", "backward": [-1]}

GOOD_ENGINE = (ROOT / "reference" / "micrograd" / "engine.py").read_text(encoding="utf-8")


def make_worker(tmp_path: Path, engine: str, limits: Limits | None = None) -> SandboxWorker:
    code = tmp_path / "code" / "micrograd"
    code.mkdir(parents=True)
    (code / "__init__.py").write_text("")
    (code / "engine.py").write_text(textwrap.dedent(engine))
    runtime = prepare_runtime(tmp_path / "runtime")
    return SandboxWorker(runtime, tmp_path / "code", tmp_path / "scratch", ["micrograd.engine"], limits or Limits())


def with_add(body: str) -> str:
    """The reference engine with ``__add__`` replaced by ``body`` (indented as a method body)."""
    start = GOOD_ENGINE.index("    def __add__")
    end = GOOD_ENGINE.index("    def __mul__")
    method = "    def __add__(self, other):\n" + textwrap.indent(textwrap.dedent(body), " " * 8) + "\n"
    return GOOD_ENGINE[:start] + method + GOOD_ENGINE[end:]


@pytest.fixture
def worker_factory(tmp_path):
    workers = []

    def factory(engine, limits=None):
        worker = make_worker(tmp_path, engine, limits)
        workers.append(worker)
        return worker

    yield factory
    for worker in workers:
        worker.kill()


def test_probe_on_a_correct_engine_returns_plain_numbers(worker_factory):
    worker = worker_factory(GOOD_ENGINE)
    assert worker.start() == {"micrograd.engine": None}
    response = worker.request("graph", [ADD_SPEC], 5.0, "test")
    assert response == {"id": 1, "ok": True, "value": {"data": [2.0, 3.0, 5.0], "grad": [1.0, 1.0, 1.0]}}


def test_syntax_error_is_reported_with_file_and_line(worker_factory):
    worker = worker_factory("class Value:\n    def __init__(self, data)\n        pass\n")
    error = worker.start()["micrograd.engine"]
    assert error["type"] == "SyntaxError"
    assert error["where"]["file"] == "micrograd/engine.py" and error["where"]["line"] == 2


def test_student_exception_names_the_method_and_line(worker_factory):
    worker = worker_factory(with_add("raise NotImplementedError('Task 1.1')"))
    worker.start()
    response = worker.request("graph", [ADD_SPEC], 5.0, "test")
    error = response["error"]
    assert response["ok"] is False and error["type"] == "NotImplementedError" and error["message"] == "Task 1.1"
    assert error["where"]["function"] == "__add__" and error["where"]["file"] == "micrograd/engine.py"
    assert "x0 + x1" in error["during"]


def test_infinite_loop_times_out_and_leaves_no_process(worker_factory):
    worker = worker_factory(with_add("while True:\n    pass"))
    worker.start()
    pid = worker.pid
    started = time.monotonic()
    with pytest.raises(WorkerTimeout):
        worker.request("graph", [ADD_SPEC], 0.5, "test")
    assert time.monotonic() - started < 5
    assert not worker.alive
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_exit_during_a_probe_is_a_crash_not_a_pass(worker_factory):
    worker = worker_factory(with_add("import os\nos._exit(0)"))
    worker.start()
    with pytest.raises(WorkerCrashed, match="exited with status 0"):
        worker.request("graph", [ADD_SPEC], 5.0, "test")


def test_sys_exit_is_reported_as_an_exception(worker_factory):
    worker = worker_factory(with_add("import sys\nsys.exit(0)"))
    worker.start()
    response = worker.request("graph", [ADD_SPEC], 5.0, "test")
    assert response["ok"] is False and response["error"]["type"] == "SystemExit"


def test_printed_protocol_lookalikes_do_not_become_responses(worker_factory):
    fake = json.dumps({"id": 1, "ok": True, "value": {"data": [0, 0, 5.0], "grad": [1.0, 1.0, 1.0]}})
    worker = worker_factory(with_add(f"print({fake!r}, flush=True)\nraise ValueError('nope')"))
    worker.start()
    response = worker.request("graph", [ADD_SPEC], 5.0, "test")
    assert response["ok"] is False and response["error"]["type"] == "ValueError"
    assert fake in worker.output_excerpt(10_000)


def test_lying_float_subclass_crosses_as_a_plain_float(worker_factory):
    engine = with_add(
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
    engine = with_add(
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
    engine = with_add(
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


def test_memory_limit_turns_a_memory_bomb_into_an_error(worker_factory):
    worker = worker_factory(with_add("x = bytearray(2 * 1024**3)"), Limits(memory_mb=256))
    worker.start()
    response = worker.request("graph", [ADD_SPEC], 10.0, "test")
    assert response["ok"] is False and response["error"]["type"] == "MemoryError"


def test_import_time_hang_is_bounded_by_startup_seconds(worker_factory):
    worker = worker_factory("while True:\n    pass\n", Limits(startup_seconds=0.5))
    with pytest.raises(WorkerTimeout):
        worker.start()
    assert not worker.alive


def daemon_engine() -> str:
    return GOOD_ENGINE + textwrap.dedent(
        """
        import os, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                import ctypes
                ctypes.CDLL(None).prctl(15, b"sandboxdaemon", 0, 0, 0)  # PR_SET_NAME: /proc/self/comm may be read-only
                time.sleep(1000)
            os._exit(0)
        """
    )


def daemons() -> list[int]:
    return processes_named("sandboxdaemon")


@pytest.mark.parametrize("isolate", [True, False], ids=["namespaces", "no-namespaces"])
def test_a_setsid_daemon_dies_with_the_worker(worker_factory, isolate, tmp_path):
    worker = make_worker(tmp_path / ("ns" if isolate else "plain"), daemon_engine())
    worker.off = {} if isolate else {"namespaces": "disabled by the test"}
    try:
        worker.start()
        assert worker.request("graph", [ADD_SPEC], 5.0, "test")["ok"]
        for _ in range(100):  # the daemon runs on its own schedule
            if daemons():
                break
            time.sleep(0.02)
        assert len(daemons()) == 1
    finally:
        worker.kill()
    for _ in range(50):
        if not daemons():
            break
        time.sleep(0.05)
    assert daemons() == []
    if not isolate:
        assert worker.isolation["process reaper"].startswith("on")
        assert worker.isolation["namespaces"].startswith("off")


def test_without_namespaces_landlock_still_hides_the_course(tmp_path):
    engine = with_add(
        f"""
        try:
            open({str(ROOT / 'reference' / 'micrograd' / 'engine.py')!r}).read()
            raise RuntimeError("READ")
        except OSError as exc:
            raise RuntimeError(f"denied: {{exc.strerror}}")
        """
    )
    worker = make_worker(tmp_path, engine)
    worker.off = {"namespaces": "disabled by the test"}
    try:
        worker.start()
        assert worker.isolation["landlock"].startswith("on")
        message = worker.request("graph", [ADD_SPEC], 5.0, "test")["error"]["message"]
    finally:
        worker.kill()
    assert message.startswith("denied")


@pytest.mark.parametrize("network", [False, True], ids=["no-network", "allow_network"])
def test_network_is_off_unless_the_course_allows_it(tmp_path, network):
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    received = []

    def accept():
        server.settimeout(5)
        try:
            conn, _ = server.accept()
            received.append(conn.recv(10))
            conn.close()
        except OSError:
            pass

    thread = threading.Thread(target=accept)
    thread.start()
    engine = with_add(
        f"""
        import socket
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=2).sendall(b"hi")
            raise RuntimeError("connected")
        except OSError as exc:
            raise RuntimeError(f"blocked: {{exc}}")
        """
    )
    worker = make_worker(tmp_path, engine)
    worker.network = network
    try:
        worker.start()
        message = worker.request("graph", [ADD_SPEC], 10.0, "test")["error"]["message"]
    finally:
        worker.kill()
        server.close()
        thread.join()
    if network:
        assert message == "connected" and received == [b"hi"]
    else:
        assert message.startswith("blocked") and received == []


def test_nothing_crosses_the_boundary_as_pickle():
    """Only JSON crosses: no grader module imports pickle, marshal, shelve or dill."""
    import ast

    for path in (ROOT / "grader").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                assert name.split(".")[0] not in {"pickle", "marshal", "shelve", "dill", "cloudpickle"}, path
