"""Start a worker role: topics, faust app, agents, and faust's Worker around them.

`run_role(role)` blocks until the worker is stopped (SIGINT/SIGTERM).
`spawn_roles()` starts each role in its own process, so `hallmon worker` (all roles) uses one
core per role and each role stays its own consumer group.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hallmon.topology.app import Role
    from hallmon.topology.settings import HallmonSettings

# faust, confluent-kafka and pydantic are imported where they are used, not here: the
# supervisor of `hallmon worker` (`python -m hallmon.workers.runner`) imports only this module
# and stays small beside the three role processes it watches.

log = logging.getLogger(__name__)
ROLES: tuple[Role, ...] = ("assembler", "verifier", "fatigue")


def ensure_hallmon_topics(settings: HallmonSettings) -> None:
    from hallmon.topology.kafka_client import check_reachable, make_admin
    from hallmon.topology.topics import ensure_topics, topic_specs

    admin = make_admin(settings.kafka, {"log_level": 0})
    check_reachable(settings.kafka)
    ensure_topics(admin, topic_specs(settings.topics))


def check_role_redis(settings: HallmonSettings, role: Role) -> None:
    """Refuse to start on Redis settings that cannot work (wrong password, wrong CA, no client
    certificate): `RedisRefusedError` names what to set. Redis merely down is logged: the
    worker starts and waits for it, as it does for an outage later."""
    if role == "assembler" or (role == "verifier" and not settings.conflicts.enabled):
        return
    from hallmon.topology.redis_client import check_redis

    problem = check_redis(settings.redis)
    if problem is not None:
        log.warning("%s; the %s worker starts and retries", problem, role)


def build_app(
    settings: HallmonSettings, role: Role, host_roles: Sequence[str] = ("verifier",)
) -> tuple[Any, Any]:
    """The faust app for a role with its agents installed, and the role's runtime.

    `host_roles` are the roles sharing this host's cores; the verifier sizes its model threads,
    batches and concurrency by them (`hallmon.workers.host`)."""
    from hallmon.topology.app import make_app

    app = make_app(settings, role)
    if role == "assembler":
        from hallmon.workers.assembler.agent import install_assembler

        return app, install_assembler(app, settings)
    if role == "fatigue":
        from hallmon.workers.fatigue.agent import install_fatigue

        return app, install_fatigue(app, settings)
    from hallmon.workers.host import plan_host
    from hallmon.workers.verifier.agent import install_verifier

    from hallmon.verification.verifier import Verifier, load_model

    plan = plan_host(settings, host_roles)
    # Logged at warning level so the default `--loglevel warning` still shows what was chosen.
    log.warning("%s", plan.describe())
    model = load_model(settings.model.model_copy(update={"threads": plan.model_threads}))
    log.info("NLI model %s", model.version)
    verifier = Verifier(model, settings=settings.verifier)
    return app, install_verifier(app, settings, verifier, model, plan=plan)


def run_role(
    settings: HallmonSettings,
    role: Role,
    loglevel: str = "warning",
    host_roles: Sequence[str] = ("verifier",),
) -> None:
    """Run one role in this process until it is stopped."""
    import faust
    from hallmon.workers.telemetry import configure_export

    configure_export(settings.otel, role)
    ensure_hallmon_topics(settings)
    check_role_redis(settings, role)
    app, _ = build_app(settings, role, host_roles)
    worker = faust.Worker(app, loglevel=loglevel, quiet=True, redirect_stdouts=False)
    # No terminal spinner: to spin on every log record faust sets the root logger to DEBUG,
    # so every library's debug record was built and then dropped (6 % of the assembler's CPU).
    worker.spinner = None
    worker.execute_from_commandline()


def _die_with_parent() -> None:
    # Linux: a child gets SIGTERM when the parent dies, even by SIGKILL, so no orphan worker
    # keeps consuming after `hallmon worker` was killed.
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def spawn_role(
    role: Role,
    env: dict[str, str] | None = None,
    loglevel: str = "warning",
    host_roles: Sequence[str] = (),
) -> Any:
    cmd = [sys.executable, "-m", "hallmon.cli", "worker", "--role", role, "--loglevel", loglevel]
    if host_roles:
        cmd += ["--host-roles", ",".join(host_roles)]
    return subprocess.Popen(cmd, env=env or os.environ.copy(), preexec_fn=_die_with_parent)


def _role_env(index: int) -> dict[str, str]:
    """Each child its own Prometheus port (base + position), so the roles do not collide."""
    env = os.environ.copy()
    port = env.get("HALLMON_OTEL__PROMETHEUS_PORT")
    if port and port.isdigit():
        env["HALLMON_OTEL__PROMETHEUS_PORT"] = str(int(port) + index)
    return env


def spawn_roles(roles: Sequence[Role] = ROLES, loglevel: str = "warning") -> int:
    """Run each role in a child process; stop all when one exits or on SIGINT/SIGTERM."""
    # Each child knows its siblings, so the verifier leaves them their share of the cores, and
    # gets its own Prometheus port.
    children = {
        role: spawn_role(role, env=_role_env(i), loglevel=loglevel, host_roles=roles)
        for i, role in enumerate(roles)
    }
    stopping = False

    def stop(signum: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True
        for child in children.values():
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    code = 0
    while True:
        done = {r: c.poll() for r, c in children.items() if c.poll() is not None}
        if done:
            if not stopping:
                for role, rc in done.items():
                    print(f"hallmon worker: the {role} process exited with {rc}", file=sys.stderr)
                    code = code or (rc or 1)
                stop(signal.SIGTERM, None)
            break
        time.sleep(0.2)
    for child in children.values():
        try:
            child.wait(timeout=20)
        except subprocess.TimeoutExpired:
            child.kill()
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m hallmon.workers.runner [--loglevel L]`: the supervisor of all roles, which
    `hallmon worker --role all` execs into so the CLI's imports do not stay resident."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m hallmon.workers.runner")
    parser.add_argument("--loglevel", default="warning")
    args = parser.parse_args(argv)
    return spawn_roles(loglevel=args.loglevel)


__all__ = [
    "ROLES",
    "build_app",
    "check_role_redis",
    "ensure_hallmon_topics",
    "main",
    "run_role",
    "spawn_roles",
]

if __name__ == "__main__":
    sys.exit(main())
