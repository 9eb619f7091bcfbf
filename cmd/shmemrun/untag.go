package main

import (
	"bytes"
	"io"
	"slices"
	"strconv"
)

// mpirun relays each PE's output in pieces of up to a few KiB as they come, not in lines,
// so two PEs' lines mix mid-line on a job across nodes (4 PEs on 2 nodes writing 500 000
// buffered lines each: about 2 000 lines came out cut by another PE's piece); srun keeps
// lines whole. So
// shmemrun always asks mpirun for --tag-output, which puts "[job,rank]<stdout>:" before
// each line and before each piece that continues a line, and untags the stream: each PE's
// bytes go to its own unfinished line, written whole once its newline comes, as on one
// node (runtime/launch's relay): lines of different PEs never mix, a line longer than
// untagChunk goes out in pieces (another PE's line arriving in its middle starts on a line
// of its own), and a last line without a newline gets one. With shmemrun's --tag-output a
// line keeps the one-node tag, "[PE n] ". A line without a tag (mpirun's own messages) is
// its own stream; mpirun text right after a PE's piece that ended mid-line is taken for
// that PE's, and a PE that prints something shaped like a tag splits its line there: the
// stream has no other framing.

// untagChunk bounds an unfinished line kept per PE: the largest piece written at once.
const untagChunk = 64 << 10

// untagger is an io.Writer taking mpirun's tagged stream and writing lines to w.
type untagger struct {
	w      io.Writer
	tag    bool           // prefix lines with "[PE n] "
	held   []byte         // a tag that may continue in the next Write
	cur    int            // whose bytes come next: a rank, or -1 for mpirun's own
	lines  map[int][]byte // each stream's unfinished line
	open   int            // the stream whose line is unfinished at w (a long line's piece went out), or noStream
	out    []byte         // the write being assembled
	broken bool           // a write to w failed: discard the rest
}

const noStream = -2

func newUntagger(w io.Writer, tag bool) *untagger {
	return &untagger{w: w, tag: tag, cur: -1, lines: map[int][]byte{}, open: noStream}
}

// Write parses p; it never fails, so that mpirun's relay never stops (a failed write to w
// discards the rest, as the one-node relay does).
func (u *untagger) Write(p []byte) (int, error) {
	data := p
	if len(u.held) > 0 {
		data = append(u.held, p...)
		u.held = nil
	}
	u.parse(data, false)
	return len(p), nil
}

// Close writes every unfinished line, ended with a newline, in rank order (mpirun's own
// last).
func (u *untagger) Close() error {
	if len(u.held) > 0 {
		held := u.held
		u.held = nil
		u.parse(held, true)
	}
	ranks := make([]int, 0, len(u.lines))
	for r, l := range u.lines {
		if len(l) > 0 || u.open == r {
			ranks = append(ranks, r)
		}
	}
	slices.Sort(ranks)
	if len(ranks) > 0 && ranks[0] < 0 { // mpirun's last
		ranks = append(ranks[1:], -1)
	}
	for _, r := range ranks {
		u.piece(r, append(u.lines[r], '\n'))
		u.lines[r] = nil
	}
	return nil
}

// parse splits data into tags and text; at the end of a Write (final false) a possible
// tag cut short is held for the next one.
func (u *untagger) parse(data []byte, final bool) {
	for len(data) > 0 {
		if data[0] == '[' {
			rank, n, ok := matchTag(data)
			if ok && n > 0 {
				u.cur = rank
				data = data[n:]
				continue
			}
			if ok && !final { // a tag's beginning: wait for the rest
				u.held = append([]byte(nil), data...)
				return
			}
		}
		// Text up to the next possible tag or through the end of a line.
		i := 1
		if data[0] != '\n' {
			if j := bytes.IndexAny(data[1:], "[\n"); j < 0 {
				i = len(data)
			} else if i += j; data[i] == '\n' {
				i++
			}
		}
		u.text(data[:i])
		data = data[i:]
	}
}

// text adds bytes to the current stream's line, writing it when it ends or fills.
func (u *untagger) text(b []byte) {
	l := append(u.lines[u.cur], b...)
	if l[len(l)-1] == '\n' {
		u.piece(u.cur, l)
		u.lines[u.cur] = l[:0]
		u.cur = -1 // mpirun tags whatever a PE sends after a newline: untagged text is mpirun's
		return
	}
	for len(l) >= untagChunk {
		u.piece(u.cur, l[:untagChunk])
		l = append(l[:0], l[untagChunk:]...)
	}
	u.lines[u.cur] = l
}

// piece writes part of stream r's line, whole in one write; it ends the line when it ends
// with a newline. Another stream's line left unfinished at w is ended first.
func (u *untagger) piece(r int, p []byte) {
	if u.broken {
		return
	}
	out := u.out[:0]
	if u.open != noStream && u.open != r {
		out = append(out, '\n')
		u.open = noStream
	}
	if u.tag && r >= 0 && u.open != r {
		out = append(out, "[PE "...)
		out = strconv.AppendInt(out, int64(r), 10)
		out = append(out, "] "...)
	}
	out = append(out, p...)
	u.out = out
	if p[len(p)-1] == '\n' {
		u.open = noStream
	} else {
		u.open = r
	}
	if _, err := u.w.Write(out); err != nil {
		u.broken = true
	}
}

// matchTag matches "[job,rank]<stdout>:" (or stderr, stddiag) at b's start: the rank and
// the tag's length; ok with n 0 when b ends before it could be told, !ok when it is none.
func matchTag(b []byte) (rank, n int, ok bool) {
	i := 1
	digits := func() (v int, good bool) {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' && i-start < 9 {
			v = v*10 + int(b[i]-'0')
			i++
		}
		return v, i > start
	}
	if _, good := digits(); !good {
		return 0, 0, i == len(b)
	}
	if i == len(b) {
		return 0, 0, true
	}
	if b[i] != ',' {
		return 0, 0, false
	}
	i++
	rank, good := digits()
	if !good || i == len(b) {
		return 0, 0, i == len(b)
	}
	for _, want := range []string{"]<stdout>:", "]<stderr>:", "]<stddiag>:"} {
		rest := b[i:]
		if bytes.HasPrefix(rest, []byte(want)) {
			return rank, i + len(want), true
		}
		if len(rest) < len(want) && bytes.HasPrefix([]byte(want), rest) {
			return 0, 0, true
		}
	}
	return 0, 0, false
}
