module github.com/acpkit/acpkit

go 1.25.0

require (
	github.com/coder/websocket v1.8.15
	github.com/google/go-cmp v0.7.0
	github.com/tidwall/gjson v1.20.3
	golang.org/x/sync v0.22.0
)

require (
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.3.0 // indirect
)
