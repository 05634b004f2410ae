/** Splits a whitespace-separated list, so long allow-lists stay readable (and prettier-stable). */
export function words(list: string): string[] {
  return list.split(/\s+/).filter((w) => w.length > 0);
}
