#!/usr/bin/env bash
# Look at the built documentation as a reader would: headless Chromium screenshots of the main
# pages, into docs/_build/screenshots/*.png (open them in an image viewer).
#
#   bash scripts/docs_screenshot.sh            # build (offline, -W) if needed, then shoot
#   bash scripts/docs_screenshot.sh --rebuild  # build again first
#
# Needs Debian's chromium (apt-get install -y chromium). MathJax: the site loads it from its CDN;
# offline, install libjs-mathjax and the build here points the pages at the local copy.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=docs/_build/screenshots
HTML=docs/_build/screenshot-html
BROWSER=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$BROWSER" ]; then
  echo "docs_screenshot: no chromium (apt-get install -y chromium)" >&2
  exit 2
fi
if [ -f /usr/share/javascript/mathjax/MathJax.js ]; then
  export BDPSIM_DOCS_MATHJAX="file:///usr/share/javascript/mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML"
fi
if [ "${1:-}" = "--rebuild" ] || [ ! -f "$HTML/index.html" ]; then
  python -m sphinx -W -q -b html docs "$HTML"
fi
mkdir -p "$OUT"
for page in index getting-started user/estimators reference/config-keys reference/columns \
            theory/window findings gallery auto_examples/plot_exact_vs_bounds developer/adding-a-kind \
            reference/generated/bdpsim.models.markov_window changelog citing; do
  name=$(echo "$page" | tr / -)
  "$BROWSER" --headless --no-sandbox --disable-gpu --hide-scrollbars --allow-file-access-from-files \
    --virtual-time-budget=30000 --window-size=1280,2000 \
    --screenshot="$OUT/$name.png" "file://$PWD/$HTML/$page.html" >/dev/null 2>&1
  echo "$OUT/$name.png"
done
