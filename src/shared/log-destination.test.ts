import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { BatchedDestination, type LogSink } from './log-destination.js';

function recordingSink(withFlush = true) {
  const writes: string[] = [];
  const calls: string[] = [];
  const sink: LogSink = { write: (chunk) => writes.push(chunk) };
  if (withFlush) {
    sink.flush = (callback) => {
      calls.push('flush');
      callback?.();
    };
    sink.flushSync = () => calls.push('flushSync');
  }
  return { sink, writes, calls };
}

describe('BatchedDestination', () => {
  it('hands the lines of its delay to the sink as one write, in order, once the delay is over', async () => {
    const { sink, writes } = recordingSink();
    const destination = new BatchedDestination(sink, 30);
    destination.write('one\n');
    await nextTurn();
    destination.write('two\n');
    await sleep(5);
    expect(writes).toEqual([]);
    await sleep(60);
    expect(writes).toEqual(['one\ntwo\n']);
    destination.write('three\n');
    await sleep(60);
    expect(writes).toEqual(['one\ntwo\n', 'three\n']);
    await sleep(60);
    expect(writes).toHaveLength(2);
  });

  it('hands over at once what reaches 64 KB, and the rest after the delay', async () => {
    const { sink, writes } = recordingSink();
    const destination = new BatchedDestination(sink, 30);
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 64; i++) destination.write(line);
    expect(writes).toEqual([line.repeat(64)]);
    destination.write('after\n');
    expect(writes).toHaveLength(1);
    await sleep(60);
    expect(writes).toEqual([line.repeat(64), 'after\n']);
  });

  it('flush and flushSync hand over what waits first, then flush the sink', async () => {
    const { sink, writes, calls } = recordingSink();
    const destination = new BatchedDestination(sink);
    destination.write('a\n');
    let flushed = false;
    destination.flush(() => {
      flushed = true;
    });
    expect(writes).toEqual(['a\n']);
    expect(calls).toEqual(['flush']);
    expect(flushed).toBe(true);
    destination.write('b\n');
    destination.flushSync();
    expect(writes).toEqual(['a\n', 'b\n']);
    expect(calls).toEqual(['flush', 'flushSync']);
    await nextTurn();
    expect(writes).toHaveLength(2);
  });

  it('calls back at once when the sink cannot flush', () => {
    const { sink, writes } = recordingSink(false);
    const destination = new BatchedDestination(sink);
    destination.write('a\n');
    let flushed = false;
    destination.flush(() => {
      flushed = true;
    });
    expect(flushed).toBe(true);
    expect(writes).toEqual(['a\n']);
  });
});

describe('standardOutput', () => {
  // The built module, in a process of its own: what was logged before the process ends is written.
  const run = (ending: string) =>
    spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { standardOutput } = await import(${JSON.stringify(join(import.meta.dirname, '..', '..', 'dist', 'shared', 'log-destination.js'))});
         const out = standardOutput();
         for (let i = 1; i <= 3; i++) out.write('line ' + i + '\\n');
         ${ending}`,
      ],
      { encoding: 'utf8' },
    );

  it('writes the lines that wait when the process exits', () => {
    const result = run('process.exit(0);');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('line 1\nline 2\nline 3\n');
  });

  it('writes them when the process dies of an uncaught exception', () => {
    const result = run("throw new Error('boom');");
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('line 1\nline 2\nline 3\n');
    expect(result.stderr).toContain('boom');
  });

  it('writes them within its delay when the process goes on', () => {
    const result = run("setTimeout(() => { process.stdout.write('after\\n'); }, 100);");
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('line 1\nline 2\nline 3\nafter\n');
  });

  it('never keeps the process alive waiting for its delay', () => {
    // A destination with a minute of delay: the process ends at once, and the exit hook writes the line.
    const started = performance.now();
    const result = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { BatchedDestination } = await import(${JSON.stringify(join(import.meta.dirname, '..', '..', 'dist', 'shared', 'log-destination.js'))});
         const out = new BatchedDestination({ write: (chunk) => process.stdout.write(chunk) }, 60_000);
         process.once('exit', () => out.flushSync());
         out.write('waiting\\n');`,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('waiting\n');
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});
