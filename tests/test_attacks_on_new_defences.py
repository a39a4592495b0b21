"""Attacks on the IPC filter (seccomp + Landlock devices), the push records reader and the bounded readers.

Each test is named for the harm it prevents; an attack that gets through fails its test.
"""

from __future__ import annotations

import csv
import ctypes
import json
import os
import platform
import subprocess
import sys
import textwrap
from pathlib import Path

import hostile_submissions as H
import pytest
from checkout import ROOT

from grader.cli import main
from grader.errors import ConfigError, GraderError, SubmissionError
from grader.intake import metadata_yaml, pushes, regular_files

LINUX_X86 = sys.platform == "linux" and platform.machine().lower() in ("x86_64", "amd64")
ADD_KEY, REQUEST_KEY, KEYCTL = 248, 249, 250
KEYCTL_CLEAR, KEYCTL_SEARCH, KEYCTL_INVALIDATE = 7, 10, 21
RINGS = (-4, -5)  # KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING: per user, they outlive every process

KEYRING_CARRIER = """
import ctypes, os
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_seen = []
for _ring in (-4, -5):
    _desc = b"grader-attack-carry-%d" % -_ring
    if _libc.syscall(249, b"user", _desc, None, 0) >= 0:  # request_key: an earlier worker's key
        _seen.append("keyring %d" % _ring)
    else:  # add_key: 16 KB the address-space limit does not count, left for the next worker
        _libc.syscall(248, b"user", _desc, b"x" * 16000, 16000, ctypes.c_long(_ring))
"""

EVERYWHERE_ELSE = """
import socket
for _path in ("/tmp/grader-attack-carry", "/var/tmp/grader-attack-carry", "/run/shm/grader-attack-carry",
              "/run/grader-attack-carry", "/dev/shm/grader-attack-carry", "/dev/pts/grader-attack-carry",
              "carry-in-scratch", "../carry-above-scratch", os.path.expanduser("~/grader-attack-carry")):
    if os.path.exists(_path):
        _seen.append(_path)
    else:
        try:
            open(_path, "w").close()
        except OSError:
            pass
try:  # /dev/shm through a directory descriptor (shm_open's folder)
    _fd = os.open("/dev/shm", os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.stat("grader-attack-carry-fd", dir_fd=_fd)
        _seen.append("/dev/shm by descriptor")
    except FileNotFoundError:
        try:
            os.close(os.open("grader-attack-carry-fd", os.O_CREAT | os.O_WRONLY, dir_fd=_fd))
        except OSError:
            pass
except OSError:
    pass
_s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:  # a daemon an earlier worker left, holding a memfd, answering on an abstract socket
    _s.connect("\\0grader-attack-carry")
    _seen.append("daemon")
except OSError:
    try:
        _l = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        _l.bind("\\0grader-attack-carry")
        _l.listen(5)
        _pid = os.fork()
        if _pid == 0:
            try:
                os.setsid()
                if os.fork() == 0:
                    import signal, time
                    for _sig in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
                        signal.signal(_sig, signal.SIG_IGN)
                    _m = os.memfd_create("hold")
                    os.ftruncate(_m, 32 << 20)
                    while True:
                        try:
                            _l.accept()[0].close()
                        except Exception:
                            time.sleep(0.1)
            finally:
                os._exit(0)
        os.waitpid(_pid, 0)
        _l.close()
    except OSError:
        pass
if os.environ.get("GRADER_ATTACK_CARRY"):
    _seen.append("environment")
os.environ["GRADER_ATTACK_CARRY"] = "1"
"""


def _key_users() -> set[int]:
    try:
        return {int(line.split(":")[0]) for line in Path("/proc/key-users").read_text().splitlines() if line.strip()}
    except OSError:
        return set()


def _clear_keys(uid: int) -> None:
    """Remove the carrier's keys from ``uid``'s keyrings (as that user, in a child)."""
    pid = os.fork()
    if pid == 0:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.syscall.restype = ctypes.c_long
            if uid != os.getuid():
                os.setresuid(uid, uid, 0)
            for ring in RINGS:
                for other in RINGS:
                    desc = b"grader-attack-carry-%d" % -other
                    key = libc.syscall(KEYCTL, KEYCTL_SEARCH, ctypes.c_long(ring), b"user", desc, 0)
                    if key >= 0:
                        libc.syscall(KEYCTL, KEYCTL_INVALIDATE, ctypes.c_long(key))
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def _grade(tmp_path: Path, carrier: str, faults: str, *extra: str) -> dict[str, str]:
    subs = tmp_path / "subs"
    H.write(subs / "carrier", H.with_import_code(carrier + H.CARRY_END, H.CORRECT))
    old = os.environ.get("GRADER_SANDBOX_FAULTS")
    os.environ["GRADER_SANDBOX_FAULTS"] = faults
    try:
        status = main(["--course", str(ROOT), "grade", str(subs), "-o", str(tmp_path / "out"), "-a", "value_ops",
                       "-a", "backward", "-j", "1", *extra])
    finally:
        os.environ.pop("GRADER_SANDBOX_FAULTS")
        if old is not None:
            os.environ["GRADER_SANDBOX_FAULTS"] = old
    assert status == 0
    with open(tmp_path / "out" / "grades.csv", encoding="utf-8") as f:
        return next(csv.DictReader(f))


@pytest.fixture
def keys_cleaned():
    before = _key_users()
    _clear_keys(os.getuid())
    yield before
    for uid in _key_users() | {os.getuid()}:
        _clear_keys(uid)


needs_root_linux = pytest.mark.skipif(not (LINUX_X86 and os.geteuid() == 0), reason="root on Linux x86-64")
needs_linux = pytest.mark.skipif(not LINUX_X86, reason="Linux x86-64")
AS_ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False


# --- 1. the IPC filter -----------------------------------------------------------------------------------------


@needs_linux
def test_files_daemons_scratch_and_environment_carry_nothing_between_workers(tmp_path, keys_cleaned):
    row = _grade(tmp_path, KEYRING_CARRIER + EVERYWHERE_ELSE, "")
    assert (row["value_ops"], row["backward"]) == ("40", "50"), row["notes"]


@needs_linux
@pytest.mark.parametrize(("faults", "extra"), [("setuid", ()), ("unshare,setuid", ()), ("", ("--sandbox", "portable"))],
                         ids=["namespaces-no-own-user", "no-namespaces-no-own-user", "portable"])
def test_kernel_keyrings_carry_no_state_between_workers_without_a_user_of_their_own(tmp_path, keys_cleaned, faults,
                                                                                      extra):
    """Keyrings are per user and not namespaced by IPC namespaces: the IPC filter must refuse add_key/keyctl. (A
    normal user's workers never have a user id of their own: the same hosts without the injected setuid.)"""
    row = _grade(tmp_path, KEYRING_CARRIER, faults if AS_ROOT else faults.replace("setuid", "").strip(","), *extra)
    assert (row["value_ops"], row["backward"]) == ("40", "50"), row["notes"]


@needs_root_linux
def test_kernel_keys_a_worker_adds_do_not_outlive_grading(tmp_path, keys_cleaned):
    """A key in a worker user's keyring holds kernel memory no address-space limit counts, until reboot."""
    _grade(tmp_path, KEYRING_CARRIER, "")
    left = _key_users() - keys_cleaned
    assert not left, f"worker users still hold kernel keys after grading: {sorted(left)}"


# --- 2. push records ------------------------------------------------------------------------------------------

OID = "a" * 40


def _record(**over: object) -> dict[str, object]:
    return {"ref": "refs/heads/main", "after": OID, "timestamp": "2024-01-01T00:00:00Z", "activity_type": "push",
            **over}


def _read(tmp_path: Path, text: str) -> list[pushes.Push]:
    path = tmp_path / "alice.json"
    path.write_text(text, encoding="utf-8")
    return pushes.read_pushes(path)


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"])
def test_a_push_time_at_the_end_of_the_calendar_is_a_config_error_not_a_crash(tmp_path, stamp):
    with pytest.raises(ConfigError):
        _read(tmp_path, json.dumps([_record(timestamp=stamp)]))


@pytest.mark.parametrize("kind", [[], {}, ["push"]])
def test_an_activity_type_that_is_not_a_string_is_a_config_error_not_a_crash(tmp_path, kind):
    with pytest.raises(ConfigError):
        _read(tmp_path, json.dumps([_record(activity_type=kind)]))


@pytest.mark.parametrize("text", ["[" * 200_000 + "]" * 200_000, "[" + "9" * 100_000 + "]",
                                  '[{"ref": "refs/heads/main", "after": "' + OID + '", "timestamp": NaN}]',
                                  '[{"ref": "refs/heads/main", "after": "' + OID + '", "timestamp": Infinity}]',
                                  json.dumps([_record(ref="refs/heads/main\x1b]0;x\x07")]),
                                  json.dumps([_record(after="A" * 40)]), json.dumps([_record(timestamp="2024-01-01")])],
                         ids=["deep", "huge-number", "nan", "infinity", "escape-in-ref", "upper-oid", "no-zone"])
def test_hostile_push_json_is_a_config_error(tmp_path, text):
    with pytest.raises(ConfigError):
        _read(tmp_path, text)


def test_a_duplicate_key_cannot_turn_a_deletion_into_a_graded_push_silently(tmp_path):
    text = ('[{"ref": "refs/heads/main", "after": "' + OID + '", "timestamp": "2024-01-01T00:00:00Z", '
            '"activity_type": "push", "activity_type": "branch_deletion"}]')
    assert _read(tmp_path, text) == []  # the last one wins, as GitHub's own parsers do: a deletion grades nothing


def _folder_in_child(folder: Path) -> subprocess.CompletedProcess[str]:
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; "
            "from grader.intake.pushes import read_push_folder; from grader.errors import ConfigError\n"
            "try:\n    print(sorted(read_push_folder(Path(sys.argv[2]))))\nexcept ConfigError as e:\n    print('error')")
    return subprocess.run([sys.executable, "-c", code, str(ROOT), str(folder)], capture_output=True, text=True,
                          timeout=5, check=False)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_in_the_push_folder_never_blocks_grading(tmp_path):
    """A FIFO named like a push file is one clear error (never opened, so never waited on): skipping it would grade
    bob by the commit dates he wrote without a word."""
    os.mkfifo(tmp_path / "bob.json")
    (tmp_path / "alice.json").write_text(json.dumps([_record()]))
    done = _folder_in_child(tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "error", done.stderr


@pytest.mark.skipif(not os.path.exists("/proc/kmsg") or os.geteuid() != 0, reason="root with /proc/kmsg")
def test_a_push_file_linked_to_a_file_that_never_ends_never_blocks_grading(tmp_path):
    """/proc/kmsg is a "regular" file whose read waits for the next kernel message: a link to it is junk."""
    (tmp_path / "mallory.json").symlink_to("/proc/kmsg")
    try:
        done = _folder_in_child(tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail("reading the push folder blocked on a link to /proc/kmsg")
    assert done.returncode == 0, done.stderr


# --- 3. bounded readers ---------------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_or_link_where_a_submission_file_was_expected_is_never_read(tmp_path):
    os.mkfifo(tmp_path / "engine.py")
    with pytest.raises(SubmissionError, match="FIFO"):
        regular_files.read_upto(tmp_path / "engine.py", 100, "engine.py")
    (tmp_path / "nn.py").symlink_to("/etc/passwd")
    with pytest.raises(OSError):
        regular_files.read_upto(tmp_path / "nn.py", 100, "nn.py")
    with pytest.raises(SubmissionError, match="character device"):
        regular_files.open_regular(Path("/dev/zero"), "zero", follow=True)


def test_a_file_that_grew_is_read_only_to_its_bound(tmp_path):
    (tmp_path / "big.py").write_bytes(b"x" * 10_000)
    assert len(regular_files.read_upto(tmp_path / "big.py", 100, "big.py")) == 101


@pytest.mark.parametrize("text", ["[" * 50_000 + "]" * 50_000, "a: &a [x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
    f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
    for i in range(9)), textwrap.dedent("""
    a: &a {x: 1}
    b: &b {<<: [*a, *a, *a, *a, *a, *a, *a, *a]}
    c: &c {<<: [*b, *b, *b, *b, *b, *b, *b, *b]}
    d: &d {<<: [*c, *c, *c, *c, *c, *c, *c, *c]}
    e: &e {<<: [*d, *d, *d, *d, *d, *d, *d, *d]}
    f: &f {<<: [*e, *e, *e, *e, *e, *e, *e, *e]}
    g: &g {<<: [*f, *f, *f, *f, *f, *f, *f, *f]}
    h: &h {<<: [*g, *g, *g, *g, *g, *g, *g, *g]}
    i: &i {<<: [*h, *h, *h, *h, *h, *h, *h, *h]}
    """), "a: !!python/object/apply:os.system ['true']\n", "a: 1\n---\nb: 2\n"],
    ids=["deep", "billion-laughs", "merge-bomb", "python-tag", "two-documents"])
def test_hostile_gradescope_metadata_is_refused_in_time(tmp_path, text):
    path = tmp_path / "submission_metadata.yml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(GraderError):
        metadata_yaml.read_metadata(path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_gradescope_metadata_that_is_a_fifo_or_link_is_never_opened(tmp_path):
    os.mkfifo(tmp_path / "submission_metadata.yml")
    with pytest.raises(GraderError, match="not a regular file"):
        metadata_yaml.read_metadata(tmp_path / "submission_metadata.yml")
    (tmp_path / "other.yml").symlink_to("/etc/hostname")
    with pytest.raises(GraderError, match="not a regular file"):
        metadata_yaml.read_metadata(tmp_path / "other.yml")
