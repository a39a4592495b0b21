"""The sandbox's CPU time read from kept ``/proc`` descriptors (:mod:`grader.judge.proc_tree`) is what a read by path
gives: every process of the tree, threads and reaped children included; nothing is left open once the tree is gone."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from grader.judge.proc_tree import CLOCK_TICKS, TreeReader

pytestmark = pytest.mark.linux_only

TREE = """
import subprocess, sys, threading, time
def spin(seconds):  # CPU seconds of this thread, however busy the machine is
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass
kids = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]) for _ in range(2)]
thread = threading.Thread(target=spin, args=(0.3,), daemon=True)
thread.start()
spin(0.3)
thread.join()  # on a busy machine the other thread may not have had its 0.3 s yet
kids[0].kill(); kids[0].wait()   # a reaped child: its time is now the parent's
while open(f"/proc/{kids[1].pid}/stat").read().rsplit(")", 1)[1].split()[0] != "S":  # started, and asleep
    time.sleep(0.01)
print("ready", kids[1].pid, flush=True)
time.sleep(30)
"""


def by_path(root: int) -> tuple[int, int]:
    """Ticks of the tree and how many processes, read by path (as the judge read it before keeping descriptors)."""
    ticks, count, todo = 0, 0, [root]
    while todo:
        pid = todo.pop()
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
        ticks += sum(int(x) for x in data[data.rindex(b")") + 2:].split()[11:15])
        count += 1
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children", encoding="ascii") as f:
                todo.extend(int(p) for p in f.read().split())
    return ticks, count


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_a_tree_reads_as_by_path_and_leaves_nothing_open():
    before = open_descriptors()
    tree = subprocess.Popen([sys.executable, "-c", TREE], stdout=subprocess.PIPE, text=True)
    reader = TreeReader()
    try:
        assert tree.stdout is not None
        ready, kid = tree.stdout.readline().split()
        assert ready == "ready"
        deadline = time.monotonic() + 30  # the parent goes to sleep after its print, when a busy machine lets it
        while (first := reader.usage(tree.pid)) is not None and first.runnable and time.monotonic() < deadline:
            time.sleep(0.02)
        for _ in range(3):  # the tree is asleep now: its ticks no longer change
            usage = reader.usage(tree.pid)
            ticks, count = by_path(tree.pid)
            assert usage is not None and usage.cpu_seconds == ticks / CLOCK_TICKS
            assert not usage.runnable
            assert count == 2  # the parent and its living child (the killed one was reaped)
        assert usage.cpu_seconds > 0.2  # the thread's and the main thread's spinning
    finally:
        tree.kill()
        tree.wait()
        tree.stdout.close()  # type: ignore[union-attr]
    os.kill(int(kid), 9)
    assert reader.usage(tree.pid) is None
    reader.close()
    assert open_descriptors() == before
