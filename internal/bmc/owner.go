package bmc

import "sync"

// Owners says which node each BMC belongs to, as the nodes a process reads and applies claim
// them, so that an operation that names a node can be refused when the BMC it is given is
// another node's (issue 32: an action named gpu999 with gpu001's BMC powered gpu001 and logged
// "node gpu999"). A BMC is known by the key its lock uses (host and the first protocol's port,
// normalized), so that "BMC.example" and "bmc.example:443" are one BMC. The zero value is ready.
type Owners struct {
	mu   sync.Mutex
	node map[string]string
}

// Claim records that cfg is node's BMC; the last claim wins (a BMC moved to another node).
// A configuration that does not normalize claims nothing: opening it fails anyway.
func (o *Owners) Claim(cfg Config, node string) {
	c, err := cfg.normalize()
	if err != nil || node == "" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.node == nil {
		o.node = map[string]string{}
	}
	o.node[c.key] = node
}

// Owner returns the BMC's key (host:port, as errors and logs name it) and the node that claimed
// it; known is false when no node did. key is cfg's endpoint as given when it does not normalize.
func (o *Owners) Owner(cfg Config) (key, node string, known bool) {
	c, err := cfg.normalize()
	if err != nil {
		return cfg.Endpoint, "", false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	node, known = o.node[c.key]
	return c.key, node, known
}
