"""The student's seconds of a call (issue 56): CPU time where it can be read, so the machine's load never changes a
verdict. Unit tests on a scripted worker's usage; the whole path through ``grader grade`` is in test_deadlines.py."""

from __future__ import annotations

import pytest

from grader.judge.call_clock import CallClock, Patience, Usage, WorkerHeldUp

PATIENCE = Patience(blocked_cap=2.0, held_cap=10.0)


class Machine:
    """The worker's usage as a script: CPU seconds and whether it is runnable, set by the test."""

    def __init__(self) -> None:
        self.cpu, self.runnable, self.readable = 5.0, True, True

    def usage(self) -> Usage | None:
        return Usage(self.cpu, self.runnable) if self.readable else None


def test_code_that_computes_is_stopped_once_it_has_used_its_limit_in_cpu_time():
    machine = Machine()
    clock = CallClock(0.5, PATIENCE, machine.usage, now=100.0)
    assert clock.counts_cpu and clock.first_look() == 100.5
    machine.cpu += 0.5  # a free core: all of the 0.5 s computing
    assert clock.look(100.5) is None
    assert clock.charged(100.5) == pytest.approx(0.5)


def test_code_held_up_by_a_busy_machine_is_waited_for_and_charged_only_its_cpu():
    machine = Machine()
    clock = CallClock(0.5, PATIENCE, machine.usage, now=100.0)
    machine.cpu += 0.05  # a tenth of a core: runnable, waiting for one
    later = clock.look(100.5)
    assert later == pytest.approx(100.95)  # the soonest it could use the rest of its limit
    machine.cpu += 0.1
    assert clock.look(later) is not None
    machine.cpu += 0.2
    assert clock.charged(103.0) == pytest.approx(0.35)  # answered at 3 s: charged 0.35 s, under its limit


def test_code_held_up_past_the_judges_patience_is_the_machines_fault_not_the_students():
    machine = Machine()
    clock = CallClock(0.5, PATIENCE, machine.usage, now=100.0)
    machine.cpu += 0.2
    with pytest.raises(WorkerHeldUp, match="machine was too busy"):
        clock.look(110.0)


def test_code_asleep_is_charged_the_seconds_that_go_by_up_to_its_cap():
    machine = Machine()
    machine.runnable = False
    clock = CallClock(0.5, PATIENCE, machine.usage, now=100.0)
    later = clock.look(100.5)  # no CPU used, not waiting for a core: asleep
    assert later is not None and clock.asleep
    assert clock.look(102.0) is None  # its blocked cap: a timeout, however little CPU it used
    assert clock.charged(101.0) == pytest.approx(1.0)


def test_a_moment_without_a_core_is_not_sleep_when_the_code_computed_meanwhile():
    machine = Machine()
    clock = CallClock(0.5, PATIENCE, machine.usage, now=100.0)
    machine.cpu, machine.runnable = machine.cpu + 0.3, False  # read between two time slices
    assert clock.look(100.5) is not None and not clock.asleep


def test_the_judges_time_answering_is_never_charged():
    machine = Machine()
    clock = CallClock(0.5, PATIENCE, machine.usage, now=100.0)
    clock.answered(3.0)
    assert clock.first_look() == 103.5
    machine.runnable = False
    clock.look(103.5)
    assert clock.asleep and clock.charged(103.6) == pytest.approx(0.6)  # the 3 s were the judge's


def test_where_the_cpu_time_cannot_be_read_the_limit_is_wall_clock_time():
    machine = Machine()
    machine.readable = False
    clock = CallClock(0.5, PATIENCE, machine.usage, now=100.0)
    assert not clock.counts_cpu
    assert clock.look(100.4) == 100.5 and clock.look(100.5) is None
    assert clock.charged(100.3) == pytest.approx(0.3)


def test_without_patience_the_limit_is_final_and_usage_is_not_read():
    def unread() -> Usage:
        raise AssertionError("read")

    clock = CallClock(0.5, None, unread, now=100.0)
    assert clock.look(100.5) is None and clock.charged(100.2) == pytest.approx(0.2)
