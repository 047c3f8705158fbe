import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { type LogSink, TurnBatchedDestination } from './log-destination.js';

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

describe('TurnBatchedDestination', () => {
  it('hands the lines of one turn to the sink as one write, in order, in that turn', async () => {
    const { sink, writes } = recordingSink();
    const destination = new TurnBatchedDestination(sink);
    destination.write('one\n');
    destination.write('two\n');
    await Promise.resolve();
    expect(writes).toEqual([]);
    await nextTurn();
    expect(writes).toEqual(['one\ntwo\n']);
    destination.write('three\n');
    await nextTurn();
    expect(writes).toEqual(['one\ntwo\n', 'three\n']);
    await nextTurn();
    expect(writes).toHaveLength(2);
  });

  it('flush and flushSync hand over what waits first, then flush the sink', async () => {
    const { sink, writes, calls } = recordingSink();
    const destination = new TurnBatchedDestination(sink);
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
    const destination = new TurnBatchedDestination(sink);
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
  // The built module, in a process of its own: what a turn logged before the process ends is written.
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

  it('writes the lines of the last turn when the process exits in it', () => {
    const result = run('process.exit(0);');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('line 1\nline 2\nline 3\n');
  });

  it('writes them when the process dies of an uncaught exception in that turn', () => {
    const result = run("throw new Error('boom');");
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('line 1\nline 2\nline 3\n');
    expect(result.stderr).toContain('boom');
  });

  it('writes them in the next turn when the process goes on', () => {
    const result = run("setImmediate(() => { process.stdout.write('after\\n'); });");
    expect(result.status).toBe(0);
    expect(result.stdout).toBe('line 1\nline 2\nline 3\nafter\n');
  });
});
