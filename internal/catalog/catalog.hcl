# Built-in hardware catalog of terraform-provider-gpucluster.
#
# Facts come from public NVIDIA documents: the DGX SuperPOD H100 reference architecture
# RA-11333-001 V11 (Tables 4, 7, 8), the QM97X0 1U NDR switch user manual, the LinkX product pages
# of each cable and transceiver (MCP4Y10, MCP7Y00, MMA4Z00-NS, MMA4Z00-NS400, MMS4X00). Prices: the only
# public figures are list prices quoted in one industry write-up ($2,500 per NDR HCA, $400 per 5 m
# optical cable, $85,000 per QM97x0 switch); every other price is left out on purpose, so the bill
# of materials lists such items as unpriced instead of inventing a number. Override or extend any
# entry with the provider's `catalog_files`.

switch_model "QM9700" {
  description    = "NVIDIA Quantum-2 QM9700 NDR InfiniBand switch, managed (on-board CPU, can run an embedded SM)"
  sku            = "920-9B210-00FN-0M0"
  ports          = 64
  cages          = 32
  port_rate_gbps = 400
  units          = 1
  managed        = true
  price          = 85000
  price_source   = "industry write-up list price for a QM97x0 switch (not an NVIDIA list price)"
}

switch_model "QM9790" {
  description    = "NVIDIA Quantum-2 QM9790 NDR InfiniBand switch, externally managed (needs an external SM)"
  sku            = "MQM9790-NS2F"
  ports          = 64
  cages          = 32
  port_rate_gbps = 400
  units          = 1
  managed        = false
  price          = 85000
  price_source   = "industry write-up list price for a QM97x0 switch (not an NVIDIA list price)"
}

hca_model "ConnectX-7-OSFP" {
  description    = "NVIDIA ConnectX-7 single-port OSFP NDR 400 Gb/s (flat-top cage)"
  sku            = "MCX75310AAS-NEAT"
  ports          = 1
  port_rate_gbps = 400
  form_factor    = "osfp"
  price          = 2500
  price_source   = "industry write-up list price for an NDR400 HCA (not an NVIDIA list price)"
}

hca_model "ConnectX-7-QSFP112" {
  description    = "NVIDIA ConnectX-7 dual-port QSFP112 400 Gb/s"
  sku            = "MCX755106AS-HEAT"
  ports          = 2
  port_rate_gbps = 400
  form_factor    = "qsfp112"
}

# A DGX H100 has eight single-port ConnectX-7 compute HCAs, one per GPU, behind four twin-port
# OSFP cages (RA-11333-001). Its storage and in-band ports are not part of the compute fabric.
node_model "DGX-H100" {
  description       = "NVIDIA DGX H100 (8x H100 SXM5)"
  sku               = "DGXH-G640F+P2EDI36"
  units             = 8
  power_kw          = 10.2
  power_source      = "NVIDIA DGX H100 datasheet, maximum system power"
  gpus              = 8
  compute_hcas      = 8
  hca_model         = "ConnectX-7-OSFP"
  twin_port_cages   = true
}

# HGX H100 builds vary: most carry one compute HCA per GPU, some one per GPU pair. Set
# `compute_hcas` on the node to say which.
node_model "HGX-H100" {
  description  = "HGX H100 8-GPU server (OEM build)"
  units        = 8
  gpus         = 8
  compute_hcas = 8
  hca_model    = "ConnectX-7-OSFP"
}

# Cables. `reach_m` is the longest run the kind supports; `lengths_m` the standard lengths sold.
cable "MCP4Y10-N" {
  description = "NDR passive copper DAC, twin-port OSFP to twin-port OSFP (2x400G), switch to switch"
  kind        = "dac"
  ends        = "switch-switch"
  links       = 2
  lengths_m   = [0.5, 1, 1.5, 2]
  reach_m     = 2
}

cable "MCP7Y00-N" {
  description = "NDR passive copper splitter DAC, twin-port OSFP to 2x 400G OSFP flat-top (switch to two ConnectX-7)"
  kind        = "dac"
  ends        = "switch-hca"
  links       = 2
  lengths_m   = [1, 1.5, 2, 2.5, 3]
  reach_m     = 3
}

cable "MCA4J80-N" {
  description = "NDR active copper cable (ACC), twin-port OSFP, 2x400G"
  kind        = "acc"
  ends        = "any"
  links       = 2
  lengths_m   = [3, 4, 5]
  reach_m     = 5
}

cable "MFP7E10-N" {
  description = "NDR multimode fiber, MPO-12/APC straight, one 400G link (used with MMA4Z00 transceivers)"
  kind        = "fiber-mm"
  ends        = "any"
  links       = 1
  lengths_m   = [3, 5, 7, 10, 15, 20, 30, 50]
  reach_m     = 50
}

cable "MFP7E30-N" {
  description = "NDR single-mode fiber, MPO-12/APC straight, one 400G link (used with MMS4X00 transceivers)"
  kind        = "fiber-sm"
  ends        = "any"
  links       = 1
  lengths_m   = [3, 5, 10, 15, 20, 30, 50, 100, 150]
  reach_m     = 500
}

# No active optical cable: AOCs are HDR-era parts, and no NDR OSFP AOC for Quantum-2 compute
# links appears in NVIDIA's LinkX documents. The kind `aoc` stays valid so that a catalog file can add
# the part a site really buys; until one does, links declared `aoc` are listed as not counted
# rather than priced as a part that does not exist.

transceiver "MMA4Z00-NS" {
  description = "Twin-port OSFP 2x400G SR8 multimode transceiver, finned top (switch cage)"
  sku         = "980-9I510-00NS00"
  media       = "fiber-mm"
  end         = "switch"
  links       = 2
  reach_m     = 50
}

transceiver "MMA4Z00-NS-FLT" {
  description = "Twin-port OSFP 2x400G SR8 multimode transceiver, flat top (DGX H100 cage)"
  sku         = "980-9I51A-00NS00"
  media       = "fiber-mm"
  end         = "node-twin"
  links       = 2
  reach_m     = 50
}

transceiver "MMA4Z00-NS400" {
  description = "Single-port OSFP 400G SR4 multimode transceiver, flat top (PCIe ConnectX-7)"
  sku         = "980-9I51S-00NS00"
  media       = "fiber-mm"
  end         = "hca"
  links       = 1
  reach_m     = 50
}

transceiver "MMS4X00-NM" {
  description = "Twin-port OSFP 2x400G DR8 single-mode transceiver, 500 m (switch cage)"
  sku         = "980-9I30G-00NM00"
  media       = "fiber-sm"
  end         = "switch"
  links       = 2
  reach_m     = 500
}

transceiver "MMS4X00-NM-FLT" {
  description = "Twin-port OSFP 2x400G DR8 single-mode transceiver, flat top (DGX H100 cage)"
  media       = "fiber-sm"
  end         = "node-twin"
  links       = 2
  reach_m     = 500
}

transceiver "MMS4X00-NS400" {
  description = "Single-port OSFP 400G DR4 single-mode transceiver, 100 m (PCIe ConnectX-7)"
  sku         = "980-9I31N-00NM00"
  media       = "fiber-sm"
  end         = "hca"
  links       = 1
  reach_m     = 100
}
