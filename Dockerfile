# GitHub MCP Controller over streamable HTTP, as an unprivileged user.
#   docker build -t github-mcp .
#   docker run -p 8000:8000 -v github-mcp-data:/data \
#     --security-opt seccomp=unconfined --security-opt apparmor=unconfined \
#     --security-opt systempaths=unconfined \
#     -e GITHUB_TOKEN=... -e GITHUB_MCP_AUTH_TOKENS=... github-mcp
# Off loopback the server requires GITHUB_MCP_AUTH_TOKENS (see docs/DEPLOY.md).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    GITHUB_MCP_AUDIT_LOG=/data/audit.jsonl \
    GITHUB_MCP_WORKSPACE_DIR=/data/workspaces \
    GITHUB_MCP_STATE_DIR=/data/state

# git for the workspace tools, bubblewrap for their command sandbox (the default; it
# needs the three --security-opt options above to make its namespaces); the image's Python
# has venv for run_tests; ca-certificates for TLS to GitHub.
RUN apt-get update \
    && apt-get install -y --no-install-recommends git bubblewrap ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 mcp \
    && useradd --system --uid 10001 --gid mcp --home-dir /home/mcp --create-home \
       --shell /usr/sbin/nologin mcp \
    && mkdir -p /data \
    && chown mcp:mcp /data

WORKDIR /app
# The pinned dependencies first (a cached layer), then the package itself without them.
COPY requirements.txt ./
RUN pip install -r requirements.txt
# .dockerignore keeps the checkout's venv, caches and git history out of the context
COPY --chown=root:root . /tmp/src
# The image runs the installed console script; only the operator's extension point
# (extra_tools.py) is kept from the checkout, on PYTHONPATH.
RUN pip install --no-deps /tmp/src \
    && mkdir -p /app/extensions \
    && cp /tmp/src/extra_tools.py /app/extensions/ \
    && rm -rf /tmp/src
ENV PYTHONPATH=/app/extensions

USER mcp
VOLUME ["/data"]
EXPOSE 8000

# Liveness: 200 while the server serves, whatever GitHub does (see /healthz in docs/DEPLOY.md).
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status == 200 else 1)"]

ENTRYPOINT ["github-mcp-controller"]
CMD ["serve", "--transport", "http", "--host", "0.0.0.0", "--port", "8000"]
