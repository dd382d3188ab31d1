"""`hallmon serve` over HTTP with the real model, real Redis and real Kafka, on the data of a
real pipeline run (`served_pipeline`)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from hallmon.topology.settings import HallmonSettings, RedisSettings, ServeSettings

from hallmon.serve.app import create_app
from tests.integration.serve.conftest import ServedPipeline, ServerThread, free_port

pytestmark = [pytest.mark.integration, pytest.mark.model]

POLICY = "Unworn shoes can be returned within 30 days of delivery for a full refund."


def test_check_in_the_seed_shape_flags_a_wrong_number(served_pipeline: ServedPipeline) -> None:
    with served_pipeline.client() as client:
        r = client.post(
            "/monitor/check",
            json={
                "agent_id": "acme-support",
                "input": "How long do I have to return shoes?",
                "output": "You can return unworn shoes within 90 days. Happy to help!",
                "context": [POLICY],
                "tool_logs": [],
                "memory_refs": [],
            },
        )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["state"] == "checked"
    assert body["action"] in ("warn", "block") and body["risk"] > 0
    [v] = body["verdicts"]
    assert v["status"] in ("contradicted", "not_found") and v["claim_id"]
    assert 0.0 <= v["confidence"] <= 1.0 and v["evidence"]
    # hallmon's extras: the claim's span in the answer, its reason and the skipped politeness
    assert body["verdicts"][0]["span"] == body["claims"][0]["claim"]["span"]
    assert [s["reason"] for s in body["skipped"]] == ["politeness"]


def test_check_in_the_response_event_shape_allows_a_supported_answer(
    served_pipeline: ServedPipeline,
) -> None:
    event = {
        "type": "response",
        "session_id": "s-1",
        "response_id": "r-1",
        "agent_id": "acme-support",
        "text": "Unworn shoes can be returned within 30 days of delivery.",
        "context": {"documents": [{"source_id": "returns-policy", "text": POLICY}]},
    }
    with served_pipeline.client() as client:
        r = client.post("/monitor/check", json=event)
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["response_id"], body["session_id"]) == ("r-1", "s-1")
    assert body["action"] == "allow" and body["verdicts"][0]["status"] == "supported"
    assert body["verdicts"][0]["evidence"][0]["source_id"] == "returns-policy"


def test_concurrent_checks_share_nli_batches(served_pipeline: ServedPipeline) -> None:
    async def many() -> list[httpx.Response]:
        async with httpx.AsyncClient(base_url=served_pipeline.base_url, timeout=60) as client:
            bodies = [
                {"output": f"Returns are accepted within {n} days.", "context": [POLICY]}
                for n in range(20, 36)
            ]
            return await asyncio.gather(*(client.post("/monitor/check", json=b) for b in bodies))

    before = served_pipeline.app.state.rt.batcher.stats.batches
    responses = asyncio.run(many())
    assert [r.status_code for r in responses] == [200] * 16
    batches = served_pipeline.app.state.rt.batcher.stats.batches - before
    assert 1 <= batches < 16, f"16 concurrent checks took {batches} model calls"


def test_budgets_answer_413_and_503_in_json(served_pipeline: ServedPipeline) -> None:
    big = {"output": "x", "context": ["y" * 5_000_000]}
    with served_pipeline.client() as client:
        r = client.post("/monitor/check", content=json.dumps(big))
        assert r.status_code == 413
        assert "HALLMON_SERVE__MAX_REQUEST_BYTES" in r.json()["detail"]
        bad = client.post("/monitor/check", json={"context": ["no output"]})
        assert bad.status_code == 422
    # A budget no check can meet: 503 with a JSON error, quickly, never a hang.
    settings = served_pipeline.settings.model_copy(
        update={"serve": ServeSettings(check_timeout_s=0.001)}
    )
    tight = ServerThread(create_app(settings), free_port()).start()
    try:
        r = httpx.post(
            f"{tight.url}/monitor/check",
            json={"output": "Returns are accepted within 30 days.", "context": [POLICY]},
            timeout=30,
        )
    finally:
        tight.stop()
    assert r.status_code == 503, r.text
    assert "check_timeout_s" in r.json()["error"] and r.headers["retry-after"] == "1"


def test_probes_and_metrics(served_pipeline: ServedPipeline) -> None:
    with served_pipeline.client() as client:
        assert client.get("/healthz").json() == {"status": "ok"}
        ready = client.get("/readyz")
        assert ready.status_code == 200 and ready.json()["ready"] is True
        assert ready.json()["model"].startswith("hallmon/")
        metrics = client.get("/metrics").text
    # The workers' metric names, as the OpenTelemetry Prometheus exporter writes them.
    assert "hallmon_verdicts_total" in metrics
    assert "hallmon_nli_batch_size_bucket" in metrics


def test_readyz_is_503_when_redis_is_unreachable(served_pipeline: ServedPipeline) -> None:
    settings: HallmonSettings = served_pipeline.settings.model_copy(
        update={"redis": RedisSettings(url=f"redis://127.0.0.1:{free_port()}/0")}
    )
    server = ServerThread(create_app(settings), free_port()).start()
    try:
        r = httpx.get(f"{server.url}/readyz", timeout=30)
    finally:
        server.stop()
    assert r.status_code == 503
    assert r.json()["ready"] is False and r.json()["redis"].startswith("unreachable")
    assert r.json()["kafka"] == "ok"


def test_sessions_are_ranked_by_trend_and_paged(served_pipeline: ServedPipeline) -> None:
    with served_pipeline.client() as client:
        page = client.get("/sessions", params={"limit": 2}).json()
        rest = client.get("/sessions", params={"limit": 2, "offset": 2}).json()
    mine = set(served_pipeline.sessions)
    ranked = [s for s in page["sessions"] + rest["sessions"] if s["session_id"] in mine]
    assert page["total"] >= 3 and len(page["sessions"]) == 2
    slopes = [s["slope_per_turn"] for s in ranked if s["slope_per_turn"] is not None]
    assert slopes == sorted(slopes, reverse=True)
    order = [s["session_id"].split("-")[0] for s in ranked]
    assert order.index("tired") < order.index("steady"), order
    assert all(len(s["rates"]) == s["responses"] for s in ranked)


def test_session_curve_alerts_and_fleet(served_pipeline: ServedPipeline) -> None:
    tired = next(s for s in served_pipeline.sessions if s.startswith("tired-"))
    with served_pipeline.client() as client:
        detail = client.get(f"/sessions/{tired}").json()
        fleet = client.get("/agents/acme-support/fatigue").json()
        missing = client.get("/sessions/no-such-session")
    snap = detail["snapshot"]
    assert len(snap["series"]) == snap["responses"] >= 5
    assert [p["turn"] for p in snap["series"]] == sorted(p["turn"] for p in snap["series"])
    assert snap["slope_per_turn"] > 0
    assert detail["alerts"], "the tired session should have raised a fatigue alert"
    assert {v["session_id"] for v in detail["verdicts"]} == {tired}
    assert fleet["by_turn"] and sum(b["responses"] for b in fleet["by_turn"]) >= 10
    assert missing.status_code == 404 and "no fatigue data" in missing.json()["error"]


def test_recent_verdicts(served_pipeline: ServedPipeline) -> None:
    rid = served_pipeline.response_ids[-1]
    with served_pipeline.client() as client:
        latest = client.get("/verdicts", params={"limit": 50}).json()
        full = client.get(f"/verdicts/{rid}").json()
    assert rid in {v["response_id"] for v in latest}
    assert full["response_id"] == rid
    assert full["enforcement"] == "not_enforced_streaming"


def test_bearer_token(served_pipeline: ServedPipeline) -> None:
    settings = served_pipeline.settings.model_copy(
        update={"serve": ServeSettings(token="s3cret", cors_origins=())}
    )
    server = ServerThread(create_app(settings), free_port()).start()
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            denied = client.get("/sessions")
            allowed = client.get("/sessions", headers={"Authorization": "Bearer s3cret"})
            probe = client.get("/healthz")
            cors = client.get("/healthz", headers={"Origin": "https://evil.example"})
    finally:
        server.stop()
    assert denied.status_code == 401 and "HALLMON_SERVE__TOKEN" in denied.json()["detail"]
    assert allowed.status_code == 200 and probe.status_code == 200
    assert "access-control-allow-origin" not in cors.headers
