"""The deployment files agree: docs/DEPLOY.md's table of deployment settings is the one
source, and deploy/compose.yaml, deploy/k8s/github-mcp.yaml and deploy/nginx.conf must
match it (environment, secrets, probes, port, replica count, Tasks worker count). A drift
in any of them fails here, naming the file and the setting."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "DEPLOY.md"
COMPOSE = ROOT / "deploy" / "compose.yaml"
K8S = ROOT / "deploy" / "k8s" / "github-mcp.yaml"
NGINX = ROOT / "deploy" / "nginx.conf"


def doc_table(text: str) -> dict[str, str]:
    """The rows between the deployment-settings markers, backticks removed."""
    found = re.search(
        r"<!-- deployment-settings:.*?-->\n(.*?)<!-- end deployment-settings", text, re.S
    )
    assert found, "docs/DEPLOY.md lost its table of deployment settings"
    rows: dict[str, str] = {}
    for line in found.group(1).splitlines()[2:]:
        cells = [c.strip().replace("`", "") for c in line.strip().strip("|").split("|")]
        assert len(cells) == 2, f"a malformed row in the settings table: {line!r}"
        rows[cells[0]] = cells[1]
    return rows


class Expected:
    def __init__(self, rows: dict[str, str]) -> None:
        self.replicas = int(rows.pop("replicas"))
        self.workers = int(rows.pop("Tasks workers"))
        self.port = rows.pop("port")
        self.readiness = rows.pop("readiness probe")
        self.liveness = rows.pop("liveness probe")
        self.secrets = {s.strip() for s in rows.pop("secrets").split(",")}
        assert all(name.startswith(("GITHUB_", "GH_")) for name in rows), rows
        self.environment = rows


@pytest.fixture(scope="module")
def expected() -> Expected:
    return Expected(doc_table(DOC.read_text()))


def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def k8s() -> dict[str, list[dict[str, Any]]]:
    docs: dict[str, list[dict[str, Any]]] = {}
    for doc in yaml.safe_load_all(K8S.read_text()):
        docs.setdefault(doc["kind"], []).append(doc)
    return docs


def _server_services(services: dict[str, Any]) -> dict[str, Any]:
    return {n: s for n, s in services.items() if s.get("command", [None])[0] == "serve"}


def test_the_table_is_whole(expected):
    assert expected.replicas >= 2 and expected.workers >= 0
    assert "GITHUB_MCP_STATE_URL" in expected.environment
    assert "GITHUB_MCP_SESSION_ID_HEADER" in expected.environment


def test_compose_matches_the_table(expected):
    services = compose()["services"]
    replicas = _server_services(services)
    assert len(replicas) == expected.replicas, sorted(replicas)
    for name, service in replicas.items():
        assert service["environment"] == expected.environment, name
        assert service["command"][-1] == expected.port and "--port" in service["command"]
        assert expected.readiness in " ".join(service["healthcheck"]["test"]), name
        assert service["env_file"] == ".env"  # the secrets, named in its header comment
    header = COMPOSE.read_text().split("\nx-replica", 1)[0]
    assert all(secret in header for secret in expected.secrets)
    workers = [n for n in services if "worker" in n]
    assert len(workers) == expected.workers, workers


def test_kubernetes_matches_the_table(expected):
    docs = k8s()
    (secret,) = docs["Secret"]
    deployments = {d["metadata"]["name"]: d for d in docs["Deployment"]}
    server = deployments.pop("github-mcp")
    assert server["spec"]["replicas"] == expected.replicas
    (hpa,) = docs["HorizontalPodAutoscaler"]
    assert hpa["spec"]["minReplicas"] == expected.replicas
    (container,) = server["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e["value"] for e in container["env"]}
    in_secret = secret["stringData"]
    # each setting is set once, in the env or (a URL that may hold a password) the Secret
    assert not set(env) & set(in_secret)
    plain = {k: v for k, v in {**env, **in_secret}.items() if k not in expected.secrets}
    assert plain == expected.environment
    assert expected.secrets <= set(in_secret)
    assert container["args"][-1] == expected.port
    assert container["ports"][0]["containerPort"] == int(expected.port)
    assert container["readinessProbe"]["httpGet"]["path"] == expected.readiness
    assert container["livenessProbe"]["httpGet"]["path"] == expected.liveness
    mounts = {m["mountPath"] for m in container["volumeMounts"]}
    assert expected.environment["GITHUB_MCP_WORKSPACE_DIR"] in mounts
    workers = [d for name, d in deployments.items() if "worker" in name]
    assert sum(d["spec"]["replicas"] for d in workers) == expected.workers, list(deployments)


def test_nginx_routes_to_every_replica_and_names_new_sessions(expected):
    text = NGINX.read_text()
    upstreams = re.findall(r"^\s*server (\S+):(\d+)", text, flags=re.M)
    assert len(upstreams) == expected.replicas
    assert {port for _, port in upstreams} == {expected.port}
    # the header the replicas name sessions by is the one nginx sets to its request id
    header = expected.environment["GITHUB_MCP_SESSION_ID_HEADER"]
    assert re.search(rf"proxy_set_header {re.escape(header)} \$request_id;", text)
    assert "hash $affinity consistent;" in text
    for forwarded in ("X-Forwarded-Proto", "X-Forwarded-Host", "X-Forwarded-Port"):
        assert f"proxy_set_header {forwarded} " in text


def test_a_drift_is_caught(expected, tmp_path):
    """The comparison fails on a file that leaves one setting out."""
    drifted = compose()
    drifted["x-replica"]["environment"].pop("GITHUB_MCP_SESSION_ID_HEADER")
    service = drifted["x-replica"]
    assert service["environment"] != expected.environment
    rows = doc_table(DOC.read_text().replace("| replicas | 3 |", "| replicas | 4 |"))
    assert Expected(rows).replicas == 4 != len(_server_services(compose()["services"]))
