import { describe, expect, it } from 'vitest';
import type { ImportFile } from './import.types.js';
import { csvCells } from './import-csv.js';

/** A file of `text`, its bytes given in one piece. */
const fileOf = (text: string): ImportFile => {
  const bytes = new TextEncoder().encode(text);
  return {
    name: 'x.csv',
    size: bytes.length,
    async *open() {
      yield bytes;
    },
  };
};

const startLines = async (text: string) => {
  const found: [string, number][] = [];
  for await (const { cells, line } of csvCells(fileOf(text), ',')) found.push([cells[0]!, line]);
  return found;
};

describe('csvCells: the line each record starts on', () => {
  it('counts a quoted line break as one line, whether LF, CRLF or CR, in files of either ending', async () => {
    const expected = [
      ['title', 1],
      ['A', 2],
      ['B', 4],
      ['C', 6],
      ['D', 9],
    ];
    for (const [eol, inner] of [
      ['\n', '\n'],
      ['\n', '\r\n'],
      ['\r\n', '\r\n'],
      ['\r\n', '\n'],
      ['\r\n', '\r'],
    ] as const) {
      const text = [
        'title,comment',
        `A,"two${inner}lines"`,
        'B,',
        '',
        `C,"x${inner}y${inner}z"`,
        'D,',
        '',
      ].join(eol);
      expect(await startLines(text), JSON.stringify([eol, inner])).toEqual(expected);
    }
  });

  it('a file of mixed line endings: each ending is one line', async () => {
    expect(await startLines('title,comment\nA,x\r\nB,"y\r\nz"\nC,\n\nD,\r\n')).toEqual([
      ['title', 1],
      ['A', 2],
      ['B', 3],
      ['C', 5],
      ['D', 7],
    ]);
  });
});
