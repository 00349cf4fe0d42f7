#!/usr/bin/env bash
# plan-gate.sh: the gpucluster policy gate of an infrastructure pull request.
#
# Runs `terraform plan` on a Terraform configuration that holds gpucluster_fabric resources, fails
# (exit 1) when the plan fails (a policy violation is an error diagnostic of the fabric, so it fails
# the plan), and writes a Markdown summary for the reviewer:
#   - the verdict (PASS, or FAIL with the number of policy violations or plan errors),
#   - the violations and other errors, from the plan's own diagnostics (`terraform plan -json`),
#     so they are reported even when the plan fails and there is no plan file,
#   - the purchase order per SKU of each fabric, new (no prior state: everything is bought) or
#     changed, from `bom` before and after in `terraform show -json` (bom.items is keyed by SKU),
#     or, when the plan failed and there is no plan file, from the Buy/Free lines of the fabric's
#     plan summary (the same numbers; a policy error also names the nearest settings that pass),
#   - the links added, removed and rewired per tier, and the diff of each OpenSM file the plan
#     changes, from the fabric's plan summary (a warning diagnostic titled "Fabric plan summary").
# Amounts are written as the summary writes them: USD with thousands separators and cents.
#
# Usage: plan-gate.sh [-chdir=DIR] [-summary=FILE] [-- extra terraform plan arguments]
#   -chdir    the Terraform working directory (default: .)
#   -summary  where to write the Markdown (default: $GITHUB_STEP_SUMMARY, else plan-summary.md);
#             the summary is appended to, as GitHub Actions expects of $GITHUB_STEP_SUMMARY.
# Environment: TERRAFORM (the terraform binary, default terraform). Needs bash and jq.
# Leaves tfplan (the plan file, when the plan succeeded), plan.jsonl and plan.json in DIR.
set -uo pipefail

dir=.
summary="${GITHUB_STEP_SUMMARY:-plan-summary.md}"
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    -chdir=*) dir="${1#-chdir=}" ;;
    -summary=*) summary="${1#-summary=}" ;;
    --) shift; extra=("$@"); break ;;
    *) echo "plan-gate: unknown argument $1 (see the top of $0)" >&2; exit 2 ;;
  esac
  shift
done
tf="${TERRAFORM:-terraform}"
command -v jq >/dev/null || { echo "plan-gate: jq is required" >&2; exit 2; }

rm -f "$dir/tfplan" "$dir/plan.json"
"$tf" -chdir="$dir" plan -input=false -lock-timeout=60s -json -out=tfplan "${extra[@]}" >"$dir/plan.jsonl"
rc=$?
# Terraform saves a failed plan too (for `terraform show`); it must never be applied.
[ "$rc" -eq 0 ] || rm -f "$dir/tfplan"

# The diagnostics of the plan, one JSON object each.
diags() { jq -c 'select(.type == "diagnostic") | .diagnostic' "$dir/plan.jsonl"; }
# summaries prints each fabric's plan summary as "<fabric>\t<line>", one line each.
summaries() {
  diags | jq -r 'select(.severity == "warning" and (.summary | startswith("Fabric plan summary")))
    | (.address // (.summary | sub("^Fabric plan summary ?"; ""))) as $who
    | .detail | split("\n")[] | "\($who)\t\(.)"'
}
nviol=$(diags | jq -s '[.[] | select(.severity == "error" and (.summary | startswith("Policy violation")))] | length')
nerr=$(diags | jq -s '[.[] | select(.severity == "error")] | length')

if [ "$rc" -eq 0 ]; then
  verdict="PASS"
elif [ "$nviol" -gt 0 ]; then
  verdict="FAIL: $nviol policy violation$([ "$nviol" -eq 1 ] || echo s)"
elif [ "$nerr" -gt 0 ]; then
  verdict="FAIL: $nerr plan error$([ "$nerr" -eq 1 ] || echo s)"
else
  verdict="FAIL: terraform plan exited with status $rc"
fi

{
  echo "## Fabric plan gate: $verdict"
  echo

  # Violations and errors, also when there is no plan file.
  if [ "$nerr" -gt 0 ]; then
    echo "### Violations and errors"
    echo
    echo "| | Rule | Where | What |"
    echo "|---|---|---|---|"
    diags | jq -r 'select(.severity == "error")
      | (.summary | sub("^Policy violation: "; "")) as $rule
      | [ (if (.summary | startswith("Policy violation")) then "policy" else "error" end),
          $rule,
          ((.address // "") + (if .attribute then " `" + (.attribute | tostring) + "`" else "" end)),
          (.detail | ltrimstr($rule + ": ") | gsub("\\|"; "\\|") | gsub("\n"; " ")) ]
      | "| " + join(" | ") + " |"'
    echo
  fi
  adv=$(diags | jq -r 'select(.severity == "warning" and (.summary | startswith("Policy advice")))
      | (.summary | sub("^Policy advice: "; "")) as $rule
      | "- **" + $rule + "**: " + (.detail | ltrimstr($rule + ": ") | gsub("\n"; " "))')
  if [ -n "$adv" ]; then
    echo "### Policy advice"
    echo
    echo "$adv"
    echo
  fi

  # Purchase order per SKU, from bom before and after in the plan.
  if [ "$rc" -eq 0 ] && "$tf" -chdir="$dir" show -json tfplan >"$dir/plan.json"; then
    orders=$(jq -r '
      def commas: if . < 0 then "-" + (- . | commas) else tostring | explode | reverse | [_nwise(3) | reverse | implode] | reverse | join(",") end;
      def money: if . == null then "unpriced" else (. * 100 | round) as $c | ($c | fabs) as $a
        | (if $c < 0 then "-" else "" end) + ($a / 100 | floor | commas) + "." + ($a % 100 | tostring | if length < 2 then "0" + . else . end) end;
      .resource_changes[]? | select(.type == "gpucluster_fabric" and (.change.actions | index("delete") | not))
      | . as $rc
      | ($rc.change.before.bom.items // {}) as $b
      | ($rc.change.after.bom.items // null) as $a
      | if $a == null then "#### `\($rc.address)`\n\nThe bill of materials is known only after apply.\n"
        else
          ([$b, $a] | map(keys) | add | unique
            | map(. as $k | {sku: $k,
                desc: ($a[$k].description // $b[$k].description),
                before: ($b[$k].quantity // 0), after: ($a[$k].quantity // 0),
                price: ($a[$k].unit_price // $b[$k].unit_price)})
            | map(select(.before != .after))) as $lines
          | if ($lines | length) == 0 then empty
            else "#### `\($rc.address)`\n\n| SKU | Description | Before | After | Change | Unit price (USD) | Cost (USD) |\n|---|---|---:|---:|---:|---:|---:|\n"
              + ($lines | map("| `\(.sku)` | \(.desc) | \(.before | commas) | \(.after | commas) | \(if .after > .before then "+" else "" end)\(.after - .before | commas) | \(.price | money) | \(if .price == null then "unpriced" else ((.after - .before) * .price | money) end) |") | join("\n"))
              + "\n\n**Priced total:** USD " + ([$lines[] | select(.price != null) | (.after - .before) * .price] | add // 0 | money) + "\n"
            end
        end' "$dir/plan.json")
    echo "### Purchase order"
    echo
    if [ -n "$orders" ]; then echo "$orders"; else echo "No SKU changes quantity."; fi
    echo
  elif [ "$rc" -ne 0 ]; then
    # No plan file: the summary's Buy/Free lines carry the same order (internal/plan/summary.go),
    # in two forms: a change, "Buy: +16 switch 920-9B210-00FN-0M0 (32 -> 48) USD 1,360,000.00",
    # and a new fabric (no prior state), "Buy: 40 node DGXH-G640F+P2EDI36 unpriced", whose
    # counts are the totals (before 0). The cost is the last field ("unpriced") or the last two
    # ("USD 1,360,000.00", "-USD 170,000.00"); the SKU is what lies between the category and
    # the counts or the cost.
    orders=$(summaries | awk -F'\t' '
      $2 ~ /^(Buy|Free): [+-]?[0-9,]+ [^ ]+ / {
        if (!($1 in seen)) { seen[$1] = 1; printf "#### `%s`\n\n| SKU | Category | Before | After | Change | Cost |\n|---|---|---:|---:|---:|---:|\n", $1 }
        n = split($2, f, " ")
        paren = 0
        for (i = 5; i <= n; i++) if (f[i] ~ /^\([0-9,]+$/ && f[i + 1] == "->" && f[i + 2] ~ /^[0-9,]+\)$/) { paren = i; break }
        if (paren) {
          skuEnd = paren - 1; before = substr(f[paren], 2); after = substr(f[paren + 2], 1, length(f[paren + 2]) - 1); change = f[2]
          costFrom = paren + 3
        } else {
          costFrom = (f[n] == "unpriced") ? n : n - 1
          skuEnd = costFrom - 1; before = 0; after = f[2]; change = (f[2] ~ /^[+-]/) ? f[2] : "+" f[2]
        }
        sku = f[4]; for (i = 5; i <= skuEnd; i++) sku = sku " " f[i]
        cost = f[costFrom]; for (i = costFrom + 1; i <= n; i++) cost = cost " " f[i]
        printf "| `%s` | %s | %s | %s | %s | %s |\n", sku, f[3], before, after, change, cost }
      $2 ~ /^Order total/ && ($1 in seen) { printf "\n**%s**\n\n", $2 }')
    echo "### Purchase order"
    echo
    if [ -n "$orders" ]; then
      echo "The plan failed, so there is no plan file; this order is the fabric's plan summary."
      echo
      echo "$orders"
    else
      echo "The plan failed before any fabric could be priced (see the errors above), so there is no bill of materials to read."
    fi
    echo
  fi

  # Links per tier, from each fabric's plan summary.
  tiers=$(diags | jq -r 'select(.severity == "warning" and (.summary | startswith("Fabric plan summary")))
      | (.address // (.summary | sub("^Fabric plan summary ?"; ""))) as $who
      | .detail | split("\n")[]
      | capture("^Links (?<tier>[^:]+): (?<a>[0-9,]+) added, (?<r>[0-9,]+) removed, (?<w>[0-9,]+) rewired")
      | "| `\($who)` | \(.tier) | \(.a) | \(.r) | \(.w) |"')
  echo "### Links per tier"
  echo
  if [ -n "$tiers" ]; then
    echo "| Fabric | Tier | Added | Removed | Rewired |"
    echo "|---|---|---:|---:|---:|"
    echo "$tiers"
  else
    echo "No link is added, removed or rewired."
  fi
  echo
  # The OpenSM files each fabric's plan changes, with their diffs (the summary's indented lines
  # under "OpenSM files:").
  osm=$(summaries | awk -F'\t' '
    $2 ~ /^OpenSM files: / { who = $1; printf "#### `%s`: %s\n\n```diff\n", who, substr($2, 15); open = 1; next }
    open && $1 == who && $2 ~ /^  / { print substr($2, 3); next }
    open { print "```\n"; open = 0 }
    END { if (open) print "```\n" }')
  if [ -n "$osm" ]; then
    echo "### OpenSM files"
    echo
    echo "$osm"
    echo
  fi
  diags | jq -r 'select(.severity == "warning" and (.summary | startswith("Fabric plan summary")))
      | "<details><summary>" + .summary + "</summary>\n\n```\n" + .detail + "\n```\n</details>\n"'
} >>"$summary"

echo "plan-gate: $verdict (summary in $summary)"
[ "$rc" -eq 0 ] || exit 1
