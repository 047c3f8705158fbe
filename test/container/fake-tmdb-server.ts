// The fake TMDB (test/fake-tmdb.ts) as a process of its own, for a server that cannot run in the test
// process: scripts/container-check.sh points a container at it. Listens on FAKE_TMDB_HOST (default
// 0.0.0.0, so a container reaches it through the host's address) and prints the port once it does.
import { startFakeTmdb } from '../fake-tmdb.js';

const fake = await startFakeTmdb({ host: process.env.FAKE_TMDB_HOST ?? '0.0.0.0' });
process.stdout.write(`${new URL(fake.url).port}\n`);
const stop = () => void fake.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
