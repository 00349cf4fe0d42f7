# Custom policy rules for gpucluster_fabric, read through `policy_files`:
#
#   policy_files = ["${path.module}/policies/fabric.hcl"]
#
# Each `rule` block is judged at plan time, the way Terraform judges a precondition: a condition
# that is false fails the plan (severity "error", the default) or warns (severity "warning"),
# with the rule's name, file:line and error_message, followed for an alltrue([for ...]) condition
# by the elements that fail. Conditions see two variables, `fabric` (switches, tiers, endpoints,
# links, racks) and `analysis` (the fabric's computed `analysis` attribute).

# Training traffic crosses the spines: a leaf must send up as much as it receives from below.
rule "leaf-uplinks" {
  condition     = alltrue([for s in fabric.switches : s.up_gbps >= s.down_gbps if s.role == "leaf"])
  error_message = "Every leaf needs as much bandwidth up as down (1:1)."
}

# A two-tier fat tree takes 2 switch-to-switch links at worst, a three-tier one 4.
rule "switch-hops" {
  condition     = analysis.max_switch_hops <= 4
  error_message = "No endpoint path may cross more than 4 switch-to-switch links."
}

# allreduce_seconds is null without a `workload`: try() makes the rule pass then.
rule "allreduce-budget" {
  condition     = try(analysis.allreduce_seconds.ring <= 30, true)
  error_message = "A gradient all-reduce must take at most 30 s on this fabric."
}

# Room on the top tier for the next scalable unit; a warning, not an error.
rule "spine-room" {
  condition     = alltrue([for s in fabric.switches : s.free_ports >= 0.25 * s.ports if s.tier == "spine"])
  error_message = "Every spine should keep a quarter of its ports free for growth."
  severity      = "warning"
}
