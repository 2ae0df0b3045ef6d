// What the admin's and the portal's resources pages share: a resource's kind in words and its preview.
import type { ResourceRecord } from '../modules/resources/model';

export const sizeText = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`);

const TYPE_LABEL: Record<string, string> = {
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
  'image/gif': 'GIF',
  'image/webp': 'WebP',
  'application/pdf': 'PDF',
  'application/zip': 'ZIP',
};

/** What a resource is, in a word or two: "PNG, 12 KB", "Text", "Link". */
export function resourceKind(r: ResourceRecord): string {
  if (r.file) return `${TYPE_LABEL[r.file.contentType] ?? r.file.contentType}, ${sizeText(r.file.size)}`;
  return r.kind === 'text' ? 'Text' : 'Link';
}

/** A small preview: the image itself, else nothing. */
export function Preview(props: { r: ResourceRecord }) {
  return props.r.file?.contentType.startsWith('image/') ? <img class="thumb" src={props.r.file.url} alt="" loading="lazy" width="64" height="64" /> : <span class="thumb none" aria-hidden="true"></span>;
}
