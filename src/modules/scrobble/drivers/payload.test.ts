import { describe, expect, it } from 'vitest';
import {
  eventTime,
  formFields,
  get,
  getAnyCase,
  parseEpochSeconds,
  parseFlag,
  parseImdbId,
  parseNumber,
  parseTimestamp,
  parseTmdbId,
} from './payload.js';

describe('parseTimestamp', () => {
  it.each([
    ['2024-03-09T23:30:00Z', '2024-03-09T23:30:00.000Z'],
    ['2024-03-09T23:30:00.1Z', '2024-03-09T23:30:00.100Z'],
    ['2024-03-09T23:30:00.123Z', '2024-03-09T23:30:00.123Z'],
    ['2024-03-09T23:30:00.123456Z', '2024-03-09T23:30:00.123Z'],
    ['2024-03-09T23:30:00.1234567Z', '2024-03-09T23:30:00.123Z'],
    ['2024-03-09T23:30:00.999999999Z', '2024-03-09T23:30:00.999Z'],
    ['2024-03-09T23:30:00.1234567+01:00', '2024-03-09T22:30:00.123Z'],
    ['2024-03-09T23:30:00+0100', '2024-03-09T22:30:00.000Z'],
    ['2024-03-09T23:30:00+01', '2024-03-09T22:30:00.000Z'],
    ['2024-03-09T00:30:00.5-05:30', '2024-03-09T06:00:00.500Z'],
    ['2024-03-01T00:10:00+01:00', '2024-02-29T23:10:00.000Z'],
    ['2024-03-09T23:30:00.1234567', '2024-03-09T23:30:00.123Z'],
    ['2024-03-09T23:30', '2024-03-09T23:30:00.000Z'],
    ['2024-03-09 23:30:00,25z', '2024-03-09T23:30:00.250Z'],
    [' 2024-03-09T23:30:00Z ', '2024-03-09T23:30:00.000Z'],
    ['0001-01-01T00:00:00.0000000Z', '0001-01-01T00:00:00.000Z'],
  ])('reads %s as %s', (text, instant) => {
    expect(parseTimestamp(text)?.toISOString()).toBe(instant);
  });

  it.each([
    '2023-02-29T10:00:00Z',
    '2024-04-31T10:00:00Z',
    '2024-13-01T00:00:00Z',
    '2024-00-10T00:00:00Z',
    '2024-03-00T00:00:00Z',
    '2024-03-09T24:00:00Z',
    '2024-03-09T23:60:00Z',
    '2024-03-09T23:30:60Z',
    '2024-03-09T23:30:00+24:00',
    '2024-03-09T23:30:00.Z',
    '2024-03-09T23:30:00.1234567890Z',
    '2024-03-09T23:30:00 +01:00',
    '2024-03-09',
    '24-03-09T23:30:00Z',
    'Sat, 09 Mar 2024 23:30:00 GMT',
    '',
  ])('rejects %s', (text) => {
    expect(parseTimestamp(text)).toBeNull();
  });

  it.each([[1710027000], [null], [undefined], [{}]])('rejects the non-string %s', (value) => {
    expect(parseTimestamp(value)).toBeNull();
  });
});

describe('parseEpochSeconds', () => {
  it.each([
    [1710027000, '2024-03-09T23:30:00.000Z'],
    ['1710027000', '2024-03-09T23:30:00.000Z'],
    [1710027000.25, '2024-03-09T23:30:00.250Z'],
  ])('reads %s', (value, instant) => {
    expect(parseEpochSeconds(value)?.toISOString()).toBe(instant);
  });

  it.each([[0], [-1], ['abc'], [''], [null], [true], [1e300]])('rejects %s', (value) => {
    expect(parseEpochSeconds(value)).toBeNull();
  });
});

describe('eventTime', () => {
  const receivedAt = new Date('2025-01-01T00:00:00.000Z');

  it('takes the first plausible candidate', () => {
    const candidates = [
      null,
      new Date('0001-01-01T00:00:00Z'),
      new Date('2024-05-05T05:05:05Z'),
      new Date(1),
    ];
    expect(eventTime(candidates, receivedAt)).toEqual(new Date('2024-05-05T05:05:05Z'));
  });

  it('falls back to the receipt time', () => {
    const candidates = [null, new Date(0), new Date(Date.UTC(10000, 0, 1)), new Date(Number.NaN)];
    expect(eventTime(candidates, receivedAt)).toEqual(receivedAt);
  });

  it('takes the receipt time for an event after it: a server clock that runs ahead', () => {
    expect(eventTime([new Date('2025-01-01T00:00:02Z')], receivedAt)).toEqual(receivedAt);
    expect(eventTime([new Date('2025-03-01T00:00:00Z')], receivedAt)).toEqual(receivedAt);
    expect(eventTime([new Date('2024-12-31T23:59:59Z')], receivedAt)).toEqual(
      new Date('2024-12-31T23:59:59Z'),
    );
  });
});

describe('parseTmdbId', () => {
  it.each([
    ['593643', 593643],
    [593643, 593643],
    [' 42 ', 42],
    ['007', 7],
  ])('reads %j as %d', (value, id) => {
    expect(parseTmdbId(value)).toBe(id);
  });

  it.each([
    ['0'],
    [0],
    [-1],
    ['-1'],
    [1.5],
    ['1.5'],
    ['1e3'],
    [Number.NaN],
    ['abc'],
    [''],
    [null],
    [true],
    [['593643']],
    ['9007199254740993'],
  ])('treats %j as missing', (value) => {
    expect(parseTmdbId(value)).toBeUndefined();
  });
});

describe('parseImdbId', () => {
  it.each([
    ['tt0090728', 'tt0090728'],
    ['TT0090728', 'tt0090728'],
    ['Tt123', 'tt123'],
    [' tt42 ', 'tt42'],
  ])('reads %s as %s', (value, id) => {
    expect(parseImdbId(value)).toBe(id);
  });

  it.each([['0090728'], ['tt'], ['nm0000001'], ['tt12a'], [90728], [null]])(
    'treats %j as missing',
    (value) => {
      expect(parseImdbId(value)).toBeUndefined();
    },
  );
});

describe('parseFlag', () => {
  it.each([
    [true, true],
    [false, false],
    ['true', true],
    ['True', true],
    ['FALSE', false],
    [' false ', false],
  ])('reads %j as %s', (value, flag) => {
    expect(parseFlag(value)).toBe(flag);
  });

  it.each([[1], [0], ['yes'], [''], [null], [undefined]])('treats %j as missing', (value) => {
    expect(parseFlag(value)).toBeUndefined();
  });
});

describe('parseNumber', () => {
  it.each([
    [4.0, 4],
    ['10', 10],
    [' 7.5 ', 7.5],
    ['-1', -1],
    ['.5', 0.5],
  ])('reads %j as %d', (value, number) => {
    expect(parseNumber(value)).toBe(number);
  });

  it.each([['ten'], [''], ['1e2'], ['0x10'], [null], [true], [[5]]])('treats %j as missing', (value) => {
    expect(parseNumber(value)).toBeUndefined();
  });
});

describe('get and getAnyCase', () => {
  const body = JSON.parse('{"Name":"A","__proto__":{"polluted":true}}') as Record<string, unknown>;

  it('read own keys only, never the prototype', () => {
    expect(get(body, 'constructor')).toBeUndefined();
    expect(getAnyCase(body, 'toString')).toBeUndefined();
    expect(get(body, '__proto__')).toEqual({ polluted: true });
    expect(get(body, 'polluted')).toBeUndefined();
  });

  it('getAnyCase prefers the exact key and falls back to another case', () => {
    expect(getAnyCase({ name: 'lower', Name: 'exact' }, 'Name')).toBe('exact');
    expect(getAnyCase({ NAME: 'upper' }, 'Name')).toBe('upper');
    expect(getAnyCase(null, 'Name')).toBeUndefined();
  });
});

describe('parseTmdbId range', () => {
  it('treats an id beyond 32 bits as missing', () => {
    expect(parseTmdbId('2147483647')).toBe(2147483647);
    expect(parseTmdbId('2147483648')).toBeUndefined();
  });
});

describe('formFields', () => {
  it.each([
    ['payload=%7B%22a%22%3A1%7D', [['payload', '{"a":1}']]],
    [
      'a=1&b=2&a=3',
      [
        ['a', '1'],
        ['b', '2'],
        ['a', '3'],
      ],
    ],
    ['a+b=c+d%2B%20e', [['a b', 'c d+ e']]],
    [
      '&&a&=x&b=',
      [
        ['a', ''],
        ['', 'x'],
        ['b', ''],
      ],
    ],
    ['a==b', [['a', '=b']]],
    ['t=%C3%A9t%C3%A9%20%F0%9F%8E%AC', [['t', 'été 🎬']]],
    ['', []],
  ])('reads %j', (text, fields) => {
    expect(formFields(text)).toEqual(fields);
    expect(formFields(text)).toEqual([...new URLSearchParams(text)]);
  });

  it.each([
    'a=%zz&b=%7B',
    'a=100%&b=%',
    'a=%C3&b=ok',
    'a=%ED%A0%80',
    'a=%C0%AF',
    'payload={"title":"50% off"}',
  ])('reads the malformed %j as URLSearchParams does', (text) => {
    expect(formFields(text)).toEqual([...new URLSearchParams(text)]);
  });
});
