// Command night replays a night of the shop's traffic against its real HTTP
// handler, in this process, with sentry-go reporting to SENTRY_DSN: release
// 1.3.2 for the days before, then the deploy of 1.4.0 nine hours before -end
// and checkouts every few minutes until ten minutes before it. Every event
// carries the simulated time it happened at (a scope event processor sets
// Event.Timestamp), not the time it was sent, so the night can be sent in a
// second while it still reads as a night.
//
// It prints one JSON line: the events sent, how many the DSN acknowledged,
// and the simulated times of the first and last.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"time"

	"github.com/getsentry/sentry-go"

	"example.com/shop/checkout"
	"example.com/shop/web"
)

// A visit is one checkout of the simulated night.
type visit struct {
	at      time.Time
	release string
	cart    checkout.Cart
}

// Customers who pay in euros, and the others.
var (
	euCustomers    = []string{"ana@example.eu", "bram@example.nl", "chloe@example.fr", "dario@example.it", "elin@example.de", "fabian@example.at", "greta@example.de", "hugo@example.fr", "ines@example.pt", "jonas@example.be", "katja@example.fi", "luca@example.it"}
	otherCustomers = []string{"amy@example.com", "ben@example.co.uk", "cole@example.ca", "dee@example.com", "eli@example.co.uk", "finn@example.ca", "gus@example.com", "hal@example.com"}
	otherCurrency  = []string{"USD", "GBP", "CAD", "USD"}
	skus           = []string{"mug", "tee", "hoodie", "stickers", "notebook", "water-btl"}
)

// night lays out the visits: three days of 1.3.2 with a few orders of a product
// that left the catalog, the deploy of 1.4.0 at end-9h, then 120 checkouts ten
// minutes after it until ten minutes before end, every fourth one in euros.
func night(end time.Time) []visit {
	var vs []visit
	cart := func(customer, currency string, i int, sku string) checkout.Cart {
		if sku == "" {
			sku = skus[i%len(skus)]
		}
		return checkout.Cart{Customer: customer, Currency: currency, Items: []checkout.Item{{SKU: sku, Qty: 1 + i%3}, {SKU: skus[(i+2)%len(skus)], Qty: 1}}}
	}
	for i, h := range []time.Duration{52 * time.Hour, 30 * time.Hour, 11 * time.Hour} {
		vs = append(vs, visit{end.Add(-h), "shop@1.3.2", cart(otherCustomers[i], "USD", i, "gift-card")})
	}
	deploy := end.Add(-9 * time.Hour)
	first, last := deploy.Add(10*time.Minute), end.Add(-10*time.Minute)
	const n = 120
	for i := range n {
		at := first.Add(last.Sub(first) * time.Duration(i) / (n - 1))
		var c checkout.Cart
		switch {
		case i%4 == 3:
			c = cart(euCustomers[(i/4)%len(euCustomers)], "EUR", i, "")
		case i == 50 || i == 101:
			c = cart(otherCustomers[i%len(otherCustomers)], "USD", i, "gift-card")
		default:
			c = cart(otherCustomers[i%len(otherCustomers)], otherCurrency[i%len(otherCurrency)], i, "")
		}
		vs = append(vs, visit{at, "shop@1.4.0", c})
	}
	return vs
}

// countingTransport counts the ingest endpoint's answers.
type countingTransport struct{ ok, failed atomic.Int64 }

func (t *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.failed.Add(1)
	} else {
		t.ok.Add(1)
	}
	return resp, err
}

func main() {
	endFlag := flag.String("end", "", "the simulated morning, RFC 3339 (default now)")
	flag.Parse()
	if err := run(*endFlag, os.Getenv("SENTRY_DSN"), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "night:", err)
		os.Exit(1)
	}
}

func run(endText, dsn string, out io.Writer) error {
	if dsn == "" {
		return fmt.Errorf("set SENTRY_DSN to where the shop reports errors")
	}
	end := time.Now()
	if endText != "" {
		var err error
		if end, err = time.Parse(time.RFC3339, endText); err != nil {
			return fmt.Errorf("-end: %w", err)
		}
	}
	counter := &countingTransport{}
	clients := map[string]*sentry.Client{}
	for _, release := range []string{"shop@1.3.2", "shop@1.4.0"} {
		c, err := sentry.NewClient(sentry.ClientOptions{
			Dsn: dsn, Release: release, Environment: "production", ServerName: "shop-1",
			// One event at a time, each acknowledged before the next checkout.
			Transport: sentry.NewHTTPSyncTransport(), HTTPTransport: counter,
		})
		if err != nil {
			return err
		}
		clients[release] = c
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	h := web.Handler(checkout.FakeProvider{}, quiet)
	var sent, failures int
	var firstEvent, lastEvent time.Time
	for _, v := range night(end) {
		at := v.at
		hub := sentry.NewHub(clients[v.release], sentry.NewScope())
		hub.Scope().AddEventProcessor(func(e *sentry.Event, _ *sentry.EventHint) *sentry.Event {
			e.Timestamp = at
			for _, b := range e.Breadcrumbs {
				b.Timestamp = at
			}
			return e
		})
		before := counter.ok.Load() + counter.failed.Load()
		body, _ := json.Marshal(v.cart)
		req := httptest.NewRequestWithContext(sentry.SetHubOnContext(context.Background(), hub), http.MethodPost, "http://shop.example/checkout", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			failures++
		}
		if counter.ok.Load()+counter.failed.Load() > before {
			sent++
			if firstEvent.IsZero() {
				firstEvent = at
			}
			lastEvent = at
		}
	}
	return json.NewEncoder(out).Encode(map[string]any{
		"checkouts": len(night(end)), "failed": failures,
		"events": sent, "acknowledged": counter.ok.Load(),
		"first": firstEvent.UTC().Format(time.RFC3339), "last": lastEvent.UTC().Format(time.RFC3339),
	})
}
