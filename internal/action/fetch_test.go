package action_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// releaseArchive is a tar.gz holding a stand-in privscan that prints its
// version.
func releaseArchive(t *testing.T, version string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	body := []byte("#!/bin/sh\necho privscan " + version + "\n")
	for _, f := range []struct {
		name string
		data []byte
	}{{"README.md", []byte("readme\n")}, {"privscan", body}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o755, Size: int64(len(f.data))}); err != nil {
			t.Fatal(err)
		}
		tw.Write(f.data)
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// TestFetchRelease runs scripts/fetch-release against a loopback server
// that serves a release: a verified archive is installed; a tampered one
// is refused (exit 4, nothing installed); no release or no network is
// exit 3, the caller's cue to build from source.
func TestFetchRelease(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the script is POSIX sh")
	}
	arch := map[string]string{"amd64": "amd64", "arm64": "arm64"}[runtime.GOARCH]
	if arch == "" {
		t.Skip("no release for this architecture")
	}
	script, err := filepath.Abs("../../scripts/fetch-release")
	if err != nil {
		t.Fatal(err)
	}
	const version = "1.2.3"
	name := fmt.Sprintf("privscan_%s_%s_%s.tar.gz", version, runtime.GOOS, arch)
	good := releaseArchive(t, version)
	sum := sha256.Sum256(good)
	checksums := hex.EncodeToString(sum[:]) + "  " + name + "\n"

	serve := func(archive []byte) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/v" + version + "/checksums.txt":
				fmt.Fprint(w, checksums)
			case "/v" + version + "/" + name:
				w.Write(archive)
			default:
				http.NotFound(w, r)
			}
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	run := func(base, ver string) (int, string, string) {
		dest := t.TempDir()
		cmd := exec.Command("sh", script, ver, dest)
		cmd.Env = append(os.Environ(), "PRIVSCAN_RELEASE_BASE_URL="+base)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if err != nil {
			code = cmd.ProcessState.ExitCode()
		}
		return code, strings.TrimSpace(stdout.String()), stderr.String() + "\n(dest " + dest + ")"
	}

	t.Run("verified", func(t *testing.T) {
		code, bin, stderr := run(serve(good).URL, "v"+version)
		if code != 0 || filepath.Base(bin) != "privscan-"+version {
			t.Fatalf("exit %d, %q\n%s", code, bin, stderr)
		}
		out, err := exec.Command(bin).Output()
		if err != nil || strings.TrimSpace(string(out)) != "privscan "+version {
			t.Fatalf("installed binary: %q %v", out, err)
		}
	})
	t.Run("tampered", func(t *testing.T) {
		bad := releaseArchive(t, version+"-evil")
		code, bin, stderr := run(serve(bad).URL, version)
		if code != 4 || bin != "" || !strings.Contains(stderr, "REFUSED") {
			t.Fatalf("exit %d, %q\n%s", code, bin, stderr)
		}
		dest := stderr[strings.LastIndex(stderr, "(dest ")+6 : len(stderr)-1]
		if entries, _ := os.ReadDir(dest); len(entries) != 0 {
			t.Fatalf("something was installed: %v", entries)
		}
	})
	t.Run("no such release", func(t *testing.T) {
		if code, _, stderr := run(serve(good).URL, "9.9.9"); code != 3 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
	})
	t.Run("offline", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		if code, _, stderr := run("http://"+addr, version); code != 3 || !strings.Contains(stderr, "offline") {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
	})
	t.Run("not a version", func(t *testing.T) {
		for _, v := range []string{"main", "3d3c42e5aac5ba805825da76410c181273ba90b1", "v1.2.3;rm -rf /"} {
			if code, _, _ := run(serve(good).URL, v); code != 3 {
				t.Errorf("%q: exit %d", v, code)
			}
		}
	})
}
