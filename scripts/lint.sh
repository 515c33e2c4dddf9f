#!/usr/bin/env bash
# Format and lint checks, run by the README's test command (and so by CI): unformatted
# code or a lint warning fails the run. To fix formatting: `cargo fmt --all` and
# `ruff format python scripts tests`. The documentation site must build with no warning
# (a broken link, a page missing from the nav, an API reference that does not resolve).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
ruff format --check python scripts tests
ruff check python scripts tests
NO_MKDOCS_2_WARNING=1 python -m mkdocs build --strict --quiet --site-dir "$(mktemp -d)"
