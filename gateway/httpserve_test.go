package gateway_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/gateway"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends one JSON-RPC message to the endpoint with the given headers.
func post(t *testing.T, url, body string, headers map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// Attack: a web page the user visits posts to the gateway on 127.0.0.1
// (directly, or after rebinding its own name to 127.0.0.1). Its browser
// sends the page's Origin, which is refused; a client that is not a
// browser sends none and is served, as is an origin the operator allowed.
func TestHTTPRefusesCrossOriginRequests(t *testing.T) {
	s := startGateway(t, []gateway.ServerConfig{edgeChild("raw", "raw", "")}, gateway.Options{})
	srv := httptest.NewServer(s.g.HTTPHandlerWith(gateway.HTTPOptions{AllowedOrigins: []string{"http://localhost:6274"}}))
	t.Cleanup(srv.Close)

	for _, origin := range []string{"http://evil.example", "null", "http://localhost:6275", srv.URL} {
		resp := post(t, srv.URL, initializeBody, map[string]string{"Origin": origin})
		require.Equal(t, http.StatusForbidden, resp.StatusCode, origin)
	}
	resp := post(t, srv.URL, initializeBody, map[string]string{"Sec-Fetch-Site": "cross-site"})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	resp = post(t, srv.URL, initializeBody, map[string]string{"Origin": "http://LOCALHOST:6274"})
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "http://LOCALHOST:6274", resp.Header.Get("Access-Control-Allow-Origin"))
	require.Contains(t, resp.Header.Get("Access-Control-Expose-Headers"), "Mcp-Session-Id")

	// A browser's preflight: answered for an allowed origin only.
	for origin, status := range map[string]int{"http://localhost:6274": http.StatusNoContent, "http://evil.example": http.StatusForbidden} {
		req, err := http.NewRequest(http.MethodOptions, srv.URL, nil)
		require.NoError(t, err)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type, mcp-session-id")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, status, resp.StatusCode, origin)
		if status == http.StatusNoContent {
			require.Equal(t, origin, resp.Header.Get("Access-Control-Allow-Origin"))
			require.Contains(t, resp.Header.Get("Access-Control-Allow-Headers"), "Mcp-Session-Id")
		} else {
			require.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
		}
	}

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	require.NoError(t, err)
	defer cs.Close()
	_, paths, _ := search(t, cs, map[string]any{"query": "echo a message"})
	require.Contains(t, paths, "raw.echo")
}

// A session with no request for SessionIdle is closed: its ID then gets
// 404 (the SDK's answer for an unknown session), and a new one works.
func TestHTTPExpiresIdleSessions(t *testing.T) {
	s := startGateway(t, []gateway.ServerConfig{edgeChild("raw", "raw", "")}, gateway.Options{})
	srv := httptest.NewServer(s.g.HTTPHandlerWith(gateway.HTTPOptions{SessionIdle: 300 * time.Millisecond}))
	t.Cleanup(srv.Close)
	resp := post(t, srv.URL, initializeBody, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	id := resp.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, id)
	headers := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18"}
	resp = post(t, srv.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, headers)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	resp = post(t, srv.URL, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, headers)
	require.Equal(t, http.StatusOK, resp.StatusCode, "used within the idle time")
	time.Sleep(time.Second)
	resp = post(t, srv.URL, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, headers)
	require.Equal(t, http.StatusNotFound, resp.StatusCode, "idle past SessionIdle")
	resp = post(t, srv.URL, initializeBody, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

// Attack: a client sends its headers, then its body a byte now and then.
// Past BodyTimeout it gets 408 and the connection is closed; another
// client is served meanwhile.
func TestHTTPTimesOutSlowBodies(t *testing.T) {
	s := startGateway(t, []gateway.ServerConfig{edgeChild("raw", "raw", "")}, gateway.Options{})
	srv := httptest.NewServer(s.g.HTTPHandlerWith(gateway.HTTPOptions{BodyTimeout: 500 * time.Millisecond}))
	t.Cleanup(srv.Close)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s",
		srv.Listener.Addr(), len(initializeBody), initializeBody[:10])
	require.NoError(t, err)
	go func() { // a byte every 200 ms: never done within the timeout
		for i := 10; i < len(initializeBody); i++ {
			time.Sleep(200 * time.Millisecond)
			if _, err := conn.Write([]byte{initializeBody[i]}); err != nil {
				return
			}
		}
	}()
	resp := post(t, srv.URL, initializeBody, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode, "a prompt client is served meanwhile")
	started := time.Now()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	slow, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusRequestTimeout, slow.StatusCode)
	_, _ = io.Copy(io.Discard, slow.Body)
	_, err = conn.Read(make([]byte, 1))
	require.ErrorIs(t, err, io.EOF, "the connection is closed")
	require.Less(t, time.Since(started), 5*time.Second)
}
