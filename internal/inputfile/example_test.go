package inputfile_test

import (
	"errors"
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/inputfile"
)

// A path that names a device rather than a file is refused at the cap, not read until memory
// runs out.
func ExampleRead() {
	_, err := inputfile.Read("/dev/zero", 1<<20)
	var tooLarge *inputfile.TooLargeError
	fmt.Println(errors.As(err, &tooLarge))
	fmt.Println(err)
	// Output:
	// true
	// "/dev/zero" holds more than 1 MiB, the most the provider reads from a file of this kind; give the path of the intended file (a device such as /dev/zero, or a file this large, is not one)
}
