import { resolve } from 'node:path';

/**
 * The flags of the A/B scripts that run this tree against another in interleaved pairs, each
 * measurement a process of its own (`smtp-cpu.ts`, `compose-cpu.ts`): `--before DIR` (default
 * /work/main: a checkout without the change), `--mails N`, `--pairs N`, and `--role` with which a
 * script starts its own children. `flag` takes any further `--name value` off the command line.
 */
export function pairArgs(defaults: { mails: number; pairs: number }) {
  const flag = flagTaker(process.argv.slice(2));
  return {
    flag,
    /** This checkout's root. */
    here: resolve(__dirname, '../..'),
    before: resolve(flag('--before') ?? '/work/main'),
    mails: Number(flag('--mails') ?? defaults.mails),
    pairs: Number(flag('--pairs') ?? defaults.pairs),
    role: flag('--role') ?? 'compare',
  };
}

/** A reader of `--name value` flags that takes each one off `argv` (what is left are the positional arguments). */
export function flagTaker(argv: string[]): (name: string) => string | undefined {
  return (name) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv.splice(i, 2)[1] : undefined;
  };
}

/** A reader of `--name` switches (no value) that takes each one off `argv`: true when it was there. */
export function switchTaker(argv: string[]): (name: string) => boolean {
  return (name) => {
    const i = argv.indexOf(name);
    return i >= 0 && argv.splice(i, 1).length > 0;
  };
}
