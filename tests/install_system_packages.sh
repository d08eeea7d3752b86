#!/usr/bin/env bash
# Installs the Debian packages the test suite drives for real, when they are missing:
#   chromium       the /status page, the OAuth sign-in and approval pages, in a headless browser
#   bubblewrap     the workspace sandbox (commands run in bwrap by default)
#   redis-server   shared state for several replicas (GITHUB_MCP_STATE_URL)
#   nginx          the load balancer in front of several replicas
#   prometheus     promtool, which checks the shipped alerting rules
#   nodejs, npm    the third-party MCP OAuth clients (TypeScript SDK, mcp-remote) and the
#                  npm packages the contract tests read
# Without root (or apt-get) it only explains what is missing: the tests that need a
# package then fail (they never skip), so the gap stays visible.
set -euo pipefail

declare -A probe=(
    [chromium]=/usr/bin/chromium
    [bubblewrap]=/usr/bin/bwrap
    [redis-server]=/usr/bin/redis-server
    [nginx]=/usr/sbin/nginx
    [prometheus]=/usr/bin/promtool
    [nodejs]=/usr/bin/node
    [npm]=/usr/bin/npm
)
# Arguments narrow the list (make run needs only bubblewrap); none means all.
wanted=("$@")
[ ${#wanted[@]} -eq 0 ] && wanted=("${!probe[@]}")
missing=()
for pkg in "${wanted[@]}"; do
    [ -x "${probe[$pkg]}" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "install_system_packages.sh: missing ${missing[*]};" >&2
    echo "  install them with: sudo apt-get install -y ${missing[*]}" >&2
    exit 0
fi
echo "install_system_packages.sh: installing ${missing[*]} (Debian packages)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The packages' own services are not wanted: the tests start their own on loopback.
for svc in nginx redis-server prometheus; do
    if command -v service >/dev/null 2>&1; then service "$svc" stop >/dev/null 2>&1 || true; fi
done
