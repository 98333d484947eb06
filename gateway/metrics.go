package gateway

import (
	"net/http"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the gateway's Prometheus metrics, in a registry of its own
// (two gateways in one process, as in tests, do not collide, and nothing
// another package registers globally is served).
type metrics struct {
	reg          *prometheus.Registry
	calls        *prometheus.CounterVec
	search       prometheus.Histogram
	callLatency  prometheus.Histogram
	refused      *prometheus.CounterVec
	byServer     *prometheus.CounterVec
	unauthorized *prometheus.CounterVec
	swaps        prometheus.Counter
	generation   atomic.Int64
}

// Labels of toolsift_gateway_calls_refused_total.
const (
	RefusedByGuard  = "guard"
	RefusedByPolicy = "policy"
)

func newMetrics(g *Gateway) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolsift_gateway_tool_calls_total",
			Help: "tools/call requests by tool (search_tools, inspect_tool, call_tool, or exposed for --expose found) and outcome (ok, tool_error, protocol_error, or the refusal's reason).",
		}, []string{"tool", "outcome"}),
		search: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "toolsift_gateway_search_duration_seconds",
			Help:    "search_tools latency in the gateway, from the request decoded to the answer.",
			Buckets: []float64{.0002, .0005, .001, .002, .005, .01, .02, .05, .1, .25, .5, 1},
		}),
		callLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "toolsift_gateway_call_duration_seconds",
			Help:    "call_tool latency in the gateway, the downstream call included.",
			Buckets: prometheus.ExponentialBuckets(.0005, 4, 10),
		}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolsift_gateway_calls_refused_total",
			Help: "calls refused before reaching a server: by the destructive guard (guard) or by the client's policy (policy).",
		}, []string{"by"}),
		byServer: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolsift_gateway_server_calls_total",
			Help: "call_tool and direct calls by the server the path names (a configured server, or unknown) and outcome.",
		}, []string{"server", "outcome"}),
		unauthorized: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolsift_gateway_http_auth_rejected_total",
			Help: "HTTP requests refused by authentication: unauthorized (401) or insufficient_scope (403).",
		}, []string{"reason"}),
		swaps: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "toolsift_gateway_catalog_swaps_total",
			Help: "catalogs published since start.",
		}),
	}
	// Known label values start at zero, so that a rate over them exists
	// before the first event.
	for _, by := range []string{RefusedByGuard, RefusedByPolicy} {
		m.refused.WithLabelValues(by)
	}
	for _, reason := range []string{"unauthorized", "insufficient_scope"} {
		m.unauthorized.WithLabelValues(reason)
	}
	m.reg.MustRegister(m.calls, m.search, m.callLatency, m.refused, m.byServer, m.unauthorized, m.swaps,
		&stateCollector{g: g, m: m},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// swapped counts a published catalog.
func (m *metrics) swapped() {
	m.swaps.Inc()
	m.generation.Add(1)
}

// CountPolicyRefusal counts a call refused by the client's policy in
// toolsift_gateway_calls_refused_total{by="policy"}; the policy check
// calls it once per refusal.
func (g *Gateway) CountPolicyRefusal() { g.ops.metrics.refused.WithLabelValues(RefusedByPolicy).Inc() }

// MetricsHandler serves the gateway's metrics in the Prometheus
// exposition format.
func (g *Gateway) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(g.ops.metrics.reg, promhttp.HandlerOpts{Registry: g.ops.metrics.reg})
}

// stateCollector reads the servers' and the catalog's state at each
// scrape, rather than mirroring every change into gauges.
type stateCollector struct {
	g *Gateway
	m *metrics
}

var (
	serverUpDesc = prometheus.NewDesc("toolsift_gateway_server_up",
		"1 when the downstream server's session is up, else 0.", []string{"server"}, nil)
	serverRestartsDesc = prometheus.NewDesc("toolsift_gateway_server_restarts_total",
		"sessions of the downstream server started after its first.", []string{"server"}, nil)
	serverToolsDesc = prometheus.NewDesc("toolsift_gateway_server_tools",
		"tools the downstream server lists now.", []string{"server"}, nil)
	serverLeftOutDesc = prometheus.NewDesc("toolsift_gateway_server_left_out",
		"1 when the server is up but its tools are left out of the catalog (over a limit, not importable).", []string{"server"}, nil)
	generationDesc = prometheus.NewDesc("toolsift_gateway_catalog_generation",
		"the number of the catalog serving (1 for the first published).", nil, nil)
	toolCountDesc = prometheus.NewDesc("toolsift_gateway_catalog_tools",
		"tools in the catalog serving.", nil, nil)
	staleDesc = prometheus.NewDesc("toolsift_gateway_catalog_stale",
		"1 while every answer is refused because the last build failed (catalog_stale).", nil, nil)
	readyDesc = prometheus.NewDesc("toolsift_gateway_ready",
		"1 when /readyz answers 200.", nil, nil)
)

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{serverUpDesc, serverRestartsDesc, serverToolsDesc, serverLeftOutDesc, generationDesc, toolCountDesc, staleDesc, readyDesc} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.g.Status() { // config order: deterministic
		ch <- prometheus.MustNewConstMetric(serverUpDesc, prometheus.GaugeValue, boolValue(s.Up), s.Name)
		ch <- prometheus.MustNewConstMetric(serverRestartsDesc, prometheus.CounterValue, float64(s.Restarts), s.Name)
		ch <- prometheus.MustNewConstMetric(serverToolsDesc, prometheus.GaugeValue, float64(s.Tools), s.Name)
		ch <- prometheus.MustNewConstMetric(serverLeftOutDesc, prometheus.GaugeValue, boolValue(s.LeftOut != ""), s.Name)
	}
	tools := 0
	if gen := c.g.current(); gen != nil {
		tools = gen.toolCount
	}
	ch <- prometheus.MustNewConstMetric(generationDesc, prometheus.GaugeValue, float64(c.m.generation.Load()))
	ch <- prometheus.MustNewConstMetric(toolCountDesc, prometheus.GaugeValue, float64(tools))
	ch <- prometheus.MustNewConstMetric(staleDesc, prometheus.GaugeValue, boolValue(c.g.isStale()))
	ready, _ := c.g.Ready()
	ch <- prometheus.MustNewConstMetric(readyDesc, prometheus.GaugeValue, boolValue(ready))
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
