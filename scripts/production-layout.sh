#!/usr/bin/env bash
# Lays out in $1 exactly what the Dockerfile's runtime stage holds — runtime dependencies from
# `npm ci --omit=dev`, the contracts, the generated code, the migrations, the compiled dist/ and the
# runtime workspace package (packages/contract-registry: its package.json and dist/; the gate's
# package.json alone, as npm ci needs every workspace's) — so that
# CI can prove the image's steps where no container engine runs. Needs `npm run build` done first.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: production-layout.sh <empty directory>}
mkdir -p "$target/src/store"
cp package.json package-lock.json "$target/"
cp -r contracts generated dist "$target/"
cp -r src/store/migrations "$target/src/store/"
mkdir -p "$target/packages/contract-registry" "$target/packages/contract-gate"
cp -r packages/contract-registry/package.json packages/contract-registry/dist "$target/packages/contract-registry/"
cp packages/contract-gate/package.json "$target/packages/contract-gate/"
(cd "$target" && npm ci --omit=dev --no-audit --no-fund --loglevel=error)
