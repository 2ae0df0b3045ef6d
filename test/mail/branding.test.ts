// The branding settings over the API: each bad value is a clear field error and changes nothing; good
// values are stored (colour and email in lower case) and null clears; /brand.css serves only colours.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { accentColors, contrast } from '../../src/web/brand';
import { startService, type TestService } from '../support/service';

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
}, 60_000);
afterAll(() => svc.stop());

const stored = async () => (await svc.sql`select program_name, logo_url, brand_color, support_email from settings`)[0];

describe('PATCH /v1/settings branding', () => {
  test('defaults', async () => {
    const res = await svc.api('GET', '/v1/settings');
    expect(res.body).toMatchObject({ programName: 'Partner program', logoUrl: null, brandColor: null, supportEmail: null });
  });

  test.each([
    ['an empty program name', { programName: '' }, 'programName'],
    ['a blank program name', { programName: '   ' }, 'programName'],
    ['a program name of 101 characters', { programName: 'x'.repeat(101) }, 'programName'],
    ['a program name that is a number', { programName: 7 }, 'programName'],
    ['a plain-http logo', { logoUrl: 'http://cdn.example/logo.png' }, 'logoUrl'],
    ['a javascript: logo', { logoUrl: 'javascript:alert(1)' }, 'logoUrl'],
    ['a logo address with a space', { logoUrl: 'https://cdn.example/my logo.png' }, 'logoUrl'],
    ['a colour name', { brandColor: 'teal' }, 'brandColor'],
    ['a short hex colour', { brandColor: '#0f7' }, 'brandColor'],
    ['a colour without #', { brandColor: '0f766e' }, 'brandColor'],
    ['a colour with letters past f', { brandColor: '#0g766e' }, 'brandColor'],
    ['a support email without @', { supportEmail: 'help.example.com' }, 'supportEmail'],
    ['a support email that is an object', { supportEmail: { at: 'x' } }, 'supportEmail'],
  ])('%s is a 400 naming the field, and nothing changes', async (_label, body, field) => {
    const before = await stored();
    const res = await svc.api('PATCH', '/v1/settings', { body: { ...body, attributionWindowDays: 45 } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_body');
    expect(JSON.stringify(res.body.details)).toContain(field);
    expect(await stored()).toEqual(before);
    expect((await svc.api('GET', '/v1/settings')).body.attributionWindowDays).toBe(30);
  });

  test('good values are stored; colour and email in lower case; null clears', async () => {
    const body = { programName: '  Acme Partners ', logoUrl: 'https://cdn.acme.example/logo.svg', brandColor: '#0F766E', supportEmail: 'Help@Acme.Example' };
    const res = await svc.api('PATCH', '/v1/settings', { body });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ programName: 'Acme Partners', logoUrl: body.logoUrl, brandColor: '#0f766e', supportEmail: 'help@acme.example' });
    expect(await stored()).toEqual({ program_name: 'Acme Partners', logo_url: body.logoUrl, brand_color: '#0f766e', support_email: 'help@acme.example' });
    const cleared = await svc.api('PATCH', '/v1/settings', { body: { logoUrl: null, brandColor: null, supportEmail: null } });
    expect(cleared.body).toMatchObject({ programName: 'Acme Partners', logoUrl: null, brandColor: null, supportEmail: null });
  });

  test('only an admin changes branding', async () => {
    const key = await svc.scopedKey(['partners:write', 'webhooks:write']);
    const res = await svc.api('PATCH', '/v1/settings', { key, body: { programName: 'Mine now' } });
    expect(res.status).toBe(403);
    expect((await stored())!.program_name).toBe('Acme Partners');
  });
});

describe('/brand.css', () => {
  test.each(['', 'red', '12345', '1234567', 'zzzzzz', '0f766e;}body{display:none'])('%p is refused', async (c) => {
    const res = await fetch(`${svc.url}/brand.css?c=${encodeURIComponent(c)}`);
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain('--accent');
  });

  test.each([
    ['a dark teal stays as it is', '0f766e'],
    ['a light yellow is darkened', 'f5c518'],
    ['white becomes a grey that reads', 'ffffff'],
    ['black stays black', '000000'],
  ])('%s: the accent keeps 4.5:1 on white and on its tint', async (_label, c) => {
    const res = await fetch(`${svc.url}/brand.css?c=${c}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/css');
    const css = await res.text();
    const { accent, accentBg } = accentColors(`#${c}`);
    expect(css).toContain(`--accent: ${accent};`);
    const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
    expect(contrast(rgb(accent), [255, 255, 255])).toBeGreaterThanOrEqual(4.5);
    expect(contrast(rgb(accent), rgb(accentBg))).toBeGreaterThanOrEqual(4.5);
    if (c === '0f766e') expect(accent).toBe('#0f766e');
  });
});
