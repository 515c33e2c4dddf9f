#!/usr/bin/env bash
# System tools two acceptance tests drive: headless Chromium renders `dcsim report`'s
# HTML (tests/python/test_report.py) and tshark decodes `dcsim run --pcap` captures
# (tests/python/test_pcap.py). Installed from Debian's packages when missing and this
# shell may (root with apt-get); otherwise those two checks are skipped with a reason.
set -u
need=()
command -v tshark >/dev/null 2>&1 || need+=(tshark)
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 \
  || command -v google-chrome >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "test-deps: ${need[*]} not installed (needs root and apt-get): the tests that use them will be skipped" >&2
  exit 0
fi
echo "test-deps: installing ${need[*]} from Debian's packages" >&2
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; }; then
  echo "test-deps: could not install ${need[*]}: the tests that use them will be skipped" >&2
fi
exit 0
