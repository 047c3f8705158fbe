import { executionAsyncId } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { keepTickShape, keptTickRecord } from './tick-shape.js';

describe('keepTickShape', () => {
  it("keeps one of process.nextTick's records, and leaves no async hook behind", async () => {
    keepTickShape();
    const record = keptTickRecord();
    expect(record).toBeDefined();
    // Node's tick record: its two async-id symbols (Node 24 adds its async context frame), then
    // callback and args.
    expect(Object.getOwnPropertySymbols(record).map(String)).toEqual(
      expect.arrayContaining(['Symbol(async_id_symbol)', 'Symbol(trigger_async_id_symbol)']),
    );
    expect(Object.keys(record as object)).toEqual(['callback', 'args']);
    // Again: the same record, no second hook.
    keepTickShape();
    expect(keptTickRecord()).toBe(record);
    // Ticks still run, with ids as usual.
    const id = await new Promise<number>((resolve) => process.nextTick(() => resolve(executionAsyncId())));
    expect(id).toBeGreaterThan(0);
  });
});
