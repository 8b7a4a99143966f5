"""The simulated engine's link model: deterministic per seed and run id, and its parts behave as the
docstring says (windows, caps, set-up, noise around the expected rate, timeouts, failures)."""

import numpy as np
import pytest

from gftpwb.core.units import GIB, MIB
from gftpwb.kinds.simulated.link import (
    LinkModel,
    Transfer,
    data_rate,
    effective_window,
    expected_rate,
    run_rng,
    simulate,
)


def test_same_seed_and_run_id_give_the_same_run_and_others_differ():
    link = LinkModel(noise=0.05, outliers=0.1, seed=4)
    t = Transfer(parallel=4)
    a = simulate(link, t, run_rng(link.seed, "tune#3/0"))
    assert a == simulate(link, t, run_rng(link.seed, "tune#3/0"))
    assert a != simulate(link, t, run_rng(link.seed, "tune#3/1"))
    assert a != simulate(link, t, run_rng(5, "tune#3/0"))


def test_window_cap_and_streams():
    link = LinkModel(bandwidth_mib_s=10_000, rtt_s=0.1, window=4 * MIB, buffer_cap=8 * MIB, contention=0)
    assert effective_window(link, Transfer()) == 4 * MIB
    assert effective_window(link, Transfer(tcp_buffer=2 * MIB)) == 2 * MIB
    assert effective_window(link, Transfer(tcp_buffer=16 * MIB)) == 8 * MIB  # capped by the kernel
    assert data_rate(link, Transfer(parallel=4, tcp_buffer=MIB)) == pytest.approx(40.0)  # p * w / rtt
    assert data_rate(link, Transfer(parallel=4, tcp_buffer=16 * MIB)) == data_rate(
        link, Transfer(parallel=4, tcp_buffer=8 * MIB))
    fast = LinkModel(bandwidth_mib_s=500, rtt_s=0.001, contention=0)
    assert data_rate(fast, Transfer(parallel=8)) == pytest.approx(500.0)  # the bandwidth limits


def test_noise_averages_to_the_expected_rate():
    link = LinkModel(bandwidth_mib_s=1000, rtt_s=0.02, noise=0.05, outliers=0.05, seed=1)
    t = Transfer(parallel=8, length=GIB)
    rng = np.random.default_rng(123)
    rates = np.array([simulate(link, t, rng).rate_incl_setup_mib_s for _ in range(20_000)])
    assert rates.mean() == pytest.approx(expected_rate(link, t), rel=0.005)
    body = rates[rates > np.quantile(rates, 0.10)]  # without the slow outliers
    assert 0.02 < body.std() / body.mean() < 0.06


def test_no_noise_gives_the_model_exactly():
    link = LinkModel(bandwidth_mib_s=1024, rtt_s=0.001, noise=0.0, setup_s=1.0, per_stream_s=0.0, contention=0)
    out = simulate(link, Transfer(parallel=2, length=4 * GIB), run_rng(0, "x"))
    assert out.status == "passed" and out.seconds == pytest.approx(5.0)
    assert out.rate_incl_setup_mib_s == pytest.approx(4096 / 5) and out.rate_guc_avg_mib_s == pytest.approx(1024)


def test_timeouts_and_failures():
    slow = LinkModel(bandwidth_mib_s=50, noise=0.0)
    out = simulate(slow, Transfer(length=4 * GIB), run_rng(0, "x"), timeout_s=30)
    assert out.status == "timeout" and out.seconds == 30 and out.rate_incl_setup_mib_s is None
    assert "SIMULATED" in out.error
    broken = LinkModel(failures=1.0)
    out = simulate(broken, Transfer(), run_rng(0, "x"))
    assert out.status == "failed" and out.error.startswith("SIMULATED failure")


def test_no_run_reports_a_rate_its_link_cannot_carry():
    """Noise and outliers only slow a transfer: on a 10 Gbit/s link with 40 % noise, no candidate of
    tgftp's 37 (nor a large block size) is ever faster than the link, incl. set-up or guc's average."""
    from gftpwb.core.units import parse_rate
    from gftpwb.kinds.autotune.candidates import tgftp_37

    link = LinkModel(bandwidth_mib_s=parse_rate("10Gbit/s"), rtt_s=0.02, buffer_cap=16 * MIB, noise=0.4,
                     outliers=0.1, setup_s=0.0, seed=1)
    transfers = [Transfer(parallel=c.get("parallel"), tcp_buffer=c.get("tcp_buffer"), length=4 * GIB)
                 for c in tgftp_37()] + [Transfer(parallel=8, tcp_buffer=16 * MIB, block_size=16 * MIB)]
    runs = [(transfer, simulate(link, transfer, run_rng(link.seed, f"t#{i}/{n}")))
            for i, transfer in enumerate(transfers) for n in range(300)]
    fastest = max(max(out.rate_incl_setup_mib_s, out.rate_guc_avg_mib_s) for _, out in runs)
    assert fastest <= link.bandwidth_mib_s
    assert fastest > 0.99 * link.bandwidth_mib_s  # the noise-free runs reach the link, never beyond it
    for transfer, out in runs:
        assert out.rate_incl_setup_mib_s <= out.rate_guc_avg_mib_s <= data_rate(link, transfer), (transfer, out)
