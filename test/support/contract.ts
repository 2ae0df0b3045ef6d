// Every answer the suite receives through the harness is checked against the OpenAPI document the
// service publishes: the status must be one the operation documents, and the body must match that
// status's schema. A mismatch throws, so the test that made the call fails.
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Memoirist } from 'memoirist';

type Media = { schema?: object };
type Operation = { responses?: Record<string, { content?: Record<string, Media> }> };
type Document = { paths: Record<string, Record<string, Operation>>; components?: object };

export type ContractCheck = (answer: { method: string; path: string; status: number; contentType: string; body: unknown }) => void;

export class ContractError extends Error {}

/** A checker for the document at `${baseUrl}/openapi.json`, fetched once. */
export function contractChecker(baseUrl: string): () => Promise<ContractCheck> {
  let ready: Promise<ContractCheck> | undefined;
  return () => (ready ??= load(baseUrl));
}

async function load(baseUrl: string): Promise<ContractCheck> {
  const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Document;
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  const router = new Memoirist<{ template: string; item: Record<string, Operation> }>();
  for (const [template, item] of Object.entries(doc.paths)) {
    router.add('GET', template.replace(/\{([^}]+)\}/g, ':$1'), { template, item });
  }
  const compiled = new Map<string, ValidateFunction>();

  return ({ method, path, status, contentType, body }) => {
    const found = router.find('GET', path) ?? router.find('GET', `/v1${path}`);
    const operation = found?.store.item[method.toLowerCase()];
    // pages, assets, share links and the browser client are not part of the API document
    if (!found || !operation) return;
    const where = `${method} ${found.store.template} answered ${status}`;
    if (!operation.responses || Object.keys(operation.responses).length === 0) return; // (module not yet documented)
    const documented = operation.responses?.[String(status)];
    if (!documented) {
      throw new ContractError(`${where}, a status the document does not list (it lists ${Object.keys(operation.responses ?? {}).join(', ') || 'none'}); body: ${preview(body)}`);
    }
    const media = documented.content?.['application/json'];
    if (!media?.schema) return;
    if (!contentType.includes('application/json')) throw new ContractError(`${where} as ${contentType || 'no content type'}, documented as application/json`);
    const key = `${method} ${found.store.template} ${status}`;
    let validate = compiled.get(key);
    if (!validate) {
      // refs point into the document's components: compile each schema with them beside it
      validate = ajv.compile({ ...media.schema, components: doc.components });
      compiled.set(key, validate);
    }
    if (!validate(body)) {
      const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message}`).join('; ');
      throw new ContractError(`${where} with a body that breaks its documented schema: ${problems}; body: ${preview(body)}`);
    }
  };
}

const preview = (body: unknown) => JSON.stringify(body)?.slice(0, 400);
