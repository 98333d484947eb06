package main

import (
	"strings"
)

// listFlag is a repeatable, comma-separated string flag:
// --product chat --product doc and --product chat,doc are the same.
type listFlag struct {
	values []string
	set    bool
}

func (l *listFlag) String() string { return strings.Join(l.values, ",") }

func (l *listFlag) Set(value string) error {
	l.set = true
	l.values = append(l.values, strings.Split(value, ",")...)
	return nil
}
