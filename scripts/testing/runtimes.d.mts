/** The path of a binary an npm package of the workspace installs (`node_modules/.bin/<name>`). */
export declare function workspaceBinary(name: string): string;
/** The command that runs `script` under Deno or Bun, with `args` after it. */
export declare function runtimeCommand(
  runtime: 'deno' | 'bun',
  script: string,
  options?: { args?: readonly string[]; loopback?: boolean },
): { command: string; args: string[]; env: NodeJS.ProcessEnv };
