# Each target bootstraps .venv from the pinned requirements when it is missing or stale.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUNTIME_STAMP := $(VENV)/.runtime-installed
DEV_STAMP := $(VENV)/.dev-installed
OPENAPI_SPEC := .cache/openapi/node_modules/@octokit/openapi/generated/api.github.com.json
GRAPHQL_SCHEMA := .cache/graphql-schema/node_modules/@octokit/graphql-schema/schema.graphql
# Three workers on two cores: the suite also waits on subprocesses (git, bubblewrap,
# servers), so a third worker fills the gaps (7 min 43 s against 8 min 28 s with two, idle).
# worksteal: an idle worker takes queued tests from a busy one, and tests/scheduling.py
# hands out the files with the longest tests first, so the run does not end on one of them.
PYTEST_ARGS ?= -n 3 --dist worksteal

.PHONY: run test test-fast test-live lint format bench demo docs snapshots new-tool venv clean views apps-preview

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUNTIME_STAMP): requirements.txt | $(BIN)/python
	$(BIN)/pip install --disable-pip-version-check -q -r requirements.txt
	touch $@

$(DEV_STAMP): requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --disable-pip-version-check -q -r requirements-dev.txt
	touch $(RUNTIME_STAMP) $@

venv: $(DEV_STAMP)

# GitHub's published OpenAPI description and GraphQL schema, for the forge's contract tests.
$(OPENAPI_SPEC):
	bash tests/forge/fetch_openapi.sh

$(GRAPHQL_SCHEMA):
	bash tests/forge_collab/fetch_graphql_schema.sh

# AUTH=oauth: users sign in with GitHub (on the embedded forge: alice, bob) instead of a
# bearer token; the default stays the bearer token printed at start.
AUTH ?= $(or $(GITHUB_MCP_AUTH),bearer)
# make run HOST=0.0.0.0 PORT=9000 (or the same as environment variables)
HOST ?= 127.0.0.1
PORT ?= 8000

# `python -m github_mcp` runs the same entry point as the installed github-mcp-controller.
run: $(RUNTIME_STAMP)
	@bash tests/install_system_packages.sh bubblewrap
	GITHUB_MCP_AUTH=$(AUTH) $(BIN)/python -m github_mcp serve --transport http \
		--host $(HOST) --port $(PORT) --sandbox-forge auto --generate-token

# The suite starts many Python processes (CLI calls, servers, workers): under
# PYTHONDONTWRITEBYTECODE each would compile the project's ~400 modules anew (about 0.5 s
# of CPU each), and the ~80 modules a dependency type-checks on import (beartype's own
# .pyc). Compiled once here, they are only read.
test: $(DEV_STAMP) $(OPENAPI_SPEC) $(GRAPHQL_SCHEMA)
	@bash tests/install_system_packages.sh
	@$(BIN)/python -m compileall -q -j 0 github_mcp sandbox_forge tests main.py extra_tools.py
	@env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -c "import fastmcp.client, github_mcp.serving.server"
	@$(BIN)/python -m pytest $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests"; exit 0; fi; exit $$rc

# The unit tier, tests/unit/: pure logic (the gate's rules, ref rules, patches, trees, log
# parsing, static checks of the code) with no forge, no subprocess and no network, for a
# quick check while working; `make test` stays the referee.
test-fast: $(DEV_STAMP)
	@$(BIN)/python -m pytest -q -p no:xdist tests/unit

# Opt-in, against real GitHub: GITHUB_TOKEN and GITHUB_MCP_LIVE_REPO (a scratch repository
# you own); skipped with a message without them. Never part of `make test`.
test-live: $(DEV_STAMP)
	@$(BIN)/python -m pytest -p no:xdist -rs live_tests

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy github_mcp sandbox_forge main.py extra_tools.py

format: $(DEV_STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

docs: $(RUNTIME_STAMP)
	$(BIN)/python -m github_mcp docs

# The skeleton of a new read tool: its tool, service, forge route and test (CONTRIBUTING.md).
# make new-tool NAME=list_deployments DOMAIN=deployments TOOLSET=repos [ROUTE=/repos/{owner}/{repo}/deployments]
new-tool: $(DEV_STAMP)
	$(BIN)/python -m github_mcp.cli.new_tool --name "$(NAME)" --domain "$(DOMAIN)" \
		--toolset "$(TOOLSET)" $(if $(ROUTE),--route "$(ROUTE)")

# Rewrite tests/snapshots/tools/*.json from the tools' current schemas (review the diff).
snapshots: $(DEV_STAMP)
	$(BIN)/python -m tests.tool_snapshots

# Rebuild the MCP Apps cards (github_mcp/apps/views/*.html, committed) from views/ with
# the npm packages views/package-lock.json pins; `make run` itself never needs npm.
views:
	cd views && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error && node build.mjs

# The cards in a browser without Claude or ChatGPT: the demo forge, the server and a local
# MCP Apps host (ext-apps' AppBridge); open the link it prints. Needs npm for the host page.
APPS_PORT ?= 8765
apps-preview: $(DEV_STAMP)
	$(BIN)/python -m tests.apps.preview --port $(APPS_PORT)

bench: $(DEV_STAMP)
	@for script in bench/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

# The demo's run_tests step runs pytest from this venv, hence the dev requirements.
# make demo KEEP=1 leaves its server running afterwards, so its /status page can be opened.
demo: $(DEV_STAMP)
	$(BIN)/python -m github_mcp.cli.demo $(if $(KEEP),--keep)

clean:
	rm -rf $(VENV) .cache .pytest_cache
