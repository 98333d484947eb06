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

// setString is a string flag that records whether it was given, so that
// --snapshot "" (an unset variable in a script) is told apart from no
// --snapshot at all.
type setString struct {
	value *string
	set   *bool
}

func (s *setString) String() string {
	if s == nil || s.value == nil {
		return ""
	}
	return *s.value
}

func (s *setString) Set(value string) error {
	*s.value, *s.set = value, true
	return nil
}
