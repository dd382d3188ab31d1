"""A property-based fuzz of the whole API from its own OpenAPI schema (schemathesis): no
request, however odd, makes the live server answer 5xx or break its documented schema."""

from __future__ import annotations

import pytest
import schemathesis
from hallmon.topology.settings import HallmonSettings
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from hallmon.serve.app import create_app
from tests.integration.serve.conftest import ServedPipeline

pytestmark = [pytest.mark.integration, pytest.mark.model]

# The schema is the app's own; building the app loads nothing (the model loads at start-up).
schema = schemathesis.openapi.from_dict(create_app(HallmonSettings()).openapi())


@schema.parametrize()
@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_api_never_answers_5xx(case: schemathesis.Case, served_pipeline: ServedPipeline) -> None:
    response = case.call(base_url=served_pipeline.base_url, timeout=30)
    case.validate_response(
        response,
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
        ],
    )
