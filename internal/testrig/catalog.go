package testrig

import (
	"os"
	"path/filepath"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// Catalog is the built-in catalog with the HCL text src layered on top, read the way the
// provider reads a catalog_files entry (written to a file of the test's, then catalog.Load),
// failing the test when the catalog refuses it.
func Catalog(t TB, name, src string) *catalog.Catalog {
	t.Helper()
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := catalog.Load(file)
	if err != nil {
		t.Fatalf("catalog %s: %v", name, err)
	}
	return c
}
