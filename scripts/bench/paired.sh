#!/usr/bin/env bash
# paired.sh N 'COMMAND A' 'COMMAND B': runs A and B in turn (A B A B ...) N times after one
# warm-up each, each under /usr/bin/time -v (the whole process tree: terraform waits for its
# provider plugins, so their CPU is counted), and prints per pair the CPU (user+sys) and wall
# seconds of A and B and their ratios, then the medians of A, B and of the pair ratios.
# The machine may be shared: the median of the pair ratios is the figure to quote. Each pair is
# printed as soon as it is measured (a run of long plans takes a while).
set -euo pipefail
n=$1 a=$2 b=$3
tv=$(mktemp) out=$(mktemp) pairs=$(mktemp)
trap 'rm -f "$tv" "$out" "$pairs"' EXIT
run() { # command -> "cpu wall"
  /usr/bin/time -v -o "$tv" bash -c "$1" >"$out" 2>&1 || true
  awk -F': ' '/User time/{u=$2} /System time/{s=$2} /Elapsed/{w=$2} END{n=split(w,p,":"); t=0; for(i=1;i<=n;i++) t=t*60+p[i]; printf "%.2f %.2f\n", u+s, t}' "$tv"
}
run "$a" >/dev/null; run "$b" >/dev/null
for i in $(seq "$n"); do
  echo "$(run "$a") $(run "$b")"
done | awk '{printf "pair %d: A cpu %.2f wall %.1f  B cpu %.2f wall %.1f  A/B cpu %.3f wall %.3f\n", NR, $1, $2, $3, $4, $1/$3, $2/$4; fflush()}' | tee "$pairs"
med() { sort -n | awk '{v[NR]=$1} END{print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
col() { awk -v f="$1" '{print $f}' "$pairs" | med; }
echo "medians (n=$n): A cpu $(col 5) s wall $(col 7) s; B cpu $(col 10) s wall $(col 12) s; A/B cpu $(col 15) wall $(col 17)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
