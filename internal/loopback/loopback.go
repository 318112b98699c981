// Package loopback checks the addresses privscan's MCP server may listen
// on and accept requests from: the server has no authentication, so it
// never listens on, or answers for, anything but the loopback interface.
//
// It is its own package so that "privscan mcp" can check its --http
// argument without linking the MCP server (which is the privscan-mcp
// binary).
package loopback

import (
	"errors"
	"net"
	"net/netip"
	"strings"
)

// ListenAddr checks an --http address and returns the one to listen on:
// a host is required to be loopback (localhost, 127.0.0.0/8, ::1), and an
// empty host means 127.0.0.1.
func ListenAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", errors.New("--http wants host:port, e.g. 127.0.0.1:8765")
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if !Host(host) {
		return "", errors.New("--http address must be a loopback address such as 127.0.0.1: the server has no authentication")
	}
	return net.JoinHostPort(host, port), nil
}

// Host reports whether host (a name or an IP address, with or without
// brackets) is localhost or a loopback address.
func Host(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}
