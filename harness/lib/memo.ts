/**
 * Reference data read once per process (engine specs, the release list, the hardware table):
 * checking 100,000 result files must not parse the same YAML 100,000 times. Keyed by the file or
 * folder it was read from, so a test pointing at another file gets that file's answer.
 */
export function memoByKey<T>(load: (key: string) => T): (key: string) => T {
  const loaded = new Map<string, T>();
  return (key) => {
    if (!loaded.has(key)) loaded.set(key, load(key));
    return loaded.get(key)!;
  };
}
