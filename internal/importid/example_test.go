package importid_test

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/importid"
)

// An inventory item's import ID carries its attributes after its name, because there is no
// remote object to read them back from.
func ExampleParseRack() {
	r, err := importid.ParseRack("rack01,row=1,position=3,power_kw=40")
	fmt.Println(r.Name, r.Row, r.Position, r.Units, *r.PowerKW, err)
	_, err = importid.ParseRack("rack01,row=one,position=3")
	fmt.Println(err)
	_, err = importid.ParseRack("rack01,row=1,position=3,colour=red")
	fmt.Println(err)
	// Output:
	// rack01 1 3 42 40 <nil>
	// row="one" is not a whole number
	// import ID "rack01,row=1,position=3,colour=red": unknown attribute "colour"; valid: position, power_kw, row, units
}
