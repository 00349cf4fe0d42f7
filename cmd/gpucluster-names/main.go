// Command gpucluster-names renames the resources that `terraform query -generate-config-out`
// writes after the items they import, where Terraform names them by position (floor_0,
// floor_1, ...): gpucluster_switch.leaf01, gpucluster_hca.gpu001_mlx5_0, and so on, each import
// block's `to` with its resource (internal/importid.NameGenerated). Run it on the generated
// file before the first plan; it rewrites the file in place and prints each rename.
//
//	go run github.com/gpucluster/terraform-provider-gpucluster/cmd/gpucluster-names adopted.tf
package main

import (
	"fmt"
	"os"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/importid"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gpucluster-names FILE.tf ... (files written by terraform query -generate-config-out)")
		os.Exit(2)
	}
	for _, name := range os.Args[1:] {
		if err := rename(name); err != nil {
			fmt.Fprintln(os.Stderr, "gpucluster-names:", err)
			os.Exit(1)
		}
	}
}

func rename(name string) error {
	src, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	out, renames, err := importid.NameGenerated(name, src)
	if err != nil {
		return err
	}
	if len(renames) == 0 {
		fmt.Printf("%s: no resource imported by identity; unchanged\n", name)
		return nil
	}
	info, err := os.Stat(name)
	if err != nil {
		return err
	}
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, out, info.Mode().Perm()); err != nil {
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		return err
	}
	for _, r := range renames {
		fmt.Printf("%s.%s -> %s.%s\n", r.Type, r.From, r.Type, r.To)
	}
	fmt.Printf("%s: %d resources named after their items\n", name, len(renames))
	return nil
}
