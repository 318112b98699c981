package cli

import (
	"bytes"
	"context"
	"testing"

	"github.com/privscan/privscan/internal/render"
	"github.com/privscan/privscan/scanner"
)

// present honours TERM=dumb (no colour, no bar), --no-progress, and draws
// a bar only for history and scan on a terminal's stderr.
func TestPresentTerminalSettings(t *testing.T) {
	tests := []struct {
		name       string
		cmd        string
		term       string
		stderrTTY  bool
		noProgress bool
		wantBar    bool
		wantColor  bool
	}{
		{"terminal", "history", "xterm", true, false, true, true},
		{"dumb terminal", "history", "dumb", true, false, false, false},
		{"--no-progress", "scan", "xterm", true, true, false, true},
		{"stderr piped", "history", "xterm", false, false, false, true},
		{"diff has no bar", "diff", "xterm", true, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			env := &Env{Args: []string{tt.cmd}, Dir: t.TempDir(), Stdout: &out, Stderr: &out, StderrTTY: tt.stderrTTY, StdoutTTY: true,
				Getenv: func(k string) string {
					if k == "TERM" {
						return tt.term
					}
					return ""
				}}
			f := &scanFlags{format: "text", noProgress: tt.noProgress}
			h, wrap, _, finish := present(context.Background(), env, tt.cmd, f, newHandler(env, f, &out))
			src := wrap(&scanner.TextSource{})
			defer finish()
			_, isBar := h.(*barHandler)
			if isBar != tt.wantBar {
				t.Errorf("bar handler: %v, want %v", isBar, tt.wantBar)
			}
			if _, isBarSrc := src.(*barSource); isBarSrc != tt.wantBar {
				t.Errorf("bar source: %v, want %v", isBarSrc, tt.wantBar)
			}
			inner := h
			if b, ok := h.(*barHandler); ok {
				inner = b.Handler
			}
			text, ok := inner.(*render.Text)
			if !ok {
				t.Fatalf("handler %T, want the text renderer", inner)
			}
			if text.Color != tt.wantColor {
				t.Errorf("colour %v, want %v", text.Color, tt.wantColor)
			}
			if !text.LineFlush {
				t.Error("a terminal's findings are not flushed line by line")
			}
		})
	}
}
