package hostapi_test

import (
	"context"
	"fmt"
	"log"
	"regexp"

	"github.com/toolsift/toolsift/catalogs/dws"
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
