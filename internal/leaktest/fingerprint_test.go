package leaktest

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"strings"
	"testing"

	"github.com/privscan/privscan/internal/cli"
)

type fpFinding struct {
	RuleID      string `json:"ruleId"`
	Line        int    `json:"line"`
	Column      int    `json:"column"`
	EndColumn   int    `json:"endColumn"`
	Fingerprint string `json:"fingerprint"`
}

// textFindings runs `privscan text - --format json` on text with catalog
// (from PRIVSCAN_CATALOG) and returns the findings.
func textFindings(t *testing.T, catalogMD, text string) []fpFinding {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_STATE_HOME": home + "/.state", "PRIVSCAN_CATALOG": catalogMD}
	var stdout, stderr bytes.Buffer
	err := cli.Run(context.Background(), &cli.Env{Args: []string{"text", "-", "--format", "json", "--fail-on", "never"},
		Stdin: strings.NewReader(text), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatalf("privscan text: %v\n%s", err, stderr.String())
	}
	var rep struct {
		Findings []fpFinding `json:"findings"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("report: %v", err)
	}
	return rep.Findings
}

// runeSlice returns the code points [col, end) (1-based, exclusive) of s.
func runeSlice(s string, col, end int) string {
	r := []rune(s)
	if col < 1 || end-1 > len(r) || col > end {
		return ""
	}
	return string(r[col-1 : end-1])
}

// privscanFP is the documented construction (SECURITY.md, scanner's
// Fingerprinter): HMAC-SHA256(key, "privscan/fp/v1\0" rule "\0" scope "\0"
// trimmed line), then HMAC-SHA256(key, base "\0" n), hex, first 32 digits.
func privscanFP(key []byte, rule, scope, line string, n int) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("privscan/fp/v1\x00" + rule + "\x00" + scope + "\x00" + strings.TrimSpace(line)))
	base := m.Sum(nil)
	m = hmac.New(sha256.New, key)
	m.Write(base)
	fmt.Fprintf(m, "\x00%d", n)
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// TestFingerprintNeedsKey checks that a canary finding's fingerprint cannot
// be recomputed from the canary by any plausible unkeyed (or publicly
// keyed) construction, that the documented keyed construction does
// reproduce it with the real key, and that changing only the
// fingerprint-key changes every fingerprint.
func TestFingerprintNeedsKey(t *testing.T) {
	c := newCanaries(seed(t))
	lines := []string{
		"  contact: " + c.persons[0] + "  ",
		"func " + identSpellings(c.idents[0])[0] + "() {}",
		"employee " + c.rxHits[0] + " at " + c.host,
		c.account + " " + c.persons[1],
	}
	text := strings.Join(lines, "\n") + "\n"
	md := catalogMarkdown(c, c.fpKey)
	fs := textFindings(t, md, text)
	var catalogFs []fpFinding
	for _, f := range fs {
		if strings.HasPrefix(f.RuleID, "catalog/") {
			catalogFs = append(catalogFs, f)
		}
	}
	if len(catalogFs) < len(lines) {
		t.Fatalf("got %d catalog findings, want at least %d: %+v", len(catalogFs), len(lines), fs)
	}

	emptyDigest := sha256.Sum256(nil)
	digestKey := sha256.Sum256(append([]byte("privscan/fingerprint/v1\x00"), emptyDigest[:]...))
	zero := make([]byte, 32)
	hashes := map[string]func() hash.Hash{"sha256": sha256.New, "sha1": sha1.New, "md5": md5.New, "sha512": sha512.New}

	for _, f := range catalogFs {
		line := lines[f.Line-1]
		matched := runeSlice(line, f.Column, f.EndColumn)
		if matched == "" {
			t.Fatalf("finding %+v: columns outside the line", f)
		}
		rule := f.RuleID
		short := strings.TrimPrefix(rule, "catalog/")
		var msgs []string
		for _, v := range []string{matched, strings.ToLower(matched), strings.ToUpper(matched)} {
			msgs = append(msgs, v, rule+v, short+v, rule+":"+v, rule+"\x00"+v, short+":"+v,
				"text"+rule+v, "text\x00"+rule+"\x00"+v, "<text>:"+rule+":"+v, ":"+rule+":"+v,
				"catalog\x00"+short+"\x00"+v)
		}
		for _, l := range []string{line, strings.TrimSpace(line)} {
			msgs = append(msgs, l, rule+l, rule+"\x00"+l, rule+"\x00text\x00"+l, "privscan/fp/v1\x00"+rule+"\x00text\x00"+l, fmt.Sprintf("%s:%d:%s", rule, f.Line, l))
		}
		// Plain hashes of each message.
		for name, h := range hashes {
			for _, msg := range msgs {
				d := h()
				d.Write([]byte(msg))
				sum := hex.EncodeToString(d.Sum(nil))
				if strings.HasPrefix(sum, f.Fingerprint) || strings.HasPrefix(f.Fingerprint, sum[:min(len(sum), 16)]) {
					t.Errorf("%s: fingerprint is %s of %q, computable without the key", rule, name, msg)
				}
			}
		}
		// HMACs under keys anyone has: empty, zero, digests of nothing,
		// the key a catalog without fingerprint-key derives from an empty
		// catalog, and keys derived from the guessed value itself.
		vsum := sha256.Sum256([]byte(matched))
		for kname, key := range map[string][]byte{
			"empty": {}, "zero": zero, "sha256('')": emptyDigest[:], "empty-catalog-digest": digestKey[:],
			"sha256(value)": vsum[:], "value": []byte(matched), "rule": []byte(rule),
		} {
			for _, msg := range msgs {
				m := hmac.New(sha256.New, key)
				m.Write([]byte(msg))
				sum := hex.EncodeToString(m.Sum(nil))
				if strings.HasPrefix(sum, f.Fingerprint) {
					t.Errorf("%s: fingerprint is HMAC(%s) of %q", rule, kname, msg)
				}
			}
			for n := 0; n < 4; n++ {
				if privscanFP(key, rule, "text", line, n) == f.Fingerprint {
					t.Errorf("%s: fingerprint recomputed with the public key %s", rule, kname)
				}
			}
		}
		// Positive control: with the real key the documented construction
		// gives the fingerprint, so the negative checks above test the
		// real construction and not a misreading of it.
		found := false
		for n := 0; n < 4; n++ {
			found = found || privscanFP(c.fpKey[:], rule, "text", line, n) == f.Fingerprint
		}
		if !found {
			t.Errorf("%s: the documented construction with the fingerprint-key does not give %s", rule, f.Fingerprint)
		}
	}

	// Stable for the same catalog; changed by another fingerprint-key
	// alone, or by dropping it (then a digest of the catalog keys them).
	again := textFindings(t, md, text)
	var other [32]byte
	copy(other[:], c.fpKey[:])
	other[0] ^= 1
	rekeyed := textFindings(t, catalogMarkdown(c, other), text)
	unkeyed := textFindings(t, strings.Replace(md, "- fingerprint-key: "+hex.EncodeToString(c.fpKey[:])+"\n", "", 1), text)
	if len(again) != len(fs) || len(rekeyed) != len(fs) || len(unkeyed) != len(fs) {
		t.Fatalf("finding counts differ between runs: %d, %d, %d, %d", len(fs), len(again), len(rekeyed), len(unkeyed))
	}
	seen := map[string]bool{}
	for _, f := range fs {
		seen[f.Fingerprint] = true
	}
	for i := range fs {
		if again[i].Fingerprint != fs[i].Fingerprint {
			t.Errorf("%s: fingerprint not stable across runs", fs[i].RuleID)
		}
		if seen[rekeyed[i].Fingerprint] {
			t.Errorf("%s: fingerprint unchanged by a new fingerprint-key", fs[i].RuleID)
		}
		if seen[unkeyed[i].Fingerprint] {
			t.Errorf("%s: fingerprint unchanged without the fingerprint-key", fs[i].RuleID)
		}
	}
}
