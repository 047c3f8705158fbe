/**
 * Seed and size of the adversarial properties (test/adversarial/*.test.ts).
 *
 * One seed per run: `FC_SEED` when set, otherwise a random one that vitest.config.ts draws once and
 * hands to every test file, so all properties of a run share it. It is printed by every file and in
 * every failure: `FC_SEED=<seed> npm test` (or `FC_SEED=<seed> npx vitest run test/adversarial`)
 * replays the run exactly, on the engine that failed. `FC_RUNS=<factor>` multiplies every property's
 * number of runs, for a deeper run by hand (`FC_RUNS=10`). `FC_KEEP_GOING=1` does not stop at the
 * first failure: each property runs to the end and lists every distinct failure it met.
 */
import fc from 'fast-check';

const envSeed = process.env.FC_SEED;
if (envSeed !== undefined && !/^-?\d+$/.test(envSeed))
  throw new Error(`FC_SEED must be an integer: ${envSeed}`);
/** The run's seed. */
export const SEED = envSeed !== undefined ? Number(envSeed) : Math.floor(Math.random() * 2 ** 31);

const envRuns = process.env.FC_RUNS;
if (envRuns !== undefined && !(Number(envRuns) > 0))
  throw new Error(`FC_RUNS must be a positive number: ${envRuns}`);
/** The factor `FC_RUNS` puts on every property's number of runs (1 by default). */
export const RUNS_FACTOR = envRuns === undefined ? 1 : Number(envRuns);

/** How to replay this run, printed with every failure. */
export const REPLAY = `FC_SEED=${SEED}${envRuns === undefined ? '' : ` FC_RUNS=${envRuns}`} (engine ${
  process.env.CINELOG_TEST_ENGINE ?? 'sqlite'
})`;

/** A property's number of runs in a normal `npm test`, scaled by FC_RUNS. */
export const runs = (base: number) => Math.max(1, Math.round(base * RUNS_FACTOR));

/** A test timeout for `base` runs of a property that takes up to `msPerRun` each. */
export const timeoutFor = (base: number, msPerRun: number) => 30_000 + runs(base) * msPerRun;

/**
 * Runs an async property with the run's seed, stopping at the first failure (no shrinking: the
 * requests change a real database, so a shrunk replay would not see the same state). fast-check's
 * message names the counterexample; the seed to replay the whole run is added to it.
 */
export async function checkProperty<T>(
  name: string,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  numRuns: number,
  /** A fixed seed instead of the run's (the suite's own checks, which must fail the same way every time). */
  seed = SEED,
): Promise<void> {
  if (KEEP_GOING && seed === SEED) return collectFailures(name, arbitrary, predicate, numRuns);
  try {
    await fc.assert(fc.asyncProperty(arbitrary, predicate), { seed, numRuns, endOnFailure: true });
  } catch (error) {
    if (error instanceof Error) {
      // fast-check keeps the predicate's own error as the cause: its text goes into the message too.
      const cause = error.cause instanceof Error ? `\n${error.cause.message}` : '';
      error.message = `${name}: replay with ${REPLAY}\n${error.message}${cause}`;
    }
    throw error;
  }
}

const KEEP_GOING = process.env.FC_KEEP_GOING === '1';

/** FC_KEEP_GOING: every run, failures grouped by the first line of their message. */
async function collectFailures<T>(
  name: string,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  numRuns: number,
): Promise<void> {
  const failures = new Map<string, { count: number; example: T; message: string }>();
  await fc.assert(
    fc.asyncProperty(arbitrary, async (value) => {
      try {
        await predicate(value);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        // Grouped by what was wrong and the status that said so (the request itself differs every time).
        // A 5xx hides its cause: those are told apart by the shape of the request's path as well.
        const status = /answer: (\d+)/.exec(message)?.[1] ?? '';
        const path = status.startsWith('5')
          ? (/request: (\S+ \S+)/.exec(message)?.[1] ?? '')
              .replace(/[0-9a-fA-F-]{8,}/g, 'X')
              .replace(/\?.*/, '')
          : '';
        const key = `${message.split('\n')[0]!.replace(/\d+/g, 'N').slice(0, 200)} | ${status} ${path.slice(0, 80)}`;
        const known = failures.get(key);
        if (known) known.count += 1;
        else failures.set(key, { count: 1, example: value, message });
      }
    }),
    { seed: SEED, numRuns },
  );
  if (failures.size === 0) return;
  const report = [...failures.values()]
    .map((f) => `- ${f.count}x ${f.message}\n  example: ${fc.stringify(f.example).slice(0, 2000)}`)
    .join('\n');
  throw new Error(`${name}: ${failures.size} distinct failure(s); replay with ${REPLAY}\n${report}`);
}

let announced = false;
/** Prints the seed once per test file, so that a run that fails can be replayed. */
export function announceSeed(file: string): void {
  if (announced) return;
  announced = true;
  console.log(`adversarial ${file}: seed ${SEED}; replay with ${REPLAY}`);
}
