#!/usr/bin/env bash
# What `go get github.com/toolsift/toolsift` downloads at a revision: the
# module zip the Go module proxy would serve (golang.org/x/mod/zip, from the
# committed tree), put behind a local file proxy and fetched with
# `go mod download -json`, as a user's go command fetches it.
#
#   bench/modsize.sh [REV...]     default: HEAD
#
# Prints, per revision, the zip's size and its ten largest files. Needs the
# Go module proxy once (golang.org/x/mod, into a temporary module).
set -euo pipefail
cd "$(dirname "$0")/.."
# The repository's root, also from a linked worktree (x/mod wants a .git dir).
root="$(cd "$(git rev-parse --git-common-dir)/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
[ $# -gt 0 ] || set -- HEAD

mkdir "$work/tool"
cat > "$work/tool/main.go" <<'EOF'
// Writes the module zip of github.com/toolsift/toolsift at a git revision.
package main

import (
	"os"

	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	repo, rev, version, out := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	f, err := os.Create(out)
	if err != nil {
		panic(err)
	}
	if err := zip.CreateFromVCS(f, module.Version{Path: "github.com/toolsift/toolsift", Version: version}, repo, rev, ""); err != nil {
		panic(err)
	}
	if err := f.Close(); err != nil {
		panic(err)
	}
}
EOF
(cd "$work/tool" && go mod init modsize > /dev/null 2>&1 && go get golang.org/x/mod@v0.42.0 > /dev/null 2>&1 && go build -o modsize .)

proxy="$work/proxy/github.com/toolsift/toolsift/@v"
mkdir -p "$proxy"
n=0
for rev in "$@"; do
  n=$((n + 1))
  v="v0.0.$n"
  sha="$(git rev-parse "$rev")"
  "$work/tool/modsize" "$root" "$sha" "$v" "$proxy/$v.zip"
  git show "$sha:go.mod" > "$proxy/$v.mod"
  echo "{\"Version\":\"$v\",\"Time\":\"2026-01-01T00:00:00Z\"}" > "$proxy/$v.info"
  echo "$v" >> "$proxy/list"
  zipfile="$(GOMODCACHE="$work/cache$n" GOPROXY="file://$work/proxy" GOSUMDB=off GOFLAGS=-modcacherw \
    go mod download -json "github.com/toolsift/toolsift@$v" | sed -n 's/.*"Zip": "\(.*\)",*/\1/p')"
  echo "$rev ($sha): go mod download fetches $(wc -c < "$zipfile") bytes"
  unzip -Z -l "$zipfile" | awk '$1 ~ /^-/ {print $4, $NF}' | sort -n -r | head -10 |
    sed 's|github.com/toolsift/toolsift@v[0-9.]*/||; s/^/  /'
done
