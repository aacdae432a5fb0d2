#!/usr/bin/env bash
# Screenshots of the built documentation's main pages as a reader sees them (headless Chromium).
# Into docs/_build/screenshots/*.png (open them in an image viewer).
#
#   bash scripts/checks/docs_screenshot.sh            # build (offline, -W) if needed, then shoot
#   bash scripts/checks/docs_screenshot.sh --rebuild  # build again first
#   HTML=/tmp/docs38 bash scripts/checks/docs_screenshot.sh   # shoot a site built elsewhere
#
# The window is 1280 x 900, a laptop's first screen: a table whose last column ("rule", "why they
# differ") is cut there is a bug (docs/_static/bdpsim.css wraps them). TALL=1 shoots 1280 x 2400.
#
# Needs Debian's chromium (apt-get install -y chromium). MathJax ships with the site
# (docs/_static/mathjax): the formulas render offline.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=$PWD/docs/_build/screenshots  # absolute: chromium does not write relative paths where expected
HTML=${HTML:-docs/_build/screenshot-html}
HEIGHT=$([ "${TALL:-0}" = 1 ] && echo 2400 || echo 900)
BROWSER=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$BROWSER" ]; then
  echo "docs_screenshot: no chromium (apt-get install -y chromium)" >&2
  exit 2
fi
if [ "${1:-}" = "--rebuild" ] || [ ! -f "$HTML/index.html" ]; then
  python -m sphinx -W -q -b html docs "$HTML"
fi
mkdir -p "$OUT"
case "$HTML" in /*) ;; *) HTML=$PWD/$HTML ;; esac
for page in index getting-started user/index user/estimators user/commands reference/config-keys \
            reference/columns reference/api theory/window findings gallery auto_examples/index \
            auto_examples/tutorials/plot_1_time_series auto_examples/tutorials/plot_2_bayesnet_calibration \
            auto_examples/tutorials/plot_3_thesis_figure auto_examples/tutorials/plot_4_audit \
            developer/index developer/adding-a-kind changelog citing; do
  name=$(echo "$page" | tr / -)
  "$BROWSER" --headless --no-sandbox --disable-gpu --hide-scrollbars --allow-file-access-from-files \
    --virtual-time-budget=30000 --window-size=1280,$HEIGHT \
    --screenshot="$OUT/$name.png" "file://$HTML/$page.html" >/dev/null 2>&1
  echo "$OUT/$name.png"
done
