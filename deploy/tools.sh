#!/usr/bin/env bash
# Tools the deploy tests need beyond Python: kustomize, built from the Go module proxy
# (`go install`), into $(go env GOPATH)/bin. Does nothing, quickly, when it is there already.
set -euo pipefail
KUSTOMIZE_VERSION=v5.7.1   # v5.8+ needs Go 1.27

command -v go >/dev/null || { echo "deploy/tools.sh: Go is missing (apt-get install golang-go, or the Go toolchain)" >&2; exit 1; }
bin="$(go env GOPATH)/bin"
if [[ -x "$bin/kustomize" ]] && "$bin/kustomize" version 2>/dev/null | grep -q "$KUSTOMIZE_VERSION"; then
  exit 0
fi
echo "deploy/tools.sh: go install sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION"
GOFLAGS=-mod=mod go install "sigs.k8s.io/kustomize/kustomize/v5@$KUSTOMIZE_VERSION"
