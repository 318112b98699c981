package pii

import (
	"testing"

	"github.com/privscan/privscan/finding"
)

// TestRound17Rules: the author field of an expanded version-control
// keyword is a credit (a note); the same address after "$Id:" without the
// keyword's fields or its closing "$", elsewhere on the line, in a commit
// message or in a fixture keeps the warning. A git identity written as a
// command's argument list, a camelCase key naming it, or a git tool's
// author setter is a note, as "git config user.email" is; the same forms
// without git, another receiver's setter and fixtures keep the warning.
// A reStructuredText docinfo field list opened by ":Author:" credits the
// addresses of its person fields (in .rst sources, and in the stylesheet
// header comment docutils' HTML embeds); a field list without
// ":Author:", another field and fixtures keep the warning. An XML file's
// header comment is read after lines that are only tags (its prologue and
// top-level declarations); a line with text content ends it. Synthetic names and hosts
// only; each fragment is the added lines alone, numbered from line 1 of
// the file.
func TestRound17Rules(t *testing.T) {
	d, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []severityCase{
		// Version-control keywords.
		{"svn Id in a shell header", "lib/tool.sh", finding.KindDiff, "#! /bin/sh\n# $Id: tool.sh 54 2008-10-21 23:29:23Z ana.lima@mailhost.io $", []string{"note"}},
		{"svn Id, first line of a library", "lib/flags", finding.KindDiff, "# $Id: flags 138 2010-03-18 00:25:34Z ana.lima@mailhost.io $", []string{"note"}},
		{"svn Id in a C comment", "src/x.c", finding.KindDiff, "/* $Id: x.c 490 2007-03-03 15:38:23Z ana.lima@mailhost.io $ */", []string{"note"}},
		{"svn Id in an XML comment", "doc/x.xml", finding.KindDiff, "<!-- $Id: x.xml 357 2006-12-25 20:04:00Z ana.lima@mailhost.io $ -->", []string{"note"}},
		{"CVS Id with a state", "src/x.pl", finding.KindDiff, "# $Id: x.pl,v 1.12.2.1 2003/01/07 12:00:00 ana.lima@mailhost.io Exp $", []string{"note"}},
		{"CVS Header with a path", "src/x.pl", finding.KindDiff, "# $Header: /cvsroot/tool/src/x.pl,v 1.3 2003/01/07 12:00:00 ana.lima@mailhost.io Exp $", []string{"note"}},
		{"Author keyword", "src/x.py", finding.KindDiff, "__author__ = '$Author: ana.lima@mailhost.io $'", []string{"note"}},
		{"Id in a string literal", "src/version.php", finding.KindDiff, "$rev = '$Id: version.php 12 2009-01-02 03:04:05Z ana.lima@mailhost.io $';", []string{"note"}},
		// Recall.
		{"Id without the closing dollar", "lib/tool.sh", finding.KindDiff, "# $Id: tool.sh 54 2008-10-21 23:29:23Z ana.lima@mailhost.io", []string{"warning"}},
		{"Id without its fields", "lib/tool.sh", finding.KindDiff, "# $Id: ana.lima@mailhost.io $", []string{"warning"}},
		{"Id with a field missing", "lib/tool.sh", finding.KindDiff, "# $Id: tool.sh 2008-10-21 23:29:23Z ana.lima@mailhost.io $", []string{"warning"}},
		{"Id with text for a revision", "lib/tool.sh", finding.KindDiff, "# $Id: tool.sh r54 2008-10-21 23:29:23Z ana.lima@mailhost.io $", []string{"warning"}},
		{"unexpanded Id, address after it", "lib/tool.sh", finding.KindDiff, "# $Id$ contact ana.lima@mailhost.io", []string{"warning"}},
		{"unexpanded Id, address and dollar after it", "lib/tool.sh", finding.KindDiff, "# $Id$ mail ana.lima@mailhost.io $", []string{"warning"}},
		{"address after a keyword's closing dollar", "lib/tool.sh", finding.KindDiff, "# $Id: tool.sh 54 2008-10-21 23:29:23Z jdoe $ ana.lima@mailhost.io", []string{"warning"}},
		{"a string that is not a keyword", "src/mail.sh", finding.KindDiff, `echo "$User: ana.lima@mailhost.io $"`, []string{"warning"}},
		{"Header with more text", "src/x.py", finding.KindDiff, "# $Header: x.py 1.3 2003/01/07 12:00:00 ask ana.lima@mailhost.io $", []string{"warning"}},
		{"Id, two words before the dollar", "src/x.py", finding.KindDiff, "# $Id: x.py 1.3 2003/01/07 12:00:00 ana.lima@mailhost.io a b $", []string{"warning"}},
		{"Id with a bad time", "src/x.py", finding.KindDiff, "# $Id: x.py 1.3 2003/01/07 12:00 ana.lima@mailhost.io $", []string{"warning"}},
		{"keyword in a commit message", "", finding.KindCommitMessage, "Update\n\n$Id: tool.sh 54 2008-10-21 23:29:23Z ana.lima@mailhost.io $", []string{"warning"}},
		{"keyword in a fixture", "testdata/tool.sh", finding.KindDiff, "# $Id: tool.sh 54 2008-10-21 23:29:23Z ana.lima@mailhost.io $", []string{"warning"}},
		// A git identity as a command's argument list, a camelCase key
		// and a git tool's author setter.
		{"argument list, Gradle", "gradle/release.gradle", finding.KindDiff, `    run "git", "config", "user.email", "ana.lima@mailhost.io"`, []string{"note"}},
		{"argument list with --global", "tools/release.py", finding.KindDiff, `subprocess.run(["git", "config", "--global", "user.email", "ana.lima@mailhost.io"])`, []string{"note"}},
		{"argument list, single quotes", "scripts/release.js", finding.KindDiff, `execFileSync('git', ['config', 'user.email', 'ana.lima@mailhost.io'])`, []string{"note"}},
		{"camelCase key", "gradle/root/release.gradle", finding.KindDiff, `    git_genericEmail = "<ana.lima@mailhost.io>"`, []string{"note"}},
		{"gitUserEmail", "build.gradle", finding.KindDiff, `ext.gitUserEmail = "ana.lima@mailhost.io"`, []string{"note"}},
		{"git tool's setAuthor", "gradle/release.gradle", finding.KindDiff, `    step("x") { a = gitTool.setAuthor("Release Bot", "ana.lima@mailhost.io") }`, []string{"note"}},
		{"JGit's setCommitter", "src/main/java/x/Release.java", finding.KindDiff, `git.commit().setCommitter("Ana Lima", "ana.lima@mailhost.io").call();`, []string{"note"}},
		// Recall.
		{"user.email as another list's item", "src/app.py", finding.KindDiff, `fields = ["name", "user.email", "ana.lima@mailhost.io"]`, []string{"warning"}},
		{"a list without git", "src/app.py", finding.KindDiff, `run "svn", "config", "user.email", "ana.lima@mailhost.io"`, []string{"warning"}},
		{"unquoted item before the separator", "src/app.py", finding.KindDiff, `run git, config, user.email, "ana.lima@mailhost.io"`, []string{"warning"}},
		{"userEmail without git", "src/app.js", finding.KindDiff, `const userEmail = "ana.lima@mailhost.io"`, []string{"warning"}},
		{"gitHubEmail", "src/app.js", finding.KindDiff, `gitHubEmail = "ana.lima@mailhost.io"`, []string{"warning"}},
		{"setAuthor of a post", "src/Blog.java", finding.KindDiff, `post.setAuthor("Ana Lima", "ana.lima@mailhost.io");`, []string{"warning"}},
		{"setAuthor of a GitHub client's post", "src/Blog.java", finding.KindDiff, `gitHubPost.setAuthor("Ana Lima", "ana.lima@mailhost.io");`, []string{"warning"}},
		{"setAuthor, address first", "src/Release.java", finding.KindDiff, `gitTool.setAuthor("ana.lima@mailhost.io", "Ana Lima");`, []string{"warning"}},
		{"setAuthor in a test", "src/test/java/x/ReleaseTest.java", finding.KindDiff, `gitTool.setAuthor("Ana Lima", "ana.lima@mailhost.io");`, []string{"warning"}},
		{"argument list in a fixture", "testdata/setup.gradle", finding.KindDiff, `run "git", "config", "user.email", "ana.lima@mailhost.io"`, []string{"warning"}},
		{"expected author in a test", "src/test/groovy/x/GitTest.groovy", finding.KindDiff, `        commits[0].authorEmail == "ana.lima@mailhost.io"`, []string{"warning"}},
		// reStructuredText docinfo field lists.
		{"stylesheet header comment", "share/css/rst2html.css", finding.KindDiff, "/*\n:Author: Ana Lima\n:Contact: ana.lima@mailhost.io\n:Date: $Date: 2007-04-11 11:48:16 +0100 (Wed, 11 Apr 2007) $\n:Copyright: This stylesheet has been placed in the public domain.\n:Modified by: Bo Lima <bo.lima@mailhost.io>\n\nDefault cascading style sheet.\n*/", []string{"note", "note"}},
		{"stylesheet embedded in HTML", "doc/README.html", finding.KindDiff, "<head>\n<style type=\"text/css\">\n\n/*\n:Author: Ana Lima\n:Contact: ana.lima@mailhost.io\n:Date: $Date: 2007-04-11 11:48:16 +0100 (Wed, 11 Apr 2007) $\n:Copyright: This stylesheet has been placed in the public domain.\n:Modified by: Bo Lima <bo.lima@mailhost.io>\n\nDefault cascading style sheet.\n*/", []string{"note", "note"}},
		{"docinfo after a title", "doc/guide.rst", finding.KindDiff, "=====\nGuide\n=====\n\n:Authors: Ana Lima\n:Address: ana.lima@mailhost.io\n:Version: 1.0", []string{"note"}},
		{"lower case fields in a docstring", "src/tool.py", finding.KindDiff, "\"\"\"Tool.\n\n:author: Ana Lima\n:contact: ana.lima@mailhost.io\n\"\"\"", []string{"note"}},
		{"a continuation of a contact field", "doc/guide.rst", finding.KindDiff, ":Author: Ana Lima\n:Contact: Ana Lima,\n    ana.lima@mailhost.io", []string{"note"}},
		{"docinfo after a comment opener, deep in a file", "doc/page.html", finding.KindDiff, "<!--\n:Author: Ana Lima\n:Contact: ana.lima@mailhost.io", []string{"note"}},
		{"a by field alone, ident form", "doc/README.html", finding.KindDiff, ":Modified by: Bo Lima <bo.lima@mailhost.io>", []string{"note"}},
		// Recall.
		{"a by field alone, bare address", "doc/README.html", finding.KindDiff, ":Modified by: bo.lima@mailhost.io", []string{"warning"}},
		{"a by field alone in a fixture", "testdata/README.html", finding.KindDiff, ":Modified by: Bo Lima <bo.lima@mailhost.io>", []string{"warning"}},
		{"a field list without Author", "doc/guide.rst", finding.KindDiff, ":Version: 1.0\n:Contact: ana.lima@mailhost.io", []string{"warning"}},
		{"a field that names no person", "doc/guide.rst", finding.KindDiff, ":Author: Ana Lima\n:Description: write to ana.lima@mailhost.io", []string{"warning"}},
		{"after the list ended", "doc/guide.rst", finding.KindDiff, ":Author: Ana Lima\n:Version: 1.0\n\n:Contact: ana.lima@mailhost.io", []string{"warning"}},
		{"text after the list", "doc/guide.rst", finding.KindDiff, ":Author: Ana Lima\n:Contact: x\nWrite to ana.lima@mailhost.io", []string{"warning"}},
		{"contact in a fixture", "tests/fixtures/doc.rst", finding.KindDiff, ":Author: Ana Lima\n:Contact: ana.lima@mailhost.io", []string{"warning"}},
		{"in a commit message", "", finding.KindCommitMessage, "Docs\n\n:Author: Ana Lima\n:Contact: ana.lima@mailhost.io", []string{"warning"}},
		// An XML file's header comment after its prologue.
		{"XSLT header comment after the root element", "config/style/report.xsl", finding.KindDiff, "<xsl:stylesheet xmlns:xsl=\"http://www.w3.org/1999/XSL/Transform\" version=\"1.0\">\n\t<xsl:output method=\"html\" indent=\"yes\"/>\n\t<xsl:key name=\"files\" match=\"file\" use=\"@name\" />\n\n\t<!-- Report Style Sheet by Ana Lima <ana.lima@mailhost.io>   -->", []string{"note"}},
		{"XML header comment after a declaration", "doc/style.xml", finding.KindDiff, "<?xml version=\"1.0\"?>\n<?xml-stylesheet type=\"text/xsl\" href=\"x.xsl\"?>\n<!-- Written by Ana Lima <ana.lima@mailhost.io> -->", []string{"note"}},
		// Recall.
		{"XSLT comment after an element with text", "config/style/report.xsl", finding.KindDiff, "<xsl:stylesheet version=\"1.0\">\n<xsl:template match=\"/\"><h1>Report</h1></xsl:template>\n<!-- by Ana Lima <ana.lima@mailhost.io> -->", []string{"warning"}},
		{"XSLT comment after a closing tag", "config/style/report.xsl", finding.KindDiff, "<xsl:stylesheet version=\"1.0\">\n</xsl:template>\n<!-- by Ana Lima <ana.lima@mailhost.io> -->", []string{"warning"}},
		{"an address in a tag line", "config/users.xml", finding.KindDiff, "<users>\n<user email=\"ana.lima@mailhost.io\"/>", []string{"warning"}},
		{"a tag line in HTML still ends the header", "doc/page.html", finding.KindDiff, "<html lang=\"en\">\n<!-- by Ana Lima <ana.lima@mailhost.io> -->", []string{"warning"}},
		{"XSLT header comment in a fixture", "src/test/resources/report.xsl", finding.KindDiff, "<xsl:stylesheet xmlns:xsl=\"http://www.w3.org/1999/XSL/Transform\" version=\"1.0\">\n\t<xsl:output method=\"html\" indent=\"yes\"/>\n\t<xsl:key name=\"files\" match=\"file\" use=\"@name\" />\n\n<!-- by Ana Lima <ana.lima@mailhost.io> -->", []string{"warning"}},
	}
	runSeverityCases(t, d, 1, 10, cases)
}
