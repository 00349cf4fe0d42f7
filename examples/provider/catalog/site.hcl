# A site catalog, read by `catalog_files = ["catalog/site.hcl"]` after the built-in one. An entry
# replaces the built-in entry of the same kind and name whole; a new name adds a model.

# The built-in QM9700 with the price this site pays: the bill of materials quotes price_source.
switch_model "QM9700" {
  description    = "NVIDIA Quantum-2 QM9700, our negotiated price"
  sku            = "920-9B210-00FN-0M0"
  ports          = 64
  cages          = 32
  port_rate_gbps = 400
  units          = 1
  managed        = true
  price          = 61000
  price_source   = "PO 2026-114"
}

# An HGX H100 build with one compute HCA per GPU pair: 8 GPUs, 4 single-port ConnectX-7 (OSFP).
# Nodes say `model = "HGX-H100-4HCA"`; the analysis then counts 2 GPUs behind each HCA port (in
# the all-reduce estimate and in the RoCEv2 GPU limit).
node_model "HGX-H100-4HCA" {
  description  = "HGX H100 8-GPU server, 4 compute HCAs (one per GPU pair)"
  sku          = "OEM-HGX-H100-4X400"
  units        = 8
  power_kw     = 10.2
  power_source = "the vendor's quote for this build, maximum system power"
  gpus         = 8
  compute_hcas = 4
  hca_model    = "ConnectX-7-OSFP"
}
