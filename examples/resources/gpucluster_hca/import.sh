# An HCA's inventory has nothing remote to read back, so the import ID carries its attributes.
# With the default name NODE/DEVICE the node and device come from the name:
# NODE/DEVICE,port_guid=G[,model=M][,rail=N][,mst_device=D]
terraform import gpucluster_hca.gpu001_mlx5_0 'gpu001/mlx5_0,port_guid=0x0002c90300010000,rail=0,mst_device=/dev/mst/mt4129_pciconf0'
terraform import 'gpucluster_hca.gpu002["mlx5_0"]' 'gpu002/mlx5_0,port_guid=0x0002c90300020000,rail=0'

# An HCA with a name of its own gives its node and device as well:
# NAME,node=N,device=D,port_guid=G[,...]
