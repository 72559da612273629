package mcpkit_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/reference/pkg/mcpkit"
	"github.com/mcpkit/reference/pkg/mcpkit/internal/remotetest"
	"github.com/mcpkit/reference/pkg/mcpkit/serve"
)

// settle waits (bounded) for goroutines to wind down to at most want, then returns
// the count: connection goroutines end shortly after their connection closes.
func settle(want int) int {
	n := runtime.NumGoroutine()
	for i := 0; i < 500 && n > want; i++ {
		time.Sleep(10 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestLoadOneInstance: 64 concurrent clients make 50,000 tools/call (5,000 with
// -short or the race detector) against one instance on loopback: every call must
// succeed with the right sum, and the instance must hold no more goroutines or heap
// afterwards than before, beyond a small bound.
func TestLoadOneInstance(t *testing.T) {
	const clients = 64
	total := 50000
	if testing.Short() || underRace {
		total = 5000
	}
	s := remotetest.Server(nil, nil, nil)
	srv := httptest.NewServer(remotetest.Service(t, s, &serve.Options{HTTP: mcpkit.HTTPOptions{MaxConcurrentPerCaller: clients}}))
	defer srv.Close()
	url := srv.URL + "/mcp"
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxIdleConns: clients}
	hc := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()

	goroutinesBefore := runtime.NumGoroutine()
	heapBefore := heapAfterGC()
	var next, failed, tooMany atomic.Int64
	var firstErr atomic.Value
	start := time.Now()
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 0, 1024)
			for {
				i := int(next.Add(1))
				if i > total {
					return
				}
				resp, err := hc.Do(remotetest.LoadRequest(url, i, i, 1))
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				buf = buf[:0]
				b := bytes.NewBuffer(buf)
				_, err = io.Copy(b, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusTooManyRequests {
					tooMany.Add(1)
				}
				if err != nil || resp.StatusCode != 200 || !bytes.Contains(b.Bytes(), fmt.Appendf(nil, `"structuredContent":{"sum":%d}`, i+1)) {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("call %d: status %d: %.300s", i, resp.StatusCode, b.Bytes()))
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	tr.CloseIdleConnections()
	goroutinesAfter := settle(goroutinesBefore)
	heapAfter := heapAfterGC()

	t.Logf("load: %d tools/call from %d clients in %v: %.0f calls/s; goroutines %d -> %d; heap %.1f MiB -> %.1f MiB",
		total, clients, elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds(), goroutinesBefore, goroutinesAfter,
		float64(heapBefore)/(1<<20), float64(heapAfter)/(1<<20))
	if n := failed.Load(); n > 0 {
		t.Fatalf("%d of %d calls failed; first: %v", n, total, firstErr.Load())
	}
	if n := tooMany.Load(); n > 0 {
		t.Errorf("%d calls got 429 with the limit at the offered load", n)
	}
	if goroutinesAfter > goroutinesBefore+2 {
		t.Errorf("goroutines grew from %d to %d", goroutinesBefore, goroutinesAfter)
	}
	if heapAfter > heapBefore+8<<20 {
		t.Errorf("heap grew from %d to %d bytes", heapBefore, heapAfter)
	}
}

// TestLoad429OnlyBelowTheOfferedLoad: 64 clients hold a call each at the same
// time. With a per-caller limit at or above 64 every call is admitted; with a limit
// of 8, exactly 8 are and the other 56 get 429 at once (no queueing).
func TestLoad429OnlyBelowTheOfferedLoad(t *testing.T) {
	const clients = 64
	for _, limit := range []int{0, clients, 100, 8} {
		t.Run(fmt.Sprintf("limit %d", limit), func(t *testing.T) {
			endpoint, hold, entered := remotetest.HoldService(t, &serve.Options{HTTP: mcpkit.HTTPOptions{MaxConcurrentPerCaller: limit}})
			admitted := clients
			if limit > 0 && limit < clients {
				admitted = limit
			}
			statuses := make(chan int, clients)
			for range clients {
				go func() {
					r, err := remotetest.NewClient(t, endpoint).Try("tools/call", map[string]any{"name": "hold", "arguments": map[string]any{}})
					if err != nil {
						t.Error(err)
						statuses <- 0
						return
					}
					statuses <- r.Status
				}()
			}
			for range admitted {
				<-entered
			}
			refused := 0
			for range clients - admitted {
				if s := <-statuses; s == http.StatusTooManyRequests {
					refused++
				} else {
					t.Errorf("a call over the limit got status %d", s)
				}
			}
			close(hold)
			ok := 0
			for range admitted {
				if s := <-statuses; s == http.StatusOK {
					ok++
				}
			}
			if ok != admitted || refused != clients-admitted {
				t.Fatalf("limit %d: %d admitted and completed, %d refused with 429; want %d and %d", limit, ok, refused, admitted, clients-admitted)
			}
		})
	}
}
