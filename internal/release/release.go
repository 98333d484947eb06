// Package release holds the one version number that the Go module (its git
// tag vVERSION), the npm package and the PyPI package share. The module's
// toolsift_version JSON carries it, so every host's --version prints the same
// bytes; release_test.go fails when a package's metadata or CHANGELOG.md
// disagrees.
package release

// Version is the release: MAJOR.MINOR.PATCH (semantic versioning; the
// public contract is the wire JSON, the ABI and the snapshot format).
const Version = "0.1.0"
