package hook

import "strings"

// simpleCmd is one simple command of a shell command line: its words after
// quote removal, without redirections, and the here-document or
// here-string given to it.
type simpleCmd struct {
	words []string
	stdin string
}

// lexer splits a POSIX-shell command line into simple commands. It is
// deliberately forgiving: unterminated quotes end at the end of input, and
// constructs it does not understand become words. It never evaluates
// anything: $(...) and backquotes are kept as raw text inside a word.
type lexer struct {
	s   string
	i   int
	out []simpleCmd

	cur      simpleCmd
	word     strings.Builder
	inWord   bool
	redirect string // the pending redirection operator whose target is next
	pending  []heredoc
}

type heredoc struct {
	delim     string
	stripTabs bool
	index     int // index in out of its command; ownCurrent while being read
}

// ownCurrent marks a here-document of the command still being read.
const ownCurrent = -1

// splitCommands returns the simple commands of s, in order.
func splitCommands(s string) []simpleCmd {
	l := &lexer{s: s}
	l.run()
	return l.out
}

func (l *lexer) run() {
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			l.endWord()
			l.i++
		case c == '\n':
			l.endWord()
			l.endCmd()
			l.i++
			l.readHeredocs()
		case c == '#' && !l.inWord:
			for l.i < len(l.s) && l.s[l.i] != '\n' {
				l.i++
			}
		case c == ';' || c == '&' || c == '|' || c == '(' || c == ')':
			if c == '&' && l.i+1 < len(l.s) && l.s[l.i+1] == '>' {
				// &> and &>>: redirect stdout and stderr.
				l.endWord()
				l.i++
				l.readRedirect()
				continue
			}
			l.endWord()
			l.endCmd()
			l.i++
		case c == '<' || c == '>':
			// A word of digits just before is a file descriptor.
			if l.inWord && isDigits(l.word.String()) {
				l.word.Reset()
				l.inWord = false
			}
			l.endWord()
			l.readRedirect()
		case c == '\'':
			l.inWord = true
			end := strings.IndexByte(l.s[l.i+1:], '\'')
			if end < 0 {
				l.word.WriteString(l.s[l.i+1:])
				l.i = len(l.s)
				continue
			}
			l.word.WriteString(l.s[l.i+1 : l.i+1+end])
			l.i += end + 2
		case c == '"':
			l.inWord = true
			l.i++
			l.doubleQuoted()
		case c == '\\':
			l.i++
			if l.i < len(l.s) {
				if l.s[l.i] != '\n' { // backslash-newline joins lines
					l.inWord = true
					l.word.WriteByte(l.s[l.i])
				}
				l.i++
			}
		case c == '$' && l.i+1 < len(l.s) && l.s[l.i+1] == '(':
			l.inWord = true
			l.word.WriteString(l.substitution())
		case c == '$' && l.i+1 < len(l.s) && l.s[l.i+1] == '\'':
			l.inWord = true
			l.i += 2
			l.ansiC()
		case c == '`':
			l.inWord = true
			l.word.WriteString(l.backquoted())
		default:
			l.inWord = true
			l.word.WriteByte(c)
			l.i++
		}
	}
	l.endWord()
	l.endCmd()
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// readRedirect reads a redirection operator at l.i; the next word is its
// target and is not a word of the command.
func (l *lexer) readRedirect() {
	start := l.i
	for l.i < len(l.s) && strings.IndexByte("<>&|-", l.s[l.i]) >= 0 && l.i-start < 3 {
		l.i++
	}
	op := l.s[start:l.i]
	if strings.HasSuffix(op, "&") && l.i < len(l.s) && (isDigits(l.s[l.i:l.i+1]) || l.s[l.i] == '-') {
		// >&2, <&-: a descriptor, not a file.
		for l.i < len(l.s) && (isDigits(l.s[l.i:l.i+1]) || l.s[l.i] == '-') {
			l.i++
		}
		return
	}
	l.redirect = op
}

// endWord finishes the current word: a command word, or the target of a
// pending redirection.
func (l *lexer) endWord() {
	if !l.inWord {
		return
	}
	w := l.word.String()
	l.word.Reset()
	l.inWord = false
	switch op := l.redirect; {
	case op == "":
		l.cur.words = append(l.cur.words, w)
	case strings.HasPrefix(op, "<<<"):
		l.cur.stdin = w
	case strings.HasPrefix(op, "<<"):
		l.pending = append(l.pending, heredoc{delim: w, stripTabs: strings.HasSuffix(op, "-"), index: ownCurrent})
	}
	l.redirect = ""
}

func (l *lexer) endCmd() {
	l.redirect = ""
	owner := len(l.out)
	if len(l.cur.words) == 0 && l.cur.stdin == "" {
		owner = -2 // no command: the body is read and dropped
	} else {
		l.out = append(l.out, l.cur)
	}
	for k := range l.pending {
		if l.pending[k].index == ownCurrent {
			l.pending[k].index = owner
		}
	}
	l.cur = simpleCmd{}
}

// readHeredocs reads the bodies of the here-documents opened on the line
// just ended.
func (l *lexer) readHeredocs() {
	for _, h := range l.pending {
		var body []string
		for l.i < len(l.s) {
			end := strings.IndexByte(l.s[l.i:], '\n')
			var line string
			if end < 0 {
				line, l.i = l.s[l.i:], len(l.s)
			} else {
				line, l.i = l.s[l.i:l.i+end], l.i+end+1
			}
			if h.stripTabs {
				line = strings.TrimLeft(line, "\t")
			}
			if line == h.delim {
				break
			}
			body = append(body, line)
		}
		if h.index >= 0 && h.index < len(l.out) {
			l.out[h.index].stdin = strings.Join(body, "\n") + "\n"
		}
	}
	l.pending = nil
}

// ansiC reads the rest of a $'...' string into the word, decoding its
// backslash escapes as bash does (\n, \t, \\, \', \xHH, \NNN octal, …;
// an unknown escape keeps its backslash).
func (l *lexer) ansiC() {
	for l.i < len(l.s) {
		c := l.s[l.i]
		if c == '\'' {
			l.i++
			return
		}
		if c != '\\' || l.i+1 >= len(l.s) {
			l.word.WriteByte(c)
			l.i++
			continue
		}
		e := l.s[l.i+1]
		l.i += 2
		if r := strings.IndexByte(`abefnrtv\'"?`, e); r >= 0 {
			l.word.WriteByte("\a\b\x1b\f\n\r\t\v\\'\"?"[r])
			continue
		}
		base, max := 0, 0
		switch {
		case e == 'x':
			base, max = 16, 2
		case e >= '0' && e <= '7':
			base, max = 8, 3
			l.i-- // the first digit is part of the number
		}
		if base == 0 {
			l.word.WriteByte('\\')
			l.word.WriteByte(e)
			continue
		}
		v, n := 0, 0
		for n < max && l.i < len(l.s) {
			d := strings.IndexByte("0123456789abcdef"[:base], lower(l.s[l.i]))
			if d < 0 {
				break
			}
			v = v*base + d
			l.i++
			n++
		}
		if n == 0 {
			l.word.WriteString(`\x`)
			continue
		}
		l.word.WriteByte(byte(v))
	}
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// doubleQuoted reads the rest of a "..." string into the word.
func (l *lexer) doubleQuoted() {
	for l.i < len(l.s) {
		c := l.s[l.i]
		switch {
		case c == '"':
			l.i++
			return
		case c == '\\' && l.i+1 < len(l.s) && strings.IndexByte("$`\"\\\n", l.s[l.i+1]) >= 0:
			if l.s[l.i+1] != '\n' {
				l.word.WriteByte(l.s[l.i+1])
			}
			l.i += 2
		case c == '$' && l.i+1 < len(l.s) && l.s[l.i+1] == '(':
			l.word.WriteString(l.substitution())
		case c == '`':
			l.word.WriteString(l.backquoted())
		default:
			l.word.WriteByte(c)
			l.i++
		}
	}
}

// substitution returns the raw text of $(...) or $((...)) at l.i,
// matching parentheses and skipping quoted text and here-documents.
func (l *lexer) substitution() string {
	start := l.i
	l.i += 2
	depth := 1
	var heredocs []string
	for l.i < len(l.s) && depth > 0 {
		c := l.s[l.i]
		switch c {
		case '(':
			depth++
			l.i++
		case ')':
			depth--
			l.i++
		case '\\':
			l.i += 2
		case '\'':
			end := strings.IndexByte(l.s[l.i+1:], '\'')
			if end < 0 {
				l.i = len(l.s)
			} else {
				l.i += end + 2
			}
		case '"':
			l.i++
			for l.i < len(l.s) && l.s[l.i] != '"' {
				if l.s[l.i] == '\\' {
					l.i++
				}
				l.i++
			}
			l.i++
		case '<':
			if strings.HasPrefix(l.s[l.i:], "<<") && !strings.HasPrefix(l.s[l.i:], "<<<") {
				l.i += 2
				strip := false
				if l.i < len(l.s) && l.s[l.i] == '-' {
					strip = true
					l.i++
				}
				for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t') {
					l.i++
				}
				ds := l.i
				for l.i < len(l.s) && strings.IndexByte(" \t\n;&|()<>", l.s[l.i]) < 0 {
					l.i++
				}
				d := strings.Trim(l.s[ds:l.i], `'"\`)
				if strip {
					d = "\t" + d
				}
				heredocs = append(heredocs, d)
				continue
			}
			l.i++
		case '\n':
			l.i++
			// Skip here-document bodies opened on the line just ended:
			// their text must not close the substitution.
			for _, d := range heredocs {
				strip := strings.HasPrefix(d, "\t")
				d = strings.TrimPrefix(d, "\t")
				for l.i < len(l.s) {
					end := strings.IndexByte(l.s[l.i:], '\n')
					var line string
					if end < 0 {
						line, l.i = l.s[l.i:], len(l.s)
					} else {
						line, l.i = l.s[l.i:l.i+end], l.i+end+1
					}
					if strip {
						line = strings.TrimLeft(line, "\t")
					}
					if line == d {
						break
					}
				}
			}
			heredocs = nil
		default:
			l.i++
		}
	}
	if l.i > len(l.s) {
		l.i = len(l.s)
	}
	return l.s[start:l.i]
}

// backquoted returns the raw text of `...` at l.i.
func (l *lexer) backquoted() string {
	start := l.i
	l.i++
	for l.i < len(l.s) && l.s[l.i] != '`' {
		if l.s[l.i] == '\\' {
			l.i++
		}
		l.i++
	}
	l.i++
	if l.i > len(l.s) {
		l.i = len(l.s)
	}
	return l.s[start:l.i]
}
