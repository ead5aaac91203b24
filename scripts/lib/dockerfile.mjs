// Just enough of the Dockerfile and .dockerignore formats to replay our two Dockerfiles without
// Docker (scripts/build-image-steps.mjs) and to check them (apps/api/test/docker-files.test.ts).
// Supported: comments, line continuations, ARG defaults, FROM ... AS, and instruction flags.

/**
 * @typedef {{ keyword: string, flags: Record<string, string>, args: string, json: string[] | null, imageOnly: boolean, line: number }} Instruction
 * @typedef {{ name: string, image: string, instructions: Instruction[] }} Stage
 */

/**
 * Parses a Dockerfile into stages. An instruction right after a comment starting with
 * `# image-only` is marked `imageOnly`: it prepares the image's OS (apt, a global pnpm, users)
 * and is skipped when the build is replayed on a developer machine or CI.
 * @param {string} text
 * @returns {{ args: Record<string, string>, stages: Stage[] }}
 */
export function parseDockerfile(text) {
  const args = {};
  const stages = [];
  let imageOnly = false;
  let pending = '';
  let startLine = 0;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const raw = lines[i];
    const trimmed = raw.trim();
    if (pending === '' && trimmed.startsWith('#')) {
      if (/^#\s*image-only\b/.test(trimmed)) imageOnly = true;
      continue;
    }
    if (pending === '' && trimmed === '') continue;
    if (pending === '') startLine = i + 1;
    if (trimmed.endsWith('\\')) {
      pending += `${trimmed.slice(0, -1)} `;
      continue;
    }
    const instruction = parseInstruction(pending + trimmed, startLine, imageOnly);
    pending = '';
    imageOnly = false;
    if (instruction.keyword === 'ARG' && stages.length === 0) {
      const [name, value = ''] = instruction.args.split('=');
      args[name] = value;
    } else if (instruction.keyword === 'FROM') {
      const [image, as, name] = instruction.args.split(/\s+/);
      stages.push({ name: as?.toUpperCase() === 'AS' ? name : String(stages.length), image: substitute(image, args), instructions: [] });
    } else if (stages.length === 0) {
      throw new Error(`line ${startLine}: ${instruction.keyword} before FROM`);
    } else {
      stages.at(-1).instructions.push(instruction);
    }
  }
  return { args, stages };
}

/** @returns {Instruction} */
function parseInstruction(text, line, imageOnly) {
  const [, keyword, rest] = /^(\S+)\s*(.*)$/.exec(text) ?? [];
  const flags = {};
  let args = rest ?? '';
  // --name=value flags lead COPY, RUN and HEALTHCHECK.
  for (let match = /^--([a-z-]+)=(\S+)\s+/.exec(args); match; match = /^--([a-z-]+)=(\S+)\s+/.exec(args)) {
    flags[match[1]] = match[2];
    args = args.slice(match[0].length);
  }
  let json = null;
  const jsonText = keyword.toUpperCase() === 'HEALTHCHECK' ? /^CMD\s+(\[.*\])$/.exec(args)?.[1] : /^(\[.*\])$/.exec(args)?.[1];
  if (jsonText) json = JSON.parse(jsonText);
  return { keyword: keyword.toUpperCase(), flags, args, json, imageOnly, line };
}

function substitute(value, args) {
  return value.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name) => args[name] ?? '');
}

/**
 * `ENV a=1 b=2` (the only form we use) as an object.
 * @param {string} args
 */
export function parseEnv(args) {
  return Object.fromEntries(
    args
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => pair.split(/=(.*)/s).slice(0, 2)),
  );
}

/**
 * A .dockerignore as a predicate over context-relative paths (`a/b/c.ts`). A path is ignored
 * when its last matching pattern is not a `!` exception; a pattern that matches a folder
 * covers everything in it.
 * @param {string} text
 * @returns {(path: string) => boolean}
 */
export function dockerignoreMatcher(text) {
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => ({ negate: line.startsWith('!'), regex: globToRegex(line.replace(/^!/, '').replace(/^\/+|\/+$/g, '')) }));
  return (path) => {
    const prefixes = path.split('/').map((_, i, parts) => parts.slice(0, i + 1).join('/'));
    let ignored = false;
    for (const rule of rules) if (prefixes.some((prefix) => rule.regex.test(prefix))) ignored = !rule.negate;
    return ignored;
  };
}

function globToRegex(glob) {
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i];
    if (glob.startsWith('**/', i)) {
      source += '(?:.*/)?';
      i += 2;
    } else if (glob.startsWith('**', i)) {
      source += '.*';
      i += 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}
