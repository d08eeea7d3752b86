"""The deployment files agree: docs/DEPLOY.md's two tables of deployment settings (a row
per service: replicas, command, port, probes, secrets; a row per environment variable:
its value and the services that get it) are the one source, and deploy/compose.yaml,
deploy/k8s/github-mcp.yaml and deploy/nginx.conf must match them. Every service running
the image in compose (by its `github-mcp.service` label) and every Deployment in k8s (by
its `github-mcp.service` label) must be a row, and every row must be in both files, so
a service added to one place only (a Tasks worker, say) fails here, named."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "DEPLOY.md"
COMPOSE = ROOT / "deploy" / "compose.yaml"
K8S = ROOT / "deploy" / "k8s" / "github-mcp.yaml"
NGINX = ROOT / "deploy" / "nginx.conf"
LABEL = "github-mcp.service"
NONE = "-"  # a cell for what a service does not have (no port, no probe)


def markdown_table(text: str, name: str) -> list[dict[str, str]]:
    """The rows between `<!-- NAME ... -->` and `<!-- end NAME -->`, backticks removed."""
    found = re.search(rf"<!-- {name}\b.*?-->\n(.*?)<!-- end {name} -->", text, re.S)
    assert found, f"docs/DEPLOY.md lost its table {name}"
    lines = [line.strip() for line in found.group(1).strip().splitlines()]

    def cells(line: str) -> list[str]:
        return [c.strip().replace("`", "") for c in line.strip("|").split("|")]

    header = cells(lines[0])
    rows = []
    for line in lines[2:]:
        row = cells(line)
        assert len(row) == len(header), f"a malformed row in {name}: {line!r}"
        rows.append(dict(zip(header, row, strict=True)))
    return rows


def _names(cell: str) -> set[str]:
    return {n.strip() for n in cell.split(",") if n.strip() and n.strip() != NONE}


@dataclass
class Service:
    name: str
    replicas: int
    command: list[str]
    port: str
    readiness: str
    liveness: str
    secrets: set[str]
    environment: dict[str, str] = field(default_factory=dict)


def services_from(text: str) -> dict[str, Service]:
    services = {}
    for row in markdown_table(text, "deployment-services"):
        service = Service(
            name=row["Service"],
            replicas=int(row["Replicas"]),
            command=row["Command"].split(),
            port=row["Port"],
            readiness=row["Readiness probe"],
            liveness=row["Liveness probe"],
            secrets=_names(row["Secrets"]),
        )
        assert service.name not in services, f"two rows for {service.name}"
        services[service.name] = service
    for row in markdown_table(text, "deployment-environment"):
        variable = row["Variable"]
        assert variable.startswith(("GITHUB_", "GH_")), variable
        users = _names(row["Services"])
        assert users <= set(services), f"{variable} names a service with no row: {users}"
        for name in users:
            services[name].environment[variable] = row["Value"]
    return services


def compose_drift(table: dict[str, Service], spec: dict[str, Any]) -> list[str]:
    problems = []
    ours = {
        n: s for n, s in spec["services"].items() if "build" in s or LABEL in s.get("labels", {})
    }
    unlisted = [n for n, s in ours.items() if s.get("labels", {}).get(LABEL) not in table]
    problems += [f"compose: {n} runs the image but is no row of the table" for n in unlisted]
    header = COMPOSE.read_text().split("\nx-", 1)[0]
    for row in table.values():
        members = {n: s for n, s in ours.items() if s.get("labels", {}).get(LABEL) == row.name}
        count = sum(s.get("deploy", {}).get("replicas", 1) for s in members.values())
        if count != row.replicas:
            problems.append(f"compose: {count} {row.name} replicas, the table {row.replicas}")
        for name, service in members.items():
            where = f"compose: {name}"
            if service.get("command") != row.command:
                problems.append(f"{where}: command {service.get('command')}")
            if service.get("environment") != row.environment:
                problems.append(f"{where}: environment {service.get('environment')}")
            check = " ".join(service.get("healthcheck", {}).get("test", []))
            if row.readiness != NONE and row.readiness not in check:
                problems.append(f"{where}: its healthcheck does not ask {row.readiness}")
            if row.secrets and service.get("env_file") != ".env":
                problems.append(f"{where}: no env_file .env for its secrets")
        problems += [f"compose: header omits secret {s}" for s in row.secrets if s not in header]
    return problems


def k8s_drift(table: dict[str, Service], docs: list[dict[str, Any]]) -> list[str]:
    problems = []
    secrets = {
        d["metadata"]["name"]: d.get("stringData", {}) for d in docs if d["kind"] == "Secret"
    }
    deployments = [d for d in docs if d["kind"] == "Deployment"]
    autoscaled = {
        d["spec"]["scaleTargetRef"]["name"]: d["spec"]["minReplicas"]
        for d in docs
        if d["kind"] == "HorizontalPodAutoscaler"
    }
    seen: dict[str, int] = {}
    for deployment in deployments:
        name = deployment["metadata"]["name"]
        role = deployment["metadata"].get("labels", {}).get(LABEL)
        if role not in table:
            problems.append(f"k8s: Deployment {name} is no row of the table")
            continue
        row = table[role]
        seen[role] = seen.get(role, 0) + 1
        where = f"k8s: Deployment {name}"
        if deployment["spec"]["replicas"] != row.replicas:
            problems.append(f"{where}: {deployment['spec']['replicas']} replicas")
        if autoscaled.get(name, row.replicas) != row.replicas:
            problems.append(f"{where}: its autoscaler's minReplicas {autoscaled[name]}")
        (container,) = deployment["spec"]["template"]["spec"]["containers"]
        if container.get("args") != row.command:
            problems.append(f"{where}: args {container.get('args')}")
        env = {e["name"]: e["value"] for e in container.get("env", [])}
        from_secrets: dict[str, str] = {}
        for source in container.get("envFrom", []):
            from_secrets |= secrets.get(source["secretRef"]["name"], {})
        if set(env) & set(from_secrets):
            problems.append(f"{where}: set twice: {sorted(set(env) & set(from_secrets))}")
        # a setting may sit in the Secret (a URL that may hold a password) or the env
        plain = {k: v for k, v in {**from_secrets, **env}.items() if k not in row.secrets}
        if plain != row.environment:
            problems.append(f"{where}: environment {plain}")
        if not row.secrets <= set(from_secrets):
            problems.append(f"{where}: secrets {sorted(row.secrets - set(from_secrets))} unset")
        ports = [p["containerPort"] for p in container.get("ports", [])]
        if ports != ([] if row.port == NONE else [int(row.port)]):
            problems.append(f"{where}: ports {ports}")
        for key, path in (("readinessProbe", row.readiness), ("livenessProbe", row.liveness)):
            found = container.get(key, {}).get("httpGet", {}).get("path", NONE)
            if found != path:
                problems.append(f"{where}: {key} {found}")
        mounts = {m["mountPath"] for m in container.get("volumeMounts", [])}
        workspace = row.environment.get("GITHUB_MCP_WORKSPACE_DIR")
        if workspace and workspace not in mounts:
            problems.append(f"{where}: nothing mounted at {workspace}")
    problems += [f"k8s: no Deployment for {n}" for n in table if seen.get(n) != 1]
    return problems


def nginx_drift(table: dict[str, Service], text: str) -> list[str]:
    """nginx routes to every replica of the server and names their new sessions."""
    server = table["server"]
    problems = []
    upstreams = re.findall(r"^\s*server (\S+):(\d+)", text, flags=re.M)
    if len(upstreams) != server.replicas or {p for _, p in upstreams} != {server.port}:
        problems.append(f"nginx: upstreams {upstreams}")
    header = server.environment.get("GITHUB_MCP_SESSION_ID_HEADER", "")
    if not re.search(rf"proxy_set_header {re.escape(header)} \$request_id;", text):
        problems.append(f"nginx: does not set {header} to its request id")
    if "hash $affinity consistent;" not in text:
        problems.append("nginx: no longer hashes on the session")
    for forwarded in ("X-Forwarded-Proto", "X-Forwarded-Host", "X-Forwarded-Port"):
        if f"proxy_set_header {forwarded} " not in text:
            problems.append(f"nginx: does not send {forwarded}")
    return problems


@pytest.fixture(scope="module")
def table() -> dict[str, Service]:
    return services_from(DOC.read_text())


def compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE.read_text())


def k8s() -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(K8S.read_text()) if d]


def test_the_table_is_whole(table):
    server = table["server"]
    assert server.replicas >= 2 and server.port != NONE
    assert {"GITHUB_MCP_STATE_URL", "GITHUB_MCP_SESSION_ID_HEADER"} <= set(server.environment)
    assert server.readiness == "/readyz" and server.liveness == "/healthz"


def test_compose_matches_the_table(table):
    assert compose_drift(table, compose()) == []


def test_kubernetes_matches_the_table(table):
    assert k8s_drift(table, k8s()) == []


def test_nginx_routes_to_every_replica_and_names_new_sessions(table):
    assert nginx_drift(table, NGINX.read_text()) == []


def test_a_drift_is_caught(table):
    """Each comparison fails, naming the file and the setting, on a file that leaves
    something out, a service added to one side only, or a table that says otherwise."""
    spec = compose()
    spec["services"]["replica2"] = copy.deepcopy(spec["services"]["replica2"])
    del spec["services"]["replica2"]["environment"]["GITHUB_MCP_SESSION_ID_HEADER"]
    spec["services"]["worker"] = {"build": "..", "command": ["serve"]}
    assert compose_drift(table, spec) == [
        "compose: worker runs the image but is no row of the table",
        f"compose: replica2: environment {spec['services']['replica2']['environment']}",
    ]

    docs = k8s()
    (deployment,) = [
        d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == "github-mcp"
    ]
    worker = copy.deepcopy(deployment)
    worker["metadata"] = {"name": "github-mcp-worker", "labels": {LABEL: "worker"}}
    deployment["spec"]["template"]["spec"]["containers"][0]["env"].pop()
    found = k8s_drift(table, [*docs, worker])
    assert found[0].startswith("k8s: Deployment github-mcp: environment {")
    assert found[1:] == ["k8s: Deployment github-mcp-worker is no row of the table"]

    text = DOC.read_text()
    more = services_from(re.sub(r"\| server \| 3 \|", "| server | 4 |", text))
    assert "compose: 3 server replicas, the table 4" in compose_drift(more, compose())
    assert "k8s: Deployment github-mcp: 3 replicas" in k8s_drift(more, k8s())
    assert nginx_drift(more, NGINX.read_text())[0].startswith("nginx: upstreams")
    row = "| worker | 1 | `serve` | - | - | - | `GITHUB_TOKEN` |\n<!-- end deployment-services"
    with_worker = services_from(text.replace("<!-- end deployment-services", row))
    assert "compose: 0 worker replicas, the table 1" in compose_drift(with_worker, compose())
    assert "k8s: no Deployment for worker" in k8s_drift(with_worker, k8s())
