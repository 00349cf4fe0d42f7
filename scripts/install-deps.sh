#!/usr/bin/env bash
# Installs the real peers the demo and the tests run against (internal/testrig starts them):
# OpenSM on an ibsim-simulated fabric, the infiniband-diags, OpenSSH, OpenIPMI's ipmi_sim and
# ipmitool, and mstflint (whose offline parameter database the HCA code was generated from).
# Idempotent; needs root. It builds nothing: the version matrix's Terraform and OpenTofu are
# built by the targets that run them (make tf-matrix, through tools/tfbuild.sh), so that
# `make demo` starts at once on a fresh machine.
set -euo pipefail

packages=(opensm ibsim-utils infiniband-diags ibutils openssh-server openipmi ipmitool mstflint iproute2 sqlite3 slurmctld slurm-client graphviz chromium jq)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: need root to apt-get install ${missing[*]}" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
install -d -m 0755 /run/sshd 2>/dev/null || true

command -v terraform >/dev/null || { echo "install-deps: terraform (>= 1.11) must be on PATH" >&2; exit 1; }
command -v go >/dev/null || { echo "install-deps: go must be on PATH" >&2; exit 1; }
echo "install-deps: all peers present"
