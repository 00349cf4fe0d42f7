# A rack has nothing remote to read back, so the import ID carries its attributes.
terraform import gpucluster_rack.net 'r03,row=1,position=3,units=48,power_kw=20'
