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
from collections.abc import Callable, Sequence
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
    topics_ready: bool = False,
) -> None:
    """Run one role in this process until it is stopped. `topics_ready`: the supervisor has
    checked Kafka and the topics already, so this process need not load confluent-kafka."""
    import faust
    from hallmon.workers.telemetry import configure_export

    configure_export(settings.otel, role)
    if not topics_ready:
        ensure_hallmon_topics(settings)
    check_role_redis(settings, role)
    app, _ = build_app(settings, role, host_roles)
    worker = faust.Worker(app, loglevel=loglevel, quiet=True, redirect_stdouts=False)
    # No terminal spinner: to spin on every log record faust sets the root logger to DEBUG,
    # so every library's debug record was built and then dropped (6 % of the assembler's CPU).
    worker.spinner = None
    worker.execute_from_commandline()


def _configure_logging(loglevel: str) -> None:
    logging.basicConfig(
        level=loglevel.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )


def _refusal(exc: BaseException) -> bool:
    """Kafka or Redis unreachable or refusing hallmon: said in one line (the message names
    the setting to fix), not with a traceback."""
    from hallmon.topology.redis_client import RedisRefusedError

    if isinstance(exc, RedisRefusedError):
        return True
    # Only a process that loaded the Kafka admin client can have raised its error; importing
    # it here just to test would load confluent-kafka into every role.
    kafka_client = sys.modules.get("hallmon.topology.kafka_client")
    return kafka_client is not None and isinstance(exc, kafka_client.KafkaUnavailableError)


def _reporting_refusals(label: str, work: Callable[[], object]) -> int:
    """`work()`, then 0; 2 with one line, `label: error: …`, when Kafka or Redis refuse."""
    try:
        work()
    except Exception as exc:
        if not _refusal(exc):
            raise
        print(f"{label}: error: {exc}", file=sys.stderr)
        return 2
    return 0


def role_main(
    role: Role,
    loglevel: str = "warning",
    host_roles: Sequence[str] = (),
    topics_ready: bool = False,
) -> int:
    """One role until it is stopped (the CLI's `hallmon worker --role R` and each process of
    `--role all`); 2 with a one-line message when Kafka or Redis refuse."""
    from hallmon.topology.settings import get_settings

    _configure_logging(loglevel)
    return _reporting_refusals(
        f"hallmon worker --role {role}",
        lambda: run_role(get_settings(), role, loglevel, host_roles or (role,), topics_ready),
    )


def topics_main(loglevel: str = "warning") -> int:
    """Check Kafka and create or check the topics, then exit: the supervisor runs this in a
    process of its own, once for all roles, so neither it nor the roles keep confluent-kafka
    (~20 MB each) resident."""
    from hallmon.topology.settings import get_settings

    _configure_logging(loglevel)
    return _reporting_refusals("hallmon worker", lambda: ensure_hallmon_topics(get_settings()))


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
    topics_ready: bool = False,
) -> Any:
    # This module, not the CLI: a role process need not load typer, rich and every command.
    cmd = [sys.executable, "-m", "hallmon.workers.runner", "--role", role, "--loglevel", loglevel]
    if host_roles:
        cmd += ["--host-roles", ",".join(host_roles)]
    if topics_ready:
        cmd.append("--topics-ready")
    return subprocess.Popen(cmd, env=env or os.environ.copy(), preexec_fn=_die_with_parent)


def _role_env(index: int) -> dict[str, str]:
    """Each child its own Prometheus port (base + position), so the roles do not collide."""
    env = os.environ.copy()
    port = env.get("HALLMON_OTEL__PROMETHEUS_PORT")
    if port and port.isdigit():
        env["HALLMON_OTEL__PROMETHEUS_PORT"] = str(int(port) + index)
    return env


def spawn_roles(roles: Sequence[Role] = ROLES, loglevel: str = "warning") -> int:
    """Run each role in a child process; stop all when one exits or on SIGINT/SIGTERM.

    Kafka and the topics are checked first, once, in a process that then exits (2 when Kafka
    is unreachable or refuses, with its message)."""
    topics = subprocess.run(
        [sys.executable, "-m", "hallmon.workers.runner", "--ensure-topics", "--loglevel", loglevel],
        env=os.environ.copy(),
        preexec_fn=_die_with_parent,
        check=False,
    )
    if topics.returncode != 0:
        return topics.returncode
    # Each child knows its siblings, so the verifier leaves them their share of the cores, and
    # gets its own Prometheus port.
    children = {
        role: spawn_role(
            role, env=_role_env(i), loglevel=loglevel, host_roles=roles, topics_ready=True
        )
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
    `hallmon worker --role all` execs into so the CLI's imports do not stay resident; with
    `--role R`, one role process of it; with `--ensure-topics`, its one-shot topic check."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m hallmon.workers.runner")
    parser.add_argument("--loglevel", default="warning")
    parser.add_argument("--role", choices=ROLES, default=None)
    parser.add_argument("--host-roles", default="")
    parser.add_argument("--topics-ready", action="store_true")
    parser.add_argument("--ensure-topics", action="store_true")
    args = parser.parse_args(argv)
    if args.ensure_topics:
        return topics_main(args.loglevel)
    if args.role is not None:
        from hallmon.workers.host import parse_roles

        return role_main(
            args.role, args.loglevel, parse_roles(args.host_roles or args.role), args.topics_ready
        )
    return spawn_roles(loglevel=args.loglevel)


__all__ = [
    "ROLES",
    "build_app",
    "check_role_redis",
    "ensure_hallmon_topics",
    "main",
    "role_main",
    "run_role",
    "spawn_roles",
]

if __name__ == "__main__":
    sys.exit(main())
