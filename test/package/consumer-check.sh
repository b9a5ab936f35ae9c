#!/usr/bin/env bash
# Consumer check: build (the checkout's own `npx toolgraph` must then run), pack the package, install the
# tarball into an empty folder without dev dependencies, then (a) a plain .mjs program uses the library end
# to end, (b) a TypeScript file type-checks against the shipped .d.ts (NodeNext, strict), (c) the installed
# CLI runs `--help`, `--version` and `demo`.
# Prints the tarball size and the installed size; with CONSUMER_REPORT=FILE also writes them as JSON.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
REPORT="${CONSUMER_REPORT:+$(realpath -m "$CONSUMER_REPORT")}"
FIX="$ROOT/test/package/fixtures"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

cd "$ROOT"
npm run build --silent
# The checkout's own command right after a build (tsc writes bin.js 0644; src/cli/build-bin.mjs fixes it).
test -x dist/src/cli/bin.js || { echo "FAIL: the build left dist/src/cli/bin.js without the execute bit" >&2; exit 1; }
npx --no-install toolgraph --version | grep -q "^toolgraph " || { echo "FAIL: npx toolgraph does not run in the checkout after a build" >&2; exit 1; }
TARBALL="$(npm pack --silent --pack-destination "$WORK" | tail -1)"
TGZ="$WORK/$TARBALL"
TARBALL_BYTES=$(stat -c %s "$TGZ")

APP="$WORK/app"
mkdir -p "$APP"
cd "$APP"
echo '{ "name": "consumer", "version": "1.0.0", "private": true, "type": "module" }' > package.json
npm install --omit=dev --no-audit --no-fund --loglevel=error "$TGZ"
test ! -e node_modules/tsx || { echo "FAIL: tsx was installed as a runtime dependency" >&2; exit 1; }
test ! -e node_modules/typescript || { echo "FAIL: typescript was installed as a runtime dependency" >&2; exit 1; }
INSTALLED_BYTES=$(du -sb node_modules | cut -f1)
PACKAGE_BYTES=$(du -sb node_modules/toolgraph | cut -f1)

# (a) the library from plain JavaScript
cp "$FIX/consumer.mjs" .
DATABASE_URL= node consumer.mjs

# (b) the shipped types, as a strict NodeNext TypeScript project sees them
cp "$FIX/consumer.ts" .
cat > tsconfig.json <<JSON
{
  "compilerOptions": {
    "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true,
    "noEmit": true, "skipLibCheck": true, "types": ["node"], "typeRoots": ["$ROOT/node_modules/@types"]
  },
  "files": ["consumer.ts"]
}
JSON
"$ROOT/node_modules/.bin/tsc" -p tsconfig.json
echo "consumer.ts ok: type-checks against the shipped .d.ts"

# (c) the installed CLI
npx --no-install toolgraph --help | grep -q "usage: toolgraph COMMAND"
npx --no-install toolgraph --version | grep -q "$(node -p "require('$ROOT/package.json').version")"
TOOLGRAPH_EMBEDDINGS=hash:256 DATABASE_URL= npx --no-install toolgraph demo --home "$WORK/home" --traces 200 > demo.txt
grep -q "== search" demo.txt || { cat demo.txt; echo "FAIL: demo printed no search section" >&2; exit 1; }
echo "cli ok: --help, --version, demo"

echo "tarball $TARBALL: $TARBALL_BYTES bytes; installed node_modules: $INSTALLED_BYTES bytes (toolgraph itself: $PACKAGE_BYTES)"
if [ -n "$REPORT" ]; then
  node -e '
    const [file, tarball, tb, ib, pb] = process.argv.slice(1);
    const os = require("node:os");
    require("node:fs").writeFileSync(file, JSON.stringify({
      bench: "package", command: "CONSUMER_REPORT=bench/results/package.json test/package/consumer-check.sh",
      date: new Date().toISOString(), machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, node: process.version, load: os.loadavg() },
      tarball, tarballBytes: Number(tb), installedBytes: Number(ib), packageBytes: Number(pb),
    }, null, 2) + "\n");
  ' "$REPORT" "$TARBALL" "$TARBALL_BYTES" "$INSTALLED_BYTES" "$PACKAGE_BYTES"
fi
