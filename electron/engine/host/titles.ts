/**
 * Tab names a person can tell apart: the second "healthy" open at once is "healthy #2", the
 * third "healthy #3". Pure.
 */

/**
 * `base` if no open session is called that, else `base #n` with the smallest n ≥ 2 not taken
 * (a closed one's number is given again, as editors number their "Untitled" documents).
 */
export function distinctTitle(base: string, taken: Iterable<string>): string {
  const names = new Set(taken);
  if (!names.has(base)) return base;
  for (let n = 2; ; n += 1) {
    const title = `${base} #${n}`;
    if (!names.has(title)) return title;
  }
}
