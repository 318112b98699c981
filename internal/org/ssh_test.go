package org_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/privscan/privscan/internal/org"
)

// sshGitServer serves the bare repositories under root over ssh on
// 127.0.0.1, as a git host does: user "git", public-key auth with
// clientKey only, and "exec git-upload-pack '<path>'" run by the real git.
// It returns the address and the host's public key.
func sshGitServer(t *testing.T, root string, clientKey ssh.PublicKey) (string, ssh.PublicKey) {
	t.Helper()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git binary")
	}
	_, hostPriv, _ := ed25519.GenerateKey(rand.Reader)
	host, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(c ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if c.User() == "git" && bytes.Equal(k.Marshal(), clientKey.Marshal()) {
			return nil, nil
		}
		return nil, errors.New("denied")
	}}
	cfg.AddHostKey(host)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go acceptEach(l, func(c net.Conn) { serveSSH(c, cfg, gitBin, root) })
	return l.Addr().String(), host.PublicKey()
}

// acceptEach serves each connection l accepts with serve, until l closes.
func acceptEach(l net.Listener, serve func(net.Conn)) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go serve(c)
	}
}

func serveSSH(c net.Conn, cfg *ssh.ServerConfig, gitBin, root string) {
	defer c.Close()
	_, chans, reqs, err := ssh.NewServerConn(c, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.UnknownChannelType, "session only")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			return
		}
		go func() {
			defer ch.Close()
			for r := range creqs {
				if r.Type != "exec" || len(r.Payload) < 4 {
					r.Reply(r.Type == "env", nil)
					continue
				}
				n := binary.BigEndian.Uint32(r.Payload)
				cmdline := string(r.Payload[4:][:min(int(n), len(r.Payload)-4)])
				prog, arg, _ := strings.Cut(cmdline, " ")
				if prog != "git-upload-pack" {
					r.Reply(false, nil)
					return
				}
				r.Reply(true, nil)
				repo := filepath.Join(root, filepath.Clean("/"+strings.Trim(arg, "'")))
				cmd := exec.Command(gitBin, "upload-pack", repo)
				cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
				stdin, _ := cmd.StdinPipe()
				status := uint32(1)
				if cmd.Start() == nil {
					go func() { io.Copy(stdin, ch); stdin.Close() }()
					if cmd.Wait() == nil {
						status = 0
					}
				}
				ch.SendRequest("exit-status", false, ssh.Marshal(struct{ Status uint32 }{status}))
				return
			}
		}()
	}
}

// sshAgent serves an ssh agent holding key on a unix socket and returns
// its path (SSH_AUTH_SOCK).
func sshAgent(t *testing.T, dir string, key ed25519.PrivateKey) string {
	t.Helper()
	kr := agent.NewKeyring()
	if err := kr.Add(agent.AddedKey{PrivateKey: key}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no unix socket: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	go acceptEach(l, func(c net.Conn) { agent.ServeAgent(kr, c); c.Close() })
	return sock
}

// TestSSHClone: a shard clones over ssh as go-git does by default (keys
// from the ssh agent, the host checked against known_hosts); the merge
// equals privscan history. A host whose key is not the known one fails
// with a value-free reason and the shard goes on.
func TestSSHClone(t *testing.T) {
	f := newOrg(t, 0)
	serve := filepath.Join(f.dir, "served")
	clientPub, clientPriv, _ := ed25519.GenerateKey(rand.Reader)
	sshPub, err := ssh.NewPublicKey(clientPub)
	if err != nil {
		t.Fatal(err)
	}
	addr, hostKey := sshGitServer(t, serve, sshPub)
	sock := sshAgent(t, f.dir, clientPriv)
	var lines []string
	for i := range 3 {
		name := "s" + string(rune('0'+i))
		work := filepath.Join(f.dir, "work", name)
		makeRepo(t, work, i)
		gitCmd(t, f.dir, "clone", "-q", "--bare", work, filepath.Join(serve, "acme", name+".git"))
		f.work["acme/"+name] = work
		lines = append(lines, "ssh://git@"+addr+"/acme/"+name+".git")
	}
	os.WriteFile(f.reposTxt, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	known := filepath.Join(f.dir, "known_hosts")
	os.WriteFile(known, []byte(knownhosts.Line([]string{knownhosts.Normalize(addr)}, hostKey)+"\n"), 0o600)
	plan := filepath.Join(f.dir, "plan.json")
	if _, e, code := f.run(t, f.dir, nil, "org", "plan", "--repos", f.reposTxt, "-o", plan); code != 0 {
		t.Fatal(e)
	}
	scan := func(out, knownHosts string) *org.Manifest {
		t.Helper()
		cmd := f.proc(t, []string{"SSH_AUTH_SOCK=" + sock, "SSH_KNOWN_HOSTS=" + knownHosts}, "org", "scan", "--plan", plan, "--out", out)
		b, err := cmd.CombinedOutput()
		f.noLeak(t, "ssh shard output", string(b))
		if err != nil {
			t.Fatalf("scan over ssh: %v: %s", err, b)
		}
		m, err := org.ReadManifest(out)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	out := filepath.Join(f.dir, "out")
	m := scan(out, known)
	for name := range f.work {
		if d := m.Units[name]; d == nil || d.Status != org.StatusDone {
			t.Fatalf("%s over ssh: %+v", name, d)
		}
	}
	doc, _ := f.merge(t, out)
	equalKeys(t, mergedKeys(t, doc), f.historyKeys(t))

	// Another host key for the address (a server that is not the known
	// one): every repository fails, with a fixed reason.
	_, otherPriv, _ := ed25519.GenerateKey(rand.Reader)
	other, _ := ssh.NewSignerFromKey(otherPriv)
	wrong := filepath.Join(f.dir, "known_hosts.wrong")
	os.WriteFile(wrong, []byte(knownhosts.Line([]string{knownhosts.Normalize(addr)}, other.PublicKey())+"\n"), 0o600)
	m = scan(filepath.Join(f.dir, "out-wrong"), wrong)
	for name := range f.work {
		if d := m.Units[name]; d == nil || d.Status != org.StatusFailed || d.Reason != org.ReasonHostKey {
			t.Errorf("%s with a wrong host key: %+v", name, d)
		}
	}
	f.noLeakTree(t, filepath.Join(f.dir, "out-wrong"))
}
