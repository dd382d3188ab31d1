"""Defaults that fit the host: model threads, batch size and concurrency from the cores.

A verifier shares its cores with its own event loop (Kafka, claims, evidence: plain Python)
and, under `hallmon worker`, with the assembler and fatigue processes. onnxruntime threads
beyond the cores those leave free do not run faster: they preempt the event loops and the
pipeline gets slower (measured: 0.44 of the bare model with two model threads on two shared
cores, 0.86 with one). So the plan gives the model one thread per core left after the event
loops, at least one, and sizes batches and answers in flight to keep those threads busy.

Every value that the operator set (`HALLMON_MODEL__THREADS`, `HALLMON_VERIFIER_WORKER__*`)
wins over the plan; `HostPlan.describe()` is the line the worker logs at start.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from hallmon.topology.settings import HallmonSettings

HOST_ROLES = ("assembler", "verifier", "fatigue")

# Share of a core each co-hosted role's event loop keeps busy: the verifier's own loop
# (decode, claims, BM25, checks, publish) is a whole core under load; the assembler's and the
# fatigue worker's loops (JSON, a table, one Redis script) are about half a core each.
VERIFIER_LOOP_CORES = 1.0
OTHER_LOOP_CORES = 0.5
# Pairs per batch and model thread. With rows sharing a call, 32 is where the per-pair cost of
# the shipped model stops falling on one thread. With one row per call (the default) a batch
# saves nothing but a thread hand-off, and every answer in it waits for the whole batch, so
# batches stay small (8 pairs: ~40 ms on one thread).
PAIRS_PER_THREAD = 32
PAIRS_PER_THREAD_SINGLE_ROWS = 8
MAX_BATCH_PAIRS = 128
# Answers in flight: enough pairs for the running batch and the next one at ~4 pairs/answer,
# and at least 16, so answers being prepared on the event loop keep the model busy.
PAIRS_PER_ANSWER = 4
MIN_CONCURRENCY = 16
# Waiting to fill a batch pays only when rows share a model call (padding amortised); with one
# row per call (the default) it is pure latency.
BATCH_WAIT_MS = 5.0


@dataclass(frozen=True)
class HostPlan:
    cores: int
    roles: tuple[str, ...]
    model_threads: int
    max_batch_pairs: int
    concurrency: int
    max_wait_ms: float = 0.0
    overridden: tuple[str, ...] = ()

    def describe(self) -> str:
        chosen = (
            f"{self.model_threads} model thread(s), {self.max_batch_pairs} pairs per batch, "
            f"{self.concurrency} answers in flight, {self.max_wait_ms:g} ms batch wait"
        )
        why = f"{self.cores} core(s) for roles {'+'.join(self.roles)}"
        set_by_env = (
            f"; set by the environment: {', '.join(self.overridden)}" if self.overridden else ""
        )
        return f"verifier plan: {chosen} ({why}{set_by_env})"


def available_cores() -> int:
    """The cores this process may run on (a cgroup/taskset affinity, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def parse_roles(value: str | Iterable[str]) -> tuple[str, ...]:
    """Roles from `assembler,verifier` (or an iterable); `all` means the three."""
    items = value.split(",") if isinstance(value, str) else list(value)
    roles: list[str] = []
    for item in (i.strip().lower() for i in items):
        if not item:
            continue
        for role in HOST_ROLES if item == "all" else (item,):
            if role not in HOST_ROLES:
                raise ValueError(
                    f"host role {item!r} is not a hallmon role; use a comma-separated list of "
                    f"{', '.join(HOST_ROLES)} or all"
                )
            if role not in roles:
                roles.append(role)
    if "verifier" not in roles:
        roles.append("verifier")
    return tuple(r for r in HOST_ROLES if r in roles)


def plan_host(
    settings: HallmonSettings, roles: Iterable[str] = ("verifier",), cores: int | None = None
) -> HostPlan:
    """The verifier's threads, batch size and concurrency for `cores` shared by `roles`."""
    host_roles = parse_roles(roles)
    cores = cores if cores is not None else available_cores()
    others = len(host_roles) - 1
    free = cores - VERIFIER_LOOP_CORES - OTHER_LOOP_CORES * others
    threads = max(1, int(free))
    overridden: list[str] = []
    if settings.model.threads is not None:
        threads = settings.model.threads
        overridden.append("HALLMON_MODEL__THREADS")
    single_rows = settings.model.rows_per_call == 1
    per_thread = PAIRS_PER_THREAD_SINGLE_ROWS if single_rows else PAIRS_PER_THREAD
    batch = min(MAX_BATCH_PAIRS, per_thread * threads)
    worker = settings.verifier_worker
    if worker.max_batch_pairs is not None:
        batch = worker.max_batch_pairs
        overridden.append("HALLMON_VERIFIER_WORKER__MAX_BATCH_PAIRS")
    concurrency = max(MIN_CONCURRENCY, 2 * batch // PAIRS_PER_ANSWER)
    if worker.concurrency is not None:
        concurrency = worker.concurrency
        overridden.append("HALLMON_VERIFIER_WORKER__CONCURRENCY")
    wait = 0.0 if single_rows else BATCH_WAIT_MS
    if worker.max_wait_ms is not None:
        wait = worker.max_wait_ms
        overridden.append("HALLMON_VERIFIER_WORKER__MAX_WAIT_MS")
    return HostPlan(
        cores=cores,
        roles=host_roles,
        model_threads=threads,
        max_batch_pairs=batch,
        concurrency=concurrency,
        max_wait_ms=wait,
        overridden=tuple(overridden),
    )


__all__ = ["HOST_ROLES", "HostPlan", "available_cores", "parse_roles", "plan_host"]
