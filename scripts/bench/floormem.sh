#!/usr/bin/env bash
# floormem.sh [N] [BEFORE] [TERRAFORM]: issue 32 point 5's memory of a valid floor. The largest
# floor the generator makes (256 SU, 65,536 endpoints) is written twice by floorgen, as ibsim's
# net file (17.5 MB, what expected_topology holds) and as ibnetdiscover prints it (34 MB; and
# the same after comment lines up to the 64 MiB cap of a topology file), and
# read by `terraform plan` of floormem/main.tf (gpucluster_discovered_fabric from topology_file,
# through the floor record). Each provider process runs under /usr/bin/time -v (a wrapper in the
# dev_overrides directory), so the figure is the provider's own peak RSS, not Terraform's; the
# process that read the floor is the one with the largest. With BEFORE (a commit), the provider
# built at BEFORE and this checkout's run in turn, B A B A ..., N times each (default 3) after a
# warm-up, and the medians are printed per floor.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
n=${1:-3}; before=${2:-}; tf=${3:-terraform}
work=${BENCH_DIR:-$(mktemp -d)}
mkdir -p "$work/floors"
[ -s "$work/floors/f256.net" ] || go -C "$repo" run ./scripts/bench/floorgen -sus 256 >"$work/floors/f256.net"
[ -s "$work/floors/f256.ibn" ] || go -C "$repo" run ./scripts/bench/floorgen -sus 256 -format ibnetdiscover >"$work/floors/f256.ibn"
# The same floor at the topology file's cap (64 MiB): comment lines, as ibnetdiscover prints at
# its head, before it. The text is all read and sent back as topology; the floor is the same.
if [ ! -s "$work/floors/f256-64mib.ibn" ]; then
  pad=$(( (64 << 20) - 4096 - $(stat -c %s "$work/floors/f256.ibn") ))
  { awk -v n="$pad" 'BEGIN { l = "# padding: comment lines, as ibnetdiscover prints at its head, to the 64 MiB file cap"
      for (s = 0; s + length(l) + 1 <= n; s += length(l) + 1) print l }'
    cat "$work/floors/f256.ibn"; } >"$work/floors/f256-64mib.ibn"
fi
build() { # side source-dir
  mkdir -p "$work/$1/bin"
  go -C "$2" build -o "$work/$1/real" .
  printf '#!/bin/sh\nexec /usr/bin/time -v -o "$FLOORMEM_LOG.$$" "%s" "$@"\n' "$work/$1/real" >"$work/$1/bin/terraform-provider-gpucluster"
  chmod +x "$work/$1/bin/terraform-provider-gpucluster"
  printf 'provider_installation {\n  dev_overrides {\n    "gpucluster/gpucluster" = "%s"\n  }\n  direct {}\n}\n' "$work/$1/bin" >"$work/$1/dev.tfrc"
}
sides=after
build after "$repo"
if [ -n "$before" ]; then
  rm -rf "$work/src-before"; mkdir -p "$work/src-before"
  git -C "$repo" archive "$before" | tar -x -C "$work/src-before"
  build before "$work/src-before"
  sides="before after"
fi
run() { # side floor simulated -> "rss_kb cpu_s" of the provider process with the largest RSS
  rm -f "$work/log".*
  FLOORMEM_LOG=$work/log TF_CLI_CONFIG_FILE=$work/$1/dev.tfrc "$tf" -chdir="$here/floormem" plan -lock=false \
    -input=false -no-color -var "topology_file=$work/floors/$2" -var "simulated=$3" >"$work/out" 2>&1 ||
    { cat "$work/out" >&2; exit 1; }
  grep -q 'Changes to Outputs\|No changes' "$work/out" || { cat "$work/out" >&2; exit 1; }
  for f in "$work/log".*; do
    awk -F': ' '/Maximum resident set size/{m=$2} /User time/{u=$2} /System time/{s=$2} END{printf "%d %.2f\n", m, u+s}' "$f"
  done | sort -n | tail -1
}
med() { sort -n | awk '{v[NR]=$1} END{print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
for floor in "f256.net true" "f256.ibn false" "f256-64mib.ibn false"; do
  set -- $floor
  size=$(stat -c %s "$work/floors/$1")
  for s in $sides; do run "$s" "$1" "$2" >/dev/null; done
  : >"$work/results"
  for i in $(seq "$n"); do
    for s in $sides; do
      r=$(run "$s" "$1" "$2")
      echo "$1 $s run $i: peak RSS $(echo "$r" | awk '{printf "%.1f MiB", $1/1024}'), cpu $(echo "$r" | awk '{print $2}') s"
      echo "$s $r" >>"$work/results"
    done
  done
  for s in $sides; do
    rss=$(awk -v s="$s" '$1==s{print $2}' "$work/results" | med)
    cpu=$(awk -v s="$s" '$1==s{print $3}' "$work/results" | med)
    echo "median $1 ($size bytes) $s (n=$n): peak RSS $(awk -v r="$rss" 'BEGIN{printf "%.1f MiB", r/1024}'), $(awk -v r="$rss" -v z="$size" 'BEGIN{printf "%.2f", r*1024/z}') bytes per byte; provider cpu $cpu s"
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
