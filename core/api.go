package core

// api.txt is the golden listing of this package's outside API (`go doc
// -all`); TestAPI fails when the API changes without it. Regenerate it
// after a deliberate change with `go generate ./core`:
//
//go:generate go test -run ^TestAPI$ -rewrite-api .
