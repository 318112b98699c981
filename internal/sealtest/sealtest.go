// Package sealtest seals Markdown catalogs for the tests of the packages
// that read sealed catalogs (broker, engine, the Action).
package sealtest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
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

// People seals a catalog of 20,001 person names (Jane Doe and synthetic
// ones), large enough that its tables span pages no load reads whole,
// with a fixed key and salt (the same table slots every run).
func People(t testing.TB) (data, key []byte) {
	t.Helper()
	var md strings.Builder
	md.WriteString("## PER\n- category: person\n\n```values\nJane Doe\n")
	for i := range 20000 {
		fmt.Fprintf(&md, "Person Number%d\n", i)
	}
	md.WriteString("```\n")
	c, err := catalog.Parse([]byte(md.String()))
	if err != nil {
		t.Fatal(err)
	}
	key = bytes.Repeat([]byte{9}, catalog.SealKeySize)
	var b bytes.Buffer
	if err := catalog.Seal(&b, c, key, &catalog.SealOptions{Rand: bytes.NewReader(make([]byte, 64))}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), key
}

// DamageLiteralTable flips a byte in every page of the literal hash table
// of a sealed file (directory entry 3: its offset and count of 8-byte
// keys) but the last, which it may share with an array a load reads
// whole: a lookup that reads those pages meets damage, a load does not.
func DamageLiteralTable(data []byte) {
	e := data[binary.LittleEndian.Uint64(data[152:])+3*24:]
	off, n := binary.LittleEndian.Uint64(e[8:]), binary.LittleEndian.Uint64(e[16:])*8
	for at := off; at+4096 < off+n; at += 512 {
		data[at] ^= 0x40
	}
}
