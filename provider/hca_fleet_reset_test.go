package provider

import "github.com/gpucluster/terraform-provider-gpucluster/internal/remote"

// resetConnections ends the pooled SSH connections, as the provider's stopping does, and starts
// a new pool for what follows (the fleet measurements count connections per refresh).
func resetConnections() {
	_ = nodeConnections.Close()
	nodeConnections = remote.NewPool(remote.PoolOptions{IdleTimeout: nodeIdleTimeout})
}
