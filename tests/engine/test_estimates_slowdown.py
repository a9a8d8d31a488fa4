"""The slowdown other programs cause, measured before a run (engine.estimates.slowdown; issue 33
item 5, "Estimates that hold under load"), and the one figure the page shows before a run and
asks about. The clock and the probe are passed in: no test here depends on how busy the
machine is (how close the measured estimate comes at loads 0, 2, 8 and 15 is
``python -m bench.bench_estimates_load``'s job)."""

from __future__ import annotations

import pytest

import engine.estimates as est
from engine.audits.registry import demo_config
from engine.estimates import slowdown as sd


def test_the_slowdown_is_wall_time_over_the_processor_time_the_threads_got():
    # Two threads that each had a core: no slowdown. Each got a third of a core: three times.
    assert sd.slowdown_from([(0.15, 0.15), (0.15, 0.15)]) == pytest.approx(1.0)
    assert sd.slowdown_from([(0.05, 0.15), (0.05, 0.15)]) == pytest.approx(3.0)
    # Unequal shares: the threads' wall time over their processor time, together.
    assert sd.slowdown_from([(0.15, 0.15), (0.03, 0.15)]) == pytest.approx(0.30 / 0.18)
    # Never below 1 (a clock's rounding), never above the range's top, 1 with nothing read.
    assert sd.slowdown_from([(0.16, 0.15)]) == 1.0
    assert sd.slowdown_from([(1e-9, 0.15)]) == sd.SLOWDOWN_RANGE[1]
    assert sd.slowdown_from([]) == 1.0 and sd.slowdown_from([(0.0, 0.15)]) == 1.0


def test_the_probe_runs_a_thread_per_usable_processor_up_to_four():
    assert sd.probe_threads(1) == 1 and sd.probe_threads(2) == 2
    assert sd.probe_threads(16) == sd.MAX_PROBE_THREADS == 4
    assert sd.probe_threads(0) == 1


def test_a_reading_serves_a_few_seconds_then_is_measured_again():
    now = [100.0]
    calls = []

    def probe(threads, seconds):
        calls.append((threads, seconds))
        return [(seconds / (1 + len(calls)), seconds)] * threads   # busier at every reading

    meter = sd.SlowdownMeter(probe=probe, clock=lambda: now[0], cores=lambda: 2)
    assert meter() == pytest.approx(2.0)
    assert calls == [(2, sd.PROBE_SECONDS)]
    now[0] += sd.READING_SECONDS - 0.1
    assert meter() == pytest.approx(2.0) and len(calls) == 1          # reused
    now[0] += 0.2
    assert meter() == pytest.approx(3.0) and len(calls) == 2          # measured again
    assert meter(fresh=True) == pytest.approx(4.0) and len(calls) == 3
    meter.forget()
    assert meter() == pytest.approx(5.0) and len(calls) == 4


def test_the_real_probe_reads_each_threads_processor_and_wall_time():
    readings = sd.probe_share(2, 0.02)
    assert len(readings) == 2
    assert all(cpu >= 0 and wall > 0 for cpu, wall in readings)
    assert sd.slowdown_from(readings) >= 1.0


def test_the_estimate_uses_the_measured_slowdown_not_the_load(monkeypatch):
    """A machine whose load average says 15 but whose probe threads each got a whole core is
    not busy for this process (the case of issue 33 item 5: another container's load)."""
    monkeypatch.setattr(sd.METER, "probe", lambda threads, seconds: [(seconds, seconds)] * threads)
    sd.METER.forget()
    try:
        config = demo_config("mechanism")
        assert est.estimate(config).slowdown == pytest.approx(1.0)
        monkeypatch.setattr(sd.METER, "probe",
                            lambda threads, seconds: [(seconds / 4, seconds)] * threads)
        sd.METER.forget()
        cost = est.estimate(config)
        # The probe's threads each got a quarter of a processor: (L + threads) / cores = 4 with
        # the machine's processors (cores) and as many probe threads; the mechanism game runs
        # on one thread, which shares the processors with the L busy programs alone.
        cores = sd.usable_cores()
        n = sd.probe_threads(cores)
        assert cost.slowdown == pytest.approx(sd.slowdown_for(4.0, n, cores, 1))
        assert cost.expected_seconds == pytest.approx(cost.slowdown * cost.seconds)
    finally:
        sd.METER.forget()


def test_a_run_on_fewer_threads_than_the_probe_is_slowed_less():
    """Measured 28 Nov 2026 on 2 processors with two busy loops: the probe's two threads saw
    2.0, the mechanism game (one thread) took 1.5 times its quiet time, the model audit
    (torch on both processors) 1.7–2.0 — (L + threads) / cores with L = 2."""
    assert sd.slowdown_for(2.0, 2, 2, 1) == pytest.approx(1.5)
    assert sd.slowdown_for(2.0, 2, 2, 2) == pytest.approx(2.0)
    # eight busy programs: 10 / 2 for the probe, 9 / 2 for one thread
    assert sd.slowdown_for(5.0, 2, 2, 1) == pytest.approx(4.5)
    # a quiet machine stays 1 whatever the threads; a run never goes faster than quiet
    assert sd.slowdown_for(1.0, 2, 2, 1) == 1.0
    assert sd.slowdown_for(1.0, 4, 16, 1) == 1.0
    # one other program on two processors: a one-thread run has a processor to itself, a
    # two-thread run shares: 3 threads on 2 processors
    assert sd.slowdown_for(1.5, 2, 2, 1) == pytest.approx(1.0)
    assert sd.slowdown_for(1.5, 2, 2, 2) == pytest.approx(1.5)


def test_the_meter_turns_one_reading_into_each_runs_slowdown():
    calls = []

    def probe(threads, seconds):
        calls.append(threads)
        return [(seconds / 2, seconds)] * threads          # each probe thread half a processor

    meter = sd.SlowdownMeter(probe=probe, clock=lambda: 0.0, cores=lambda: 2)
    assert meter() == pytest.approx(2.0)
    assert meter(threads=1) == pytest.approx(1.5) and meter(threads=2) == pytest.approx(2.0)
    assert calls == [2]                                    # one reading serves all three


def test_the_question_before_a_run_and_the_line_beside_run_show_one_figure(monkeypatch):
    """The sentence under the form and the question before a long run are both the range of
    one figure, ``expected_seconds`` (the quiet estimate × the measured slowdown), which the
    time left during the run starts from (gui.pages.audit_page, gui.widgets.run_bar)."""
    config = demo_config("aggregates")
    cost = est.estimate(config, slowdown=7.0)
    check = est.preflight(cost, available=64e9, confirm_seconds=1.0)
    words = est.duration_range(cost.expected_seconds)
    assert check.question is not None and words in check.question
    assert cost.sentence().lower().startswith(words)
    assert cost.expected_seconds == pytest.approx(7.0 * cost.seconds)
