/** Percentiles of measured times, as every bench reports them. */

/**
 * The value at percentile `p` of `sorted` (ascending): the one below which p % of the values lie.
 * @param {number[]} sorted
 * @param {number} p
 */
export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
