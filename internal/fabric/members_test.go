package fabric

import (
	"reflect"
	"testing"
)

func TestParseMembers(t *testing.T) {
	got, err := ParseMembers("gpu001/mlx5_0; 0x0002c90300abcdef=limited;ALL_CAS=full")
	if err != nil {
		t.Fatal(err)
	}
	want := []Member{
		{HCA: "gpu001/mlx5_0", Membership: "full"},
		{GUID: "0x0002c90300abcdef", Membership: "limited"},
		{GUID: "ALL_CAS", Membership: "full"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%+v, want %+v", got, want)
	}
	for list, msg := range map[string]string{
		"":                   `member "" is not MEMBER[=full|limited]`,
		"gpu001/mlx5_0;;ALL": `member "" is not MEMBER[=full|limited]`,
		"ALL=both":           `member "ALL=both" is not MEMBER[=full|limited]`,
		" =limited":          `member " =limited" is not MEMBER[=full|limited]`,
		"gpu001/mlx5_0=Full": `member "gpu001/mlx5_0=Full" is not MEMBER[=full|limited]`,
	} {
		if _, err := ParseMembers(list); err == nil || err.Error() != msg {
			t.Errorf("%q: %v, want %s", list, err, msg)
		}
	}
}
