#!/usr/bin/env bash
# superpod.sh [N] [TERRAFORM]: issue 28 item 3's per-item case. The superpod example's per-item
# nodes and HCAs (examples/clusters/superpod-4su) applied at 4 SU and planned at 8 SU, against the
# same configuration with terraform_data in place of gpucluster_node and gpucluster_hca
# (superpod/terraform-data.tf); N pairs (default 7) of whole `terraform plan` process trees.
# The configurations are written from the example (superpod/prepare.py), so they follow it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
n=${1:-7}; tf=${2:-terraform}
work=${BENCH_DIR:-$(mktemp -d)}
go -C "$repo" build -o "$work/bin/terraform-provider-gpucluster" .
printf 'provider_installation {\n  dev_overrides {\n    "gpucluster/gpucluster" = "%s"\n  }\n  direct {}\n}\n' "$work/bin" >"$work/dev.tfrc"
export TF_CLI_CONFIG_FILE=$work/dev.tfrc
python3 "$here/superpod/prepare.py" "$repo" "$work"
for d in per-item terraform-data; do
  [ -f "$work/$d/terraform.tfstate" ] || "$tf" -chdir="$work/$d" apply -auto-approve -input=false -no-color -var su=4 >"$work/$d/apply.log"
done
"$here/paired.sh" "$n" "$tf -chdir=$work/per-item plan -lock=false -input=false -no-color -var su=8" \
  "$tf -chdir=$work/terraform-data plan -lock=false -input=false -no-color -var su=8"
echo "plans and states in $work"
