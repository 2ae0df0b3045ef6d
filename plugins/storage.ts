// The interface of the resource store: where the bytes of uploaded resource files live. The core
// writes and reads through it and never knows which store it has; this file imports nothing from the
// core. Providers: plugins/stores/postgres.ts (default) and plugins/stores/s3.ts (S3_URL).

export type ResourceStore = {
  /** 'postgres' or 's3': written beside each resource, so a file is always read from where it went. */
  readonly kind: 'postgres' | 's3';
  /**
   * Keeps `bytes` under `key`. `tx` is the caller's transaction: the PostgreSQL store writes in it;
   * an outside store writes at once (the caller removes the object again when its transaction fails).
   */
  put(tx: unknown, key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** The bytes under `key` as a stream read piece by piece, or null when nothing is stored there. */
  open(key: string, size: number): Promise<ReadableStream<Uint8Array> | null>;
  /** Removes the bytes under `key`; nothing stored there is not an error. */
  remove(key: string): Promise<void>;
};

/**
 * The stores of the process: `write` takes new files (S3 when S3_URL is set, else PostgreSQL);
 * `of(kind)` reads a file where it was written, so files stored before S3_URL was set stay readable.
 */
export type ResourceStores = { write: ResourceStore; of(kind: ResourceStore['kind']): ResourceStore | null };
