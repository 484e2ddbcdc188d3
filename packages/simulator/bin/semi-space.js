// Which V8 flag the rxgate-sim bin starts the CLI with (bin/rxgate-sim.js): a pure decision,
// tested as a table in src/semi-space.test.ts.

/** The young generation's semi-space size, in MB, that `run` and `replay` get by default. */
export const SEMI_SPACE_MB = 64;

/**
 * The flags to start the CLI again with: `--max-semi-space-size=64` for `run` and `replay`,
 * nothing when the size is already set (in the node command or NODE_OPTIONS), when
 * RXGATE_SIM_SEMI_SPACE_MB says otherwise (0: V8's default; n: n MB), or for any other command
 * (they are short: a second process would only cost its start).
 * @param {readonly string[]} args the CLI's arguments
 * @param {readonly string[]} execArgv node's own flags
 * @param {Readonly<Record<string, string | undefined>>} env
 * @returns {string[]}
 */
export function semiSpaceArgv(args, execArgv, env) {
  if (args[0] !== 'run' && args[0] !== 'replay') return [];
  // V8 reads `_` and `-` in a flag's name alike: --max_semi_space_size is the same flag.
  const given = (s) => /--max[-_]semi[-_]space[-_]size(?![\w-])/.test(s);
  if (execArgv.some(given) || given(env.NODE_OPTIONS ?? '')) return [];
  const asked = env.RXGATE_SIM_SEMI_SPACE_MB;
  const mb = asked === undefined || asked === '' ? SEMI_SPACE_MB : Number(asked);
  if (!Number.isInteger(mb) || mb <= 0) return [];
  return [`--max-semi-space-size=${mb}`];
}

/**
 * The child's argv: the semi-space flag, then node's own flags exactly as given (an inspector
 * flag unchanged: `--inspect-brk=127.0.0.1:9230` stays that), the CLI, its arguments.
 * @param {readonly string[]} extra what {@link semiSpaceArgv} returned
 * @param {readonly string[]} execArgv node's own flags
 * @param {string} cli the CLI's path
 * @param {readonly string[]} args the CLI's arguments
 * @returns {string[]}
 */
export function childArgv(extra, execArgv, cli, args) {
  return [...extra, ...execArgv, cli, ...args];
}
