// The default resource store: the bytes in PostgreSQL (resource_blobs, migration 0037), so every
// replica reads what any of them stored. Downloads read the column in 1 MiB slices (the column is
// stored uncompressed, so a slice reads only its own pages).
import type { Sql, Tx } from '../../src/db';
import type { ResourceStore } from '../storage';

const SLICE = 1024 * 1024;

export function postgresStore(sql: Sql): ResourceStore {
  return {
    kind: 'postgres',
    async put(tx, key, bytes) {
      await (tx as Tx)`insert into resource_blobs (resource_id, data) values (${key}, ${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)})`;
    },
    async open(key, size) {
      const [found] = await sql<{ found: number }[]>`select 1 as found from resource_blobs where resource_id = ${key}`;
      if (!found) return null;
      let offset = 0;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (offset >= size) return controller.close();
          const [row] = await sql<{ part: Buffer }[]>`
            select substring(data from ${offset + 1} for ${SLICE}) as part from resource_blobs where resource_id = ${key}`;
          if (!row || row.part.byteLength === 0) return controller.close();
          offset += row.part.byteLength;
          controller.enqueue(new Uint8Array(row.part));
        },
      });
    },
    async remove(key) {
      await sql`delete from resource_blobs where resource_id = ${key}`;
    },
  };
}
