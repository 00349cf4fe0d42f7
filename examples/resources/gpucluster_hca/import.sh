# The import ID carries the HCA's inventory attributes. With the default name NODE/DEVICE the
# node and device come from the name:
# NODE/DEVICE,port_guid=G[,model=M][,rail=N][,mst_device=D]
# firmware_settings are not part of it: with them in the configuration, the next apply queries
# the card and sets only what differs.
terraform import gpucluster_hca.gpu001_mlx5_0 'gpu001/mlx5_0,port_guid=0x0002c90300010000,rail=0,mst_device=/dev/mst/mt4129_pciconf0'
terraform import 'gpucluster_hca.gpu002["mlx5_0"]' 'gpu002/mlx5_0,port_guid=0x0002c90300020000,rail=0'

# An HCA with a name of its own gives its node and device as well:
# NAME,node=N,device=D,port_guid=G[,...]
