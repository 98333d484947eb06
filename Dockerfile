# The MCP gateway (wasmhost mcp) as a container: docs/DEPLOY.md.
#
#   docker build -t toolsift/wasmhost .
#   docker run --rm -p 8931:8931 -p 9090:9090 -v "$PWD/servers.json:/etc/toolsift/servers.json:ro" toolsift/wasmhost
#
# The final image holds the static wasmhost binary (the WebAssembly module
# is embedded in it) and nothing else: no shell, no node, no npx. Fronted
# servers are therefore "url" servers (streamable HTTP: other containers,
# sidecars, remote services); a "command" server needs its runtime in an
# image built on top of this one.

FROM golang:1.26 AS build
WORKDIR /src
# The module cache first, so that a source change does not download again.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO off: a static binary that runs on distroless/static (no libc).
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -buildvcs=false -ldflags="-s -w" -o /out/wasmhost ./cmd/wasmhost

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/wasmhost /wasmhost
USER nonroot:nonroot
# 8931: MCP (authenticated); 9090: /healthz, /readyz, /metrics (no authentication:
# keep it inside the cluster).
EXPOSE 8931 9090
ENTRYPOINT ["/wasmhost"]
CMD ["mcp", "--config", "/etc/toolsift/servers.json", "--listen", ":8931", "--ops-listen", ":9090", "--cache-dir", ""]
