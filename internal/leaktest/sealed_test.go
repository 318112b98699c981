package leaktest

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/privscan/privscan/catalog"
)

// TestSealedCatalogHoldsNoCanary seals the canary catalog (without its
// regex rule, which cannot be sealed) and searches the sealed bytes for
// every value, every word of a value, every identifier spelling, the
// fingerprint-key and the seal key, in every encoding the matrix searches
// outputs for. The Markdown catalog is searched too, as a control: it
// must show every canary.
func TestSealedCatalogHoldsNoCanary(t *testing.T) {
	base := seed(t)
	for i := range uint64(4) {
		c := newCanaries(base + i)
		md := catalogMarkdown(c, c.fpKey)
		md = md[:strings.Index(md, "## EMP-ID")]
		parsed, err := catalog.Parse([]byte(md))
		if err != nil {
			t.Fatalf("seed %d: %v", base+i, err)
		}
		var key [catalog.SealKeySize]byte
		for k := range key {
			key[k] = byte(c.fpKey[k] ^ 0xa5)
		}
		var sealed bytes.Buffer
		if err := catalog.Seal(&sealed, parsed, key[:], nil); err != nil {
			t.Fatalf("seed %d: seal: %v", base+i, err)
		}
		var canaries []string
		values := append(append([]string{}, c.persons...), c.host, c.account)
		values = append(values, c.idents...)
		for _, v := range values {
			canaries = append(canaries, v)
			canaries = append(canaries, strings.Fields(v)...)
		}
		for _, v := range c.idents {
			canaries = append(canaries, identSpellings(v)...)
		}
		canaries = append(canaries, hex.EncodeToString(c.fpKey[:]), string(c.fpKey[:]), hex.EncodeToString(key[:]), string(key[:]))
		d := newDetector(canaries)
		for _, l := range d.find("sealed catalog", sealed.Bytes()) {
			t.Errorf("seed %d: %v", base+i, l)
		}
		// The control: the plaintext catalog shows every value.
		found := map[string]bool{}
		for _, l := range d.find("markdown catalog", []byte(md)) {
			found[l.Canary] = true
		}
		for _, v := range values {
			if !found[v] {
				t.Errorf("seed %d: the control search missed a value in the Markdown catalog", base+i)
			}
		}
		// The sealed catalog still finds the values.
		m, _, err := catalog.LoadSealed(sealed.Bytes(), key[:])
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range values {
			if len(m.Find([]byte("x "+v+" y"), nil)) == 0 {
				t.Errorf("seed %d: the sealed catalog does not find one of its values", base+i)
			}
		}
	}
}
