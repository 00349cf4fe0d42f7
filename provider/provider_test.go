package provider

import (
	"os"
	"os/exec"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// testProviders serves the provider in-process to the real terraform binary, through Wrap as
// main.go does, so every acceptance test covers the list bypass.
var testProviders = map[string]func() (tfprotov6.ProviderServer, error){
	"gpucluster": func() (tfprotov6.ProviderServer, error) {
		return Wrap(providerserver.NewProtocol6(New("test")())()), nil
	},
}

// TestMain points terraform-plugin-testing at the terraform on PATH, so nothing is downloaded.
func TestMain(m *testing.M) {
	if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		if p, err := exec.LookPath("terraform"); err == nil {
			os.Setenv("TF_ACC_TERRAFORM_PATH", p)
		}
	}
	os.Exit(m.Run())
}

// requireAcc fails, rather than skips, acceptance tests when TF_ACC is unset in CI, so a CI run
// can never pass by running nothing.
func requireAcc(t *testing.T) {
	t.Helper()
	if os.Getenv("CI") != "" && os.Getenv("TF_ACC") == "" {
		t.Fatal("TF_ACC must be set in CI: the acceptance tests are the point")
	}
}

// re compiles an expected-error pattern; Terraform wraps long messages, so spaces match any
// whitespace.
func re(s string) *regexp.Regexp {
	return regexp.MustCompile(regexp.MustCompile(` +`).ReplaceAllString(regexp.QuoteMeta(s), `\s+`))
}
