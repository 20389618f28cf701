/**
 * A systemd unit file as sections of settings, each setting with every value it was given (a
 * key such as `Environment=` may repeat). Comments (`#`, `;`) and blank lines are dropped, and a
 * line ending in `\` continues on the next, as systemd.syntax(7) says.
 */
export function parseSystemdUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let section: Map<string, string[]> | undefined;
  let pending = '';
  for (const raw of text.split(/\r?\n/)) {
    if (pending === '' && /^\s*[#;]/.test(raw)) continue;
    if (/\\$/.test(raw)) {
      pending += `${raw.slice(0, -1)} `;
      continue;
    }
    const line = (pending + raw).trim();
    pending = '';
    if (line === '') continue;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      section = new Map();
      sections.set(header[1] ?? '', section);
      continue;
    }
    const equals = line.indexOf('=');
    if (equals <= 0 || !section) throw new Error(`Not a setting of a section: ${line}`);
    const key = line.slice(0, equals).trim();
    section.set(key, [...(section.get(key) ?? []), line.slice(equals + 1).trim()]);
  }
  return sections;
}
