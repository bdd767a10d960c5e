#!/usr/bin/env bash
# Render the HTML report of the committed multi-run callchain recordings
# (testdata/raw/*-g.perf.data.gz) in headless Chromium, check the DOM after
# the page's script ran (chart, table, flame graph, the script's filter bar),
# check Chromium's net log for any request the page started (with a control
# page that does fetch, to prove the check sees requests), check that every
# flame graph frame's painted fill agrees with its mark (red or blue only
# for `*`, grey for `~` and untested; in -o html and in -o flamegraph, with
# a control page whose frames are all painted red), and save the
# screenshot docs/reference.md shows, docs/report.png.
#
# usage: scripts/browser-check.sh            (needs `chromium`: apt-get install chromium)
# The checks themselves are the tests html::browser_check_in_headless_chromium
# and html::flame_colours_agree_with_marks_in_headless_chromium in
# tests/html.rs; `cargo test` runs it too, skips it when chromium is missing,
# and fails then under CI=true (.ci/run installs chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null; then
    echo "browser-check: chromium is not on PATH (apt-get install chromium)" >&2
    exit 2
fi
out=$(cargo test --test main -- --exact --nocapture \
      html::browser_check_in_headless_chromium \
      html::flame_colours_agree_with_marks_in_headless_chromium 2>&1) || {
    echo "$out" >&2
    exit 1
}
echo "$out" | grep -E 'browser check|SKIPPED|test result|^(html|flamegraph): ' >&2
mkdir -p docs
if command -v pngquant >/dev/null; then
    # Palette PNG: a third of the size, same look.
    pngquant --quality=60-85 --speed 1 --strip --force --output docs/report.png target/browser-check/report.png
else
    cp target/browser-check/report.png docs/report.png
fi
echo "browser-check: ok; DOM in target/browser-check/dom.html, screenshot docs/report.png ($(wc -c < docs/report.png) bytes)" >&2
