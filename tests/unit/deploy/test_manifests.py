"""The deploy manifests against their schemas, offline: compose against the Compose
Specification's JSON Schema, Kubernetes kinds with `kubernetes-validate`, KEDA ScaledObjects
against KEDA's CRD schema; the kustomize overlays are built with `kustomize` (Go module proxy:
`go install sigs.k8s.io/kustomize/kustomize/v5@v5.7.1`, see deploy/tools.sh). The Grafana
dashboard only queries metric names hallmon exports."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from tests.conftest import in_ci

REPO = Path(__file__).resolve().parents[3]
DEPLOY = REPO / "deploy"
SCHEMAS = Path(__file__).parent / "schemas"
K8S_VERSION = "1.30.0"
ROLES = {"assembler", "verifier", "fatigue"}


def load_yaml_docs(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d]


def validate_k8s(doc: dict[str, Any]) -> None:
    if doc["kind"] == "ScaledObject":
        schema = json.loads((SCHEMAS / "keda-scaledobject-v1alpha1.json").read_text())
        jsonschema.validate(doc, schema)
        return
    kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def kustomize() -> str:
    found = shutil.which("kustomize")
    if found is None:
        gopath = subprocess.run(["go", "env", "GOPATH"], capture_output=True, text=True)
        candidate = Path(gopath.stdout.strip() or Path.home() / "go") / "bin" / "kustomize"
        found = str(candidate) if candidate.is_file() else None
    if found is None:
        why = "kustomize is not installed; run deploy/tools.sh (go install from the module proxy)"
        if in_ci():
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    return found


# --- compose --------------------------------------------------------------------------------


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((DEPLOY / "compose" / "compose.yaml").read_text())
    return data


def compose_validator() -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(json.loads((SCHEMAS / "compose-spec.json").read_text()))


def test_compose_matches_the_compose_specification() -> None:
    compose_validator().validate(compose())
    broken = compose()
    broken["services"]["serve"]["depends_on"] = {"kafka": {"condition": "when_it_feels_like_it"}}
    assert not compose_validator().is_valid(broken)


def test_compose_runs_every_role_and_the_observability_stack() -> None:
    services = compose()["services"]
    roles = {
        s["command"][2]
        for s in services.values()
        if s.get("command", [])[:2] == ["worker", "--role"]
    }
    assert roles == ROLES
    assert services["serve"]["command"][0] == "serve"
    assert {"kafka", "redis", "otel-collector", "prometheus", "grafana"} <= services.keys()
    # KRaft: broker and controller in one node, no ZooKeeper anywhere.
    assert services["kafka"]["environment"]["KAFKA_PROCESS_ROLES"] == "broker,controller"
    assert not any("zookeeper" in str(s.get("image", "")) for s in services.values())
    # Every file the compose file mounts exists.
    for service in services.values():
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            if source.startswith("."):
                assert (DEPLOY / "compose" / source).resolve().is_file(), volume


# --- kubernetes -----------------------------------------------------------------------------


def test_every_base_manifest_is_valid_kubernetes() -> None:
    base = DEPLOY / "k8s" / "base"
    kustomization = yaml.safe_load((base / "kustomization.yaml").read_text())
    for name in kustomization["resources"]:
        for doc in load_yaml_docs((base / name).read_text()):
            validate_k8s(doc)


def test_scaled_objects_match_the_keda_crd() -> None:
    docs = load_yaml_docs((DEPLOY / "k8s/overlays/keda/scaledobjects.yaml").read_text())
    for doc in docs:
        validate_k8s(doc)
    assert {d["spec"]["scaleTargetRef"]["name"] for d in docs} == {f"hallmon-{r}" for r in ROLES}
    assert all(d["spec"]["triggers"][0]["type"] == "kafka" for d in docs)


def test_a_broken_manifest_is_caught() -> None:
    doc = load_yaml_docs((DEPLOY / "k8s/base/verifier.yaml").read_text())[0]
    doc["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        validate_k8s(doc)


@pytest.mark.parametrize("overlay", ["base", "overlays/keda"])
def test_kustomize_builds_valid_manifests(overlay: str) -> None:
    out = subprocess.run(
        [kustomize(), "build", str(DEPLOY / "k8s" / overlay)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    docs = load_yaml_docs(out.stdout)
    for doc in docs:
        validate_k8s(doc)
    by_kind: dict[str, set[str]] = {}
    for d in docs:
        by_kind.setdefault(d["kind"], set()).add(d["metadata"]["name"])
    assert by_kind["Deployment"] == {f"hallmon-{r}" for r in [*ROLES, "serve"]}
    hpas = by_kind.get("HorizontalPodAutoscaler", set())
    if overlay == "base":
        assert hpas == by_kind["Deployment"]
    else:  # KEDA owns the workers' scaling; serve keeps its CPU HPA
        assert hpas == {"hallmon-serve"}
        assert by_kind["ScaledObject"] == {f"hallmon-{r}" for r in ROLES}
    serve = next(
        d for d in docs if d["metadata"]["name"] == "hallmon-serve" and d["kind"] == "Deployment"
    )
    container = serve["spec"]["template"]["spec"]["containers"][0]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    for d in docs:
        if d["kind"] == "Deployment":
            pod = d["spec"]["template"]["spec"]
            assert pod["securityContext"]["runAsNonRoot"] is True
            assert all(c["resources"]["requests"] for c in pod["containers"])


# --- image ----------------------------------------------------------------------------------


def test_dockerfile_is_multi_stage_non_root_with_the_model() -> None:
    text = (REPO / "Dockerfile").read_text()
    assert len(re.findall(r"^FROM ", text, re.M)) == 2
    users = re.findall(r"^USER (\S+)", text, re.M)
    assert users and not users[-1].startswith(("0", "root"))
    assert "resolve_model_dir" in text  # the build fails when the model is missing
    assert re.search(r'^ENTRYPOINT \["hallmon"\]', text, re.M)


# --- grafana --------------------------------------------------------------------------------


def exported_metric_names() -> set[str]:
    """The names hallmon's telemetry exports in Prometheus format (same as the workers')."""
    import prometheus_client
    from hallmon.topology.settings import OtelSettings
    from hallmon.workers.telemetry import Telemetry, configure_export

    configure_export(OtelSettings(), "test", prometheus=True)
    t = Telemetry("test", open_streams=lambda: 1)
    t.verdict("checked", 2, 1, 10.0)
    t.dead_letter("malformed_json")
    t.batch(8, 0.01)
    t.fatigue_alert("recent_rate")
    text = prometheus_client.generate_latest(prometheus_client.REGISTRY).decode()
    return set(re.findall(r"^(hallmon_\w+)", text, re.M))


def test_grafana_dashboard_queries_only_exported_metrics() -> None:
    dash = json.loads((DEPLOY / "grafana" / "hallmon.json").read_text())
    exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
    used = {m for e in exprs for m in re.findall(r"\b(hallmon_\w+)", e)}
    assert used and used <= exported_metric_names(), used - exported_metric_names()
    titles = " ".join(p["title"].lower() for p in dash["panels"])
    for topic in (
        "verdict",
        "unsupported",
        "latency",
        "dead letter",
        "open streams",
        "batch size",
        "lag",
        "fatigue alert",
    ):
        assert topic in titles, topic
    assert any("kafka_consumergroup_lag" in e for e in exprs)


def test_compose_mounts_the_one_grafana_dashboard() -> None:
    grafana = compose()["services"]["grafana"]
    assert any("../grafana/hallmon.json" in v for v in grafana["volumes"])
    assert os.path.isfile(DEPLOY / "grafana" / "hallmon.json")
