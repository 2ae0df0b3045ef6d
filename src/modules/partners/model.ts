// Request and response schemas of the partner API.
import { t } from 'elysia';
import { PageQuery } from '../../lib/http';
import { Metadata } from '../../lib/metadata';
import { CommissionSnapshot } from '../campaigns/rules';

export const Email = t.String({ format: 'email', maxLength: 254, description: 'Lowercased on storage.' });
export const Name = t.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const CampaignIds = t.Array(t.String({ maxLength: 64 }), { maxItems: 1000 });

export const CreatePartnerBody = t.Object({
  email: Email,
  name: Name,
  sendInvite: t.Optional(t.Boolean({ default: true })),
  metadata: t.Optional(Metadata),
  campaignIds: t.Optional(CampaignIds),
  campaignGrantSource: t.Optional(t.UnionEnum(['admin', 'offering'])),
  commissionSnapshot: t.Optional(CommissionSnapshot),
});

export const UpdatePartnerBody = t.Object({
  name: t.Optional(Name),
  metadata: t.Optional(Metadata),
  campaignIds: t.Optional(CampaignIds),
  billingConnectAccountId: t.Optional(t.Nullable(t.String({ minLength: 1, maxLength: 255 }))),
});

export const RevokeBody = t.Optional(
  t.Object({ reason: t.Optional(t.String({ maxLength: 1000 })) }),
);

export const ListPartnersQuery = t.Object({
  email: t.Optional(t.String({ maxLength: 254 })),
  ...PageQuery,
});

export const PartnerParams = t.Object({ id: t.String({ maxLength: 64 }) });
