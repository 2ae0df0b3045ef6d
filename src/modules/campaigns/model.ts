// Request schemas of the campaign API.
import { t } from 'elysia';
import { PageQuery, QueryEnum } from '../../lib/http';
import { Rules } from './rules';

const Name = t.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const DestinationUrl = t.String({ minLength: 8, maxLength: 2048, description: 'http(s) address share links land on.' });
const Currency = t.String({ minLength: 3, maxLength: 3, description: 'ISO 4217 code, e.g. USD.' });
const HoldbackDays = t.Nullable(t.Integer({ minimum: 0, maximum: 3650, description: 'null: HOLDBACK_DAYS.' }));

export const CreateCampaignBody = t.Object({
  name: Name,
  destinationUrl: DestinationUrl,
  currency: Currency,
  holdbackDays: t.Optional(HoldbackDays),
  rules: t.Optional(Rules),
});

export const UpdateCampaignBody = t.Object({
  name: t.Optional(Name),
  destinationUrl: t.Optional(DestinationUrl),
  currency: t.Optional(Currency),
  holdbackDays: t.Optional(HoldbackDays),
  rules: t.Optional(Rules),
  archived: t.Optional(t.Boolean({ description: 'true archives, false unarchives.' })),
});

export const ListCampaignsQuery = t.Object({
  archived: QueryEnum(['true', 'false'], { description: 'Only archived (true) or only live (false) campaigns.' }),
  ...PageQuery,
});

export const CampaignParams = t.Object({ id: t.String({ maxLength: 64 }) });
