# The import ID carries the node's inventory attributes:
# NAME,rack=R,position_u=U[,model=M][,ssh_host=H][,compute_hcas=N][,hca_devices=D0;D1;...]
# BMC settings are not part of it: with `bmc` in the configuration, the next apply sets the
# node up through its BMC (power, boot device, accounts, BIOS), changing only what differs.
terraform import gpucluster_node.gpu001 'gpu001,rack=r01,position_u=2,ssh_host=gpu001.mgmt.example'
terraform import gpucluster_node.hgx001 'hgx001,model=HGX-H100,rack=r02,position_u=2,compute_hcas=4,hca_devices=mlx5_2;mlx5_3;mlx5_4;mlx5_5'
