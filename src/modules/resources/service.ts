// Partner resources: files, approved copy and links, per campaign or for everyone. The rows and
// their SQL; the bytes of files go through the resource store (plugins/storage.ts).
import { fileTypeFromBuffer } from 'file-type';
import type { Sql, Transaction, Tx } from '../../db';
import { changesOf, record } from '../audit/service';
import { AppError, invalidField, notFound } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { iso } from '../../lib/time';
import type { ResourceStores } from '../../../plugins/storage';
import { MAX_RESOURCE_BYTES, RESOURCE_TYPES, type ResourceKind, type ResourceRecord, type ResourceType, type TextOrLinkInput } from './model';

type ResourceRow = {
  id: string;
  kind: ResourceKind;
  title: string;
  campaign_id: string | null;
  body: string | null;
  url: string | null;
  file_name: string | null;
  content_type: ResourceType | null;
  size_bytes: number | null;
  sha256: string | null;
  storage: 'postgres' | 's3' | null;
  storage_key: string | null;
  created_at: Date;
};

const COLUMNS = ['id', 'kind', 'title', 'campaign_id', 'body', 'url', 'file_name', 'content_type', 'size_bytes', 'sha256', 'storage', 'storage_key', 'created_at'];

/** A resource as the API answers it; `links` fills `{{link}}` in a text for the partner reading it. */
function toRecord(row: ResourceRow, links?: PartnerLinks): ResourceRecord {
  const body = row.body !== null && links ? fillLink(row.body, links.forCampaign(row.campaign_id)) : row.body;
  return {
    id: row.id,
    kind: row.kind,
    title: row.title,
    campaignId: row.campaign_id,
    body,
    url: row.url,
    file:
      row.kind === 'file'
        ? { name: row.file_name!, contentType: row.content_type!, size: row.size_bytes!, url: `/v1/resources/${row.id}/file` }
        : null,
    createdAt: iso(row.created_at)!,
  };
}

/** `{{link}}` (spaces inside the braces allowed) replaced by the partner's link; kept when they have none yet. */
export function fillLink(body: string, link: string | null): string {
  return link === null ? body : body.replace(/\{\{\s*link\s*\}\}/g, link);
}

/** A partner's share links, newest first: the one for a campaign, else their newest of any. */
export type PartnerLinks = { forCampaign(campaignId: string | null): string | null };

export async function partnerLinks(sql: Sql, baseUrl: string, partnerId: string): Promise<PartnerLinks> {
  const rows = await sql<{ campaign_id: string; slug: string }[]>`
    select distinct on (campaign_id) campaign_id, slug from links where partner_id = ${partnerId} order by campaign_id, id desc`;
  const [newest] = await sql<{ slug: string }[]>`select slug from links where partner_id = ${partnerId} order by id desc limit 1`;
  const byCampaign = new Map(rows.map((r) => [r.campaign_id, `${baseUrl}/r/${r.slug}`]));
  const any = newest ? `${baseUrl}/r/${newest.slug}` : null;
  return { forCampaign: (campaignId) => (campaignId !== null ? (byCampaign.get(campaignId) ?? any) : any) };
}

async function requireCampaign(sql: Tx, campaignId: string | undefined): Promise<void> {
  if (campaignId === undefined) return;
  const [row] = await sql`select 1 from campaigns where id = ${campaignId}`;
  if (!row) throw notFound('campaign');
}

/** `resource.created` / `resource.deleted`: what it was (its title, kind, campaign, file name). */
async function recordResource(tx: Transaction, verb: 'created' | 'deleted', row: ResourceRow): Promise<void> {
  const fields = { kind: row.kind, title: row.title, campaignId: row.campaign_id, fileName: row.file_name, url: row.url };
  const changes = verb === 'created' ? changesOf(null, fields) : changesOf(fields, { kind: null, title: null, campaignId: null, fileName: null, url: null });
  await record(tx, { action: `resource.${verb}`, target: { type: 'resource', id: row.id }, changes });
}

export async function createTextOrLink(sql: Sql, input: TextOrLinkInput): Promise<ResourceRecord> {
  await requireCampaign(sql, input.campaignId);
  return sql.begin(async (tx) => {
    const [row] = await tx<ResourceRow[]>`
      insert into resources (id, kind, title, campaign_id, body, url)
      values (${newId('resource')}, ${input.kind}, ${input.title.trim()}, ${input.campaignId ?? null},
              ${input.kind === 'text' ? input.body : null}, ${input.kind === 'link' ? input.url : null})
      returning ${tx(COLUMNS)}`;
    await recordResource(tx, 'created', row!);
    return toRecord(row!);
  });
}

/**
 * The type of an upload, read from its first bytes: one of RESOURCE_TYPES, or a 415 naming what
 * is allowed (SVG is refused by name: it is XML that can carry script).
 */
export async function detectResourceType(bytes: Uint8Array, fileName: string): Promise<ResourceType> {
  const found = await fileTypeFromBuffer(bytes);
  if (found && (RESOURCE_TYPES as readonly string[]).includes(found.mime)) return found.mime as ResourceType;
  const head = new TextDecoder().decode(bytes.subarray(0, 1024)).toLowerCase();
  const svg = found?.mime === 'image/svg+xml' || /\.svg$/i.test(fileName) || head.includes('<svg');
  const allowed = 'png, jpeg, gif, webp, pdf or zip';
  throw new AppError(
    'unsupported_media_type',
    svg ? `SVG files are refused (they can carry script); upload a ${allowed} file` : `the file's content is ${found ? found.mime : 'not a known type'}; upload a ${allowed} file`,
  );
}

export type FileUpload = { bytes: Uint8Array; fileName: string; title: string; campaignId?: string };

/** Stores an uploaded file: its type checked by content, its bytes in the resource store, its row here. */
export async function createFileResource(sql: Sql, stores: ResourceStores, upload: FileUpload): Promise<ResourceRecord> {
  if (upload.bytes.byteLength === 0) throw invalidField('file', 'is empty');
  if (upload.bytes.byteLength > MAX_RESOURCE_BYTES) throw new AppError('payload_too_large', 'file: larger than 10 MiB');
  const contentType = await detectResourceType(upload.bytes, upload.fileName);
  await requireCampaign(sql, upload.campaignId);
  const id = newId('resource');
  const store = stores.write;
  const sha256 = new Bun.CryptoHasher('sha256').update(upload.bytes).digest('hex');
  const fileName = safeFileName(upload.fileName);
  const key = store.kind === 's3' ? `resources/${id}` : id;
  let stored = false;
  try {
    const row = await sql.begin(async (tx) => {
      const [inserted] = await tx<ResourceRow[]>`
        insert into resources (id, kind, title, campaign_id, file_name, content_type, size_bytes, sha256, storage, storage_key)
        values (${id}, 'file', ${upload.title}, ${upload.campaignId ?? null}, ${fileName}, ${contentType}, ${upload.bytes.byteLength},
                ${sha256}, ${store.kind}, ${key})
        returning ${tx(COLUMNS)}`;
      await store.put(tx, key, upload.bytes, contentType);
      stored = true;
      await recordResource(tx, 'created', inserted!);
      return inserted!;
    });
    return toRecord(row);
  } catch (error) {
    // an outside store keeps what it was given even when the row was rolled back
    if (stored && store.kind !== 'postgres') await store.remove(key).catch(() => undefined);
    throw error;
  }
}

/** A file name as a download may name it: no path, no control characters, at most 255 characters. */
export function safeFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const clean = base.replace(/[\x00-\x1f\x7f"]/g, '').trim().slice(-255);
  return clean || 'file';
}

/** Newest first; a partner sees what is for everyone and for the campaigns they hold. */
export async function listResources(
  sql: Sql,
  filter: { limit: number; cursor?: string; campaignId?: string; kind?: ResourceKind; partnerId?: string },
  links?: PartnerLinks,
): Promise<ResourceRecord[]> {
  const rows = await sql<ResourceRow[]>`
    select ${sql(COLUMNS)} from resources r
    where true
      ${filter.partnerId !== undefined ? visibleTo(sql, filter.partnerId) : sql``}
      ${filter.campaignId !== undefined ? sql`and r.campaign_id = ${filter.campaignId}` : sql``}
      ${filter.kind !== undefined ? sql`and r.kind = ${filter.kind}` : sql``}
      ${filter.cursor ? sql`and r.id < ${filter.cursor}` : sql``}
    order by r.id desc
    limit ${filter.limit + 1}`;
  return rows.map((row) => toRecord(row, links));
}

const visibleTo = (sql: Sql, partnerId: string) =>
  sql`and (r.campaign_id is null or r.campaign_id in (select campaign_id from partner_campaigns where partner_id = ${partnerId}))`;

export type StoredFile = { contentType: ResourceType; fileName: string; size: number; sha256: string; storage: 'postgres' | 's3'; key: string };

/** A file resource's stored bytes' whereabouts, when `partnerId` (if any) may see it; else null. */
export async function findFile(sql: Sql, id: string, partnerId?: string): Promise<StoredFile | null> {
  const [row] = await sql<ResourceRow[]>`
    select ${sql(COLUMNS)} from resources r
    where r.id = ${id} and r.kind = 'file' ${partnerId !== undefined ? visibleTo(sql, partnerId) : sql``}`;
  if (!row) return null;
  return { contentType: row.content_type!, fileName: row.file_name!, size: row.size_bytes!, sha256: row.sha256!, storage: row.storage!, key: row.storage_key! };
}

/** Deletes a resource and its bytes; 404 when there is none. */
export async function deleteResource(sql: Sql, stores: ResourceStores, id: string): Promise<ResourceRecord> {
  const row = await sql.begin(async (tx) => {
    const [deleted] = await tx<ResourceRow[]>`delete from resources where id = ${id} returning ${tx(COLUMNS)}`;
    if (deleted) await recordResource(tx, 'deleted', deleted);
    return deleted;
  });
  if (!row) throw notFound('resource');
  // PostgreSQL's bytes went with the row (on delete cascade); an outside store's go now
  if (row.storage === 's3') await stores.of('s3')?.remove(row.storage_key!);
  return toRecord(row);
}
