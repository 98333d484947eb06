// Package quality measures ranking quality: it reads BEIR-style query and
// relevance files and scores ranked lists of tools against them with the
// metrics tool-retrieval papers report (nDCG@k, Recall@k, MRR@10,
// Comprehensiveness@k), plus the DWS reference's own proxy metrics (R@1,
// R@5, MRR@5, Forbidden@1/@5).
//
// Every aggregate is a sum over queries in input order divided by a count,
// so a report is the same on every run and every machine.
package quality

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Query is one benchmark query.
type Query struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// ReadQueries reads queries.jsonl: one {"id","text",…} object per line;
// BEIR's "_id" stands for "id", and a numeric id reads as its digits (other
// fields are ignored; blank lines are skipped).
func ReadQueries(r io.Reader) ([]Query, error) {
	var queries []Query
	scanner := bufio.NewScanner(r)
	scanner.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for n := 1; scanner.Scan(); n++ {
		line := bytes.TrimSpace(scanner.Bytes())
		if len(line) == 0 {
			continue
		}
		var row struct {
			ID     json.RawMessage `json:"id"`
			BEIRID json.RawMessage `json:"_id"`
			Text   string          `json:"text"`
		}
		if err := json.Unmarshal(line, &row); err != nil {
			return nil, fmt.Errorf("queries line %d: %w", n, err)
		}
		raw := row.ID
		if len(raw) == 0 || string(raw) == "null" {
			raw = row.BEIRID
		}
		id, err := queryID(raw)
		if err != nil {
			return nil, fmt.Errorf("queries line %d: %w", n, err)
		}
		queries = append(queries, Query{ID: id, Text: row.Text})
	}
	return queries, scanner.Err()
}

// queryID reads an id that is a JSON string or number.
func queryID(raw json.RawMessage) (string, error) {
	var id string
	if json.Unmarshal(raw, &id) == nil && id != "" {
		return id, nil
	}
	var number json.Number
	if json.Unmarshal(raw, &number) == nil && number != "" {
		return number.String(), nil
	}
	return "", errors.New(`no "id" or "_id" (a non-empty string or a number)`)
}

// Qrels maps a query ID to its judged documents and their relevance grades
// (grades ≤ 0 mean not relevant).
type Qrels map[string]map[string]int

// ReadQrels reads qrels.tsv: "query-id<TAB>corpus-id<TAB>score" lines after
// an optional header line.
func ReadQrels(r io.Reader) (Qrels, error) {
	qrels := Qrels{}
	scanner := bufio.NewScanner(r)
	for n := 1; scanner.Scan(); n++ {
		line := strings.TrimRight(scanner.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 3 {
			return nil, fmt.Errorf("qrels line %d: want 3 tab-separated fields, got %d", n, len(fields))
		}
		score, err := strconv.Atoi(strings.TrimSpace(fields[2]))
		if err != nil {
			if n == 1 {
				continue // the header
			}
			return nil, fmt.Errorf("qrels line %d: score %q is not an integer", n, fields[2])
		}
		if qrels[fields[0]] == nil {
			qrels[fields[0]] = map[string]int{}
		}
		qrels[fields[0]][fields[1]] = score
	}
	return qrels, scanner.Err()
}

// HasHan reports whether text contains a Han character: the language slice
// of benchmark queries.
func HasHan(text string) bool {
	for _, r := range text {
		if unicode.Is(unicode.Han, r) {
			return true
		}
	}
	return false
}

// LanguageSlice is the DWS reference's slice of a query: chinese_only,
// mixed_chinese_ascii (Han plus an ASCII letter or digit) or non_chinese.
func LanguageSlice(text string) string {
	han, ascii := false, false
	for _, r := range text {
		if unicode.Is(unicode.Han, r) {
			han = true
		}
		if r <= unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			ascii = true
		}
	}
	switch {
	case han && ascii:
		return "mixed_chinese_ascii"
	case han:
		return "chinese_only"
	}
	return "non_chinese"
}

// Scores are one query's metrics at each cut-off of Ks.
type Scores struct {
	NDCG              []float64 // nDCG@k: linear gain (the grade), log2(rank+1) discount
	Recall            []float64 // share of the relevant documents in the top k
	Comprehensiveness []float64 // 1 when every relevant document is in the top k
	MRR10             float64   // 1/rank of the first relevant document within 10, else 0
	Zero              bool      // the engine returned no candidate
}

// Score scores one ranked list (best first) against the judged documents of
// its query. relevant must hold at least one grade > 0.
func Score(ranked []string, judged map[string]int, ks []int) Scores {
	var grades []int
	for _, id := range slices.Sorted(maps.Keys(judged)) {
		if judged[id] > 0 {
			grades = append(grades, judged[id])
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(grades)))

	s := Scores{Zero: len(ranked) == 0}
	for _, k := range ks {
		dcg, idcg, found := 0.0, 0.0, 0
		for i := 0; i < k && i < len(ranked); i++ {
			if g := judged[ranked[i]]; g > 0 {
				dcg += float64(g) / math.Log2(float64(i+2))
				found++
			}
		}
		for i := 0; i < k && i < len(grades); i++ {
			idcg += float64(grades[i]) / math.Log2(float64(i+2))
		}
		ndcg := 0.0
		if idcg > 0 {
			ndcg = dcg / idcg
		}
		s.NDCG = append(s.NDCG, ndcg)
		s.Recall = append(s.Recall, float64(found)/float64(len(grades)))
		comp := 0.0
		if found == len(grades) {
			comp = 1
		}
		s.Comprehensiveness = append(s.Comprehensiveness, comp)
	}
	for i := 0; i < 10 && i < len(ranked); i++ {
		if judged[ranked[i]] > 0 {
			s.MRR10 = 1 / float64(i+1)
			break
		}
	}
	return s
}

// Summary aggregates Scores over queries.
type Summary struct {
	Queries           int                `json:"queries"`
	NDCG              map[string]float64 `json:"ndcg"`
	Recall            map[string]float64 `json:"recall"`
	Comprehensiveness map[string]float64 `json:"comprehensiveness"`
	MRR10             float64            `json:"mrr@10"`
	ZeroResultRate    float64            `json:"zero_result_rate"`
}

// Summarize averages scores (in the order given) at the cut-offs ks.
func Summarize(scores []Scores, ks []int) Summary {
	s := Summary{
		Queries:           len(scores),
		NDCG:              map[string]float64{},
		Recall:            map[string]float64{},
		Comprehensiveness: map[string]float64{},
	}
	if len(scores) == 0 {
		return s
	}
	n := float64(len(scores))
	for i, k := range ks {
		key := "@" + strconv.Itoa(k)
		var ndcg, recall, comp float64
		for _, q := range scores {
			ndcg += q.NDCG[i]
			recall += q.Recall[i]
			comp += q.Comprehensiveness[i]
		}
		s.NDCG[key], s.Recall[key], s.Comprehensiveness[key] = ndcg/n, recall/n, comp/n
	}
	zero := 0
	for _, q := range scores {
		s.MRR10 += q.MRR10
		if q.Zero {
			zero++
		}
	}
	s.MRR10 /= n
	s.ZeroResultRate = float64(zero) / n
	return s
}

// Proxy accumulates the DWS reference's intent metrics: the rank (1-based,
// 0 when absent from the top 5) of the single gold tool per query.
type Proxy struct {
	Cases          int     `json:"cases"`
	RecallAt1      float64 `json:"recall@1"`
	RecallAt5      float64 `json:"recall@5"`
	MRRAt5         float64 `json:"mrr@5"`
	ZeroResultRate float64 `json:"zero_result_rate"`

	hit1, hit5, zero int
	reciprocal       float64
}

// Observe adds one case.
func (p *Proxy) Observe(rank int, zero bool) {
	p.Cases++
	if zero {
		p.zero++
	}
	if rank == 1 {
		p.hit1++
	}
	if rank > 0 && rank <= 5 {
		p.hit5++
		p.reciprocal += 1 / float64(rank)
	}
	n := float64(p.Cases)
	p.RecallAt1, p.RecallAt5, p.MRRAt5 = float64(p.hit1)/n, float64(p.hit5)/n, p.reciprocal/n
	p.ZeroResultRate = float64(p.zero) / n
}

// Forbidden accumulates the DWS reference's negative metric: how often the
// tool whose avoid_when sentence is the query appears at rank 1 or in the
// top 5.
type Forbidden struct {
	Cases        int     `json:"cases"`
	ForbiddenAt1 float64 `json:"forbidden@1"`
	ForbiddenAt5 float64 `json:"forbidden@5"`

	at1, at5 int
}

// Observe adds one case: rank of the forbidden tool (0 when absent).
func (f *Forbidden) Observe(rank int) {
	f.Cases++
	if rank == 1 {
		f.at1++
	}
	if rank > 0 && rank <= 5 {
		f.at5++
	}
	n := float64(f.Cases)
	f.ForbiddenAt1, f.ForbiddenAt5 = float64(f.at1)/n, float64(f.at5)/n
}
