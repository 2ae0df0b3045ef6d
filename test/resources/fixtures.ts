// Sample files of every type a resource may be (and some it may not), and the multipart upload call.
import QRCode from 'qrcode';
import { contractChecker } from '../support/contract';
import type { ApiResponse, TestService } from '../support/service';

const enc = (s: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(s) as Uint8Array<ArrayBuffer>;

/** A stored (uncompressed) zip holding one small text file. */
function zip(): Uint8Array<ArrayBuffer> {
  const name = enc('readme.txt');
  const data = enc('hello partners');
  const out = new Uint8Array(30 + name.length + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x04034b50, true);
  view.setUint16(4, 20, true);
  view.setUint32(18, data.length, true);
  view.setUint32(22, data.length, true);
  view.setUint16(26, name.length, true);
  out.set(name, 30);
  out.set(data, 30 + name.length);
  return out;
}

export type Bytes = Uint8Array<ArrayBuffer>;

export async function samples(): Promise<Record<'png' | 'jpeg' | 'gif' | 'webp' | 'pdf' | 'zip' | 'svg' | 'text', Bytes>> {
  return {
    png: new Uint8Array(await QRCode.toBuffer('https://shop.example', { type: 'png', width: 240 })),
    jpeg: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, ...new Array(64).fill(0)]),
    gif: enc('GIF89a\x01\x00\x01\x00\x00\x00\x00;' + ' '.repeat(40)),
    webp: enc('RIFF\x24\x00\x00\x00WEBPVP8 ' + ' '.repeat(40)),
    pdf: enc('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n'),
    zip: zip(),
    svg: enc('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
    text: enc('just some words, no file type'),
  };
}

const checkers = new Map<string, ReturnType<typeof contractChecker>>();

/** POSTs a multipart form to /v1/resources (admin key unless told), the answer checked against the document. */
export async function upload(
  svc: TestService,
  fields: { file?: { bytes: Uint8Array<ArrayBuffer>; name: string; type?: string }; title?: string; campaignId?: string },
  key: string | null = svc.adminKey,
): Promise<ApiResponse> {
  const form = new FormData();
  if (fields.file) form.set('file', new File([fields.file.bytes], fields.file.name, { type: fields.file.type ?? 'application/octet-stream' }));
  if (fields.title !== undefined) form.set('title', fields.title);
  if (fields.campaignId !== undefined) form.set('campaignId', fields.campaignId);
  const res = await fetch(`${svc.url}/v1/resources`, { method: 'POST', body: form, headers: key ? { authorization: `Bearer ${key}` } : {} });
  const text = await res.text();
  const body = res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  let checker = checkers.get(svc.url);
  if (!checker) checkers.set(svc.url, (checker = contractChecker(svc.url)));
  (await checker())({ method: 'POST', path: '/v1/resources', status: res.status, contentType: res.headers.get('content-type') ?? '', body });
  return { status: res.status, body, headers: res.headers };
}

/** GETs a resource file as bytes. */
export async function download(svc: TestService, path: string, key: string | null = svc.adminKey, headers: Record<string, string> = {}) {
  const res = await fetch(`${svc.url}${path}`, { headers: { ...headers, ...(key ? { authorization: `Bearer ${key}` } : {}) } });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}
