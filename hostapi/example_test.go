package hostapi_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"regexp"

	"github.com/toolsift/toolsift/catalogs/dws"
	"github.com/toolsift/toolsift/core/wire"
	"github.com/toolsift/toolsift/hostapi"
)

// Open the built-in DWS catalog in the module and search it. The snapshot
// comes from package catalogs/dws; any other comes from
// `wasmhost snapshot build` or hostapi.BuildSnapshot.
func ExampleOpen() {
	ctx := context.Background()
	engine, err := hostapi.Open(ctx, dws.Snapshot())
	if err != nil {
		log.Fatal(err)
	}
	defer engine.Close(ctx)
	response, err := engine.Search(ctx, []byte(`{"version":"tool-search.v1","query":"查询群消息已读状态","limit":1}`))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(regexp.MustCompile(`"canonical_path":"[^"]+"`).FindString(string(response)))
	// Output: "canonical_path":"chat.query_msg_read_status"
}

// The same search answered by the Go core in this process: one option
// chooses the engine, and the bytes are the module's. An error the engine
// answers is a *wire.Error.
func ExampleWithEngine() {
	ctx := context.Background()
	engine, err := hostapi.Open(ctx, dws.Snapshot(), hostapi.WithEngine(hostapi.NativeEngine))
	if err != nil {
		log.Fatal(err)
	}
	defer engine.Close(ctx)
	fmt.Println(engine.Info().Engine, engine.Info().ToolCount)
	_, err = engine.Search(ctx, []byte(`{"version":"tool-search.v1","query":"x","limit":99}`))
	var werr *wire.Error
	if errors.As(err, &werr) {
		fmt.Println(werr.Category, werr.Reason)
	}
	// Output:
	// native 1122
	// validation invalid_limit
}
