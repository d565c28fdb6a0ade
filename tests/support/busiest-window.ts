/** The most of `times` (ms) that fall in any one window of `windowMs`, wherever it starts. */
export function busiestWindow(times: readonly number[], windowMs: number) {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i += 1) {
    while (j < sorted.length && sorted[j]! < sorted[i]! + windowMs) j += 1;
    most = Math.max(most, j - i);
  }
  return most;
}
