module github.com/toolsift/toolsift

go 1.26.0

require (
	github.com/stretchr/testify v1.12.1
	github.com/tetratelabs/wazero v1.12.0
	github.com/tinylib/msgp v1.6.5
	golang.org/x/text v0.44.0
)

require (
	github.com/philhofer/fwd v1.2.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.49.0 // indirect
)
