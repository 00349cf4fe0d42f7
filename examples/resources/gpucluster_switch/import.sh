# A switch has nothing remote to read back, so the import ID carries its attributes:
# NAME,rack=R,position_u=U,guid=G[,model=M][,role=leaf|spine|core][,group=GROUP]
terraform import gpucluster_switch.leaf01 'leaf01,rack=r03,position_u=20,guid=0x0002c903000a0001'
