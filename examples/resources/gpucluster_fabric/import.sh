# The import ID is the fabric's name; the first apply records the inputs from the configuration.
terraform import gpucluster_fabric.compute compute
