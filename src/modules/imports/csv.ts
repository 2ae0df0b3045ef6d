// Reads an export's CSV file as a stream (csv-parse): one row at a time with the line it ends on,
// so a file of any size is never held in memory. The first record names the columns; a byte order
// mark, CRLF line ends, quoted fields holding commas, quotes or line breaks are all read as CSV.
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';

export type CsvRow = { line: number; cells: Record<string, string> };

/** A file the import could not read at all: its name and, when it is about a column, the column. */
export class CsvFileError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The rows of `file`, each keyed by its header's names (trimmed, lowercased). A header without one
 * of `required` is refused before any row is read, naming the file and every missing column.
 */
export async function* readCsv(file: string, stream: ReadableStream<Uint8Array>, required: readonly string[]): AsyncGenerator<CsvRow> {
  const parser = Readable.fromWeb(stream as never).pipe(
    parse({ bom: true, relax_column_count: true, skip_empty_lines: true, trim: true, info: true, max_record_size: 1024 * 1024 }),
  );
  let header: string[] | null = null;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (header === null) {
        header = record.map((name) => name.trim().toLowerCase());
        const missing = required.filter((column) => !header!.includes(column));
        if (missing.length > 0) {
          throw new CsvFileError(file, 1, `missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
        }
        continue;
      }
      const cells: Record<string, string> = {};
      header.forEach((name, k) => (cells[name] = record[k] ?? ''));
      yield { line: info.lines, cells };
    }
  } catch (error) {
    parser.destroy();
    if (error instanceof CsvFileError) throw error;
    const line = (error as { lines?: number }).lines ?? 0;
    throw new CsvFileError(file, line, `not readable as CSV: ${(error as Error).message}`);
  }
  if (header === null) throw new CsvFileError(file, 1, `empty file: the first line must name the columns (${required.join(', ')})`);
}
