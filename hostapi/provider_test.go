package hostapi

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/wasm"
)

const providerDir = "../testdata/provider"

// providerGolden is one line of testdata/provider/golden.jsonl.
type providerGolden struct {
	Catalog string `json:"catalog"`
	Import  *struct {
		Format string `json:"format"`
		File   string `json:"file"`
	} `json:"import"`
	Report         string          `json:"report"`
	SnapshotSHA256 string          `json:"snapshot_sha256"`
	Request        json.RawMessage `json:"request"`
	Response       *string         `json:"response"`
	Error          *struct {
		Category string `json:"category"`
		Reason   string `json:"reason"`
	} `json:"error"`
}

// requireProviderExports skips while the committed module predates the
// provider calls (it is rebuilt once per change set by wasm/build.sh).
func requireProviderExports(t *testing.T) {
	t.Helper()
	if !bytes.Contains(wasm.Binary, []byte("toolsift_provider")) {
		t.Skip("the committed toolsearch.wasm has no toolsift_provider export yet: run wasm/build.sh")
	}
}

// TestProviderGolden: the module imports each tool list as the native core
// did (report and snapshot bytes), and answers every provider request with
// the native bytes, or the same typed error.
func TestProviderGolden(t *testing.T) {
	requireProviderExports(t)
	forEachEngine(t, func(t *testing.T, kind EngineKind) {
		ctx := context.Background()
		data, err := os.ReadFile(filepath.Join(providerDir, "golden.jsonl"))
		require.NoError(t, err)
		imports := map[string]func(context.Context, []byte, ...Option) (*ToolList, error){
			"openai": FromOpenAITools, "anthropic": FromAnthropicTools, "mcp": FromMCPTools,
		}
		engines := map[string]*Engine{}
		scanner := bufio.NewScanner(bytes.NewReader(data))
		scanner.Buffer(nil, 1<<20)
		n := 0
		for scanner.Scan() {
			var g providerGolden
			require.NoError(t, json.Unmarshal(scanner.Bytes(), &g))
			if g.Import != nil {
				tools, err := os.ReadFile(filepath.Join(providerDir, g.Import.File))
				require.NoError(t, err)
				list, err := imports[g.Import.Format](ctx, tools, WithEngine(kind))
				require.NoError(t, err)
				require.Equal(t, g.Report, string(list.Report))
				sum := sha256.Sum256(list.Snapshot)
				require.Equal(t, g.SnapshotSHA256, hex.EncodeToString(sum[:]), "%s snapshot", g.Catalog)
				engines[g.Catalog] = openSnapshot(t, list.Snapshot, WithEngine(kind))
				continue
			}
			request := []byte(g.Request)
			var text string
			if json.Unmarshal(g.Request, &text) == nil { // a request that is not JSON, stored as a string
				request = []byte(text)
			}
			out, err := engines[g.Catalog].ProviderRaw(ctx, request)
			if g.Error != nil {
				var typed *wire.Error
				require.True(t, errors.As(err, &typed), "%s %s: want %s, got %v", g.Catalog, request, g.Error.Reason, err)
				require.Equal(t, g.Error.Category, typed.Category)
				require.Equal(t, g.Error.Reason, typed.Reason)
			} else {
				require.NoError(t, err, "%s %s", g.Catalog, request)
				require.Equal(t, *g.Response, string(out), "%s %s", g.Catalog, request)
			}
			n++
		}
		require.NoError(t, scanner.Err())
		require.Greater(t, n, 90)
	})
}

// The typed methods build the same requests as the golden file's.
func TestProviderMethods(t *testing.T) {
	requireProviderExports(t)
	forEachEngine(t, func(t *testing.T, kind EngineKind) {
		ctx := context.Background()
		tools, err := os.ReadFile(filepath.Join(providerDir, "openai-tools.json"))
		require.NoError(t, err)
		list, err := FromOpenAITools(ctx, tools, WithEngine(kind))
		require.NoError(t, err)
		require.Equal(t, []string{"web_search", "get_weather"}, list.AlwaysLoaded)
		e := openSnapshot(t, list.Snapshot, WithEngine(kind))

		def, err := e.OpenAIToolSearchTool(ctx)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(def), `{"type":"tool_search","execution":"client",`))

		item := []byte(`{"type":"tool_search_call","id":"tsc_1","call_id":"call_1","execution":"client","status":"completed","arguments":{"query":"change a customer's email address"}}`)
		out, err := e.AnswerToolSearchCall(ctx, item, 0)
		require.NoError(t, err)
		raw, err := e.ProviderRaw(ctx, []byte(`{"op":"answer_tool_search_call","item":`+string(item)+`}`))
		require.NoError(t, err)
		require.Equal(t, string(raw), string(out))

		small, err := e.AnswerToolSearchCall(ctx, item, 100)
		require.NoError(t, err)
		require.Less(t, len(small), len(out))

		_, err = e.AnswerToolSearchCall(ctx, []byte(`{not json`), 0)
		var typed *wire.Error
		require.True(t, errors.As(err, &typed))
		require.Equal(t, "invalid_request_json", typed.Reason)

		anthropicTool, err := e.AnthropicSearchTool(ctx, "find_tools")
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(anthropicTool), `{"name":"find_tools",`))
		result, err := e.AnswerToolUse(ctx, []byte(`{"type":"tool_use","id":"toolu_1","name":"find_tools","input":{"query":"search_flights"}}`), 0)
		require.NoError(t, err)
		require.Equal(t, `{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"tool_reference","tool_name":"search_flights"}]}`, string(result))
		defs, err := e.Definitions(ctx, "anthropic")
		require.NoError(t, err)
		require.True(t, json.Valid(defs))

		_, err = FromOpenAITools(ctx, []byte(`{"tools":3}`), WithEngine(kind))
		require.True(t, errors.As(err, &typed))
		require.Equal(t, "invalid_catalog", typed.Reason)
	})
}

// A session through the module: the second identical search loads nothing.
func TestToolSession(t *testing.T) {
	requireProviderExports(t)
	forEachEngine(t, func(t *testing.T, kind EngineKind) {
		ctx := context.Background()
		tools, err := os.ReadFile(filepath.Join(providerDir, "anthropic-tools.json"))
		require.NoError(t, err)
		list, err := FromAnthropicTools(ctx, tools, WithEngine(kind))
		require.NoError(t, err)
		e := openSnapshot(t, list.Snapshot, WithEngine(kind))
		s := NewToolSession(0, 0)
		block := []byte(`{"type":"tool_use","id":"toolu_1","name":"tool_search","input":{"query":"slack"}}`)
		first, err := s.AnswerToolUse(ctx, e, block, 0)
		require.NoError(t, err)
		require.Contains(t, string(first), "tool_reference")
		require.Equal(t, []string{"tools.slack_post_message", "tools.slack_search_messages"}, s.Loaded())
		second, err := s.AnswerToolUse(ctx, e, block, 0)
		require.NoError(t, err)
		require.NotContains(t, string(second), "tool_reference")
		require.Equal(t, s.Loaded(), s.AlreadyLoaded)
		require.False(t, s.CatalogChanged)
	})
}

// Names and ResolveName: server a's tool b__c and server a__b's tool c are
// shown to Anthropic under two names, each mapped back to its tool.
func TestProviderNames(t *testing.T) {
	requireProviderExports(t)
	forEachEngine(t, func(t *testing.T, kind EngineKind) {
		ctx := context.Background()
		tools, err := os.ReadFile(filepath.Join(providerDir, "mcp-names.json"))
		require.NoError(t, err)
		list, err := FromMCPTools(ctx, tools, WithEngine(kind))
		require.NoError(t, err)
		e := openSnapshot(t, list.Snapshot, WithEngine(kind))
		raw, err := e.Names(ctx, "anthropic")
		require.NoError(t, err)
		var names []struct {
			CanonicalPath string `json:"canonical_path"`
			Name          string `json:"name"`
		}
		require.NoError(t, json.Unmarshal(raw, &names))
		byPath := map[string]string{}
		for _, n := range names {
			byPath[n.CanonicalPath] = n.Name
		}
		require.Equal(t, "a__b__c_44b440f7", byPath["a.b__c"])
		require.Equal(t, "a__b__c_57a76311", byPath["a__b.c"])
		for path, name := range byPath {
			out, err := e.ResolveName(ctx, "anthropic", "", name)
			require.NoError(t, err)
			require.Contains(t, string(out), fmt.Sprintf(`"canonical_path":%q`, path))
		}
		out, err := e.ResolveName(ctx, "openai", "my_server", "tool_0696f2c6")
		require.NoError(t, err)
		require.Equal(t, `{"canonical_path":"my_server.天气预报","product_id":"my_server","name":"天气预报"}`, string(out))
		_, err = e.ResolveName(ctx, "anthropic", "", "a__b__c")
		var typed *wire.Error
		require.True(t, errors.As(err, &typed))
		require.Equal(t, "unknown_name", typed.Reason)
	})
}
