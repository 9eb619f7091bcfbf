#!/usr/bin/env bash
# Kernel benchmarks: builds the C loops (combine.c) with gcc -O3 -march=native, runs them and
# the Go benchmarks of package kernels (every path, copy() as the limit), and prints the
# markdown tables of bench/KERNELS.md (medians over COUNT runs) with the issue's targets.
#
#   bench/kernels/run.sh              # int32 and float32 (the targets), strided, copy
#   TYPES='Int32|Float32|Int64|Float64|Complex64|Complex128' bench/kernels/run.sh
#   COUNT=10 BENCHTIME=0.2s bench/kernels/run.sh
#   CPU=1 bench/kernels/run.sh        # pin the C program and the Go benchmarks to CPU 1
#
# Raw outputs go to bench/out/kernels/ (ignored by git). Needs gcc; an idle machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=bench/out/kernels
mkdir -p "$out"
types=${TYPES:-Int32|Float32}
count=${COUNT:-5}
benchtime=${BENCHTIME:-0.1s}

pin=()
if [ -n "${CPU:-}" ]; then
	pin=(taskset -c "$CPU")
fi

gcc -O3 -march=native -o "$out/combine" bench/kernels/combine.c
go test -c -o "$out/kernels.test" ./kernels/
: > "$out/c.txt"
: > "$out/go.txt"
# COUNT rounds of everything, interleaved, so that a noisy moment spoils one sample of many
# rows rather than every sample of one; the table takes medians over the rounds.
for round in $(seq "$count"); do
	echo "round $round/$count" >&2
	"${pin[@]}" "$out/combine" >> "$out/c.txt"
	"${pin[@]}" "$out/kernels.test" -test.run '^$' -test.bench "^Benchmark(Combine($types)|Copy|Strided|CombineSmall)\$" \
		-test.count 1 -test.benchtime "$benchtime" >> "$out/go.txt"
done
go run ./bench/kernels/table -c "$out/c.txt" -go "$out/go.txt" | tee "$out/table.md"
