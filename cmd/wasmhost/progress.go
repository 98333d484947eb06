package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progressAfter is how long a build runs before it reports its phases: a
// fast build prints nothing, a slow one says where the time goes.
const progressAfter = time.Second

// buildProgress prints one line per phase of a snapshot build (read,
// import, index, encode) to w, with the phase's time and the time since the
// start, once the build has run for progressAfter: the phases finished by
// then are printed at once, with the one running, and later ones as they
// finish. A nil *buildProgress, or one on a nil writer, prints nothing.
type buildProgress struct {
	w     io.Writer
	start time.Time
	after time.Duration
	timer *time.Timer

	mu      sync.Mutex
	loud    bool      // p.after has passed
	ended   bool      // done was called
	lines   []string  // finished phases not printed yet
	phase   string    // the phase running ("" when none)
	phaseAt time.Time // when it began
}

func newBuildProgress(w io.Writer) *buildProgress { return newBuildProgressAfter(w, progressAfter) }

func newBuildProgressAfter(w io.Writer, after time.Duration) *buildProgress {
	if w == nil {
		return nil
	}
	p := &buildProgress{w: w, start: time.Now(), after: after}
	p.timer = time.AfterFunc(after, p.wake)
	return p
}

// begin ends the running phase, if any, and starts the named one.
func (p *buildProgress) begin(phase string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endLocked(time.Now())
	p.phase, p.phaseAt = phase, time.Now()
}

// done ends the running phase and stops the timer.
func (p *buildProgress) done() {
	if p == nil {
		return
	}
	p.timer.Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	p.endLocked(now)
	if !p.loud && now.Sub(p.start) >= p.after {
		p.flushLocked() // the timer had not fired yet
	}
	p.ended = true
}

func (p *buildProgress) endLocked(now time.Time) {
	if p.phase == "" {
		return
	}
	p.lines = append(p.lines, fmt.Sprintf("snapshot build: %s: %.2f s (%.2f s elapsed)", p.phase, now.Sub(p.phaseAt).Seconds(), now.Sub(p.start).Seconds()))
	p.phase = ""
	if p.loud {
		p.flushLocked()
	}
}

func (p *buildProgress) wake() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.loud = true
	p.flushLocked()
	if p.phase != "" {
		fmt.Fprintf(p.w, "snapshot build: %s …\n", p.phase)
	}
}

func (p *buildProgress) flushLocked() {
	for _, line := range p.lines {
		fmt.Fprintln(p.w, line)
	}
	p.lines = p.lines[:0]
}
