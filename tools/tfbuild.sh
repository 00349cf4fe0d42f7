#!/usr/bin/env bash
# Builds a Terraform or OpenTofu CLI from its Go module, as served by the Go module proxy, and
# prints the path of the binary. Built once per version and kept in a cache directory that
# survives between runs ($GPUCLUSTER_TF_CACHE, else $XDG_CACHE_HOME/gpucluster-tf, else
# ~/.cache/gpucluster-tf); a second call prints the cached path at once.
#
#   tools/tfbuild.sh terraform [VERSION]   default: $TF_NEWEST_VERSION, else 1.16.4
#   tools/tfbuild.sh tofu [VERSION]        default: $TOFU_VERSION, else 1.12.6
#
# Why build: the acceptance tests run against the Terraform the image carries, and the version
# matrix (GNUmakefile, testacc-matrix) also against the newest Terraform and OpenTofu, which CI
# may not download from releases.hashicorp.com or GitHub; the module proxy is what it has.
# The defaults are the newest versions the proxy served when this was written (its version
# list lags: `go list -m -versions github.com/hashicorp/terraform` stops at 1.13.3 while
# v1.14.9 and v1.16.4 resolve).
#
# OpenTofu builds as published. Terraform does not: its go.mod replaces nine remote-state
# backends (azurerm, consul, cos, gcs, kubernetes, oci, oss, pg, s3) and internal/legacy with
# nested modules in its own repository, and the module zip the proxy serves leaves nested
# modules out, so those directories are missing. The recipe below drops them: their imports and
# entries in internal/backend/init/init.go (the only non-test file that imports them) and their
# require/replace lines in go.mod. What remains is the CLI with the local, remote, http, inmem
# and cloud backends: all the tests need. Each edit is checked, so a release that moves the code
# fails here with a message rather than building something else.
set -euo pipefail

tool=${1:?usage: tools/tfbuild.sh terraform|tofu [VERSION]}
case "$tool" in
terraform)
  version=${2:-${TF_NEWEST_VERSION:-1.16.4}}
  module=github.com/hashicorp/terraform
  main=.
  ;;
tofu)
  version=${2:-${TOFU_VERSION:-1.12.6}}
  module=github.com/opentofu/opentofu
  main=./cmd/tofu
  ;;
*)
  echo "tfbuild: unknown tool $tool (want terraform or tofu)" >&2
  exit 2
  ;;
esac
version=${version#v}

cache=${GPUCLUSTER_TF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpucluster-tf}
dest=$cache/$tool-$version
bin=$dest/$tool
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
mkdir -p "$cache"

# One build per version at a time: a second caller waits, then finds the binary.
exec 9>"$cache/.$tool-$version.lock"
flock 9
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi

# The builds must not see the caller's module settings (this repository's GOFLAGS, a go.work).
export GOWORK=off GOFLAGS=-mod=readonly GOTOOLCHAIN=${GOTOOLCHAIN:-local}
work=$(mktemp -d "$cache/.build-$tool-$version.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

started=$(date +%s)
echo "tfbuild: building $tool $version from $module@v$version (once; cached in $dest)" >&2
dir=$(go mod download -json "$module@v$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$dir" ] || {
  echo "tfbuild: the module proxy did not serve $module@v$version" >&2
  exit 1
}
cp -R "$dir" "$work/src"
chmod -R u+w "$work/src"
cd "$work/src"

if [ "$tool" = terraform ]; then
  nested='azure|consul|cos|gcs|kubernetes|oci|oss|pg|s3'
  init=internal/backend/init/init.go
  grep -Eq "internal/backend/remote-state/($nested)\"" "$init" || {
    echo "tfbuild: $init no longer imports the nested backends; update the recipe in $0" >&2
    exit 1
  }
  # Imports (backendS3 "github.com/.../remote-state/s3") and map entries ("s3": func() ...).
  sed -i -E "/^[[:space:]]*backend[A-Za-z0-9]+ \"github.com\/hashicorp\/terraform\/internal\/backend\/remote-state\/($nested)\"$/d" "$init"
  sed -i -E '/^[[:space:]]*"(azurerm|consul|cos|gcs|kubernetes|oss|pg|s3|oci)":[[:space:]]+func\(\) backend.Backend/d' "$init"
  sed -i -E "/github.com\/hashicorp\/terraform\/internal\/(backend\/remote-state\/($nested)|legacy)[[:space:]]/d" go.mod
  if grep -Eq "remote-state/($nested)\"|backend(Azure|Consul|Cos|GCS|Kubernetes|OCI|OSS|Pg|S3)\." "$init" ||
    grep -Eq "internal/(backend/remote-state/($nested)|legacy) " go.mod; then
    echo "tfbuild: the recipe left nested-module references in $init or go.mod; update it in $0" >&2
    exit 1
  fi
fi

# dev=no: a release build, so `version` prints 1.16.4 and not 1.16.4-dev (the version checks of
# terraform-plugin-testing read it).
go build -trimpath -ldflags "-s -w -X $module/version.dev=no" -o "$work/$tool" "$main"
# Without a CLI configuration file: one that is named but missing makes OpenTofu print a warning
# on stdout first.
got=$(env -u TF_CLI_CONFIG_FILE "$work/$tool" version | grep -m1 -E '^(Terraform|OpenTofu) v' || true)
case "$got" in
*" v$version") ;;
*)
  echo "tfbuild: built $tool prints \"$got\", expected v$version" >&2
  exit 1
  ;;
esac
mkdir -p "$dest"
mv "$work/$tool" "$bin.tmp"
mv "$bin.tmp" "$bin"
echo "tfbuild: $got built in $(($(date +%s) - started)) s" >&2
echo "$bin"
