package gitsrc

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestBlobCacheRecords checks the records the blob cache gives back, from
// a cached blob, from the ends cache or split anew, against a fresh split
// of the same content, with caches small enough to evict, and that the
// ends cache stays within its bound and forgets what drop is given.
func TestBlobCacheRecords(t *testing.T) {
	blob := func(i int) []byte {
		var sb strings.Builder
		for k := range i % 37 {
			fmt.Fprintf(&sb, "line %d of blob %d%s\n", k, i, strings.Repeat("x", k%5))
		}
		if i%3 == 0 {
			sb.WriteString("no final newline")
		}
		if i%7 == 0 {
			sb.WriteString("\r\n")
		}
		return []byte(sb.String())
	}
	tests := []struct {
		name          string
		blobs, ends   int
		cacheContents bool // put each blob in the content cache first
		wantHits      bool
	}{
		{"no caches", 0, 0, false, false},
		{"ends only", 0, 4 << 10, false, true},
		{"contents only", 2 << 10, 0, true, true},
		{"both, contents evicted into ends", 1 << 10, 2 << 10, true, true},
		{"ends too small to keep any", 0, 8, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newBlobCache(tc.blobs, tc.ends)
			check := func(i int) {
				b := blob(i)
				h := plumbing.ComputeHash(plumbing.BlobObject, b)
				if tc.cacheContents {
					c.put(h, b)
				}
				got, want := c.records(h, b), newRecords(b)
				if !slices.Equal(got.ends, want.ends) || string(got.b) != string(want.b) {
					t.Fatalf("blob %d: records %v, want %v", i, got.ends, want.ends)
				}
				if c.endsSize > c.endsMax {
					t.Fatalf("blob %d: ends cache holds %d bytes, bound %d", i, c.endsSize, c.endsMax)
				}
			}
			// Each blob is asked for twice, a few blobs apart (an old
			// side, then the same version as a new side), then dropped.
			for i := range 200 {
				check(i)
				if i >= 3 {
					check(i - 3)
					b := blob(i - 3)
					c.drop(plumbing.ComputeHash(plumbing.BlobObject, b))
				}
			}
			if hits := c.recHits.Load(); (hits > 0) != tc.wantHits {
				t.Errorf("%d records reused, want reuse %v", hits, tc.wantHits)
			}
			for i := range 197 {
				h := plumbing.ComputeHash(plumbing.BlobObject, blob(i))
				if _, ok := c.endsOf[h]; ok {
					t.Errorf("blob %d: ends still cached after drop", i)
				}
			}
			n := 0
			for e := c.endsLL.Front(); e != nil; e = e.Next() {
				n += 4 * cap(e.Value.(*endsItem).ends)
			}
			if n != c.endsSize || len(c.endsOf) != c.endsLL.Len() {
				t.Errorf("ends cache: %d bytes in %d entries (%d in the map), accounted %d", n, c.endsLL.Len(), len(c.endsOf), c.endsSize)
			}
		})
	}
}

// FuzzBlobCacheRecords runs a sequence of cache operations, read from ops
// two bytes at a time (an operation, a blob among eight cut from text),
// against caches of sizes taken from sizes, and checks that every
// records call gives a fresh split's records and that the ends cache's
// accounting holds.
func FuzzBlobCacheRecords(f *testing.F) {
	f.Add([]byte("a\nb\nc\n\nd"), []byte{0, 1, 1, 1, 2, 1, 1, 2, 0, 3, 1, 3}, uint16(64), uint16(40))
	f.Add([]byte("x\r\ny\n"), []byte{1, 0, 1, 1, 1, 2, 2, 0, 1, 0}, uint16(0), uint16(4096))
	f.Add([]byte(""), []byte{1, 0, 0, 0, 2, 0}, uint16(8), uint16(8))
	f.Fuzz(func(t *testing.T, text, ops []byte, blobMax, endsMax uint16) {
		// Eight blobs: text cut at eight points derived from its length.
		var blobs [8][]byte
		for i := range blobs {
			lo := len(text) * i / 9
			hi := len(text) * (i + 2) / 9
			blobs[i] = text[lo:hi]
		}
		c := newBlobCache(int(blobMax), int(endsMax))
		for len(ops) >= 2 {
			op, k := ops[0]%4, int(ops[1]%8)
			ops = ops[2:]
			b := blobs[k]
			h := plumbing.ComputeHash(plumbing.BlobObject, b)
			switch op {
			case 0:
				c.put(h, b)
			case 1, 3:
				got, want := c.records(h, b), newRecords(b)
				if !slices.Equal(got.ends, want.ends) || string(got.b) != string(want.b) {
					t.Fatalf("blob %d: records %v, want %v", k, got.ends, want.ends)
				}
			case 2:
				c.drop(h)
				if _, ok := c.endsOf[h]; ok {
					t.Fatalf("blob %d: ends cached after drop", k)
				}
			}
			n := 0
			for e := c.endsLL.Front(); e != nil; e = e.Next() {
				n += 4 * cap(e.Value.(*endsItem).ends)
			}
			if n != c.endsSize || n > c.endsMax || len(c.endsOf) != c.endsLL.Len() {
				t.Fatalf("ends cache: %d bytes in %d entries (%d in the map), accounted %d, bound %d", n, c.endsLL.Len(), len(c.endsOf), c.endsSize, c.endsMax)
			}
		}
	})
}
