// GET/PUT /v1/partners/:id/tax-profile: a partner's tax form (W-9, W-8BEN, W-8BEN-E). The partner
// (key or session) reads and replaces its own; the admin key, partners:read / partners:write anyone's.
// The answer never carries the TIN, date of birth or foreign TIN (docs/tax.md).
import { Elysia } from 'elysia';
import type { AppContext } from '../context';
import { AppError, notFound } from '../lib/errors';
import { authPlugin, requirePartner } from '../modules/auth/plugin';
import { clientAddress } from '../modules/links/address';
import { PartnerParams } from '../modules/partners/model';
import { PutTaxProfileBody, TaxResponses } from '../modules/tax/model';
import { readTaxProfile, saveTaxProfile } from '../modules/tax/service';

export function taxProfileRoutes(ctx: AppContext) {
  const partnerExists = async (id: string) => {
    const [row] = await ctx.sql`select 1 from partners where id = ${id}`;
    if (!row) throw notFound('partner');
  };
  return new Elysia({ tags: ['Tax'] })
    .use(authPlugin(ctx))
    .get(
      '/partners/:id/tax-profile',
      async ({ params, principal }) => {
        requirePartner(principal, params.id);
        await partnerExists(params.id);
        const profile = await readTaxProfile(ctx.sql, params.id);
        if (!profile) throw notFound('tax profile');
        return profile;
      },
      {
        auth: { scope: 'partners:read', partner: true },
        params: PartnerParams,
        response: TaxResponses.get,
        detail: { summary: "A partner's tax form on file", description: 'The TIN shows as its last four digits (`tinLast4`); dates of birth and foreign TINs never leave the service. 404 when no form is on file.' },
      },
    )
    .put(
      '/partners/:id/tax-profile',
      async ({ params, body, principal, request }) => {
        requirePartner(principal, params.id);
        await partnerExists(params.id);
        if (!ctx.config.encryption) throw new AppError('conflict', 'tax forms cannot be stored: ENCRYPTION_KEY is not set in the service\'s environment');
        const ip = clientAddress(request, ctx.config.trustProxy, ctx.http.server);
        return saveTaxProfile(ctx.sql, { partnerId: params.id, body, ring: ctx.config.encryption, ip });
      },
      {
        auth: { scope: 'partners:write', partner: true },
        params: PartnerParams,
        body: PutTaxProfileBody,
        response: TaxResponses.put,
        detail: {
          summary: "Put a partner's tax form on file (replacing the one before)",
          description:
            '`form` w9 (US persons: `taxClassification`, `tinType`, `tin`, a US address), w8ben (foreign individuals: `citizenship`, `dateOfBirth`, `treatyCountry`?, `foreignTin`?) ' +
            'or w8bene (foreign entities: `incorporationCountry`, `foreignTin`?); `signature: {name, agreed: true}`. Each bad field is a 400 naming it and nothing is stored. ' +
            'The TIN, date of birth and foreign TIN are encrypted (ENCRYPTION_KEY; 409 without it). Records `signedAt` and `signedIp`.',
        },
      },
    );
}
