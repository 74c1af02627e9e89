/** Figures the benchmarks print. */

/** The p-th percentile (nearest rank) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** One line: a label padded to `width`, then the median and p95 in milliseconds. */
export function printMedianP95(label: string, values: readonly number[], width: number): void {
  process.stdout.write(
    `  ${label.padEnd(width)} median ${percentile(values, 50).toFixed(2).padStart(8)} ms   p95 ${percentile(values, 95).toFixed(2).padStart(8)} ms\n`,
  );
}
