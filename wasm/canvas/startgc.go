//go:build js && wasm

package main

import (
	"runtime/debug"
	"sync"
)

// startHeapCap bounds the heap while the collector is held for the start
// (holdGC): past it the collector runs anyway (debug.SetMemoryLimit). The
// start allocates about 5 MB (Go's runtime and package init 1.1 MB, the
// engine with the welcome session 2 MB, Ebiten's start and first frame 2
// MB: runtime.MemStats.TotalAlloc at each step).
const startHeapCap = 32 << 20

// holdGC turns the garbage collector off for the start and returns the
// function that turns it back on as it was (once; later calls do
// nothing). In the browser Go's collector runs on the page's one thread:
// with the default GOGC its first cycle (the 4 MB minimum heap goal)
// started during Ebiten's first frame, so that frame waited for the
// collector's first mark and sweep, the Liftoff compile of about 200 of
// the runtime's functions that run for the first time then, and the
// write barriers of the mark phase. Held, that cycle runs after the frame
// is on screen. main releases it when the engine runs without drawing,
// Draw when Ebiten's first frame has no cluster to show (the shell's
// restore, which may replay a long session, comes after it), else the
// first frame once it is on screen (bridge.firstFrame).
func holdGC() (release func()) {
	pct := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(startHeapCap)
	var once sync.Once
	return func() {
		once.Do(func() {
			debug.SetMemoryLimit(limit)
			debug.SetGCPercent(pct)
		})
	}
}
