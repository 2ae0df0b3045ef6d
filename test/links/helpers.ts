// Shared set-up for the link tests: campaigns, partners and links made through the API.
import type { TestService } from '../support/service';

export async function campaign(svc: TestService, destinationUrl = 'https://shop.example/landing?ref=partner#plans'): Promise<string> {
  const res = await svc.api('POST', '/v1/campaigns', { body: { name: 'Program', destinationUrl, currency: 'USD' } });
  if (res.status !== 201) throw new Error(`campaign: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

let emails = 0;
export async function partner(svc: TestService, campaignIds: string[]): Promise<string> {
  const res = await svc.api('POST', '/v1/partners', {
    body: { email: `partner${++emails}@example.com`, name: 'Partner', sendInvite: false, campaignIds },
  });
  if (res.status !== 201) throw new Error(`partner: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

export async function link(svc: TestService, partnerId: string, campaignId: string, slug?: string) {
  const res = await svc.api('POST', '/v1/links', { body: { partnerId, campaignId, slug } });
  if (res.status !== 201) throw new Error(`link: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; slug: string; url: string; partnerId: string; campaignId: string; createdAt: string };
}

