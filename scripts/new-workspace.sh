#!/usr/bin/env bash
# Creates the boilerplate of one workspace package: package.json, tsconfig.json, src/index.ts.
# Usage: scripts/new-workspace.sh <dir> <npm name> "<one-line description>" [referenced dir ...]
set -euo pipefail
dir=$1; name=$2; desc=$3; shift 3
mkdir -p "$dir/src"
rel=$(realpath --relative-to="$dir" .)
if [ ! -f "$dir/package.json" ]; then
cat > "$dir/package.json" <<JSON
{
  "name": "$name",
  "version": "0.1.0",
  "private": true,
  "type": "module",
  "description": "$desc",
  "exports": {
    ".": "./src/index.ts"
  }
}
JSON
fi
refs=""
for r in "$@"; do refs="$refs{ \"path\": \"$(realpath --relative-to="$dir" "$r")\" },"; done
refs=${refs%,}
cat > "$dir/tsconfig.json" <<JSON
{
  "extends": "$rel/tsconfig.base.json",
  "compilerOptions": { "rootDir": "src", "outDir": "dist" },
  "include": ["src"],
  "references": [$refs]
}
JSON
[ -f "$dir/src/index.ts" ] || echo "// $desc" > "$dir/src/index.ts"
