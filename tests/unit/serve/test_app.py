"""`hallmon serve` with one seam replaced each: a fake NLI model, a fake Redis, a fake Kafka
check (the real ones are in tests/integration/serve/). Budgets, auth, CORS, the schema."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from fastapi.testclient import TestClient
from hallmon.topology.settings import HallmonSettings, ServeSettings

from hallmon.serve.app import create_app

POLICY = "Unworn shoes can be returned within 30 days of delivery."


class FakeModel:
    model_id = "fake"
    version = "fake@0"
    max_length = 128

    def __init__(self, delay_s: float = 0.0) -> None:
        self.delay_s = delay_s
        self.calls = 0

    def predict(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float32]:
        self.calls += 1
        time.sleep(self.delay_s)
        return np.tile(np.array([[0.98, 0.01, 0.01]], dtype=np.float32), (len(pairs), 1))


class FakeRedis:
    def __init__(self, up: bool = True) -> None:
        self.up = up

    def register_script(self, _: str) -> Any:
        return None

    async def ping(self) -> bool:
        if not self.up:
            raise ConnectionError("connection refused")
        return True

    async def aclose(self) -> None:
        return None


async def kafka_ok() -> str:
    return "ok"


def client_for(
    serve: ServeSettings | None = None, model: FakeModel | None = None, redis_up: bool = True
) -> TestClient:
    settings = HallmonSettings(serve=serve or ServeSettings())
    app = create_app(
        settings,
        model=model or FakeModel(),
        redis_client=FakeRedis(redis_up),  # type: ignore[arg-type]
        kafka_check=kafka_ok,
    )
    return TestClient(app)


@pytest.fixture
def client() -> Iterator[TestClient]:
    with client_for() as c:
        yield c


def test_check_answers_the_seed_shape_with_hallmon_extras(client: TestClient) -> None:
    r = client.post(
        "/monitor/check",
        json={
            "agent_id": "bot",
            "output": "Unworn shoes can be returned within 30 days.",
            "context": [{"source_id": "policy", "text": POLICY}],
        },
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert {"risk", "action", "verdicts", "state", "claims", "counts"} <= body.keys()
    [v] = body["verdicts"]
    assert {"claim_id", "status", "confidence", "evidence", "span", "reason"} <= v.keys()
    assert v["evidence"][0]["source_id"] == "policy" and body["agent_id"] == "bot"


def test_tool_logs_and_memory_refs_become_context(client: TestClient) -> None:
    r = client.post(
        "/monitor/check",
        json={
            "output": "I have refunded order A-1 with 20 EUR.",
            "tool_logs": [{"tool": "refunds.create", "output": {"order": "A-1", "amount": 20}}],
            "memory_refs": ["The customer prefers email."],
        },
    )
    assert r.status_code == 200, r.text
    assert r.json()["context_items"] == 2


def test_over_the_size_budget_is_413_before_reading_it(client: TestClient) -> None:
    r = client.post(
        "/monitor/check",
        content=b"{" + b" " * 5_000_000 + b"}",
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 413 and "max_request_bytes" in r.json()["error"]


def test_a_chunked_body_over_the_budget_is_413() -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(100):
            yield b" " * 1000

    with client_for(ServeSettings(max_request_bytes=10_000)) as c:
        r = c.post("/monitor/check", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_over_the_time_budget_is_503_not_a_hang() -> None:
    with client_for(ServeSettings(check_timeout_s=0.2), model=FakeModel(delay_s=2.0)) as c:
        t0 = time.monotonic()
        r = c.post("/monitor/check", json={"output": "Returns take 30 days.", "context": [POLICY]})
        took = time.monotonic() - t0
    assert r.status_code == 503 and "check_timeout_s=0.2" in r.json()["error"]
    assert took < 1.5


def test_invalid_bodies_are_422_or_400_never_500(client: TestClient) -> None:
    assert client.post("/monitor/check", json={"input": "no output"}).status_code == 422
    assert client.post("/monitor/check", json=[1, 2]).status_code == 422
    too_many = {"output": "x", "context": ["d"] * 300}
    assert client.post("/monitor/check", json=too_many).status_code == 422
    raw = client.post(
        "/monitor/check", content=b"\xff\xfe", headers={"content-type": "application/json"}
    )
    assert raw.status_code in (400, 422) and raw.json()


def test_readyz_names_what_is_down() -> None:
    with client_for(redis_up=False) as c:
        r = c.get("/readyz")
        assert c.get("/healthz").status_code == 200
    assert r.status_code == 503
    assert r.json() == {
        "ready": False,
        "model": "fake@0",
        "redis": "unreachable: ConnectionError: connection refused",
        "kafka": "ok",
    }


def test_token_guards_the_api_but_not_the_probes() -> None:
    with client_for(ServeSettings(token="t0ken")) as c:
        assert c.get("/metrics").status_code == 401
        assert c.post("/monitor/check", json={"output": "x"}).status_code == 401
        wrong = c.get("/metrics", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Bearer"
        assert c.get("/metrics", headers={"Authorization": "Bearer t0ken"}).status_code == 200
        assert c.get("/healthz").status_code == 200 and c.get("/readyz").status_code == 200


def test_cors_is_off_by_default_and_on_for_listed_origins(client: TestClient) -> None:
    origin = {"Origin": "https://ops.example"}
    assert "access-control-allow-origin" not in client.get("/healthz", headers=origin).headers
    with client_for(ServeSettings(cors_origins=("https://ops.example",))) as c:
        allowed = c.get("/healthz", headers=origin).headers
    assert allowed["access-control-allow-origin"] == "https://ops.example"


def test_openapi_documents_every_route_and_the_dashboard_is_served(client: TestClient) -> None:
    paths = set(client.get("/openapi.json").json()["paths"])
    assert paths == {
        "/monitor/check",
        "/sessions",
        "/sessions/{session_id}",
        "/agents/{agent_id}/fatigue",
        "/verdicts",
        "/verdicts/{response_id}",
        "/healthz",
        "/readyz",
        "/metrics",
    }
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert "function lineChart" in client.get("/static/app.js").text


def test_a_non_loopback_bind_needs_a_token() -> None:
    from hallmon.cli.serve import is_loopback

    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("10.0.0.7")


def test_the_configured_contract_limits_apply_and_name_the_field() -> None:
    from hallmon.topology.settings import LimitsSettings

    settings = HallmonSettings(limits=LimitsSettings(max_answer_chars=10))
    app = create_app(
        settings,
        model=FakeModel(),
        redis_client=FakeRedis(),  # type: ignore[arg-type]
        kafka_check=kafka_ok,
    )
    with TestClient(app) as c:
        r = c.post("/monitor/check", json={"output": "x" * 50})
    assert r.status_code == 422
    [error] = r.json()["detail"]
    assert error["loc"] == ["body", "text"] and "HALLMON_LIMITS__MAX_ANSWER_CHARS" in error["msg"]
