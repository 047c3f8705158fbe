import { JSONParser } from '@streamparser/json';
import { ImportFileError } from './import.types.js';
import type { ImportFile } from './import-files.js';
import { textOf } from './import-text.js';

/** A value of a JSON file found at one of the paths asked for, with its key in its parent. */
export interface JsonValue {
  /** The path asked for that it is at (`$.*`, `$.history.*`). */
  path: string;
  /** Its index in its array, or its name in its object. */
  key: string | number | undefined;
  value: unknown;
}

/**
 * The values at `paths` of a JSON file (JSONPath as `@streamparser/json` takes it: `$.*` is every
 * item of the top-level array or object, `$.history.*` of its `history`), read as a stream: a file of
 * any size is never one string or one object in memory, and nesting of any depth costs no recursion.
 * Anything but valid UTF-8 JSON is refused.
 */
export async function* jsonValues(file: ImportFile, paths: readonly string[]): AsyncIterable<JsonValue> {
  const parser = new JSONParser({ paths: [...paths], keepStack: false });
  let found: JsonValue[] = [];
  let failure: Error | null = null;
  parser.onValue = ({ value, key, stack }) => {
    found.push({ path: pathOf(stack, key, paths), key, value });
  };
  parser.onError = (error) => {
    failure ??= error;
  };
  const invalid = (error: Error) =>
    new ImportFileError(
      `${file.name} is not valid JSON (${error.message.replace(/\s+/g, ' ').slice(0, 200)})`,
    );
  let any = false;
  for await (const chunk of textOf(file, true)) {
    if (!any && chunk.trim() !== '') any = true;
    try {
      parser.write(chunk);
    } catch (error) {
      failure ??= error as Error;
    }
    if (failure) throw invalid(failure);
    if (found.length > 0) {
      const batch = found;
      found = [];
      yield* batch;
    }
  }
  if (!any) throw new ImportFileError(`${file.name} is empty`);
  if (!parser.isEnded) {
    try {
      parser.end();
    } catch (error) {
      failure ??= error as Error;
    }
  }
  if (failure) throw invalid(failure);
  yield* found;
}

/** Which of `paths` a value is at: `$.<key>` or `$.*` at the top, `$.<key>.*` one level down. */
function pathOf(
  stack: readonly { key?: string | number | undefined }[],
  key: unknown,
  paths: readonly string[],
) {
  if (stack.length >= 2) return `$.${String(stack[1]?.key)}.*`;
  return paths.includes(`$.${String(key)}`) ? `$.${String(key)}` : '$.*';
}

type Json = Record<string, unknown>;
/** A JSON object (not an array, not null). */
export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
