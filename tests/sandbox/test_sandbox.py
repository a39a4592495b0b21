"""The Linux backend's own layers: namespaces, Landlock, the network, the subreaper (see also
tests/judge/test_worker_contract.py for what both backends share)."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import hostile_submissions as H
import pytest
from checkout import ROOT
from hostile_submissions import processes_named

from grader.course.config import Limits
from grader.judge.linux_handle import SandboxWorker, prepare_runtime

pytestmark = pytest.mark.linux_only  # the Linux backend, /proc, namespaces or Linux process semantics

ADD_SPEC = {"leaves": [2.0, 3.0], "nodes": [["add", 0, 1]], "mode": "backward", "backward": [-1]}



def make_worker(tmp_path: Path, engine: str, off: dict[str, str], limits: Limits | None = None) -> SandboxWorker:
    """A Linux worker with ``off`` (the layers this host refuses, at least) turned off."""
    code = tmp_path / "code" / "micrograd"
    code.mkdir(parents=True)
    (code / "__init__.py").write_text("")
    (code / "engine.py").write_text(textwrap.dedent(engine))
    runtime = prepare_runtime(tmp_path / "runtime")
    return SandboxWorker(runtime, tmp_path / "code", tmp_path / "scratch", ["micrograd.engine"], limits or Limits(),
                         off=off)


def daemon_engine() -> str:
    return H.CORRECT + textwrap.dedent(
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
def test_a_setsid_daemon_dies_with_the_worker(isolate, tmp_path, refused_layers):
    off = dict(refused_layers) if isolate else {**refused_layers, "namespaces": "disabled by the test"}
    worker = make_worker(tmp_path / ("ns" if isolate else "plain"), daemon_engine(), off)
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
        assert worker.isolation["process reaper"]["active"]
        assert not worker.isolation["pid namespace"]["active"]


def test_without_namespaces_landlock_still_hides_the_course(tmp_path, refused_layers):
    engine = H.with_add(
        f"""
        try:
            open({str(ROOT / 'reference' / 'micrograd' / 'engine.py')!r}).read()
            raise RuntimeError("READ")
        except OSError as exc:
            raise RuntimeError(f"denied: {{exc.strerror}}")
        """
    )
    worker = make_worker(tmp_path, engine, {**refused_layers, "namespaces": "disabled by the test"})
    try:
        worker.start()
        assert worker.isolation["landlock"]["active"]
        message = worker.request("graph", [ADD_SPEC], 5.0, "test")["error"]["message"]
    finally:
        worker.kill()
    assert message.startswith("denied")


@pytest.mark.parametrize("network", [False, True], ids=["no-network", "allow_network"])
def test_network_is_off_unless_the_course_allows_it(tmp_path, network, refused_layers):
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    received = []
    stop = threading.Event()

    def accept():  # until the worker has answered: a busy machine may take seconds to start it
        server.settimeout(0.2)
        while True:
            try:
                conn, _ = server.accept()
            except TimeoutError:  # a connection made before the worker answered is taken after it too
                if stop.is_set():
                    return
                continue
            except OSError:
                return
            conn.settimeout(10)
            try:
                received.append(conn.recv(10))
            except OSError:
                pass
            conn.close()
            return

    thread = threading.Thread(target=accept)
    thread.start()
    engine = H.with_add(
        f"""
        import socket
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=2).sendall(b"hi")
            raise RuntimeError("connected")
        except OSError as exc:
            raise RuntimeError(f"blocked: {{exc}}")
        """
    )
    worker = make_worker(tmp_path, engine, refused_layers)
    worker.network = network
    try:
        worker.start()
        message = worker.request("graph", [ADD_SPEC], 10.0, "test")["error"]["message"]
    finally:
        worker.kill()
        stop.set()
        thread.join()
        server.close()
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
