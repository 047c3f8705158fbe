import { runCli } from './program.js';

// The process entry of the `cinelog` bin. The environment is left to loadConfig, its only reader.
process.exitCode = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
