package pii

import (
	"strings"
	"testing"

	"github.com/privscan/privscan/finding"
)

// TestRound18Rules: the credits held-out round 18 showed in forms the
// rules did not read, and the same addresses where they stay warnings.
// Synthetic names and hosts only; each fragment is the added lines
// alone, numbered from line 1 of the file.
func TestRound18Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	pad := "x = 1\n" // a line of code, so that the header rules do not apply
	pad30 := ""
	for i := 0; i < 30; i++ {
		pad30 += pad
	}
	cases := []severityCase{
		// The wrapped credit in a comment block, past the header.
		{"block comment body, Author: Name", "dist/tool.js", finding.KindDiff, pad30 + "/*\n        Author: Ana Lima\n      <ana.lima@mailhost.io>\n*/", []string{"note"}},
		{"starred comment, by Name", "src/x.c", finding.KindDiff, pad30 + " * originally written by Bo Example\n * <bo.example@mailhost.io>", []string{"note"}},
		{"XML comments, by Name", "config/style.xsl", finding.KindDiff, pad30 + "\t<!-- (based on a.xsl by Ana Lima       -->\n\t<!--  <ana.lima@mailhost.io> and a patch by Bo)   -->", []string{"note"}},
		{"hash comments, Maintainer: Name", "scripts/run.sh", finding.KindDiff, pad30 + "# Maintainer: Ana Lima\n# <ana.lima@mailhost.io>", []string{"note"}},
		{"Name <address> after the label", "dist/tool.js", finding.KindDiff, pad30 + "// Author:\n// Ana Lima <ana.lima@mailhost.io>", []string{"note"}},
		{"based on x by Name", "dist/tool.js", finding.KindDiff, pad30 + "// based on a.js by Ana Lima\n// <ana.lima@mailhost.io>", []string{"note"}},
		// Recall: an address alone with no credit and name before it.
		{"address alone after prose", "dist/tool.js", finding.KindDiff, pad30 + "/*\n  send the report to\n  <ana.lima@mailhost.io>\n*/", []string{"warning"}},
		{"address alone after the label alone", "dist/tool.js", finding.KindDiff, pad30 + "// Author:\n// <ana.lima@mailhost.io>", []string{"warning"}},
		{"a name after another label", "dist/tool.js", finding.KindDiff, pad30 + "// Contact: Ana Lima\n// <ana.lima@mailhost.io>", []string{"warning"}},
		{"address alone, first line", "dist/tool.js", finding.KindDiff, "// <ana.lima@mailhost.io>", []string{"warning"}},
		{"not the next line of the file", "dist/tool.js", finding.KindDiff, pad30 + "// Author: Ana Lima\n" + pad + "// <ana.lima@mailhost.io>", []string{"warning"}},
		{"code before the address", "dist/tool.js", finding.KindDiff, pad30 + "// Author: Ana Lima\nsend(<ana.lima@mailhost.io>)", []string{"warning"}},
		{"in a fixture", "test/data/tool.js", finding.KindDiff, pad30 + "// Author: Ana Lima\n// <ana.lima@mailhost.io>", []string{"warning"}},
		{"a noun before by", "dist/tool.js", finding.KindDiff, pad30 + "// the queue of Ana Lima\n// <ana.lima@mailhost.io>", []string{"warning"}},
		{"a participle of data before by", "dist/tool.js", finding.KindDiff, pad30 + "// owned by Ana Lima\n// <ana.lima@mailhost.io>", []string{"warning"}},
		{"address without brackets", "dist/tool.js", finding.KindDiff, pad30 + "// Author: Ana Lima\n// ana.lima@mailhost.io", []string{"warning"}},
		// A Python module's opening docstring: its field list.
		{"epydoc contact", "pkg/mod.py", finding.KindDiff, "# Copyright (C) 2003 Ana Lima\n#\n\"\"\"\nA module for x.\n\n@version: 1.0\n@author: Ana Lima\n@contact: ana.lima@mailhost.io\n@license: MIT\n\"\"\"\n\nimport sys", []string{"note"}},
		{"reST organization continued", "pkg/kex.py", finding.KindDiff, "\"\"\"\nKey exchange.\n\n:summary: x\n:author: Bo Example\n:organization: Example Works ag\n               `EMail <mailto:bo.example@mailhost.io>`_\n:license: MIT\n\"\"\"", []string{"note"}},
		{"reST contact on the opening line", "pkg/kex.py", finding.KindDiff, "r\"\"\":contact: bo.example@mailhost.io\n\"\"\"", []string{"note"}},
		{"docstring past a long license comment", "pkg/__init__.py", finding.KindDiff, strings.Repeat("# license text\n", 20) + "\"\"\"\n" + strings.Repeat("Prose.\n", 30) + "@contact: ana.lima@mailhost.io\n\"\"\"", []string{"note"}},
		// Recall: other fields, other strings, tests.
		{"docstring prose", "pkg/mod.py", finding.KindDiff, "\"\"\"\nWrite to ana.lima@mailhost.io for access.\n\"\"\"", []string{"warning"}},
		{"a parameter field", "pkg/mod.py", finding.KindDiff, "\"\"\"\n:param user: ana.lima@mailhost.io\n\"\"\"", []string{"warning"}},
		{"after the credit field ends", "pkg/mod.py", finding.KindDiff, "\"\"\"\n:organization: Example Works\nana.lima@mailhost.io\n\"\"\"", []string{"warning"}},
		{"a field in a function's docstring", "pkg/mod.py", finding.KindDiff, "import os\n\ndef f():\n    \"\"\"\n    @contact: ana.lima@mailhost.io\n    \"\"\"", []string{"note"}},
		{"a hunk inside the docstring, its opening not shown", "pkg/kex.py", finding.KindDiff, strings.Repeat("x = 1\n", 36) + ":organization: Example Works ag\n               `EMail <mailto:bo.example@mailhost.io>`_", []string{"note"}},
		{"a continuation not right after the field", "pkg/mod.py", finding.KindDiff, ":organization: Example Works ag\n\n               `EMail <mailto:bo.example@mailhost.io>`_", []string{"warning"}},
		{"a continuation less indented than the field", "pkg/mod.py", finding.KindDiff, "    :organization: Example Works ag\n  ana.lima@mailhost.io", []string{"warning"}},
		{"a field name in code", "pkg/mod.py", finding.KindDiff, "meta = {\":contact:\": \"ana.lima@mailhost.io\"}", []string{"warning"}},
		{"a test module", "tests/test_kex.py", finding.KindDiff, "\"\"\"\n@contact: ana.lima@mailhost.io\n\"\"\"", []string{"warning"}},
		{"not a Python file", "pkg/mod.rb", finding.KindDiff, "\"\"\"\n@contact: ana.lima@mailhost.io\n\"\"\"", []string{"warning"}},
		// Packaging maintainer fields and a public key's comment.
		{"fpm -m after a subshell with a pipe", ".travis.yml", finding.KindDiff, `  - fpm -s dir -t deb -n tool -v "$(git describe --tags | cut -c 2-)" --license MIT -m ana.lima@mailhost.io --url https://x.io -p tool.deb`, []string{"note"}},
		{"fpm --maintainer with a quoted person", "Makefile", finding.KindDiff, "\tfpm -s dir -t rpm --maintainer 'Ana Lima <ana.lima@mailhost.io>' -n tool", []string{"note"}},
		{"fpm's command continued", ".travis.yml", finding.KindDiff, "  - gem install fpm && \\\n    fpm -s dir -t deb -v \"$(git describe)\" \\\n    --license MIT -m ana.lima@mailhost.io \\\n    --url https://x.io", []string{"note"}},
		{"fpm --maintainer=", "scripts/pkg.sh", finding.KindDiff, "bundle exec fpm -s dir -t deb --maintainer=ana.lima@mailhost.io .", []string{"note"}},
		{"bdist_rpm packager", "setup.cfg", finding.KindDiff, "[bdist_rpm]\npackager = Ana Lima <ana.lima@mailhost.io>\nrequires = x", []string{"note"}},
		{"public key comment", "demos/user_rsa_key.pub", finding.KindDiff, "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDexample0123456789= ana@build.mailhost.io", []string{"note"}},
		{"authorized_keys with options", "deploy/authorized_keys", finding.KindDiff, `from="10.0.0.0/8",no-pty ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIexample0123 bo.example@mailhost.io`, []string{"note"}},
		// Recall.
		{"-m of another command after fpm's", "scripts/pkg.sh", finding.KindDiff, "fpm -s dir -t deb . && mail -m ana.lima@mailhost.io", []string{"warning"}},
		{"-m of another tool", "scripts/notify.sh", finding.KindDiff, "mail -s done -m ana.lima@mailhost.io < log", []string{"warning"}},
		{"a command continued, not fpm's", "scripts/notify.sh", finding.KindDiff, "fpm -s dir -t deb . ; \\\n  mail -m ana.lima@mailhost.io", []string{"warning"}},
		{"fpm's other option", ".travis.yml", finding.KindDiff, "  - fpm -s dir -t deb --url ana.lima@mailhost.io", []string{"warning"}},
		{"fpm in a fixture", "test/pkg.sh", finding.KindDiff, "fpm -s dir -t deb -m ana.lima@mailhost.io", []string{"warning"}},
		{"packager outside setup.cfg", "config/app.ini", finding.KindDiff, "packager = Ana Lima <ana.lima@mailhost.io>", []string{"warning"}},
		{"another setup.cfg key", "setup.cfg", finding.KindDiff, "contact_list = ana.lima@mailhost.io", []string{"warning"}},
		{"key comment outside a key file", "docs/keys.txt", finding.KindDiff, "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDexample0123456789= ana@build.mailhost.io", []string{"warning"}},
		{"address in a key file, not after a key", "keys/id.pub", finding.KindDiff, "# owner ana.lima@mailhost.io", []string{"warning"}},
		{"key file in a fixture", "tests/data/id.pub", finding.KindDiff, "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDexample0123456789= ana@build.mailhost.io", []string{"warning"}},
		// Sphinx's author directives.
		{"moduleauthor", "apidoc/api.rst", finding.KindDiff, ".. module:: tool\n   :platform: Unix\n.. moduleauthor:: Ana Lima <ana.lima@mailhost.io>", []string{"note"}},
		{"sectionauthor, indented in a docstring", "pkg/mod.py", finding.KindDiff, "import os\n\ndef f():\n    \"\"\"\n    .. sectionauthor:: Bo Example <bo.example@mailhost.io>\n    \"\"\"", []string{"note"}},
		{"codeauthor", "docs/howto.rst", finding.KindDiff, ".. codeauthor:: Ana Lima <ana.lima@mailhost.io>", []string{"note"}},
		// Recall.
		{"another directive", "docs/howto.rst", finding.KindDiff, ".. note:: write to ana.lima@mailhost.io", []string{"warning"}},
		{"a comment that names the directive", "docs/howto.rst", finding.KindDiff, "see moduleauthor:: ana.lima@mailhost.io", []string{"warning"}},
		{"a directive in a fixture", "tests/docs/api.rst", finding.KindDiff, ".. moduleauthor:: Ana Lima <ana.lima@mailhost.io>", []string{"warning"}},
	}
	runSeverityCases(t, d, 1, 1, cases)
}
