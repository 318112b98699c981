package pii

import (
	"bytes"
	"path"
	"strings"

	"github.com/privscan/privscan/scanner"
)

// Third-party and generated files. A repository that vendors a module, a
// package manager's lock file, a minified bundle or a file a generator
// wrote carries other people's text: the addresses in it are the third
// party's published credits and contacts (a vendored RFC draft's authors,
// a generated options file's maintainer alias, a lock file's package
// authors), copied in by a tool, not typed by the change's author. Like
// credits they are still reported, as notes. Only email addresses are
// lowered: a card number, an IBAN or a catalogued value there is reported
// as anywhere else (secret and catalog rules do not look at this at all).

// thirdPartyDirs are directory names (lower case) that hold code the
// repository did not write: Go, PHP and Ruby vendoring, npm and Bower
// installs, and the conventional homes of imported sources.
var thirdPartyDirs = []string{
	"vendor", "vendors", "_vendor", "third_party", "third-party", "thirdparty", "3rdparty", "3rd_party", "3rd-party",
	"node_modules", "bower_components", "jspm_packages", "external", "externals", "deps", "extern",
}

// lockFiles are package managers' lock files (lower case): every address
// in them is a dependency's published author or registry metadata.
var lockFiles = []string{
	"package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock",
	"composer.lock", "gemfile.lock", "cargo.lock", "poetry.lock", "pipfile.lock", "uv.lock", "pdm.lock",
	"go.sum", "gradle.lockfile", "packages.lock.json", "podfile.lock", "mix.lock", "pubspec.lock",
}

// thirdPartyPath reports whether p is in a third-party directory (a path
// segment, not a name's part: "vendor/x.go", "a/third_party/b.c", but not
// "vendors.go" or "my-deps/x"), is a lock file, or is a minified bundle
// (".min.js", ".min.css", ".min.mjs").
func thirdPartyPath(p string) bool {
	if p == "" {
		return false
	}
	lp := strings.ToLower(p)
	base := path.Base(lp)
	for _, f := range lockFiles {
		if base == f {
			return true
		}
	}
	if composerVariant(base, "lock") {
		return true // the lock of a manifest named by Composer's COMPOSER variable
	}
	if strings.HasSuffix(base, ".min.js") || strings.HasSuffix(base, ".min.css") || strings.HasSuffix(base, ".min.mjs") {
		return true
	}
	for dir := lp; ; {
		i := strings.IndexByte(dir, '/')
		if i < 0 {
			return false // the last segment is the file's name
		}
		seg := dir[:i]
		for _, d := range thirdPartyDirs {
			if seg == d {
				return true
			}
		}
		if releaseDir(seg) && !inFixtureDir(p) {
			return true
		}
		dir = dir[i+1:]
	}
}

// releaseDir reports a directory named as a released version of a
// package, "<name>-<version>" (seg in lower case): a release tarball
// unpacked into the repository ("yaml-0.1.3/", "zlib-1.2.13/",
// "libfoo-2.0.0-rc1/", "openssl-1.1.1w/"), which carries its authors'
// text as surely as vendor/ does. The grammar:
//
//   - the name starts with a letter and holds letters, digits and
//     '_', '.', '+', '-' (the hyphen before the version ends it); it is
//     not only a word that says "version" ("version-1.2.3/", as
//     Docusaurus names a project's own versioned documentation, or
//     "release-1.2.3/");
//   - the version is at least three dot-separated numbers
//     (MAJOR.MINOR.PATCH, as semantic versioning and GNU releases number
//     them), optionally followed by a suffix: a letter run with digits
//     ("1.1.1w", "2.0.0rc1"), or a separator and a pre-release or build
//     tag ("-rc1", ".beta", "-beta.2", "+build.5");
//   - a date is not a version: a first number of four digits
//     ("backup-2024.01.02/", "notes-2024.1.0/"), and neither is an IPv4
//     address ("host-10.0.0.1/": four numbers of at most 255).
//
// A single number or two ("node-18/", "python-3/", "python-3.11/",
// "ubuntu-22.04/", "lesson-1.2/") name a project's own directories (a
// build matrix, a tutorial's sections) too often to count; "v2/",
// "api-v1/" and "migrations/2024-01-02/" have no dotted version at all.
// Under a test, fixture or example directory a versioned directory is a
// package fixture the project wrote ("test/fixtures/pkg-1.0.0/"), and
// keeps its findings (thirdPartyPath checks that).
func releaseDir(seg string) bool {
	for i := 1; i+1 < len(seg); i++ {
		if seg[i] == '-' && isDigit(seg[i+1]) && releaseName(seg[:i]) && releaseVersion(seg[i+1:]) {
			return true
		}
	}
	return false
}

// releaseVersion reports a released version with an optional suffix
// (see releaseDir): three or more dot-separated numbers, not a date nor
// an IPv4 address.
func releaseVersion(v string) bool {
	var nums [4]int
	n, k := 0, 0
	for {
		s := k
		for k < len(v) && isDigit(v[k]) {
			k++
		}
		if k == s || k-s > 9 {
			return false
		}
		if n == 0 && k-s == 4 {
			return false // a year: a date, not a version
		}
		if n < len(nums) {
			num := 0
			for _, c := range v[s:k] {
				num = num*10 + int(c-'0')
			}
			nums[n] = num
		}
		n++
		if k+1 < len(v) && v[k] == '.' && isDigit(v[k+1]) {
			k++
			continue
		}
		break
	}
	if n < 3 {
		return false
	}
	if n == 4 && k == len(v) && nums[0] <= 255 && nums[1] <= 255 && nums[2] <= 255 && nums[3] <= 255 {
		return false // an IPv4 address
	}
	return releaseSuffix(v[k:])
}

// releaseName reports the name part of a release directory: a letter,
// then letters, digits, '_', '.', '+' or '-', and not only a word that
// says "version".
func releaseName(name string) bool {
	if !isLower(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(isLower(c) || isDigit(c) || c == '_' || c == '.' || c == '+' || c == '-') {
			return false
		}
	}
	switch name {
	case "v", "ver", "version", "versions", "rel", "release", "releases", "rev", "revision", "tag":
		return false
	}
	return true
}

// releaseSuffix reports what may follow a release's numbers: nothing,
// letters and digits at once ("w", "rc1", "a2"), or a separator ('-',
// '.', '_', '+', '~') and a tag of letters, digits and further
// separators that starts with a letter or a digit ("-rc1", ".beta",
// "-beta.2", "+build.5").
func releaseSuffix(s string) bool {
	if s == "" {
		return true
	}
	switch s[0] {
	case '-', '.', '_', '+', '~':
		s = s[1:]
		if s == "" || !(isLower(s[0]) || isDigit(s[0])) {
			return false
		}
	default:
		if !isLower(s[0]) {
			return false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isLower(c) || isDigit(c) || c == '.' || c == '-' || c == '_' || c == '+' || c == '~') {
			return false
		}
	}
	return true
}

// generatedHead is how many lines from a file's top a generated-file
// marker is looked for: generators write it in the header comment.
const generatedHead = 20

// generatedFragment reports whether the fragment's text carries a
// generated-file marker in its first generatedHead lines of the file (a
// diff shows the header only when it adds it, which is when a generator
// writes the file).
func generatedFragment(lines []scanner.Line) bool {
	for i := range lines {
		if lines[i].Number > generatedHead {
			break
		}
		if generatedMarker(lines[i].Text) {
			return true
		}
	}
	return false
}

// generatedMarker reports a header comment that says a tool wrote the
// file: Go's "// Code generated … DO NOT EDIT." (the convention of
// golang.org/s/generatedcode), "@generated" (Phabricator, Buck, Rust and
// JavaScript tools), and comments saying "auto-generated",
// "autogenerated", "automatically generated", or "generated" with "do
// not edit". The line must be a comment, so that code that talks about
// generating something is not a marker.
func generatedMarker(line []byte) bool {
	t := bytes.TrimLeft(line, " \t")
	if !commentStart(t) {
		return false
	}
	if bytes.HasPrefix(t, []byte("// Code generated ")) && bytes.HasSuffix(bytes.TrimRight(t, " \t\r"), []byte("DO NOT EDIT.")) {
		return true
	}
	if bytes.Contains(t, []byte("@generated")) {
		return true
	}
	if containsFold(t, "auto-generated") || containsFold(t, "autogenerated") || containsFold(t, "automatically generated") || containsFold(t, "generated automatically") {
		return true
	}
	if autotoolsMarker(t) {
		return true
	}
	return containsFold(t, "generated") && containsFold(t, "do not edit")
}

// autotoolsTools are the GNU build tools whose outputs say, in their
// first lines, which of them wrote the file (lower case).
var autotoolsTools = []string{"autoconf", "automake", "aclocal", "autoheader", "autom4te", "libtool", "libtoolize", "config.status", ".m4sh"}

// autotoolsMarker reports the header a GNU build tool writes into the
// files it generates: configure's "Generated by GNU Autoconf 2.71 for
// pkg 1.0.", aclocal.m4's "generated automatically by aclocal 1.16",
// Makefile.in's "Makefile.in generated by automake 1.16 from
// Makefile.am.", config.h.in's "Generated from configure.ac by
// autoheader.", libtool's ltmain.sh "Generated from ltmain.m4sh.": the
// word "generated" and, after it, the name of the tool (or of the M4sh
// source it was generated from). A comment that only mentions a tool
// ("# Process this file with autoconf to produce a configure script.")
// says no file was generated.
func autotoolsMarker(t []byte) bool {
	for i := 0; i+9 <= len(t); i++ {
		if !equalFold(t[i:i+9], "generated") || isAlpha(before(t, i)) {
			continue
		}
		rest := t[i+9:]
		for _, tool := range autotoolsTools {
			if containsFold(rest, tool) {
				return true
			}
		}
		return false
	}
	return false
}

// commentStart reports whether t (without leading blanks) starts with a
// comment marker of a common language: //, /*, *, #, --, ;, <!--, %, ' or
// rem.
func commentStart(t []byte) bool {
	switch {
	case len(t) == 0:
		return false
	case t[0] == '#' || t[0] == '*' || t[0] == ';' || t[0] == '%':
		return true
	}
	for _, p := range []string{"//", "/*", "--", "<!--", "{-", "(*", "\"\"\""} {
		if bytes.HasPrefix(t, []byte(p)) {
			return true
		}
	}
	return false
}
