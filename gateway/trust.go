package gateway

import (
	"slices"
	"strings"
	"unicode"
)

// Trust. The MCP specification says a client must treat a server's tool
// annotations as untrusted unless the server is: readOnlyHint and
// destructiveHint are the server's claims about itself. For a server the
// config does not mark "trusted", the destructive guard therefore never
// lets an annotation *lower* a tool's risk below what its name and
// description say: the effect it acts on is the riskier of the annotated
// one and the one its words give. (Annotations that raise the risk are
// always believed: a server gains nothing by lying upwards.)

// effectRank orders effects by risk.
var effectRank = map[string]int{"read": 0, "write": 1, "destructive": 2}

// riskier is the riskier of two effects; an unknown effect counts as
// destructive.
func riskier(a, b string) string {
	ra, oka := effectRank[a]
	rb, okb := effectRank[b]
	switch {
	case !oka:
		return "destructive"
	case !okb:
		return "destructive"
	case rb > ra:
		return b
	}
	return a
}

// guardEffect is the effect the destructive guard acts on for a tool whose
// annotations gave annotated.
func guardEffect(annotated string, trusted bool, name, description string) string {
	if trusted {
		return riskier(annotated, "read") // an unknown effect still counts as destructive
	}
	return riskier(annotated, wordsEffect(name, description))
}

// destructiveVerbs are the words that make a tool destructive wherever they
// stand in its name or description (in any inflection: delete, deletes,
// deleted, deleting).
var destructiveVerbs = []string{
	"delete", "remove", "drop", "purge", "overwrite", "destroy", "erase", "kill",
	"reset", "wipe", "truncate", "terminate", "revoke", "unlink", "shred",
	"uninstall", "nuke", "rm", "rmdir", "del", "obliterate", "expunge",
}

// leadingDestructive are words that make a tool destructive only as the
// first word of its name or description, where they are the verb: "clear
// the cache", but not "a clear summary".
// ("format" and "empty" are left out: format_date or empty_check are
// more often readers than format_disk or empty_trash are tools.)
var leadingDestructive = []string{"clear", "flush", "discard", "cancel", "evict"}

// writeVerbs, as the first word of a name or a description, make a tool at
// least a writer.
var writeVerbs = []string{
	"write", "create", "update", "set", "edit", "modify", "change", "move", "rename",
	"send", "post", "put", "patch", "add", "insert", "upload", "append", "save",
	"copy", "replace", "execute", "exec", "run", "install", "start", "stop",
	"restart", "deploy", "publish", "commit", "push", "merge", "apply", "enable",
	"disable", "assign", "invite", "approve", "grant", "transfer", "pay", "book",
	"schedule", "submit", "make", "mkdir", "import", "sync", "toggle", "close",
	"archive", "lock", "unlock", "notify", "trigger", "invoke", "fork", "clone",
}

var (
	destructiveForms = inflections(destructiveVerbs)
	leadingForms     = inflections(leadingDestructive)
	writeForms       = inflections(writeVerbs)
)

// inflections maps every simple English inflection of each verb to true:
// -s, -es, -d, -ed, -ing, with a final e dropped or a final consonant
// doubled before -ing and -ed.
func inflections(verbs []string) map[string]bool {
	forms := map[string]bool{}
	for _, v := range verbs {
		forms[v] = true
		for _, suffix := range []string{"s", "es", "d", "ed", "ing", "ion", "al"} {
			forms[v+suffix] = true
		}
		if stem, ok := strings.CutSuffix(v, "e"); ok {
			forms[stem+"ing"] = true
			forms[stem+"ion"] = true
			forms[stem+"al"] = true // removal
		}
		if last := v[len(v)-1]; !strings.ContainsRune("aeiouwy", rune(last)) {
			double := v + string(last)
			forms[double+"ing"] = true
			forms[double+"ed"] = true
		}
	}
	return forms
}

// wordsEffect is the effect a tool's name and description say it has:
// destructive for a destructive verb anywhere in either, or a clearing verb
// leading either; write for a write verb leading either; read otherwise
// (which never lowers anything: riskier keeps the annotated effect).
func wordsEffect(name, description string) string {
	nameWords, descWords := words(name), words(description)
	effect := "read"
	for _, list := range [][]string{nameWords, descWords} {
		if len(list) == 0 {
			continue
		}
		if leadingForms[list[0]] {
			return "destructive"
		}
		for _, w := range list {
			if destructiveForms[w] {
				return "destructive"
			}
		}
		if writeForms[list[0]] {
			effect = "write"
		}
	}
	return effect
}

// words splits a name or a text into lower-case words: at every character
// that is not a letter or a digit, and between a lower-case letter and an
// upper-case one (deleteAllFiles → delete, all, files).
func words(s string) []string {
	var out []string
	var b strings.Builder
	var prev rune
	flush := func() {
		if b.Len() > 0 {
			out = append(out, b.String())
			b.Reset()
		}
	}
	for _, r := range s {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(unicode.ToLower(r))
		}
		prev = r
	}
	flush()
	return out
}

// logRaised logs the tools whose guard effect is riskier than their
// annotations say (at most 20 named, sorted), so that an operator sees
// what trusting a server would change.
func (g *Gateway) logRaised(routes map[string]route) {
	var raised []string
	for path, r := range routes {
		if r.effect != r.tool.Effect {
			raised = append(raised, path+" ("+r.tool.Effect+" → "+r.effect+")")
		}
	}
	if len(raised) == 0 {
		return
	}
	slices.Sort(raised)
	count := len(raised)
	if len(raised) > 20 {
		raised = append(raised[:20], "…")
	}
	g.log.Info("catalog: untrusted annotations not believed; the guard uses the effect the words give", "tools", count, "which", strings.Join(raised, ", "))
}
