package mcpserver

import (
	"context"
	"errors"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/privscan/privscan/internal/loopback"
)

// maxHTTPBody bounds a request body: the largest text argument, JSON
// escaped, with room to spare.
const maxHTTPBody = 8 << 20

// ServeStdio serves the MCP protocol on in and out until in ends or ctx is
// done. Only protocol messages are written to out; diagnostics go to the
// Server's Stderr. A process may run it once at a time.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	st := server.NewStdioServer(s.mcp)
	st.SetErrorLogger(log.New(s.stderr, "privscan: mcp: ", 0))
	err := st.Listen(ctx, in, out)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// ServeHTTP serves Streamable HTTP at http://<addr>/mcp until ctx is done.
// addr must be a loopback address (see loopback.ListenAddr). ready, when not nil, is
// called with the endpoint's URL once the server listens. Besides mcp-go's
// DNS-rebinding protection (a loopback connection must carry a loopback
// Host), requests whose Origin is not a loopback origin are refused, and
// request bodies are capped.
func (s *Server) ServeHTTP(ctx context.Context, addr string, ready func(url string)) error {
	la, err := loopback.ListenAddr(addr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", la)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(s.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h := server.NewStreamableHTTPServer(s.mcp,
		server.WithEndpointPath("/mcp"),
		server.WithStreamableHTTPLogger(logger),
	)
	mux := http.NewServeMux()
	mux.Handle("/mcp", guard(h))
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(s.stderr, "privscan: mcp: http: ", 0),
	}
	endpoint := "http://" + ln.Addr().String() + "/mcp"
	if ready != nil {
		ready(endpoint)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = h.Shutdown(sctx)
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// guard refuses cross-origin browser requests and caps request bodies.
func guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) {
			http.Error(w, "Forbidden: cross-origin requests are not accepted", http.StatusForbidden)
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, maxHTTPBody)
		}
		next.ServeHTTP(w, r)
	})
}

func loopbackOrigin(o string) bool {
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return loopback.Host(u.Hostname())
}
