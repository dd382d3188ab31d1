"""Generate the committed JSON Schema files for producers and consumers in other languages.

Regenerate after changing a model: `python -m hallmon.schemas.jsonschema` (or `make schemas`);
a test fails while the committed files are out of date.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hallmon.schemas.deadletter import DeadLetter
from hallmon.schemas.events import TRACE_EVENT_ADAPTER, AssembledResponse, ResponseEvent
from hallmon.schemas.fatigue import FatigueAlert, FatigueSnapshot
from hallmon.schemas.results import VerdictEvent
from pydantic import BaseModel, TypeAdapter

JSON_DIR = Path(__file__).with_name("json")

_MODELS: dict[str, type[BaseModel]] = {
    "response": ResponseEvent,
    "assembled_response": AssembledResponse,
    "verdict_event": VerdictEvent,
    "fatigue_snapshot": FatigueSnapshot,
    "fatigue_alert": FatigueAlert,
    "dead_letter": DeadLetter,
}


def render_all() -> dict[str, str]:
    """File name → JSON text, deterministic so the committed files can be compared."""
    schemas: dict[str, Any] = {"trace_event": _titled(TRACE_EVENT_ADAPTER, "TraceEvent")}
    for name, model in _MODELS.items():
        schemas[name] = model.model_json_schema(mode="validation")
    return {
        f"{name}.schema.json": json.dumps(schema, indent=2, sort_keys=True) + "\n"
        for name, schema in schemas.items()
    }


def _titled(adapter: TypeAdapter[Any], title: str) -> dict[str, Any]:
    schema = adapter.json_schema(mode="validation")
    schema["title"] = title
    return schema


def write_all(directory: Path = JSON_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in render_all().items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def main() -> None:
    for path in write_all():
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
