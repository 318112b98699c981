// Package sealtest seals Markdown catalogs for the tests of the packages
// that read sealed catalogs (broker, engine, the Action).
package sealtest

import (
	"bytes"
	"testing"

	"github.com/privscan/privscan/catalog"
)

// Seal parses the Markdown catalog md and returns it sealed with key,
// failing t on any error.
func Seal(t testing.TB, md string, key []byte) []byte {
	t.Helper()
	c, err := catalog.Parse([]byte(md))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := catalog.Seal(&b, c, key, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
