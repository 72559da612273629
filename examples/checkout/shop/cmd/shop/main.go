// Command shop serves the shop's API (POST /checkout) and reports errors to
// the Sentry DSN in SENTRY_DSN.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/getsentry/sentry-go"

	"example.com/shop/checkout"
	"example.com/shop/web"
)

// version is the release, set at build time with -ldflags "-X main.version=...".
var version = "1.4.0"

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to serve on")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := sentry.Init(sentry.ClientOptions{
		Dsn:         os.Getenv("SENTRY_DSN"),
		Release:     "shop@" + version,
		Environment: "production",
		ServerName:  "shop-1",
	}); err != nil {
		fmt.Fprintln(os.Stderr, "shop: sentry:", err)
		os.Exit(1)
	}
	defer sentry.Flush(5 * time.Second)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Addr: *addr, Handler: web.Handler(checkout.FakeProvider{}, log), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	log.Info("shop: serving", "addr", *addr, "release", "shop@"+version)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "shop:", err)
		os.Exit(1)
	}
}
