// The reporting currency: PUT /v1/fx-rates refuses bad input by field and stores nothing then; the
// FX_RATES_URL job reads an ECB-format file from a local HTTP server; the overview shows revenue and
// commissions converted at each day's rate, labelled as converted, the per-currency figures unchanged.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { parseEcbXml } from '../../src/modules/fx/service';
import { runFxRatesJob } from '../../src/scheduler/fx-rates';
import { campaign, partner } from '../support/chain';
import { click, identify } from '../support/fixtures';
import { startService, type TestService } from '../support/service';
import { ARTIFACTS, launchBrowser, newPage, signInAsAdmin } from '../web/browser';

setDefaultTimeout(60_000);

const ADMIN = 'boss@example.com';
const DAY = 86_400_000;
// days counted from when the file loaded, once: the ECB file built then and the rows read later name
// the same days even if midnight UTC passes during the run
const LOADED = Date.now();
const day = (offset: number) => new Date(LOADED + offset * DAY).toISOString().slice(0, 10);

/** The ECB's daily file, as published: two days here (the 90-day file has the same shape). */
const ecbXml = (usd: string) => `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
\t<gesmes:subject>Reference rates</gesmes:subject>
\t<gesmes:Sender>
\t\t<gesmes:name>European Central Bank</gesmes:name>
\t</gesmes:Sender>
\t<Cube>
\t\t<Cube time='${day(-1)}'>
\t\t\t<Cube currency='USD' rate='${usd}'/>
\t\t\t<Cube currency='JPY' rate='160.12'/>
\t\t\t<Cube currency='GBP' rate='0.8321'/>
\t\t</Cube>
\t\t<Cube time='${day(-2)}'>
\t\t\t<Cube currency='USD' rate='1.1'/>
\t\t</Cube>
\t</Cube>
</gesmes:Envelope>`;

let svc: TestService;
let ecb: ReturnType<typeof Bun.serve>;
let served = ecbXml('1.25');
let fetched = 0;

beforeAll(async () => {
  ecb = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: () => {
      fetched++;
      return new Response(served, { headers: { 'content-type': 'text/xml' } });
    },
  });
  svc = await startService({ ADMIN_EMAILS: ADMIN, REPORTING_CURRENCY: 'EUR', FX_RATES_URL: `http://127.0.0.1:${ecb.port}/stats/eurofxref/eurofxref-daily.xml` });
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  ecb?.stop(true);
});

const rateRows = async (): Promise<Record<string, string>[]> => [...(await svc.sql`select to_char(day, 'YYYY-MM-DD') as day, base, quote, rate::text as rate, source from fx_rates order by day, base, quote`)];

describe('PUT /v1/fx-rates', () => {
  const bad: [string, Record<string, unknown>, string[]][] = [
    ['an unknown base', { date: day(-3), base: 'XYZ', rates: { USD: 1.1 } }, ['base']],
    ['an unknown currency among the rates', { date: day(-3), base: 'EUR', rates: { USD: 1.1, DOGE: 3 } }, ['rates.DOGE']],
    ['a zero rate and a negative one', { date: day(-3), base: 'EUR', rates: { USD: 0, GBP: -0.8 } }, ['rates.USD', 'rates.GBP']],
    ['a day in the future', { date: day(2), base: 'EUR', rates: { USD: 1.1 } }, ['date']],
    ['a day that does not exist', { date: '2026-02-30', base: 'EUR', rates: { USD: 1.1 } }, ['date']],
    ['no rates', { date: day(-3), base: 'EUR', rates: {} }, ['rates']],
    ['the base among its own rates', { date: day(-3), base: 'EUR', rates: { EUR: 1 } }, ['rates.EUR']],
    ['a rate that is not a number', { date: day(-3), base: 'EUR', rates: { USD: '1.1' } }, ['rates.USD']],
    ['an unknown field', { date: day(-3), base: 'EUR', rates: { USD: 1.1 }, source: 'ecb' }, ['source']],
  ];
  for (const [name, body, fields] of bad) {
    test(`${name}: 400 naming ${fields.join(', ')}, nothing stored`, async () => {
      const res = await svc.api('PUT', '/v1/fx-rates', { body });
      expect(res.status).toBe(400);
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual([...fields].sort());
      expect(await rateRows()).toEqual([]);
    });
  }

  test('a good day is stored and answered; a second PUT of the day replaces its rates', async () => {
    const body = { date: day(-3), base: 'EUR', rates: { USD: 1.08, JPY: 158 } };
    const res = await svc.api('PUT', '/v1/fx-rates', { body });
    expect(res.body).toEqual(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(body);
    expect((await svc.api('PUT', '/v1/fx-rates', { body: { ...body, rates: { USD: 1.09 } } })).status).toBe(200);
    expect(await rateRows()).toEqual([
      { day: day(-3), base: 'EUR', quote: 'JPY', rate: '158', source: 'api' },
      { day: day(-3), base: 'EUR', quote: 'USD', rate: '1.09', source: 'api' },
    ]);
  });

  test('a partner key may not set rates', async () => {
    const campaignId = await campaign(svc, {});
    const partnerId = await partner(svc, 'keyed@example.com', [campaignId]);
    const key = (await svc.api('POST', `/v1/partners/${partnerId}/api-keys`, { body: { name: 'mine' } })).body.key;
    const res = await svc.api('PUT', '/v1/fx-rates', { key, body: { date: day(-3), base: 'EUR', rates: { USD: 5 } } });
    expect(res.status).toBe(403);
    expect((await rateRows()).find((r) => r.quote === 'USD')!.rate).toBe('1.09');
  });
});

describe('FX_RATES_URL', () => {
  test('the job stores every day of the ECB file against EUR; a re-run rewrites, never duplicates', async () => {
    expect(await runFxRatesJob(svc.ctx)).toBe(2);
    expect(await runFxRatesJob(svc.ctx)).toBe(2);
    expect(fetched).toBe(2);
    const rows = (await rateRows()).filter((r) => r.source === 'url');
    expect(rows).toEqual([
      { day: day(-2), base: 'EUR', quote: 'USD', rate: '1.1', source: 'url' },
      { day: day(-1), base: 'EUR', quote: 'GBP', rate: '0.8321', source: 'url' },
      { day: day(-1), base: 'EUR', quote: 'JPY', rate: '160.12', source: 'url' },
      { day: day(-1), base: 'EUR', quote: 'USD', rate: '1.25', source: 'url' },
    ]);
  });

  test('a file without a day of rates fails the run and stores nothing', async () => {
    served = '<html>maintenance</html>';
    const before = await rateRows();
    expect(runFxRatesJob(svc.ctx)).rejects.toThrow(/no <Cube time/);
    expect(await rateRows()).toEqual(before);
    served = ecbXml('1.25');
    expect(parseEcbXml(ecbXml('2')).map((d) => [d.date, d.rates.USD])).toEqual([
      [day(-1), 2],
      [day(-2), 1.1],
    ]);
  });
});

describe('the overview with REPORTING_CURRENCY=EUR', () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchBrowser();
    page = (await newPage(browser)).page;
    await page.setViewportSize({ width: 1366, height: 900 });
    await signInAsAdmin(svc, page, ADMIN);
  });
  afterAll(() => browser?.close());

  test("revenue and commissions converted at each day's rate, labelled converted; the per-currency figures unchanged", async () => {
    const campaignId = await campaign(svc, { rules: [{ eventType: 'invoice_paid', kind: 'percent', percent: 10 }] });
    const partnerId = await partner(svc, 'seller@example.com', [campaignId]);
    // the click two days ago, before both sales
    const clickId = await click(svc.sql, { partnerId, campaignId, at: new Date(Date.now() - 2 * DAY) });
    await identify(svc.sql, 'buyer', [clickId]);
    // USD 100 yesterday (1 EUR = 1.25 USD: EUR 80), EUR 50 today (no conversion)
    const sale = (amount: number, currency: string, occurredAt: string) =>
      svc.api('POST', '/v1/events', { body: { userId: 'buyer', type: 'invoice_paid', amount, currency, occurredAt } });
    expect((await sale(10_000, 'USD', `${day(-1)}T12:00:00.000Z`)).status).toBe(201);
    expect((await sale(5_000, 'EUR', new Date(Date.now() - 60_000).toISOString())).status).toBe(201);

    await page.goto(`${svc.url}/admin?range=7d`);
    expect(await page.textContent('#kpi-revenue-converted')).toContain('130.00 EUR');
    expect(await page.textContent('#kpi-revenue-converted')).toContain('converted');
    expect(await page.textContent('#kpi-commissions-converted')).toContain('13.00 EUR');
    expect(await page.textContent('#converted-note')).toContain('commissions owed and payouts stay in their own currency');
    await page.screenshot({ path: `${ARTIFACTS}overview-converted-1366.png`, fullPage: true });

    // the admin corrects yesterday's rate: the converted figures follow, the owed money does not move
    const owed = await svc.sql`select amount, currency from commissions order by id`;
    expect((await svc.api('PUT', '/v1/fx-rates', { body: { date: day(-1), base: 'EUR', rates: { USD: 2 } } })).status).toBe(200);
    await page.goto(`${svc.url}/admin?range=7d`);
    expect(await page.textContent('#kpi-revenue-converted')).toContain('100.00 EUR');
    expect(await page.textContent('#kpi-commissions-converted')).toContain('10.00 EUR');
    expect(await svc.sql`select amount, currency from commissions order by id`).toEqual(owed);
  });
});
