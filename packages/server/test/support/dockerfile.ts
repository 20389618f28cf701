/** One instruction of a Dockerfile: its keyword, upper-cased, and the rest of its logical line. */
export interface DockerfileInstruction {
  keyword: string;
  args: string;
}

/** One build stage: from `FROM` to the next. */
export interface DockerfileStage {
  /** The image it starts from. */
  base: string;
  /** Its `AS` name, if any. */
  name: string | undefined;
  /** Its instructions after `FROM`. */
  instructions: DockerfileInstruction[];
}

/**
 * The stages of a Dockerfile, as far as the checks of the deployment files need: comment lines
 * (parser directives included) are dropped, a line ending in `\` continues on the next, and each
 * logical line is a keyword and its arguments. No container runtime or hadolint runs here, so
 * this is what reads the file.
 */
export function parseDockerfile(text: string): DockerfileStage[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split(/\r?\n/)) {
    if (/^\s*#/.test(raw)) continue;
    const continued = /\\\s*$/.test(raw);
    pending += continued ? raw.replace(/\\\s*$/, ' ') : raw;
    if (continued) continue;
    if (pending.trim() !== '') logical.push(pending.trim().replace(/\s+/g, ' '));
    pending = '';
  }
  if (pending.trim() !== '') logical.push(pending.trim().replace(/\s+/g, ' '));
  const stages: DockerfileStage[] = [];
  for (const line of logical) {
    const [keyword = '', ...rest] = line.split(' ');
    const instruction = { keyword: keyword.toUpperCase(), args: rest.join(' ') };
    if (instruction.keyword === 'FROM') {
      const match = /^(?:--platform=\S+ )?(\S+)(?: AS (\S+))?$/i.exec(instruction.args);
      if (!match) throw new Error(`Not a FROM line: ${line}`);
      stages.push({ base: match[1] ?? '', name: match[2], instructions: [] });
    } else {
      const stage = stages.at(-1);
      if (!stage) throw new Error(`${instruction.keyword} before any FROM`);
      stage.instructions.push(instruction);
    }
  }
  return stages;
}

/** A `COPY` instruction's flags (`--from=build` as `{ from: 'build' }`), sources and target. */
export function parseCopy(args: string): {
  flags: Record<string, string>;
  sources: string[];
  target: string;
} {
  const words = args.split(' ');
  const flags: Record<string, string> = {};
  while (words[0]?.startsWith('--')) {
    const [name = '', value = ''] = (words.shift() ?? '').slice(2).split('=');
    flags[name] = value;
  }
  const target = words.pop() ?? '';
  return { flags, sources: words, target };
}
