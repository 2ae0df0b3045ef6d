// CSV exports: safe cells, and a stream read from the database a page at a time, so an export of a
// million rows holds one page in memory.

/**
 * One cell. Spreadsheets run cells starting with = + - @ (and tab or carriage return) as formulas,
 * so those get a leading apostrophe; cells with a comma, quote or line break are quoted.
 */
export function csvCell(value: string | number | bigint | boolean | null | undefined): string {
  let text = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export type CsvCells = (string | number | bigint | boolean | null | undefined)[];

/**
 * A CSV stream: the header, then `page(cursor)` called until it answers fewer than `pageSize` rows.
 * `page` receives the previous page's last row (undefined first) to continue after it (keyset).
 */
export function csvStream<Row>(input: {
  header: readonly string[];
  pageSize?: number;
  page: (after: Row | undefined, limit: number) => Promise<Row[]>;
  cells: (row: Row) => CsvCells;
}): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const limit = input.pageSize ?? 1000;
  let after: Row | undefined;
  let headerSent = false;
  let done = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(input.header.map(csvCell).join(',') + '\r\n'));
        return;
      }
      if (done) return controller.close();
      const rows = await input.page(after, limit);
      if (rows.length < limit) done = true;
      if (rows.length === 0) return controller.close();
      after = rows[rows.length - 1];
      controller.enqueue(encoder.encode(rows.map((r) => input.cells(r).map(csvCell).join(',')).join('\r\n') + '\r\n'));
    },
  });
}

/** The download answer of a CSV stream. `filename` is a fixed name chosen by the code. */
export function csvResponse(stream: ReadableStream<Uint8Array>, filename: string): Response {
  return new Response(stream, {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${filename}"`,
      'cache-control': 'no-store',
    },
  });
}
