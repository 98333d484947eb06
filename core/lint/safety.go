package lint

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/toolsift/toolsift/core/catalog"
)

// mcpDefaultSafety is what the MCP import makes of a tool whose annotations
// give neither readOnlyHint nor destructiveHint nor idempotentHint: the
// specification's defaults, destructive.
var mcpDefaultSafety = catalog.Safety{Effect: "destructive", Risk: "high", Confirmation: "user_required", Idempotency: "non_idempotent"}

// deletingWords in a name, against a read-only effect.
var deletingWords = []string{"delete", "destroy", "drop", "erase", "purge", "remove", "truncate", "wipe"}

var deletingChinese = []string{"删除", "移除", "清空", "销毁", "清除"}

// modelPhrase is text that speaks to the model rather than describing the
// tool: matched case-insensitively in a tool's prose.
type modelPhrase struct {
	phrase, level string
}

// modelPhrases: instructions that try to override the agent's own (warning)
// and imperatives addressed to it (info).
var modelPhrases = []modelPhrase{
	{"ignore previous instructions", Warning}, {"ignore all previous", Warning}, {"ignore prior instructions", Warning},
	{"ignore the above", Warning}, {"disregard previous", Warning}, {"disregard all", Warning}, {"forget your instructions", Warning},
	{"system prompt", Warning}, {"<important>", Warning}, {"<system>", Warning}, {"[system]", Warning},
	{"do not tell the user", Warning}, {"don't tell the user", Warning}, {"without telling the user", Warning},
	{"do not mention", Warning}, {"do not inform the user", Warning}, {"without asking the user", Warning},
	{"always call this tool", Warning}, {"always use this tool", Warning}, {"call this tool first", Warning},
	{"use this tool first", Warning}, {"before using any other tool", Warning}, {"before calling any other tool", Warning},
	{"instead of any other tool", Warning}, {"must be called before", Warning}, {"must always be called", Warning},
	{"you are an", Info}, {"as an ai", Info}, {"the assistant must", Info}, {"the assistant should", Info},
	{"you must", Info}, {"you should always", Info}, {"you should never", Info},
	{"忽略之前", Warning}, {"忽略以上", Warning}, {"忽略所有", Warning}, {"系统提示", Warning}, {"不要告诉用户", Warning},
	{"不要让用户知道", Warning}, {"务必先调用", Warning}, {"必须先调用", Warning}, {"总是调用", Warning}, {"优先调用本工具", Warning},
	{"你必须", Info}, {"你应该", Info}, {"助手必须", Info},
}

// directives make a sentence that names another tool an instruction to
// call it.
var directives = []string{"always", "first", "before", "after", "must", "then", "必须", "务必", "先", "之前", "之后"}

// safety runs the safety checks of every tool.
func (l *linter) safety() {
	names := l.distinctiveNames()
	for doc, tool := range l.e.Tools() {
		path := l.paths[doc]
		if level, why := l.unannotated(tool); level != "" {
			l.add(Finding{Level: level, Check: CheckUnannotated, Tool: path, Message: why})
		}
		if tool.Safety.Effect == "read" {
			if word := deletingName(tool); word != "" {
				l.add(Finding{Level: Error, Check: CheckDeletingNameReadOnly, Tool: path, Items: []string{word},
					Message: fmt.Sprintf("its name or title says %q but its annotations say read-only: an agent will run it without asking", word)})
			}
		}
		prose := toolProse(tool)
		l.addressesModel(path, prose)
		l.directsOtherTool(doc, path, tool.Description, names)
		l.hiddenCharacters(path, tool)
	}
}

// unannotated: a tool with no safety effect, or an MCP tool whose
// annotations say nothing about its effect (the MCP defaults then make it
// destructive). The MCP tool's original definition (kept by an import for
// tool search, as `wasmhost lint --catalog` and the bindings' fromMCPTools
// import) tells for certain; without it a tool with the default safety may
// also have said destructiveHint: true, so that is only an info.
func (l *linter) unannotated(tool *catalog.Tool) (level, message string) {
	if strings.TrimSpace(tool.Safety.Effect) == "" {
		return Warning, "no safety annotation: hosts that follow the MCP defaults treat it as destructive (say read, write or destructive)"
	}
	if l.e.Catalog().Format != "mcp" {
		return "", ""
	}
	if tool.Original != nil {
		var original struct {
			Annotations map[string]json.RawMessage `json:"annotations"` // lookup only
		}
		if json.Unmarshal(tool.Original, &original) == nil {
			_, readOnly := original.Annotations["readOnlyHint"]
			_, destructive := original.Annotations["destructiveHint"]
			if !readOnly && !destructive {
				return Warning, "no readOnlyHint or destructiveHint annotation: MCP clients treat it as destructive (add readOnlyHint: true, or destructiveHint: false, where that is so)"
			}
			return "", ""
		}
	}
	if tool.Safety == mcpDefaultSafety {
		return Info, "its annotations are absent or say only destructiveHint: true (this snapshot keeps no original definitions to tell which; lint the tools/list file instead): MCP clients treat it as destructive"
	}
	return "", ""
}

// deletingName is the deleting word a tool's name or title holds, or "".
func deletingName(tool *catalog.Tool) string {
	words := append(NameWords(tool.Identity.Name), NameWords(tool.Title)...)
	for _, w := range words {
		for _, d := range deletingWords {
			if w == d || w == d+"s" || w == d+"d" || w == d+"ed" || w == d+"e" {
				return d
			}
		}
	}
	for _, d := range deletingChinese {
		if strings.Contains(tool.Title, d) || strings.Contains(tool.Identity.Name, d) {
			return d
		}
	}
	return ""
}

// proseField is one named piece of the prose an agent reads about a tool.
type proseField struct{ name, text string }

// proseFields is the prose an agent reads about a tool: title, summary,
// description, use_when, avoid_when, examples, parameter descriptions.
// Every check over a tool's prose reads this one list, so a field added
// here is checked everywhere (hidden characters once missed avoid_when and
// examples because they kept a list of their own).
func proseFields(tool *catalog.Tool) []proseField {
	fields := []proseField{{"title", tool.Title}, {"summary", tool.Selection.AgentSummary}, {"description", tool.Description}}
	for _, list := range []struct {
		name  string
		lines []string
	}{{"use_when", tool.Selection.UseWhen}, {"avoid_when", tool.Selection.AvoidWhen}, {"examples", tool.Selection.Examples}} {
		for i, line := range list.lines {
			fields = append(fields, proseField{fmt.Sprintf("%s[%d]", list.name, i), line})
		}
	}
	for _, p := range tool.Params() {
		// One field per parameter, its two descriptions a line each, so a
		// parameter is named once in a finding.
		fields = append(fields, proseField{"parameter " + p.Name, p.Description + "\n" + p.InterfaceDescription})
	}
	return fields
}

// toolProse is the text of proseFields, one field a line.
func toolProse(tool *catalog.Tool) string {
	fields := proseFields(tool)
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.text
	}
	return strings.Join(parts, "\n")
}

func (l *linter) addressesModel(path, prose string) {
	lowered := strings.ToLower(prose)
	level := ""
	var found []string
	for _, p := range modelPhrases {
		if strings.Contains(lowered, p.phrase) {
			found = append(found, p.phrase)
			if LevelRank(p.level) > LevelRank(level) {
				level = p.level
			}
		}
	}
	if len(found) > 0 {
		l.add(Finding{Level: level, Check: CheckAddressesModel, Tool: path, Items: found,
			Message: "its text speaks to the model instead of describing the tool: " + quoteAll(found)})
	}
}

// distinctiveNames maps a tool name that cannot be an ordinary word (it
// holds _ or - or an inner capital, and 5 characters or more) to the tools
// it names.
func (l *linter) distinctiveNames() map[string][]int { // lookup only, never iterated
	names := map[string][]int{}
	for doc, tool := range l.e.Tools() {
		name := tool.Identity.Name
		if len(name) >= 5 && (strings.ContainsAny(name, "_-") || hasInnerCapital(name)) {
			names[name] = append(names[name], doc)
		}
	}
	return names
}

func hasInnerCapital(s string) bool {
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// directsOtherTool reports each other tool a sentence of the description
// names together with a directive (always, first, before, must, …).
func (l *linter) directsOtherTool(doc int, path, description string, names map[string][]int) {
	reported := map[int]bool{} // lookup only
	for _, sentence := range sentences(description) {
		lowered := strings.ToLower(sentence)
		directive := ""
		for _, d := range directives {
			if containsWord(lowered, d) {
				directive = d
				break
			}
		}
		if directive == "" {
			continue
		}
		for _, token := range identifierTokens(sentence) {
			for _, other := range names[token] {
				if other == doc || reported[other] {
					continue
				}
				reported[other] = true
				l.add(Finding{Level: Info, Check: CheckDirectsOtherTool, Tool: path, Other: l.paths[other], Items: []string{directive},
					Message: fmt.Sprintf("its description tells the model when to call %s (%q): %s", l.paths[other], directive, quoteShort(sentence))})
			}
		}
	}
}

// containsWord: word in s not inside a longer Latin word (CJK words match
// anywhere).
func containsWord(s, word string) bool {
	if word[0] >= 0x80 {
		return strings.Contains(s, word)
	}
	return mentions(s, word)
}

// sentences splits text at sentence ends (FirstSentence's rule).
func sentences(s string) []string {
	var out []string
	for s = strings.TrimSpace(s); s != ""; {
		first := FirstSentence(s)
		if first == "" {
			first = s
		}
		out = append(out, first)
		rest := strings.TrimSpace(s)[len(first):]
		rest = strings.TrimLeft(rest, ".!?。！？ \t\r\n")
		if len(rest) >= len(s) {
			break
		}
		s = strings.TrimSpace(rest)
	}
	return out
}

// identifierTokens are the runs of letters, digits, _ and - in s.
func identifierTokens(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-'))
	})
}

// hiddenCharacters reports invisible and direction-changing characters
// in a tool's prose (the import already refuses them in names and IDs).
func (l *linter) hiddenCharacters(path string, tool *catalog.Tool) {
	level := ""
	var items []string
	for _, f := range proseFields(tool) {
		var found []string
		for _, r := range f.text {
			if !hidden(r) {
				continue
			}
			code := fmt.Sprintf("U+%04X", r)
			if !slices.Contains(found, code) {
				found = append(found, code)
			}
			switch {
			case bidi(r):
				level = Error
			case variationSelector(r):
				if level == "" {
					level = Info
				}
			case level != Error:
				level = Warning
			}
		}
		if len(found) > 0 {
			items = append(items, f.name+": "+strings.Join(found, " "))
		}
	}
	if len(items) > 0 {
		l.add(Finding{Level: level, Check: CheckHiddenCharacters, Tool: path, Items: items,
			Message: "invisible or direction-changing characters, which make the text read differently from what is matched: " + strings.Join(items, "; ")})
	}
}

// variationSelector: U+FE00..U+FE0F, U+E0100..U+E01EF, which pick a
// glyph's variant (U+FE0F after ⚠ draws it as an emoji): harmless where
// they follow such a character, so they alone make an info finding.
func variationSelector(r rune) bool {
	return r >= 0xFE00 && r <= 0xFE0F || r >= 0xE0100 && r <= 0xE01EF
}

// bidi: a character that changes the direction of the text around it.
func bidi(r rune) bool {
	return r == 0x061C || r == 0x200E || r == 0x200F || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// replacementMarkers precede the name of the tool that replaces a
// deprecated one.
var replacementMarkers = []string{"use ", "replaced by ", "superseded by ", "in favor of ", "in favour of ", "改用", "请使用", "替代为"}

// deprecations reports deprecated tools, and a deprecated tool that ranks
// above the replacement its text names for a self-query of the replacement
// or the deprecated tool's name in words (its title or description may say
// "deprecated", which rightly finds it).
func (l *linter) deprecations() {
	for doc, tool := range l.e.Tools() {
		if !tool.Deprecated {
			continue
		}
		path := l.paths[doc]
		replacement, found := l.replacement(doc, tool)
		f := Finding{Level: Info, Check: CheckDeprecated, Tool: path, Message: "deprecated: agents should not pick it (remove it when its callers have moved)"}
		if found {
			f.Other = l.paths[replacement]
			f.Message = "deprecated in favour of " + l.paths[replacement]
		}
		l.add(f)
		if !found {
			continue
		}
		var results []QueryResult
		var parts []string
		for _, owner := range []int{replacement, doc} {
			for _, q := range l.queries[owner] {
				if owner == doc && q.kind != KindNameWords {
					continue
				}
				dRank, rRank := slices.Index(q.docs, doc)+1, slices.Index(q.docs, replacement)+1
				if dRank == 0 || rRank != 0 && rRank < dRank {
					continue
				}
				_, winners := l.rankOf(replacement, q.query, q.docs)
				results = append(results, QueryResult{Of: l.paths[owner], Kind: q.kind, Query: q.query, Rank: rRank, Winners: winners})
				parts = append(parts, fmt.Sprintf("%q ranks it %s and %s %s", q.query, ordinal(dRank), l.paths[replacement], rankText(rRank)))
			}
		}
		if len(results) > 0 {
			l.add(Finding{Level: Warning, Check: CheckDeprecatedOutranksReplacement, Tool: path, Other: l.paths[replacement], Queries: results,
				Message: "the deprecated tool ranks above its replacement: " + strings.Join(parts, "; ")})
		}
	}
}

// replacement finds the tool a deprecated tool's text names after a marker
// ("use X instead", "replaced by X", 改用 X): a name that resolves exactly,
// or a tool of the same product by that name.
func (l *linter) replacement(doc int, tool *catalog.Tool) (int, bool) {
	text := tool.Description + "\n" + tool.Extra
	lowered := strings.ToLower(text)
	for _, marker := range replacementMarkers {
		for from := 0; from < len(lowered); {
			i := strings.Index(lowered[from:], marker)
			if i < 0 {
				break
			}
			start := from + i + len(marker)
			from = start
			rest := strings.TrimLeft(text[start:], " `'\"“‘「")
			end := strings.IndexFunc(rest, func(r rune) bool {
				return !(r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-./:", r)))
			})
			if end < 0 {
				end = len(rest)
			}
			name := strings.TrimRight(rest[:end], ".:")
			if name == "" {
				continue
			}
			for _, candidate := range []string{name, tool.Identity.ProductID + "." + name} {
				if other, ok := l.e.ResolveTool(candidate); ok && other != doc {
					return other, true
				}
			}
		}
	}
	return 0, false
}
