# The import ID carries the partition's attributes; members are written as in partitions.conf
# but separated by ';' (a member with a '/' is an HCA name; membership defaults to full):
# NAME,pkey=P,members=M1[=full|limited];M2...[,ipoib=true][,mtu=N][,rate=N][,sl=N]
terraform import gpucluster_partition.compute 'compute,pkey=0x0001,members=ALL_CAS;SELF,ipoib=true,mtu=4096,rate=400'
terraform import gpucluster_partition.tenant_a 'tenant-a,pkey=0x0101,members=gpu001/mlx5_0;gpu001/mlx5_1;0x0002c90300ff0001=limited,sl=1'
# Where UFM runs the subnet manager: a PKey UFM holds, read from the provider's ufm (members by
# port GUID, membership, ipoib and QoS as UFM holds them): NAME,ufm=P_KEY
terraform import gpucluster_partition.legacy 'legacy,ufm=0x0300'
