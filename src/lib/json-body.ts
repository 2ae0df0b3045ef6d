// The one body parser of the JSON API. Elysia's own parsers let a broken body through on routes
// whose body is optional (`try { body = await request.json() } catch {}`), take `[]` or `1` as a
// body, and read `text/plain` as an empty one; so the action would run without the caller's input.
// Here every API route parses the same way: no body at all is `{}`, anything else must be a JSON
// object sent as JSON (UTF-8, decoded strictly: a byte sequence that is not UTF-8 is refused, not
// read as replacement characters), or the request is refused before the handler runs.
import { invalidBody } from './errors';

/** `application/json` and the `application/*+json` family, parameters (charset) ignored. */
export function isJsonMediaType(contentType: string): boolean {
  const media = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return media === 'application/json' || (media.startsWith('application/') && media.endsWith('+json'));
}

/**
 * Elysia parse hook (`onParse`): the request body as a JSON object. Throws `invalid_body` for a
 * body in another content type, text that is not JSON, and JSON that is not an object.
 */
export async function parseJsonObject({ request, contentType }: { request: Request; contentType?: string }): Promise<Record<string, unknown>> {
  const text = strictUtf8(await request.arrayBuffer());
  if (text.trim() === '') return {};
  if (!isJsonMediaType(contentType ?? '')) {
    throw invalidBody(`unsupported content type ${JSON.stringify(contentType || '(none)')}: send the body as application/json`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidBody('request body is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidBody('request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The bytes as UTF-8 text, or `invalid_body` when they are not UTF-8. */
export function strictUtf8(bytes: ArrayBuffer | Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw invalidBody('request body is not valid UTF-8');
  }
}
