package main

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/privscan/privscan/catalog"
)

func TestWriteParses(t *testing.T) {
	for _, n := range []int{100, 1000} {
		var a, b bytes.Buffer
		if err := write(&a, 7, n, false); err != nil {
			t.Fatal(err)
		}
		if err := write(&b, 7, n, false); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("n=%d: not deterministic", n)
		}
		c, err := catalog.Parse(a.Bytes())
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if hex.EncodeToString(c.FingerprintKey) != fingerprintKey(7, n) {
			t.Errorf("n=%d: fingerprint-key not set", n)
		}
		lits, regex := 0, 0
		for _, r := range c.Rules {
			if r.Match == catalog.MatchRegex {
				regex += len(r.Values)
			} else {
				lits += len(r.Values)
			}
		}
		if lits != n || regex != 3 {
			t.Errorf("n=%d: %d literal values and %d patterns, want %d and 3", n, lits, regex, n)
		}
		if _, err := catalog.Compile(c, nil); err != nil {
			t.Errorf("n=%d: compile: %v", n, err)
		}
	}
}

func TestRunFlags(t *testing.T) {
	if err := run([]string{"-n", "3"}, &bytes.Buffer{}); err == nil {
		t.Error("-n 3: no error")
	}
	var out bytes.Buffer
	if err := run([]string{"-n", "200", "-seed", "2"}, &out); err != nil || out.Len() == 0 {
		t.Errorf("err %v, %d bytes", err, out.Len())
	}
}

func TestWriteUnique(t *testing.T) {
	for _, literal := range []bool{false, true} {
		var a, b bytes.Buffer
		if err := writeUnique(&a, 5, 3000, literal); err != nil {
			t.Fatal(err)
		}
		if err := writeUnique(&b, 5, 3000, literal); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatal("not deterministic")
		}
		c, err := catalog.Parse(a.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		lits, regex := 0, 0
		for _, r := range c.Rules {
			if r.Match == catalog.MatchRegex {
				regex += len(r.Values)
			} else {
				lits += len(r.Values)
			}
		}
		if want := map[bool]int{false: 3, true: 0}[literal]; lits != 3000 || regex != want {
			t.Errorf("literal=%v: %d literal values and %d patterns, want 3000 and %d", literal, lits, regex, want)
		}
		if _, err := catalog.Compile(c, nil); err != nil {
			t.Errorf("compile: %v", err)
		}
	}
}
