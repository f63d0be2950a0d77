#!/usr/bin/env bash
# Copies the screenshots docs/console.md shows from the console's browser test into docs/, made small
# (a palette of 256 colours where ImageMagick is installed: the console's flat colours survive it).
# Run the test first:
#   npm run test:console && scripts/console-screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."
shots=test-output/console/readme
[[ -d $shots ]] || { echo "no $shots: run test/console/console.e2e.spec.ts first" >&2; exit 1; }
for shot in "$shots"/*.png; do
  name=$(basename "$shot")
  # Without a working ImageMagick (a stand-in may answer to the name), as the browser wrote it.
  convert "$shot" -strip -colors 256 "PNG8:docs/$name" 2> /dev/null || cp "$shot" "docs/$name"
  printf '%s %s bytes\n' "docs/$name" "$(stat -c %s "docs/$name")"
done
