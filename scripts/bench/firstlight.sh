#!/usr/bin/env bash
# firstlight.sh [N] [TERRAFORM]: issue 29 item 7. The 2,048-node fat tree of
# examples/clusters/large-fabric (16,384 HCAs) with its floor read from a snapshot (the
# generator's cabling under the floor's own names and GUIDs, with one swap: lightfloor) and
# validated in the same plan (firstlight/with-validation), against the same design planned
# without it (firstlight/without); N pairs (default 7) of whole `terraform plan` process trees,
# with the provider built from this checkout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
n=${1:-7}; tf=${2:-terraform}
work=${BENCH_DIR:-$(mktemp -d)}
go -C "$repo" build -o "$work/bin/terraform-provider-gpucluster" .
floor=$here/firstlight/floor/ibnetdiscover.out
if [ ! -s "$floor" ]; then
  mkdir -p "$(dirname "$floor")"
  go -C "$repo" run ./scripts/bench/lightfloor >"$floor"
fi
printf 'provider_installation {\n  dev_overrides {\n    "gpucluster/gpucluster" = "%s"\n  }\n  direct {}\n}\n' "$work/bin" >"$work/dev.tfrc"
export TF_CLI_CONFIG_FILE=$work/dev.tfrc
"$here/paired.sh" "$n" "$tf -chdir=$here/firstlight/with-validation plan -lock=false -input=false -no-color" \
  "$tf -chdir=$here/firstlight/without plan -lock=false -input=false -no-color"
