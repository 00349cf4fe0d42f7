# The import ID is the cable's label, "DEVICE:PORT <-> DEVICE:PORT" with the ends in the order of
# a and b, then kind and length_m when the cable sets them.
terraform import gpucluster_cable.gpu001_mlx5_0 'leaf01:1 <-> gpu001/mlx5_0:1'
terraform import gpucluster_cable.leaf01_33 'leaf01:33 <-> spine01:1,kind=fiber-mm,length_m=8'
