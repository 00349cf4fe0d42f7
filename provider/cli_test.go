package provider

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// terraformCLI runs the real terraform binary, as a user does, against the provider built from
// this module into a temporary directory and installed with a dev_overrides CLI config (what
// `make devconfig` writes). The acceptance tests that need what terraform-plugin-testing does
// not give (the plan's diagnostics, `terraform plan -json`, a script run on a real working
// directory) use it.
type terraformCLI struct {
	t         *testing.T
	terraform string
	env       []string
}

// newTerraformCLI builds the provider and writes the CLI config; nothing is downloaded.
func newTerraformCLI(t *testing.T) *terraformCLI {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1") // requireAcc fails instead in CI
	}
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(here))
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "terraform-provider-gpucluster"), ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	rc := filepath.Join(bin, "dev.tfrc")
	cfg := "provider_installation {\n  dev_overrides {\n    \"gpucluster/gpucluster\" = \"" + bin + "\"\n  }\n  direct {}\n}\n"
	if err := os.WriteFile(rc, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		tf = "terraform"
	}
	return &terraformCLI{t: t, terraform: tf, env: append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+rc, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", "TF_INPUT=0", "TERRAFORM="+tf)}
}

// run runs terraform in dir; it fails the test when terraform fails.
func (c *terraformCLI) run(dir string, args ...string) string {
	c.t.Helper()
	out, err := c.try(dir, args...)
	if err != nil {
		c.t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// try runs terraform in dir and returns its stdout (stderr appended) and error.
func (c *terraformCLI) try(dir string, args ...string) (string, error) {
	cmd := exec.Command(c.terraform, append([]string{"-chdir=" + dir}, args...)...)
	cmd.Env = c.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String() + errb.String(), err
}

// script runs a program with the CLI's environment (TF_CLI_CONFIG_FILE, TERRAFORM).
func (c *terraformCLI) script(dir string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, c.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// copyDir copies the regular files of src (not its subdirectories) into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() || strings.HasPrefix(e.Name(), "terraform.tfstate") || e.Name() == ".terraform.lock.hcl" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// inventoryIsList reports whether the fabric's inventory inputs are still lists (before the
// maps keyed by name); the examples are written with maps.
func inventoryIsList() bool {
	_, isList := fabricInputAttributes()["switches"].(rschema.ListNestedAttribute)
	return isList
}

// moduleRoot is the repository root, for the examples.
func moduleRoot() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(here))
}
