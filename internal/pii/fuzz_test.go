package pii

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
	"github.com/privscan/privscan/scanner"
)

// FuzzDetect checks the invariants every detector must keep on any input:
// no panic, spans inside the line and non-empty, matches of one detector
// in increasing, non-overlapping order, and each match re-found when its
// own text is scanned alone (the recognisers are local).
func FuzzDetect(f *testing.F) {
	for k := range specs {
		for _, s := range specs[k].samples.TP {
			f.Add([]byte(s.Line))
		}
		for _, s := range specs[k].samples.FP {
			f.Add([]byte(s))
		}
	}
	for _, s := range commonFP {
		f.Add([]byte(s))
	}
	d, err := New(Config{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fr := &scanner.Fragment{Lines: []scanner.Line{{Number: 1, Text: line}}}
		last := map[string]int{}
		d.Detect(fr, func(m scanner.Match) {
			if m.Line != 0 || m.Start < 0 || m.End > len(line) || m.Start >= m.End {
				t.Fatalf("%s: bad span [%d,%d) in %d bytes", m.RuleID, m.Start, m.End, len(line))
			}
			if e, ok := last[m.RuleID]; ok && m.Start < e {
				t.Fatalf("%s: overlapping or unordered spans", m.RuleID)
			}
			last[m.RuleID] = m.End
		})
	})
}

// FuzzDetectContext splits a text into added and context lines (mask's
// bits, one a line) and checks that the matches of a fragment with context
// are on its added lines only, with spans inside them, at locations also
// found when the same added lines are read without context (context only
// informs a severity, it never finds anything itself).
func FuzzDetectContext(f *testing.F) {
	f.Add("__contributors__ = [\n    \"Ada Example <ada.example@mailhost.io>\",\n    \"Cy Demo <cy.demo@mailhost.io>\",\n]", uint64(0b0101))
	f.Add("/**\n * @author Ada Example\n *   ada.example@mailhost.io\n */", uint64(0b0011))
	f.Add("owner = cy.demo@mailhost.io\ncall +1 415 867 2671\n\n10.1.2.3", uint64(0b1010))
	d, err := New(Config{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string, mask uint64) {
		full := &scanner.Fragment{Kind: finding.KindDiff, Path: "src/demo/file.py"}
		bare := &scanner.Fragment{Kind: finding.KindDiff, Path: full.Path}
		for i, l := range strings.Split(text, "\n") {
			line := scanner.Line{Number: i + 1, Text: []byte(l)}
			if i < 64 && mask&(1<<i) != 0 {
				full.Context = append(full.Context, line)
				continue
			}
			full.Lines = append(full.Lines, line)
			bare.Lines = append(bare.Lines, line)
		}
		type loc struct {
			line, start, end int
			rule             string
		}
		found := map[loc]bool{}
		d.Detect(bare, func(m scanner.Match) { found[loc{m.Line, m.Start, m.End, m.RuleID}] = true })
		d.Detect(full, func(m scanner.Match) {
			if m.Line < 0 || m.Line >= len(full.Lines) || m.Start < 0 || m.End > len(full.Lines[m.Line].Text) || m.Start >= m.End {
				t.Fatalf("%s: match on line %d [%d,%d) outside the added lines", m.RuleID, m.Line, m.Start, m.End)
			}
			if !found[loc{m.Line, m.Start, m.End, m.RuleID}] {
				t.Fatalf("%s: match on line %d [%d,%d) only with context", m.RuleID, m.Line, m.Start, m.End)
			}
		})
	})
}

// fuzzValidator runs one validator on arbitrary input and checks its span.
func fuzzValidator(f *testing.F, name string, seeds []string) {
	for k := range specs {
		if specs[k].name != name {
			continue
		}
		for _, s := range specs[k].samples.TP {
			f.Add(s.Line)
		}
		for _, s := range specs[k].samples.FP {
			f.Add(s)
		}
	}
	for _, s := range seeds {
		f.Add(s)
	}
	d := only(f, name, false)
	f.Fuzz(func(t *testing.T, line string) {
		for _, m := range run(d, line) {
			if m.Start < 0 || m.End > len(line) || m.Start >= m.End {
				t.Fatalf("bad span [%d,%d) in %d bytes", m.Start, m.End, len(line))
			}
			// A match is self-contained: scanning exactly its text finds it again.
			again := run(d, line[m.Start:m.End])
			if len(again) != 1 || again[0].Start != 0 || again[0].End != m.End-m.Start {
				t.Fatalf("match not found again in isolation: %d matches", len(again))
			}
		}
	})
}

func FuzzEmail(f *testing.F) {
	fuzzValidator(f, "email", []string{"https://h.io/m/x=y==a@b.co", "https://h.io/a&b/c@d.co?e=f@g.co", "a@b.co", "@@", "x@.y", "a.@b.cd", "a@b.co:/p", "scp a@b.co:x", "a@b.co:", "rsync x a@b.co:~/", "news:a.1@news.b.co", "goodnews:a@b.co", "news:"})
}
func FuzzPhone(f *testing.F) {
	fuzzValidator(f, "phone", []string{"UTC m=+61.310501783", "m=+1.123456789012", "xm=+61.310501783", "m=+", "m=+1.", "+1 (415) 867-2671", "+(0)", "+44 (0)(0)", "(415)"})
}
func FuzzCard(f *testing.F) {
	fuzzValidator(f, "credit-card", []string{"4539 1488 0343 6467", "4539 ", "4539-1488-"})
}
func FuzzIBAN(f *testing.F) {
	fuzzValidator(f, "iban", []string{"DE89 3704 0044 0532 0130 00", "DE89 ", "LC55"})
}
func FuzzSSN(f *testing.F) { fuzzValidator(f, "us-ssn", []string{"536-22-1784", "536 22 1784 ", "--"}) }
func FuzzIP(f *testing.F) {
	fuzzValidator(f, "ip-address", []string{"52.14.200.7", "2a00:1450::1", ":::", "1.2.3.4:", "2a00::1.2.3.4"})
}

// FuzzParseIPv6 checks the allocation-free IPv6 parser against net/netip.
func FuzzParseIPv6(f *testing.F) {
	for _, s := range []string{
		"::", "::1", "1::", "2001:db8::1", "2a00:1450:4001:82a::200e", "::ffff:1.2.3.4",
		"1:2:3:4:5:6:7:8", "1:2:3:4:5:6:1.2.3.4", "1::2::3", "1:2:3:4:5:6:7:8:9", "12345::",
		"1:2:3:4:5:6:7::", "::1.2.3.4", "1.2.3.4", ":1", "1:", "::01.2.3.4", "fe80::1%eth0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseIPv6([]byte(s))
		want, err := netip.ParseAddr(s)
		wantOK := err == nil && want.Is6() && want.Zone() == ""
		if ok != wantOK || (ok && got != want) {
			t.Fatalf("parseIPv6(%q) = %v, %v; netip says %v, %v", s, got, ok, want, err)
		}
	})
}

// FuzzDetectFragment runs the detectors over arbitrary multi-line
// fragments of every kind, with and without a credits file name, a
// Rakefile or a documentation file: commit trailers, credits, author and
// gem specification blocks look across lines and back along a line.
func FuzzDetectFragment(f *testing.F) {
	f.Add("Fix (#1), Signed-off-by: A B <a.b@mailhost.io>\n\nAuthor: C <c@mailhost.io>", uint8(0))
	f.Add("author:\n  - A (@a) <a.b@mailhost.io>\n- x\nfoo: <c@mailhost.io>", uint8(1))
	f.Add("# adapted by\n# A <a.b@mailhost.io>\nMessage-ID: <x@y.io> <z@w.io>", uint8(2))
	f.Add("<@:>(@)<x@Y.IO>cid:a@b.io", uint8(3))
	f.Add("// Code generated by x. DO NOT EDIT.\nvar m = \"a.b@mailhost.io\"", uint8(9))
	f.Add("# @generated\n# auto-generated, do not edit\nx = [4539148803436467, 1e-9, 0x]", uint8(10))
	f.Add("S\n\nBackport of x\n  from a.b <a.b@mailhost.io>\nthanks to <c@mailhost.io>\nby\n<d@mailhost.io>", uint8(0))
	f.Add("S\n\nchanges from #1, by A B\n<a.b@mailhost.io>.\nThanks to\n  <c@mailhost.io>\n<\n<d@mailhost.io>", uint8(0))
	f.Add("Gem::Specification.new do |s|\n s.summary = 'x'\n s.email = [\n 'a.b@mailhost.io',\n]\nend\n do |\n{|x", uint8(17))
	f.Add("The mailing list a.b@mailhost.io. Subscribe. x@mailhost.io! ? .", uint8(33))
	f.Add("x=\"$(ssh -i \"$k\" a.b@ssh.mailhost.io h)\"\nssh -o -- 'a@b.io\nsftp -\"x a.b@mailhost.io\nme@gmail.com a.b+c@googlemail.com", uint8(1))
	f.Add("#Report Bugs: https://a.io  or  a@mailhost.io\n# Bug reports:: <b@mailhost.io>\n-- send patches: / | x://y c@mailhost.io\n:d@mailhost.io", uint8(1))
	f.Add("# Generated by GNU Autoconf 2.71\nReport bugs and patches to <a@mailhost.io>. to to<b@mailhost.io>", uint8(1))
	f.Add("computeHa1(u, \"a@mailhost.io\", p)\n\"Report-Msgid-Bugs-To: b@mailhost.io\\n\"\n#  <c@mailhost.io>, 2017.", uint8(1))
	f.Add("__author__ = 'A'\n__email__ = \"a.b@mailhost.io\"\n__email__: str = 'c@mailhost.io'\n__email__==", uint8(65))
	f.Add("  commit_author:\n    email: a.b@mailhost.io\ngit config --global user.email \"c@mailhost.io\"\nGIT_COMMITTER_EMAIL=d@mailhost.io\n- :=e@mailhost.io", uint8(129))
	f.Add("# $Id: x.sh 54 2008-10-21 23:29:23Z a@mailhost.io $\n$Author: b@mailhost.io $\n$Id$ c@mailhost.io $", uint8(1))
	f.Add("run \"git\", \"config\", \"user.email\", \"a@mailhost.io\"\ngitUserEmail = 'b@mailhost.io'\ngit.commit().setCommitter(\"C\", \"c@mailhost.io\")\n(\"\", \"d@mailhost.io", uint8(1))
	f.Add("<!--\n:Authors: A\n:Address: a@mailhost.io\n    b@mailhost.io\n:Modified by: C <c@mailhost.io>\n:by: <d@mailhost.io>", uint8(1))
	f.Add("/*\n  Author: A B\n  <a@mailhost.io>\n*/\n\"\"\"\n@contact: b@mailhost.io\n\"\"\"\nfpm -m c@mailhost.io \\\n.. moduleauthor:: D <d@mailhost.io>\nssh-rsa AAAAB3NzaC1yc2EAAAADAQAB e@mailhost.io", uint8(1))
	f.Add("S\n\nBody.\n\nA B <a@mailhost.io>\n  C <c@mailhost.io>\nCc: D\n\n\n", uint8(0))
	f.Add("S\n\n\nA <a@mailhost.io>\nx\n\n<b@mailhost.io>\n", uint8(0))
	f.Add("Adds A B <a@mailhost.io> to AUTHORS\n\nAdd C <c@mailhost.io> to the THANKS file\n<d@mailhost.io> to\nE <e@mailhost.io> to ", uint8(0))
	f.Add("__author__ = \"\"\"\\\nA <a@mailhost.io>;\\\n\"\"\"\nb@mailhost.io\n__email__='''c@mailhost.io\n__author__ = r'''\nd@mailhost.io'''", uint8(65))
	f.Add("Signed-off-by: A B a@mailhost.io\n\nSigned-off-by: A <b@mailhost.io>\ncommitter C <c@mailhost.io> 1357000000 +0100\ntagger <d@x> 1 -", uint8(0))
	f.Add("x = \"aes-ctr,a-cbc@ssh.io,\"\n%w(a-b\n b-cbc@ssh.io\n c-d)\n'c-x@ssh.io' => {\n'h-2' =>\n\"d@ssh.io\" => \"e-f\n| e@ssh.io |\n,@,f@ssh.io,", uint8(1))
	f.Add("  s.summary = 'x'\n  s.authors = ['A']\n  s.email = ['a@mailhost.io']\n# implementation\n# by A (b@mailhost.io)\n# based on x://y/z\n# by B <c@mailhost.io\ngem cert --build d@mailhost.io -b", uint8(17))
	f.Add("__contributors__ = [\n  \"A <a@mailhost.io>\",\n  'B <b@mailhost.io>'\n \" <c@mailhost.io>\",\n]\n  \"D <d@mailhost.io>\",\n__credits__ = (\"\"\n__maintainers__=[\"E <e@mailhost.io>\"]", uint8(65))
	f.Add(" * @author A\n *\t<a@mailhost.io>\n// @author\n// b@mailhost.io\nBased on:\n  T\n  by A B <c@mailhost.io>.\n\"\"\"T\nby A (d@mailhost.io\n'''\nby <e@mailhost.io>", uint8(1))
	d, err := New(Config{})
	if err != nil {
		f.Fatal(err)
	}
	kinds := []finding.Kind{finding.KindCommitMessage, finding.KindDiff, finding.KindFile, finding.KindText}
	f.Fuzz(func(t *testing.T, text string, sel uint8) {
		fr := &scanner.Fragment{Kind: kinds[int(sel)%len(kinds)]}
		if sel&4 != 0 {
			fr.Path = "vendor/x/AUTHORS.md"
		}
		if sel&8 != 0 {
			fr.Path = "a/third_party/b/package-lock.json"
		}
		if sel&16 != 0 {
			fr.Path = "Rakefile"
		}
		if sel&32 != 0 {
			fr.Path = "docs/README.md"
		}
		if sel&64 != 0 {
			fr.Path = "pkg/__init__.py"
		}
		if sel&128 != 0 {
			fr.Path = "libx-1.2.3/.goreleaser.yml"
		}
		for i, l := range strings.Split(text, "\n") {
			fr.Lines = append(fr.Lines, scanner.Line{Number: i + 1, Text: []byte(l)})
		}
		d.Detect(fr, func(m scanner.Match) { checkMatch(t, fr, m) })
	})
}

// checkMatch fails t unless m is a valid match in fr: a line of fr, a
// non-empty span within it, a known severity.
func checkMatch(t *testing.T, fr *scanner.Fragment, m scanner.Match) {
	t.Helper()
	if m.Line < 0 || m.Line >= len(fr.Lines) {
		t.Fatalf("%s: line %d of %d", m.RuleID, m.Line, len(fr.Lines))
	}
	if n := len(fr.Lines[m.Line].Text); m.Start < 0 || m.End > n || m.Start >= m.End {
		t.Fatalf("%s: bad span [%d,%d) in %d bytes", m.RuleID, m.Start, m.End, n)
	}
	if m.Severity < finding.SeverityNote || m.Severity > finding.SeverityError {
		t.Fatalf("%s: severity %v", m.RuleID, m.Severity)
	}
}

// FuzzReleaseDir reads arbitrary path segments as a released version's
// directory: it never panics, and a segment it accepts holds a name, a
// hyphen and at least three dot-separated numbers.
func FuzzReleaseDir(f *testing.F) {
	for _, s := range []string{"yaml-0.1.3", "libfoo-2.0.0-rc1", "openssl-1.1.1w", "pkg-1.2.3-2", "node-18", "python-3.11",
		"backup-2024.01.02", "host-10.0.0.1", "version-1.2.3", "a-1.2.3.", "a-1.2.3-", "-1.2.3", "a-99999999999.1.1", "a-1.2.3+b~c_d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seg string) {
		if !releaseDir(seg) {
			return
		}
		if !strings.Contains(seg, "-") || strings.Count(seg, ".") < 2 || !isLower(seg[0]) {
			t.Fatalf("releaseDir(%q) = true without a name, a hyphen and a dotted version", seg)
		}
	})
}

// FuzzDetectPath runs the detector over arbitrary added lines of a file
// at an arbitrary path, so that the rules that read the path and a
// header comment (authors lists under a label, extensionless
// documentation, gem-building DSL calls) see fuzzed input: it never
// panics and every match is a valid span.
func FuzzDetectPath(f *testing.F) {
	f.Add("<?php\n/*\n * Authors:\n * - A B    a.b@mailhost.io, C c@mailhost.io\n * - d@mailhost.io\n */\nreturn [];", "src/Lang/xx.php", uint8(1))
	f.Add("# Translators :\n# • e@mailhost.io\n#\t*\tf@mailhost.io\n# x g@mailhost.io", "po/x.sh", uint8(1))
	f.Add("= T\n== Credits\n[<b>a@mailhost.io</b>] x\n= \nmailto:b@mailhost.io", "pkg/README", uint8(1))
	f.Add("  developer 'A B', 'a@mailhost.io'\n  p.developer(\"C\", \"c@mailhost.io\")\n developer '', '@'\n,'d@mailhost.io'", "Rakefile", uint8(1))
	f.Add("    s.email = \"a@mailhost.io\"\n    s.homepage = \"x\"\n s.=\n.email=", "Rakefile", uint8(1))
	f.Add("* x (patches by A (a@mailhost.io))\n(b@mailhost.io))).\n(c@mailhost.io)))x", "CHANGES", uint8(1))
	f.Add("%changelog\n* Wed Jun 14 2023 A B <a@mailhost.io> - 1.2-3\n* Mon Jan  1 24 b@mailhost.io\n* Sun\n* Sun Dec 99999 c@mailhost.io", "x.spec.txt", uint8(1))
	f.Add("AUTHOR = \"A B\"\nEMAIL = \"a@mailhost.io\"\nGEM_EMAIL=['b@mailhost.io'\nX_EMAIL = \"c@mailhost.io\"\nEMAIL = \"\nE = '", "Thorfile", uint8(1))
	f.Add("Cheers, a <a@mailhost.io>\nRegards,\nB C <b@mailhost.io>\n,\n<c@mailhost.io>\nWe discuss x at d@mailhost.io. discuss by email <e@mailhost.io>\ndiscuss:", "docs/x.ronn", uint8(1))
	f.Add(" <lead>\n  <email>a@mailhost.io</email>\n </lead><email>b@mailhost.io</email>\n<helper\t><email>c@mailhost.io</email></helper>", "package.xml.tpl", uint8(1))
	f.Add("<pkgmetadata>\n\t<maintainer type=\"person\">\n\t\t<email>a@mailhost.io</email>\n\t</maintainer>\n<email>b@mailhost.io</email>\n<maintainer><email>c@mailhost.io</email></maintainer><email>", "x/metadata.xml", uint8(1))
	f.Add("[a-b@mailhost.io](https://m.io/mailman/listinfo/a-b) /listinfo/ /lists/a.mailhost.io/ /archives/list/c@x/ c@mailhost.io /pipermail/", "README.md", uint8(1))
	f.Add("gpg --export-secret-key --armour a@mailhost.io\ntwine upload -s -i b@mailhost.io\ndebsign -kc@mailhost.io\n- d@mailhost.io\n-\n%_gpg_name E <e@mailhost.io>\ngpg -r f@mailhost.io; x -u g@mailhost.io\n--local-user=h@mailhost.io", ".travis.yml", uint8(1))
	f.Add("Contact a@mailhost.io\n<b@mailhost.io>\nmailto:c@mailhost.io", ".github/CODE_OF_CONDUCT.md", uint8(1))
	f.Add("Contact a@mailhost.io", "testdata/CONDUCT", uint8(1))
	f.Add("    spec.email = \"a@mailhost.io\"\nend\n  spec.summary = 'x'\n s.authors = ['B <b@mailhost.io>'] do |\n s.homepage=\n=c@mailhost.io\n.email = 'd@mailhost.io'\n.summary = 1", "Thorfile", uint8(1))
	f.Add("(\"u:p@h.mailhost.io\", True)\n'mailto:a@mailhost.io'\n\":b@mailhost.io\"\n'x y:c@mailhost.io'\n\"u:d@mailhost.io\n':e@mailhost.io:'", "tests/test_url_build.py", uint8(1))
	f.Add("请联系 [A](https://m.io)\n邮箱 <a@mailhost.io>。\nFor x, contact\u00a0[B]\nat <b@mailhost.io>. contact at c@mailhost.io.x\nto contact\nat\n<d@mailhost.io>)。", "README.cn.md", uint8(1))
	f.Add("  # Jeweler::Tasks.new do |gem|\n    # gem.email = \"a@mailhost.io;b@mailhost.io\"\n# s.email = %w[c@mailhost.io\n#s.email=\n# x.email = 'd@mailhost.io' # e@mailhost.io", "Gemfile", uint8(1))
	f.Add("/****/\n//@Author: A \"B\" C\n//@website: x\n//@email: a@mailhost.io\n# Email:\n# Author:\n# E-mail: <b@mailhost.io>\n#:\n# @: c@mailhost.io", "site/js/popup.js", uint8(1))
	f.Add("#! /bin/sh\n# A B\n# a@mailhost.io\n#\n# C. D\n# <c@mailhost.io>\n# E\n# <e@mailhost.io\nx)\t# lightly tested by f@mailhost.io\n#\tChange from G H <g@mailhost.io>.  by\n\"# done by h@mailhost.io\" # Fix from\n# x. y by <i@mailhost.io> ly by from (", "src/x-conf", uint8(1))
	f.Add("#  <a@mailhost.io>, 2017, 2019-2020.\n# B <b@mailhost.io>, 20\n#, <c@mailhost.io>, 2017.\n#\nmsgid \"\"\nmsgstr \"\"\n\"Report-Msgid-Bugs-To: <d@mailhost.io>\\n\"\n\"Report-Msgid-Bugs-To:\n#  <e@mailhost.io>,", "po/xx.po", uint8(1))
	f.Add("ha1 = f.send(:compute_ha1, \"MD5\", \"a@mailhost.io\",\nHA1('b@mailhost.io')\ndigest(\"SHA-256\", 'c@mailhost.io')\nsend_mail(\"MD5\", \"d@mailhost.io\")\n\"\"'MD5-sess'(\"e@mailhost.io", "test/digest_test.rb", uint8(1))
	f.Add("notifications:\n#  email:\n#    - a@mailhost.io\n#    - \"b@mailhost.io\"\n#\n#  recipients:\n#-c@mailhost.io\nx:\n#    - d@mailhost.io\n#", ".travis.yml", uint8(1))
	f.Add("# $Id: x.sh 54 2008-10-21 23:29:23Z a@mailhost.io $\n# $Header: /r/x,v 1.2 2003/01/07 12:00:00 b@mailhost.io Exp $\n$Author: c@mailhost.io $\n$Id: d@mailhost.io\n$Id: x 1.. 2008/10-21 23:29 e@mailhost.io X $\n$:f@mailhost.io $\n$", "lib/x.sh", uint8(1))
	f.Add("run \"git\", \"config\", \"user.email\", \"a@mailhost.io\"\ngit_genericEmail = \"<b@mailhost.io>\"\ngitTool.setAuthor(\"A B\", \"c@mailhost.io\")\npost.setAuthor(\"D\", \"d@mailhost.io\")\n.setAuthor(\", \"e@mailhost.io\n\"\", 'f@mailhost.io'\nGITUserEmail=g@mailhost.io", "gradle/release.gradle", uint8(1))
	f.Add("/*\n:Author: A B\n:Contact: a@mailhost.io\n:Date: $Date: x $\n:Modified by: C D <c@mailhost.io>\n  <d@mailhost.io>\n\n:Contact: e@mailhost.io\n: :f@mailhost.io\n:: g@mailhost.io\n:x by:<h@mailhost.io>", "share/css/rst2html.css", uint8(1))
	f.Add("<xsl:stylesheet version=\"1.0\">\n\t<xsl:key name=\"f\" use=\"@name\" />\n<?x?>\n<!DOCTYPE>\n<>\n</x>\n<a><b>\n\t<!-- Sheet by A B <a@mailhost.io> -->\n<!-- <b@mailhost.io> and c -->", "config/x.xsl", uint8(1))
	f.Add("/*\n   Author: A B\n  <a@mailhost.io>\n*/\n<!-- x by C D -->\n<!-- <c@mailhost.io> -->\n# by\n# <>\n by E\n<e@mailhost.io", "dist/x.js", uint8(40))
	f.Add("#!x\n\n\"\"\"\n@author: A\n@contact: a@mailhost.io\n:organization: B\n   `E <mailto:b@mailhost.io>`_\n:\n@:\n:c: c@mailhost.io\n\"\"\"\nu'''d@mailhost.io'''\n", "pkg/__init__.py", uint8(1))
	f.Add("- fpm -s dir -v \"$(x | y)\" -m a@mailhost.io\nfpm --maintainer 'A <b@mailhost.io>'\nfpm --maintainer=c@mailhost.io\nfpm -m\n-m d@mailhost.io\n(('\"`-m e@mailhost.io", ".travis.yml", uint8(1))
	f.Add("[bdist_rpm]\npackager = A <a@mailhost.io>\npackager\npackager:b@mailhost.io\nssh-rsa AAAAB3NzaC1yc2EAAAADAQAB c@mailhost.io\nssh- AAAA d@mailhost.io", "setup.cfg", uint8(1))
	f.Add("no-pty ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI a@mailhost.io\necdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTY b@mailhost.io\nssh-rsa\n AAAA", "home/authorized_keys2", uint8(1))
	f.Add(".. moduleauthor:: A <a@mailhost.io>\n   ..  sectionauthor::b@mailhost.io\n.. codeauthor: c@mailhost.io\n..\n.. codeauthor", "apidoc/api.rst", uint8(1))
	f.Add("default_context:\n    email:    'a@mailhost.io'\n    author_email: b@mailhost.io\n    x: c@mailhost.io\n:d@mailhost.io\nemail:", ".cookiecutterrc", uint8(1))
	f.Add("Otherwise unacceptable behavior may be\nreported by contacting the team at [a@mailhost.io](mailto:a@mailhost.io).\nreport unacceptable behaviour to\nto b@mailhost.io at", "docs/README.md", uint8(1))
	f.Add("# Copyright (c) 2016 A B <a@mailhost.io>\n#   C D, <c@mailhost.io>\n#   E,, <e@mailhost.io>\n# , <f@mailhost.io>\n#,<g@mailhost.io>", "plugins/x.py", uint8(1))
	f.Add("## Contributors\n### Core Team\n* A (a@mailhost.io)\n## X\nAuthor\n------\nB :: b@mailhost.io\nCurrent maintainers\n===\n\n---\n1. x\n---\nc@mailhost.io", "README.md", uint8(1))
	f.Add("// SFTPv3 'x@mailhost.io'\n$this->extensions['x@mailhost.io'] = 1;\nglobal_request( \"y@mailhost.io\"\n'y@mailhost.io' '' '@' ['z@mailhost.io", "src/Net/SFTP.php", uint8(1))
	f.Add("{\n  \"authors\": [\n    {\"name\": \"A\", \"email\": \"a@mailhost.io\"}\n  ]\n}", "ci/composer.legacy.json", uint8(1))
	f.Add("{\"content-hash\": \"x\", \"packages\": [{\"authors\": [{\"email\": \"b@mailhost.io\"}]}]}", "ci/composer.legacy.lock", uint8(1))
	d, err := New(Config{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text, p string, first uint8) {
		fr := fragmentFrom(finding.KindDiff, p, int(first), text)
		d.Detect(fr, func(m scanner.Match) { checkMatch(t, fr, m) })
	})
}

// FuzzGemDSLPerson reads arbitrary lines and spans as a gem-building DSL
// call: it never panics, and a span it accepts is a quoted argument after
// a comma.
func FuzzGemDSLPerson(f *testing.F) {
	for _, s := range []string{"  developer 'A B', 'a@mailhost.io'", "p.developer(\"C\", \"c@mailhost.io\")", "developer '', 'x'", "'a', 'b'", ".developer 'a','b'", "x"} {
		f.Add(s, 0, len(s))
		f.Add(s, len(s)/2, len(s)-1)
	}
	f.Fuzz(func(t *testing.T, line string, start, end int) {
		if start < 1 || end <= start || end > len(line) {
			return
		}
		b := []byte(line)
		if gemDSLPerson(b, start, end) {
			if q := b[start-1]; (q != '\'' && q != '"') || at(b, end) != q || !strings.Contains(line[:start], ",") {
				t.Fatalf("gemDSLPerson(%q, %d, %d) = true without a quoted second argument", line, start, end)
			}
		}
	})
}

// FuzzGemEmailConstant reads arbitrary lines and offsets as a Ruby build
// file's credit constant and as a commented-out gem email assignment: it
// never panics; an offset gemEmailConstant accepts follows a constant in
// capitals, a single "=" and an opening quote, and one commentedGemEmail
// accepts follows a "#", ".email" and an "=" with no other "#" or "="
// after it.
func FuzzGemEmailConstant(f *testing.F) {
	for _, s := range []string{"EMAIL = \"a@mailhost.io\"", "AUTHOR_EMAIL='b@mailhost.io'", "EMAILS = [\"c@mailhost.io\"", "EMAIL == \"d\"", "E_ = 'x'", "_EMAIL = \"", "x",
		"  # gem.email = \"e@mailhost.io;f@mailhost.io\"", "#  s.email = %w[g@mailhost.io h@mailhost.io]", "## spec.email = ['i@x.io', 'j@x.io']", "# gem.email = ENV['X'] || 'k'", "# g.email == \"l\"", "#.email=", "# s.email = %w", "#"} {
		f.Add(s, len(s)/2)
		f.Add(s, len(s)-1)
	}
	f.Fuzz(func(t *testing.T, line string, start int) {
		if start < 1 || start > len(line) {
			return
		}
		b := []byte(line)
		if gemEmailConstant(b, start) {
			eq := strings.IndexByte(line[:start], '=')
			if !isUpper(b[0]) || eq < 0 || at(b, eq+1) == '=' || !strings.ContainsAny(line[eq:start], "\"'") {
				t.Fatalf("gemEmailConstant(%q, %d) = true without a constant's assignment of a string", line, start)
			}
		}
		if commentedGemEmail(b, start) {
			head := strings.TrimLeft(line[:start], " \t")
			e := strings.Index(head, ".email")
			eq := strings.IndexByte(head, '=')
			if !strings.HasPrefix(head, "#") || e < 0 || eq < e || at(b, len(line[:start])-len(head)+eq+1) == '=' || strings.ContainsAny(head[eq+1:], "=#") {
				t.Fatalf("commentedGemEmail(%q, %d) = true without a commented email assignment", line, start)
			}
		}
	})
}
