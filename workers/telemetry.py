"""OpenTelemetry for the workers: the producer's trace continues into hallmon's spans.

Spans `hallmon.assemble`, `hallmon.verify` and `hallmon.publish` are children of the
`traceparent` the agent put in the Kafka headers. Metrics: verification latency, claims,
unsupported claims, dead letters, NLI batch sizes, open streams.

Export happens only when `HALLMON_OTEL__EXPORTER_ENDPOINT` is set (OTLP/HTTP); otherwise the
API's no-op providers are used and nothing tries to reach a collector. The same counts are kept
in-process (`Telemetry.counts`), so `hallmon worker` can log them and tests can read them.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from hallmon.topology.settings import OtelSettings
from opentelemetry import metrics, trace
from opentelemetry.context import Context
from opentelemetry.metrics import CallbackOptions, Observation
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

log = logging.getLogger(__name__)
_PROPAGATOR = TraceContextTextMapPropagator()
_configured = False
_configure_lock = threading.Lock()


def configure_export(settings: OtelSettings, role: str, *, prometheus: bool = False) -> bool:
    """Install exporters once per process: OTLP when an endpoint is configured, Prometheus when
    `prometheus` is asked for (`hallmon serve` mounts /metrics) or `prometheus_port` is set (a
    worker then serves /metrics on that port). Metric names are the same either way."""
    global _configured
    prometheus = prometheus or settings.prometheus_port is not None
    if settings.exporter_endpoint is None and not prometheus:
        return False
    with _configure_lock:
        if _configured:
            return True
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import MetricReader, PeriodicExportingMetricReader
        from opentelemetry.sdk.resources import Resource

        resource = Resource.create({"service.name": settings.service_name, "hallmon.role": role})
        readers: list[MetricReader] = []
        if settings.exporter_endpoint is not None:
            from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import BatchSpanProcessor

            base = settings.exporter_endpoint.rstrip("/")
            tracer_provider = TracerProvider(resource=resource)
            # The batch processor exports from its own thread and drops on failure: a missing
            # collector costs log lines, never a stalled worker.
            tracer_provider.add_span_processor(
                BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{base}/v1/traces"))
            )
            trace.set_tracer_provider(tracer_provider)
            readers.append(
                PeriodicExportingMetricReader(OTLPMetricExporter(endpoint=f"{base}/v1/metrics"))
            )
            log.info("OpenTelemetry export to %s", base)
        if prometheus:
            from opentelemetry.exporter.prometheus import PrometheusMetricReader

            readers.append(PrometheusMetricReader())
            if settings.prometheus_port is not None:
                import prometheus_client

                prometheus_client.start_http_server(settings.prometheus_port)
                log.info("Prometheus /metrics on port %d", settings.prometheus_port)
        metrics.set_meter_provider(MeterProvider(resource=resource, metric_readers=readers))
        _configured = True
        return True


# W3C Trace Context, version 00 (and future versions read as 00): version-traceid-parentid-flags.
# Anchored and without nested repetition: linear on any input.
_TRACEPARENT = re.compile(
    r"(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}"
)


def valid_traceparent(value: str | bytes | None) -> str | None:
    """`value` when it is a valid W3C `traceparent`, else None.

    Trace context comes from producers' headers: anything else (non-ASCII or invalid bytes,
    wrong shape, over-long) is ignored, never fatal, and never propagated.
    """
    if value is None or len(value) != 55:
        return None
    if isinstance(value, bytes):
        if not value.isascii():
            return None
        value = value.decode("ascii")
    return value if _TRACEPARENT.fullmatch(value) else None


def parent_context(traceparent: str | None) -> Context | None:
    valid = valid_traceparent(traceparent)
    if valid is None:
        return None
    return _PROPAGATOR.extract({"traceparent": valid})


def headers_dict(
    headers: Iterable[tuple[str, bytes | None]] | Mapping[str, Any] | None,
) -> dict[str, str]:
    """Kafka headers (a list of pairs or a mapping) as str -> str."""
    if headers is None:
        return {}
    items = headers.items() if isinstance(headers, Mapping) else headers
    out: dict[str, str] = {}
    for k, v in items:
        if v is None:
            continue
        out[str(k)] = v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
    return out


class Telemetry:
    """The workers' spans and metrics, plus in-process counts."""

    def __init__(self, role: str, open_streams: Callable[[], int] | None = None) -> None:
        self.role = role
        self.tracer = trace.get_tracer("hallmon.workers")
        meter = metrics.get_meter("hallmon.workers")
        self.counts: Counter[str] = Counter()
        self._latency = meter.create_histogram(
            "hallmon.verification.latency", unit="ms", description="Stream end to verdict"
        )
        self._claims = meter.create_counter("hallmon.claims", description="Claims judged")
        self._unsupported = meter.create_counter(
            "hallmon.claims.unsupported", description="Claims contradicted, not found or unclear"
        )
        self._verdicts = meter.create_counter("hallmon.verdicts", description="Verdicts published")
        self._dead = meter.create_counter("hallmon.dead_letters", description="Dead letters")
        self._batch = meter.create_histogram("hallmon.nli.batch_size", description="NLI pairs")
        self._alerts = meter.create_counter(
            "hallmon.fatigue.alerts", description="Fatigue alerts published"
        )
        self._dropped = meter.create_counter(
            "hallmon.assembler.dropped_events", description="Duplicate or late trace events"
        )
        if open_streams is not None:
            fn = open_streams

            def observe(_: CallbackOptions) -> Iterable[Observation]:
                yield Observation(fn())

            meter.create_observable_gauge(
                "hallmon.assembler.open_streams", callbacks=[observe], description="Open streams"
            )

    @contextmanager
    def span(
        self, name: str, traceparent: str | None, **attributes: str | int | float | bool
    ) -> Iterator[trace.Span]:
        with self.tracer.start_as_current_span(
            name, context=parent_context(traceparent), attributes=attributes
        ) as span:
            yield span

    def dead_letter(self, reason: str) -> None:
        self.counts[f"dead_letters.{reason}"] += 1
        self.counts["dead_letters"] += 1
        self._dead.add(1, {"reason": reason, "role": self.role})

    def dropped(self, why: str) -> None:
        self.counts[f"dropped.{why}"] += 1
        self._dropped.add(1, {"why": why})

    def verdict(self, state: str, claims: int, unsupported: int, latency_ms: float | None) -> None:
        self.counts["verdicts"] += 1
        self.counts[f"verdicts.{state}"] += 1
        self.counts["claims"] += claims
        self.counts["unsupported"] += unsupported
        self._verdicts.add(1, {"state": state})
        self._claims.add(claims)
        self._unsupported.add(unsupported)
        if latency_ms is not None:
            self._latency.record(latency_ms, {"state": state})

    def batch(self, size: int, seconds: float) -> None:
        self.counts["nli.batches"] += 1
        self.counts["nli.pairs"] += size
        self._batch.record(size)

    def fatigue_alert(self, kind: str) -> None:
        self.counts["fatigue_alerts"] += 1
        self._alerts.add(1, {"kind": kind})

    def count(self, name: str, n: int = 1) -> None:
        self.counts[name] += n
