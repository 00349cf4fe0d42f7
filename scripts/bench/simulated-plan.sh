#!/usr/bin/env bash
# simulated-plan.sh BEFORE_COMMIT [N]: issue 28 item 5. `terraform plan` (with refresh) of the
# simulated cluster (`make demo-up`, which must be up) with the provider built at BEFORE_COMMIT
# against the provider of this checkout, each in its own working directory with its own state
# (applied first), the same configuration (BEFORE_COMMIT's examples/clusters/simulated, which
# both providers take) and the variables `make demo-up` wrote; N pairs (default 6).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
before=$1; n=${2:-6}
work=${BENCH_DIR:-$(mktemp -d)}
demo=$repo/bin/demo/work
[ -f "$demo/terraform.tfvars.json" ] || { echo "make demo-up first" >&2; exit 1; }
git -C "$repo" worktree add --detach "$work/src" "$before" >/dev/null
trap 'git -C "$repo" worktree remove --force "$work/src"' EXIT
go -C "$work/src" build -o "$work/before-bin/terraform-provider-gpucluster" .
go -C "$repo" build -o "$work/after-bin/terraform-provider-gpucluster" .
for side in before after; do
  mkdir -p "$work/$side"
  cp "$demo"/*.json "$work/$side/"
  cp "$work/src/examples/clusters/simulated/main.tf" "$work/$side/"
  printf 'provider_installation {\n  dev_overrides {\n    "gpucluster/gpucluster" = "%s"\n  }\n  direct {}\n}\n' "$work/$side-bin" >"$work/$side.tfrc"
  [ -f "$work/$side/terraform.tfstate" ] || TF_CLI_CONFIG_FILE=$work/$side.tfrc terraform -chdir="$work/$side" apply -auto-approve -input=false -no-color >"$work/$side/apply.log"
done
"$here/paired.sh" "$n" "TF_CLI_CONFIG_FILE=$work/after.tfrc terraform -chdir=$work/after plan -input=false -no-color" \
  "TF_CLI_CONFIG_FILE=$work/before.tfrc terraform -chdir=$work/before plan -input=false -no-color"
echo "A = this checkout, B = $before; states in $work"
