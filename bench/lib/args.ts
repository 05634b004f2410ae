export const SCENARIOS = [
  'list',
  'call',
  'lookup',
  'results',
  'propagation',
  'scale',
  'scale-distinct',
  'meta',
  'generated',
  'cache',
  'ops',
  'ops-split',
] as const;
export type ScenarioName = (typeof SCENARIOS)[number];
/** diagnostics, run only when named (no targets of their own) */
const ON_DEMAND: readonly ScenarioName[] = ['ops-split'];

export interface Args {
  scenarios: ScenarioName[];
  quick: boolean;
  json: boolean;
  /** force CPU profiles (otherwise: full runs profile where a target is missed) */
  profile: boolean;
  noProfile: boolean;
  /** where the markdown report goes */
  out: string;
  /** write bench/RESULTS.md (otherwise the report goes to bench/.tmp/last-run.md) */
  record: boolean;
}

const USAGE = `usage: npm run bench -- [${SCENARIOS.join('|')} ...] [--quick] [--json] [--profile|--no-profile] [--record] [--out FILE]`;

export function parseArgs(argv: string[]): Args {
  const args: Args = {
    scenarios: [],
    quick: false,
    json: false,
    profile: false,
    noProfile: false,
    out: '',
    record: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') args.quick = true;
    else if (a === '--json') args.json = true;
    else if (a === '--profile') args.profile = true;
    else if (a === '--no-profile') args.noProfile = true;
    else if (a === '--out') args.out = argv[++i] ?? args.out;
    else if (a === '--record') args.record = true;
    else if (a === '--help' || a === '-h') throw new Error(USAGE);
    else if ((SCENARIOS as readonly string[]).includes(a)) args.scenarios.push(a as ScenarioName);
    else throw new Error(`unknown argument "${a}"\n${USAGE}`);
  }
  // a run changes no tracked file unless asked to record its figures
  args.out ||= args.record ? 'bench/RESULTS.md' : 'bench/.tmp/last-run.md';
  if (args.scenarios.length === 0) args.scenarios = SCENARIOS.filter((s) => !ON_DEMAND.includes(s));
  return args;
}
