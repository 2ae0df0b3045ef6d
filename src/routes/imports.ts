// POST /v1/imports: a program moved in from another platform (workflows/import-program.ts), its
// export files uploaded as multipart/form-data. Mounted outside the JSON-only parser (app.ts).
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { AppError, invalidField, invalidFields } from '../lib/errors';
import { authPlugin } from '../modules/auth/plugin';
import { ImportRequestBody, ImportResponses } from '../modules/imports/model';
import { IMPORT_SOURCES, isImportSource } from '../modules/imports/rows';
import { filesOf } from '../modules/imports/sources';
import { importProgram, type ImportRequest } from '../workflows/import-program';

const SWITCHES = ['source', 'dryRun', 'campaignId', 'invite'];
const NOT_MULTIPART = Symbol('not multipart');

/** A multipart body as FormData; any other body is refused by the handler, after the caller's key is checked. */
async function parseForm(context: { request: Request; contentType?: string }): Promise<unknown> {
  const media = (context.contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (media !== 'multipart/form-data') return NOT_MULTIPART;
  try {
    return await context.request.formData();
  } catch {
    throw new AppError('invalid_body', 'the multipart/form-data body cannot be read');
  }
}

const flag = (form: FormData, name: string): boolean => {
  const value = form.get(name);
  if (value === null) return false;
  if (value !== 'true' && value !== 'false') throw invalidField(name, 'must be "true" or "false"');
  return value === 'true';
};

/** The form as an import: the source known, its files present, no field it does not read. */
export function importRequest(form: unknown): ImportRequest {
  if (!(form instanceof FormData)) throw new AppError('unsupported_media_type', 'send the export files as multipart/form-data');
  const source = form.get('source');
  if (!isImportSource(source)) throw invalidField('source', `must be one of ${IMPORT_SOURCES.join(', ')}`);
  const names = filesOf(source);
  const unknown = [...new Set(form.keys())].filter((key) => !SWITCHES.includes(key) && !names.includes(key));
  if (unknown.length > 0) {
    throw invalidFields(unknown.map((field) => ({ field, message: `is not read by a ${source} import (its files: ${names.join(', ')})` })));
  }
  const campaignId = form.get('campaignId');
  if (campaignId !== null && (typeof campaignId !== 'string' || campaignId === '' || campaignId.length > 64)) throw invalidField('campaignId', 'must be a campaign id');
  for (const name of names) {
    const value = form.get(name);
    if (value !== null && !(value instanceof Blob)) throw invalidField(name, 'must be a file');
  }
  return {
    source,
    dryRun: flag(form, 'dryRun'),
    invite: flag(form, 'invite'),
    campaignId: campaignId ?? undefined,
    files: (name) => {
      const value = form.get(name);
      return value instanceof Blob ? value.stream() : null;
    },
  };
}

export function importRoutes(ctx: AppContext) {
  return new Elysia({ tags: ['Imports'] })
    .use(authPlugin(ctx))
    .onParse(parseForm)
    .post('/imports', ({ body }) => importProgram(ctx, importRequest(body)), {
      auth: 'admin',
      response: ImportResponses.create,
      detail: {
        summary: 'Import a program from Rewardful, FirstPromoter, Tolt or PartnerStack (dry run first)',
        description:
          'Multipart: `source`, `dryRun` ("true"/"false"), `campaignId`?, `invite`?, and the source\'s export files under their file names (docs/migrating.md). ' +
          'Answers the report: what was (or, on a dry run, would be) created per kind, rows an earlier import brought, and every problem row with file, line and reason. ' +
          'Running it again changes nothing; a later export adds only what is new. A missing file or column is a 400 naming it; a body over IMPORT_MAX_BYTES is a 413.',
        requestBody: ImportRequestBody,
      },
    });
}
