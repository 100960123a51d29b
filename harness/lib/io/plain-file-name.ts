/**
 * A name that another program or a server chose (npm pack's tarball name, which comes from the
 * registry's manifest), used as a file name inside a folder of ours: it must be one path
 * component, or "../../x" would reach outside that folder.
 */
export function isPlainFileName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name) && name.length <= 255;
}
