#!/usr/bin/env bash
# Installs Debian's `chromium` for the /status page test (tests/test_status_page.py).
# It does nothing when /usr/bin/chromium exists. Without root it only explains what is
# missing: the test then fails (it never skips), so the gap stays visible.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "install_chromium.sh: /usr/bin/chromium is missing and this is not root;" >&2
    echo "  install it with: sudo apt-get install -y chromium" >&2
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_chromium.sh: no apt-get here; install Chromium as /usr/bin/chromium" >&2
    exit 0
fi
echo "install_chromium.sh: installing chromium (Debian package)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
/usr/bin/chromium --version >&2
