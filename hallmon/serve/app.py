"""`hallmon serve`: the synchronous check, the fatigue API, probes, metrics and the dashboard.

One ASGI app (FastAPI). The model loads once, at start-up; concurrent checks share the NLI
batcher of the stream workers, and `prepare` (claims, evidence, checks) runs in a bounded thread
pool, so probes stay answered while a long answer is prepared. Every check has a time budget
(`HALLMON_SERVE__CHECK_TIMEOUT_S`, over it: 503) and every body a size budget
(`HALLMON_SERVE__MAX_REQUEST_BYTES`, over it: 413); both answer JSON, never hang.

Fatigue is read from Redis through the fatigue worker's own store; the latest verdicts and the
alert marks come from its bounded recent store (`hallmon.workers.fatigue.recent`).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Annotated, Any

import redis.asyncio as aioredis
from fastapi import Body, Depends, FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from hallmon.onnx_models.runtime import NLIModel
from hallmon.schemas import AssembledResponse, FatigueSnapshot, VerdictEvent
from hallmon.schemas.common import Limits
from hallmon.serve.contracts import (
    CheckRequest,
    CheckResponse,
    ErrorBody,
    FleetFatigue,
    Health,
    Readiness,
    SessionDetail,
    SessionsPage,
    SessionSummary,
)
from hallmon.serve.limits import BodySizeLimit
from hallmon.topology.redis_client import make_redis, refusal
from hallmon.topology.settings import HallmonSettings, get_settings
from hallmon.workers.fatigue.recent import RecentStore, RecentVerdict
from hallmon.workers.fatigue.store import FatigueStore

if TYPE_CHECKING:  # imported lazily at run time: they pull in faust and the model runtime
    from hallmon.workers.telemetry import Telemetry
    from hallmon.workers.verifier.batching import NLIBatcher
    from hallmon.workers.verifier.service import VerificationService

log = logging.getLogger(__name__)

KafkaCheck = Callable[[], Awaitable[str]]
RANKING_TTL_S = 2.0
REDIS_READS_AT_ONCE = 16
IdPath = Annotated[str, Path(min_length=1, max_length=256)]
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "The body is not JSON (or not UTF-8)"},
    401: {"model": ErrorBody, "description": "Missing or wrong bearer token"},
    413: {"model": ErrorBody, "description": "Body over HALLMON_SERVE__MAX_REQUEST_BYTES"},
}


def trend_key(s: FatigueSnapshot) -> tuple[float, float]:
    """Steepest rise of the unsupported rate per turn first, then the highest recent rate."""
    return (s.slope_per_turn if s.slope_per_turn is not None else float("-inf"), s.recent_rate)


class ApiError(Exception):
    def __init__(self, status: int, error: str, detail: str | None = None) -> None:
        super().__init__(error)
        self.status = status
        self.body = ErrorBody(error=error, detail=detail)


@dataclass
class Runtime:
    """What the routes share; built once in the lifespan."""

    settings: HallmonSettings
    limits: Limits
    model: NLIModel
    service: VerificationService
    telemetry: Telemetry
    batcher: NLIBatcher
    redis: aioredis.Redis
    fatigue: FatigueStore
    recent: RecentStore
    kafka_check: KafkaCheck
    pool: ThreadPoolExecutor
    _ranked: tuple[float, list[FatigueSnapshot]] = (0.0, [])

    async def ranked_sessions(self) -> list[FatigueSnapshot]:
        """The most recent sessions ranked by trend; read at most every RANKING_TTL_S, with
        at most REDIS_READS_AT_ONCE reads in flight, however many dashboards poll."""
        at, ranked = self._ranked
        if time.monotonic() - at < RANKING_TTL_S:
            return ranked
        ids = await self.fatigue.sessions(self.settings.serve.max_sessions_ranked)
        room = asyncio.Semaphore(REDIS_READS_AT_ONCE)

        async def load(session_id: str) -> FatigueSnapshot | None:
            async with room:
                return await self.fatigue.load(session_id)

        snaps = [s for s in await asyncio.gather(*(load(i) for i in ids)) if s is not None]
        ranked = sorted(snaps, key=trend_key, reverse=True)
        self._ranked = (time.monotonic(), ranked)
        return ranked


_bearer = HTTPBearer(auto_error=False, description="HALLMON_SERVE__TOKEN, when it is set")


def authorised(
    request: Request,
    creds: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> None:
    token = request.app.state.settings.serve.token
    if token is None:
        return
    given = creds.credentials if creds is not None else ""
    if not hmac.compare_digest(given.encode(), token.get_secret_value().encode()):
        raise ApiError(
            401,
            "missing or wrong bearer token",
            "send `Authorization: Bearer <HALLMON_SERVE__TOKEN>`",
        )


def runtime(request: Request) -> Runtime:
    rt: Runtime | None = getattr(request.app.state, "rt", None)
    if rt is None:
        raise ApiError(503, "starting: the model is not loaded yet", "retry shortly")
    return rt


Rt = Annotated[Runtime, Depends(runtime)]


def _kafka_checker(settings: HallmonSettings) -> KafkaCheck:
    """Kafka reachability for /readyz: a metadata request, cached for 5 s; a refused login or
    TLS handshake is reported with the settings to fix."""
    from confluent_kafka import KafkaError

    from hallmon.topology.kafka_client import make_admin
    from hallmon.topology.kafka_client import refusal as kafka_refusal

    errors: list[KafkaError] = []
    admin = make_admin(settings.kafka, {"log_level": 0}, on_error=errors.append)
    cache: dict[str, Any] = {"at": 0.0, "status": "unknown"}

    async def check() -> str:
        if time.monotonic() - cache["at"] < 5.0:
            return str(cache["status"])
        try:
            md = await asyncio.to_thread(admin.list_topics, timeout=2.0)
            status = "ok" if md.brokers else "no broker answered"
        except Exception as exc:
            admin.poll(0)  # serves the error callback
            refused = [r for e in errors if (r := kafka_refusal(settings.kafka, e)) is not None]
            status = f"refused: {refused[-1]}" if refused else f"unreachable: {exc}"
        errors.clear()
        cache.update(at=time.monotonic(), status=status)
        return status

    return check


def _build_runtime(
    settings: HallmonSettings,
    model: NLIModel | None,
    redis_client: aioredis.Redis | None,
    kafka_check: KafkaCheck | None,
) -> Runtime:
    from hallmon.verification.verifier import Verifier, load_model
    from hallmon.workers.fatigue.agent import fatigue_config, recent_config
    from hallmon.workers.telemetry import Telemetry, configure_export
    from hallmon.workers.verifier.agent import batching_config
    from hallmon.workers.verifier.batching import NLIBatcher
    from hallmon.workers.verifier.service import VerificationService

    configure_export(settings.otel, "serve", prometheus=True)
    model = model or load_model(settings.model)
    telemetry = Telemetry("serve")
    batcher = NLIBatcher(model, batching_config(settings), on_batch=telemetry.batch)
    pool = ThreadPoolExecutor(
        max_workers=settings.serve.max_concurrent_checks, thread_name_prefix="hallmon-check"
    )
    service = VerificationService(
        Verifier(model, settings=settings.verifier),
        batcher,
        offload=pool,
        max_action=settings.verifier.max_action,
    )
    client = redis_client or make_redis(settings.redis)
    lim = settings.limits
    return Runtime(
        settings=settings,
        limits=Limits(
            max_text_chars=lim.max_text_chars,
            max_context_items=lim.max_context_items,
            max_answer_chars=lim.max_answer_chars,
        ),
        model=model,
        service=service,
        telemetry=telemetry,
        batcher=batcher,
        redis=client,
        fatigue=FatigueStore(client, fatigue_config(settings)),
        recent=RecentStore(client, recent_config(settings)),
        kafka_check=kafka_check or _kafka_checker(settings),
        pool=pool,
    )


def create_app(
    settings: HallmonSettings | None = None,
    *,
    model: NLIModel | None = None,
    redis_client: aioredis.Redis | None = None,
    kafka_check: KafkaCheck | None = None,
) -> FastAPI:
    """The ASGI app. Tests pass a model, a Redis client or a Kafka check to replace one seam."""
    settings = settings or get_settings()
    serve = settings.serve

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        rt = await asyncio.to_thread(_build_runtime, settings, model, redis_client, kafka_check)
        rt.batcher.start()
        app.state.rt = rt
        log.info("hallmon serve ready: model %s", rt.model.version)
        try:
            yield
        finally:
            await rt.batcher.close()
            rt.pool.shutdown(wait=False, cancel_futures=True)
            if redis_client is None:
                await rt.redis.aclose()
            app.state.rt = None

    app = FastAPI(
        title="hallmon",
        version="1",
        summary="Hallucination checks and session fatigue of AI agents",
        lifespan=lifespan,
        responses=ERRORS,
    )
    app.state.settings = settings
    app.state.rt = None
    app.add_middleware(BodySizeLimit, max_bytes=serve.max_request_bytes)
    if serve.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(serve.cors_origins),
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type"],
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        # Framework errors (unparsable body, unknown route) in the API's one error shape.
        body = ErrorBody(error=str(exc.detail))
        return JSONResponse(body.model_dump(), status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(ApiError)
    async def api_error(_: Request, exc: ApiError) -> JSONResponse:
        headers = {"Retry-After": "1"} if exc.status == 503 else None
        if exc.status == 401:
            headers = {"WWW-Authenticate": "Bearer"}
        return JSONResponse(exc.body.model_dump(), status_code=exc.status, headers=headers)

    guarded = [Depends(authorised)]

    # --- the check ------------------------------------------------------------------------

    @app.post(
        "/monitor/check",
        response_model=CheckResponse,
        dependencies=guarded,
        tags=["check"],
        responses={503: {"model": ErrorBody, "description": "Over the time budget or starting"}},
    )
    async def monitor_check(rt: Rt, body: Annotated[CheckRequest, Body()]) -> CheckResponse:
        """Check one answer against its context, synchronously. The result is advice: the
        caller applies `action` (see `hallmon.guard`)."""
        try:
            response = AssembledResponse.model_validate(
                body.assembled_fields(), context={"limits": rt.limits}
            )
        except ValidationError as exc:  # a contract limit from the settings: 422 like the rest
            errors = exc.errors(include_url=False, include_input=False)
            raise RequestValidationError(
                [{**e, "loc": ("body", *e["loc"])} for e in errors]
            ) from exc
        budget = rt.settings.serve.check_timeout_s
        try:
            verdict: VerdictEvent = await asyncio.wait_for(rt.service.verify(response), budget)
        except TimeoutError:
            rt.telemetry.count("serve.timeouts")
            raise ApiError(
                503,
                f"the check did not finish within check_timeout_s={budget:g}",
                "retry later, send a shorter answer or less context, or raise "
                "HALLMON_SERVE__CHECK_TIMEOUT_S",
            ) from None
        rt.telemetry.verdict(verdict.state, verdict.counts.total, verdict.counts.unsupported, None)
        return CheckResponse.of(verdict)

    # --- fatigue --------------------------------------------------------------------------

    @app.get("/sessions", response_model=SessionsPage, dependencies=guarded, tags=["fatigue"])
    async def sessions(
        rt: Rt,
        limit: Annotated[int, Query(ge=1, le=200)] = 20,
        offset: Annotated[int, Query(ge=0, le=100_000)] = 0,
        agent_id: Annotated[str | None, Query(max_length=256)] = None,
    ) -> SessionsPage:
        """Sessions ranked by fatigue trend (rate rise per turn, then recent rate), paged."""
        snaps = await rt.ranked_sessions()
        if agent_id is not None:
            snaps = [s for s in snaps if s.agent_id == agent_id]
        page = [SessionSummary.of(s) for s in snaps[offset : offset + limit]]
        return SessionsPage(total=len(snaps), offset=offset, limit=limit, sessions=page)

    @app.get(
        "/sessions/{session_id}",
        response_model=SessionDetail,
        dependencies=guarded,
        tags=["fatigue"],
        responses={404: {"model": ErrorBody}},
    )
    async def session(rt: Rt, session_id: IdPath) -> SessionDetail:
        """One session's curve (per answer: turn, context tokens, claims, unsupported,
        contradicted), slopes, alert marks and latest verdicts."""
        snap: FatigueSnapshot | None = await rt.fatigue.load(session_id)
        if snap is None:
            raise ApiError(404, f"no fatigue data for session {session_id!r}", "expired or unseen")
        return SessionDetail(
            snapshot=snap,
            alerts=await rt.recent.alerts(session_id),
            verdicts=await rt.recent.latest(20, session_id),
        )

    @app.get(
        "/agents/{agent_id}/fatigue",
        response_model=FleetFatigue,
        dependencies=guarded,
        tags=["fatigue"],
    )
    async def agent_fatigue(rt: Rt, agent_id: IdPath) -> FleetFatigue:
        """The agent's fleet buckets: unsupported rate by turn range and by context size."""
        return FleetFatigue.of(agent_id, await rt.fatigue.fleet(agent_id))

    @app.get(
        "/verdicts", response_model=list[RecentVerdict], dependencies=guarded, tags=["verdicts"]
    )
    async def verdicts(
        rt: Rt,
        limit: Annotated[int, Query(ge=1, le=200)] = 20,
        session_id: Annotated[str | None, Query(min_length=1, max_length=256)] = None,
    ) -> list[RecentVerdict]:
        """The latest verdicts the fatigue worker saw, newest first (claims without evidence)."""
        return await rt.recent.latest(limit, session_id)

    @app.get(
        "/verdicts/{response_id}",
        response_model=VerdictEvent,
        dependencies=guarded,
        tags=["verdicts"],
        responses={404: {"model": ErrorBody}},
    )
    async def verdict(rt: Rt, response_id: IdPath) -> VerdictEvent:
        """One recent verdict in full (kept for the fatigue TTL)."""
        found = await rt.recent.verdict(response_id)
        if found is None:
            raise ApiError(404, f"no recent verdict for response {response_id!r}")
        return found

    # --- operations -----------------------------------------------------------------------

    @app.get("/healthz", response_model=Health, tags=["operations"])
    async def healthz() -> Health:
        """The process is up."""
        return Health()

    @app.get(
        "/readyz",
        response_model=Readiness,
        tags=["operations"],
        responses={503: {"model": Readiness, "description": "Not ready"}},
    )
    async def readyz() -> Response:
        """Ready: the model is loaded, Redis answers PING and Kafka answers a metadata request."""
        rt: Runtime | None = app.state.rt
        if rt is None:
            body = Readiness(ready=False, model=None, redis="unknown", kafka="unknown")
            return JSONResponse(body.model_dump(), status_code=503)
        try:
            await asyncio.wait_for(rt.redis.ping(), 2.0)
            redis_status = "ok"
        except Exception as exc:
            reason = refusal(exc, handshake=rt.settings.redis.uses_tls)
            redis_status = (
                f"refused: {reason}" if reason else f"unreachable: {type(exc).__name__}: {exc}"
            )
        kafka_status = await rt.kafka_check()
        ok = redis_status == "ok" and kafka_status == "ok"
        body = Readiness(ready=ok, model=rt.model.version, redis=redis_status, kafka=kafka_status)
        return JSONResponse(body.model_dump(), status_code=200 if ok else 503)

    @app.get("/metrics", dependencies=guarded, tags=["operations"], response_class=Response)
    async def prometheus_metrics() -> Response:
        """Prometheus text format; the same metric names as the workers export."""
        import prometheus_client

        data = prometheus_client.generate_latest(prometheus_client.REGISTRY)
        return Response(data, media_type=prometheus_client.CONTENT_TYPE_LATEST)

    # --- the dashboard --------------------------------------------------------------------

    static = resources.files("hallmon.serve") / "static"
    app.mount("/static", StaticFiles(directory=str(static)), name="static")

    @app.get("/", include_in_schema=False)
    async def dashboard() -> FileResponse:
        return FileResponse(str(static / "index.html"), media_type="text/html")

    return app


__all__ = ["ApiError", "create_app"]
