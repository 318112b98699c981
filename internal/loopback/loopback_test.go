package loopback

import "testing"

func TestListenAddr(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"127.0.0.1:8765", "127.0.0.1:8765", true},
		{":8765", "127.0.0.1:8765", true},
		{"localhost:0", "localhost:0", true},
		{"LocalHost:0", "LocalHost:0", true},
		{"[::1]:9", "[::1]:9", true},
		{"127.0.0.2:9", "127.0.0.2:9", true},
		{"0.0.0.0:8765", "", false},
		{"[::]:8765", "", false},
		{"192.168.1.2:80", "", false},
		{"example.com:80", "", false},
		{"localhost.example.com:80", "", false},
		{"8765", "", false},
	} {
		got, err := ListenAddr(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ListenAddr(%q) = %q, %v", tc.in, got, err)
		}
	}
}

func TestHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "127.0.0.1": true, "127.255.0.9": true, "[::1]": true, "::1": true,
		"": false, "0.0.0.0": false, "::": false, "10.0.0.1": false, "localhost.": false, "evil.localhost.example": false,
	} {
		if got := Host(host); got != want {
			t.Errorf("Host(%q) = %v, want %v", host, got, want)
		}
	}
}
