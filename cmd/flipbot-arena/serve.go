package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"flipbot.dev/flipbot/arena"
	"flipbot.dev/flipbot/engines/othello"
)

// listFlag collects a repeated string flag.
type listFlag []string

// String and Set implement flag.Value.
func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// challengeOrder is a --challenge FROM:TO[:MODE] order, issued once both are online.
type challengeOrder struct {
	from, to string
	mode     othello.Mode
}

func parseChallenge(s string) (challengeOrder, error) {
	p := strings.Split(s, ":")
	if len(p) < 2 || len(p) > 3 {
		return challengeOrder{}, fmt.Errorf("challenge %q: want FROM:TO[:MODE]", s)
	}
	c := challengeOrder{from: p[0], to: p[1]}
	if len(p) == 3 {
		m, err := othello.ParseMode(p[2])
		if err != nil {
			return c, fmt.Errorf("challenge %q: %w", s, err)
		}
		c.mode = m
	}
	return c, nil
}

func runServe(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, stdout, stderr)
}

// serve runs the arena until ctx ends.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	setUsage(fs, stderr, "flipbot-arena serve [--listen ADDR] [--bot NAME:TOKEN[:MODES]]... [--builtin NAME[:LEVEL[:MODES]]]... [flags]")
	var bots, builtins, challenges listFlag
	listen := fs.String("listen", "127.0.0.1:8088", "address to listen on (loopback by default)")
	fs.Var(&bots, "bot", "register a bot NAME:TOKEN[:MODES] (MODES e.g. std,anti or all; repeatable)")
	fs.Var(&builtins, "builtin", "add a built-in bot NAME[:LEVEL[:MODES]], played by the arena itself; e.g. house:4 is a bot named house at level 4, in every mode (levels below; repeatable)")
	fs.Var(&challenges, "challenge", "challenge FROM:TO[:MODE] once both are online (repeatable)")
	var humans listFlag
	fs.Var(&humans, "human", "offer bot NAME a human match NAME[:MODE[:xot]] once it is online; the server plays the human (repeatable)")
	clockMS := fs.Int("clock-ms", 60000, "each colour's time per leg, in ms")
	auto := fs.Bool("auto-match", false, "offer std matches to idle online bots, like the site")
	maxMatches := fs.Int("max-matches", arena.DefaultMaxMatches, "concurrent matches per registered bot")
	useTLS := fs.Bool("tls", false, "serve HTTPS with a self-signed certificate")
	certOut := fs.String("tls-cert", "", "with --tls: write the certificate (PEM) here for clients to trust")
	seed := fs.Uint64("seed", 0, "seed of the random starts (0: from the clock)")
	verbose := fs.Bool("v", false, "log every move")
	flagsUsage := fs.Usage
	fs.Usage = func() {
		flagsUsage()
		writeLevels(stderr)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0 // asked for: not a usage error
		}
		return 2
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	cfg := arena.Config{
		Logger:      log,
		Seed:        *seed,
		ClockPerLeg: time.Duration(*clockMS) * time.Millisecond,
		AutoMatch:   *auto,
	}
	if *clockMS <= 0 {
		fmt.Fprintln(stderr, "flipbot-arena serve: --clock-ms must be positive")
		return 2
	}
	for _, b := range bots {
		bc, err := arena.ParseBotFlag(b)
		if err != nil {
			fmt.Fprintf(stderr, "flipbot-arena serve: %v\n", err)
			return 2
		}
		bc.MaxMatches = *maxMatches
		cfg.Bots = append(cfg.Bots, bc)
	}
	for _, b := range builtins {
		bc, err := arena.ParseBuiltinFlag(b)
		if err != nil {
			fmt.Fprintf(stderr, "flipbot-arena serve: %v\n", err)
			return 2
		}
		cfg.Bots = append(cfg.Bots, bc)
	}
	var orders []challengeOrder
	for _, c := range challenges {
		o, err := parseChallenge(c)
		if err != nil {
			fmt.Fprintf(stderr, "flipbot-arena serve: %v\n", err)
			return 2
		}
		orders = append(orders, o)
	}
	var humanOrders []arena.HumanOptions
	for _, h := range humans {
		o, err := parseHuman(h)
		if err != nil {
			fmt.Fprintf(stderr, "flipbot-arena serve: %v\n", err)
			return 2
		}
		humanOrders = append(humanOrders, o)
	}
	if len(cfg.Bots) == 0 {
		fmt.Fprintln(stderr, "flipbot-arena serve: no bots; add --bot NAME:TOKEN and/or --builtin NAME")
		return 2
	}
	srv, err := arena.New(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "flipbot-arena serve: %v\n", err)
		return 2
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "flipbot-arena serve: %v\n", err)
		return 1
	}
	scheme := "http"
	if *useTLS {
		cert, pemBytes, err := selfSigned(ln.Addr())
		if err != nil {
			fmt.Fprintf(stderr, "flipbot-arena serve: %v\n", err)
			return 1
		}
		if *certOut != "" {
			if err := os.WriteFile(*certOut, pemBytes, 0o644); err != nil {
				fmt.Fprintf(stderr, "flipbot-arena serve: %v\n", err)
				return 1
			}
		}
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		scheme = "https"
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); ok && !ta.IP.IsLoopback() && !*useTLS {
		fmt.Fprintln(stderr, "flipbot-arena serve: warning: plain http on a non-loopback address; bot clients refuse to send their token there (use --tls)")
	}
	base := scheme + "://" + ln.Addr().String()
	printURLs(stdout, base)
	if *useTLS && *certOut != "" {
		fmt.Fprintf(stdout, "  certificate  %s (self-signed)\n", *certOut)
	}
	go srv.Run(ctx, 100*time.Millisecond)
	go issueChallenges(ctx, srv, orders, log)
	go offerHumans(ctx, srv, humanOrders, log)
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "flipbot-arena serve: %v\n", err)
			return 1
		}
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	srv.Close() // ends the streams first, so Shutdown does not wait for them
	_ = hs.Shutdown(sctx)
	return 0
}

// writeLevels explains the built-in bots' levels (the page says the
// same).
func writeLevels(w io.Writer) {
	fmt.Fprintf(w, "\nBuilt-in levels (--builtin NAME:LEVEL; %d when none is given):\n", arena.DefaultBuiltinLevel)
	for _, l := range arena.Levels() {
		fmt.Fprintf(w, "  %-6s %s\n", l.Level, l.Plays)
	}
}

func printURLs(w io.Writer, base string) {
	fmt.Fprintf(w, "flipbot-arena listening on %s\n", base)
	fmt.Fprintf(w, "  --api        %s%s\n", base, arena.APIPath)
	fmt.Fprintf(w, "  --stream-url %s%s\n", base, arena.StreamPath)
	fmt.Fprintf(w, "  page         %s/\n", base)
}

// issueChallenges sends each order as soon as both bots are online.
func issueChallenges(ctx context.Context, srv *arena.Server, orders []challengeOrder, log *slog.Logger) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for len(orders) > 0 {
		rest := orders[:0]
		for _, o := range orders {
			id, err := srv.Challenge(o.from, o.to, o.mode)
			if err != nil {
				if !strings.Contains(err.Error(), "connected") && !strings.Contains(err.Error(), "busy") && !strings.Contains(err.Error(), "active match") {
					log.Warn("challenge dropped", "from", o.from, "to", o.to, "err", err)
					continue
				}
				rest = append(rest, o)
				continue
			}
			log.Info("challenge issued", "match", id, "from", o.from, "to", o.to, "mode", o.mode.String())
		}
		orders = rest
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// parseHuman reads a --human value NAME[:MODE[:xot]].
func parseHuman(s string) (arena.HumanOptions, error) {
	p := strings.Split(s, ":")
	if len(p) > 3 || p[0] == "" {
		return arena.HumanOptions{}, fmt.Errorf("human %q: want NAME[:MODE[:xot]]", s)
	}
	o := arena.HumanOptions{Bot: p[0]}
	if len(p) >= 2 {
		m, err := othello.ParseMode(p[1])
		if err != nil {
			return o, fmt.Errorf("human %q: %w", s, err)
		}
		o.Mode = m
	}
	if len(p) == 3 {
		if p[2] != "xot" || o.Mode != othello.Std {
			return o, fmt.Errorf("human %q: the third part can only be xot, with std", s)
		}
		o.XOT = true
	}
	return o, nil
}

// offerHumans makes each human match as soon as its bot is online.
func offerHumans(ctx context.Context, srv *arena.Server, orders []arena.HumanOptions, log *slog.Logger) {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for len(orders) > 0 {
		rest := orders[:0]
		for _, o := range orders {
			if !srv.Online(o.Bot) {
				rest = append(rest, o)
				continue
			}
			id, err := srv.CreateHuman(o)
			if err != nil {
				log.Warn("human match dropped", "bot", o.Bot, "err", err)
				continue
			}
			log.Info("human match offered", "match", id, "bot", o.Bot, "mode", o.Mode.String(), "xot", o.XOT)
		}
		orders = rest
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// selfSigned makes a certificate for the listener's address, localhost and
// the loopback addresses, valid for a week.
func selfSigned(addr net.Addr) (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("tls key: %w", err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "flipbot-arena"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(7 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	if ta, ok := addr.(*net.TCPAddr); ok && !ta.IP.IsUnspecified() {
		tmpl.IPAddresses = append(tmpl.IPAddresses, ta.IP)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("tls certificate: %w", err)
	}
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pemBytes, nil
}
