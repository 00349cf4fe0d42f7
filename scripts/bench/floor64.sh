#!/usr/bin/env bash
# floor64.sh [N] [TERRAFORM]: issue 28 item 3's 64-SU case. A floor of 64 scalable units
# (2,048 DGX H100, 16,384 GPUs; the generator's own cabling, written by floorgen as ibnetdiscover
# text) read, fitted and grown to 96 SU (floor64/with-floor), against the same 96-SU design
# planned without the floor (floor64/without); N pairs (default 7) of whole `terraform plan`
# process trees, with the provider built from this checkout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
n=${1:-7}; tf=${2:-terraform}
work=${BENCH_DIR:-$(mktemp -d)}
go -C "$repo" build -o "$work/bin/terraform-provider-gpucluster" .
floor=$here/floor64/floor/ibnetdiscover.out
if [ ! -s "$floor" ]; then
  mkdir -p "$(dirname "$floor")"
  go -C "$repo" run ./scripts/bench/floorgen -sus 64 -planned 96 >"$floor"
fi
printf 'provider_installation {\n  dev_overrides {\n    "gpucluster/gpucluster" = "%s"\n  }\n  direct {}\n}\n' "$work/bin" >"$work/dev.tfrc"
export TF_CLI_CONFIG_FILE=$work/dev.tfrc
"$here/paired.sh" "$n" "$tf -chdir=$here/floor64/with-floor plan -lock=false -input=false -no-color" \
  "$tf -chdir=$here/floor64/without plan -lock=false -input=false -no-color"
