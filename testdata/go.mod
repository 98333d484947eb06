// The shared test data is a module of its own so that the zip of
// github.com/toolsift/toolsift, what `go get` downloads, leaves it out (a
// directory with a go.mod is not part of the enclosing module). It holds no
// Go code: the root module's internal/fixtures reads these files by path.
module github.com/toolsift/toolsift/testdata

go 1.26
