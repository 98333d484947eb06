package lint_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/toolsift/toolsift/core/lint"
)

func TestFirstSentence(t *testing.T) {
	for in, want := range map[string]string{
		"Creates an issue. Returns its number.": "Creates an issue",
		"Reads v1.2 files! Then stops":          "Reads v1.2 files",
		"查询消息已读状态。返回已读人数":                       "查询消息已读状态",
		"Line one\nline two":                    "Line one",
		"  no end  ":                            "no end",
		"":                                      "",
	} {
		require.Equal(t, want, lint.FirstSentence(in), in)
	}
}

func TestNameWords(t *testing.T) {
	for in, want := range map[string][]string{
		"create_pull_request": {"create", "pull", "request"},
		"createPullRequest":   {"create", "pull", "request"},
		"HTTPServerStatus":    {"http", "server", "status"},
		"list-records.v2":     {"list", "records", "v2"},
		"get2FACode":          {"get2", "fa", "code"},
		"":                    nil,
	} {
		require.Equal(t, want, lint.NameWords(in), in)
	}
}

func TestTextUnits(t *testing.T) {
	require.Equal(t, 4, lint.TextUnits("Merge a pull request"))
	require.Equal(t, 3, lint.TextUnits("删除指定日程"))     // six characters
	require.Equal(t, 4, lint.TextUnits("查询个人考勤详情"))   // eight
	require.Equal(t, 3, lint.TextUnits("发送 DING 消息")) // one word, four characters
	require.Equal(t, 0, lint.TextUnits(" … "))
}

func TestHasActionWord(t *testing.T) {
	for _, c := range []struct {
		text, name, checked string
		found               bool
	}{
		{"Retrieves the forecast.", "x", "English", true}, // -s of retrieve
		{"Stopped containers are listed", "x", "English", true},
		{"Weather information for cities.", "city_weather", "English", false},
		{"Fork of a repository.", "fork_repository", "English", true}, // the name's first word
		{"查询消息已读状态", "x", "Chinese", true},
		{"查群成员", "x", "Chinese", true}, // an opening one-character verb
		{"城市天气的相关信息和数据", "x", "Chinese", false},
		{"钉钉 DING 消息", "x", "English and Chinese", false},
		{"DING 消息发送", "x", "English and Chinese", true},
		{"Информация о погоде", "x", "", false}, // neither list applies: not checked
	} {
		checked, found := lint.HasActionWord(c.text, lint.NameWords(c.name))
		require.Equal(t, c.checked, checked, c.text)
		require.Equal(t, c.found, found, c.text)
	}
}

func TestRepeatsName(t *testing.T) {
	require.True(t, lint.RepeatsName("Create invoice.", "create_invoice", ""))
	require.True(t, lint.RepeatsName("Get the reviews on a pull request", "get_pull_request_reviews", ""))
	require.True(t, lint.RepeatsName("查询日程详情", "get_calendar_detail", "查询日程详情"))
	require.False(t, lint.RepeatsName("Create an invoice for a customer's order", "create_invoice", ""))
	require.False(t, lint.RepeatsName("查询日程的参会人", "get_calendar_detail", "查询日程详情"))
}
