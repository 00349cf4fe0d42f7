package catalog

// loadSource is Load for catalog text already in memory: the built-in catalog with src layered
// on top, for the tests and the fuzz target of the parser.
func loadSource(name string, src []byte) (*Catalog, error) {
	c, err := Load()
	if err != nil {
		return nil, err
	}
	if err := c.merge(name, src); err != nil {
		return nil, err
	}
	return c, nil
}
