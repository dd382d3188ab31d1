"""The verifier's host plan: model threads, batch size and concurrency from cores and roles."""

from __future__ import annotations

import os

import pytest
from hallmon.topology.settings import HallmonSettings, get_settings
from hallmon.workers.host import available_cores, parse_roles, plan_host


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.upper().startswith("HALLMON_"):
            monkeypatch.delenv(key)
    get_settings.cache_clear()


@pytest.mark.parametrize(
    ("cores", "roles", "threads", "batch", "concurrency"),
    [
        # The 2-core box running `hallmon worker`: one model thread, not two.
        (2, "all", 1, 8, 16),
        (2, "verifier", 1, 8, 16),
        (1, "all", 1, 8, 16),
        (4, "all", 2, 16, 16),
        (8, "verifier", 7, 56, 28),
        (16, "assembler,verifier,fatigue", 14, 112, 56),
    ],
)
def test_threads_follow_the_cores_left_after_the_event_loops(
    cores: int, roles: str, threads: int, batch: int, concurrency: int
) -> None:
    plan = plan_host(HallmonSettings(), parse_roles(roles), cores=cores)
    assert (plan.model_threads, plan.max_batch_pairs, plan.concurrency) == (
        threads,
        batch,
        concurrency,
    )
    assert plan.overridden == ()
    assert f"{threads} model thread(s)" in plan.describe()


def test_settings_override_the_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HALLMON_MODEL__THREADS", "3")
    monkeypatch.setenv("HALLMON_VERIFIER_WORKER__MAX_BATCH_PAIRS", "10")
    monkeypatch.setenv("HALLMON_VERIFIER_WORKER__CONCURRENCY", "5")
    plan = plan_host(HallmonSettings(), ("verifier",), cores=2)
    assert (plan.model_threads, plan.max_batch_pairs, plan.concurrency) == (3, 10, 5)
    assert "HALLMON_MODEL__THREADS" in plan.describe()


def test_batches_follow_overridden_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HALLMON_MODEL__THREADS", "2")
    plan = plan_host(HallmonSettings(), ("verifier",), cores=2)
    assert (plan.model_threads, plan.max_batch_pairs, plan.concurrency) == (2, 16, 16)


def test_batch_override_resizes_concurrency(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HALLMON_VERIFIER_WORKER__MAX_BATCH_PAIRS", "128")
    plan = plan_host(HallmonSettings(), ("verifier",), cores=2)
    assert (plan.model_threads, plan.concurrency) == (1, 64)


def test_batch_wait_and_size_grow_when_rows_share_a_call(monkeypatch: pytest.MonkeyPatch) -> None:
    plan = plan_host(HallmonSettings(), ("verifier",), cores=2)
    assert (plan.max_wait_ms, plan.max_batch_pairs) == (0, 8)
    monkeypatch.setenv("HALLMON_MODEL__ROWS_PER_CALL", "32")
    plan = plan_host(HallmonSettings(), ("verifier",), cores=2)
    assert (plan.max_wait_ms, plan.max_batch_pairs) == (5, 32)
    monkeypatch.setenv("HALLMON_VERIFIER_WORKER__MAX_WAIT_MS", "2")
    plan = plan_host(HallmonSettings(), ("verifier",), cores=2)
    assert plan.max_wait_ms == 2 and "HALLMON_VERIFIER_WORKER__MAX_WAIT_MS" in plan.overridden


def test_roles_parse_and_always_include_the_verifier() -> None:
    assert parse_roles("all") == ("assembler", "verifier", "fatigue")
    assert parse_roles("fatigue, assembler") == ("assembler", "verifier", "fatigue")
    assert parse_roles(["verifier", "verifier"]) == ("verifier",)
    with pytest.raises(ValueError, match="'scheduler' is not a hallmon role"):
        parse_roles("scheduler")


def test_cores_come_from_the_affinity_mask() -> None:
    assert available_cores() == len(os.sched_getaffinity(0))


def test_worker_uses_the_plan_for_batching(monkeypatch: pytest.MonkeyPatch) -> None:
    from hallmon.workers.verifier.agent import batching_config

    plan = plan_host(HallmonSettings(), ("verifier",), cores=8)
    assert batching_config(HallmonSettings(), plan).max_batch_pairs == plan.max_batch_pairs == 56
