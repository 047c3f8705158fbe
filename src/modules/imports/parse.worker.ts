import { parentPort } from 'node:worker_threads';
import { ImportFileError } from './import.types.js';
import { type ParseRequest, parseHere, type WorkerMessage } from './import-parse.js';

// A worker thread that reads one import's files (import-parse.ts starts it): the rows go back in
// batches, so that taking them in never holds the server's event loop for long.

const post = (message: WorkerMessage) => parentPort!.postMessage(message);

// One request at a time (the main thread waits for each answer before it sends the next).
parentPort!.on('message', async (request: ParseRequest) => {
  try {
    // Rows go to the server as they are read: the worker never holds them all.
    const parsed = await parseHere(
      request,
      request.rowsWanted ? (rows) => post({ type: 'rows', rows }) : undefined,
    );
    post({
      type: 'done',
      rowCount: parsed.rowCount,
      unreadable: parsed.unreadable,
      unreadableCount: parsed.unreadableCount,
      skipped: parsed.skipped,
      settings: parsed.settings,
      lists: parsed.lists,
    });
  } catch (error) {
    post({
      type: 'error',
      fileError: error instanceof ImportFileError,
      message: error instanceof Error ? error.message : String(error),
    });
  }
});
