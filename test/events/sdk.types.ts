// Compile-time checks of the SDK's types (no runtime part: `bun run typecheck` fails if they break).
// The types are derived from the generated contract; these lines fail to compile if a derivation
// resolves to `never` or a field the service documents changes shape.
import type { AttributionResult, CodeInput, Commission, CommissionQuery, CreatedPartner, Event, EventInput, Link, Partner, PartnerInput, PromotionCode, TrackInput } from 'partnerd/sdk';

type IsNever<T> = [T] extends [never] ? true : false;
type Resolved = [IsNever<Event>, IsNever<EventInput>, IsNever<TrackInput>, IsNever<AttributionResult>, IsNever<PartnerInput>, IsNever<CreatedPartner>, IsNever<Partner>, IsNever<Link>, IsNever<Commission>, IsNever<CodeInput>, IsNever<PromotionCode>];
export const resolved: Resolved = [false, false, false, false, false, false, false, false, false, false, false];

export const partnerStatus: Partner['status'][] = ['pending', 'active', 'revoked'];
export const commissionQuery: CommissionQuery = { status: 'approved', partnerId: 'ptn_x', limit: 10 };
export const eventInput: EventInput = { userId: 'u', type: 'invoice_paid', amount: 4900, currency: 'USD', occurredAt: new Date() };
export const touchWeight = (result: AttributionResult): number | undefined => result.attribution.touches[0]?.weight;
export const amountOf = (event: Event): number | null => event.amount;
export const codedEvent: TrackInput = { userId: 'u', type: 'invoice_paid', value: 49, currency: 'USD', couponCode: 'PODCAST20' };
export const touchCode = (result: AttributionResult): string | null | undefined => result.attribution.touches[0]?.couponCode;
export const codeInput: CodeInput = { code: 'PODCAST20', partnerId: 'ptn_x', campaignId: 'cmp_x' };
export const archivedAt = (code: PromotionCode): string | null => code.archivedAt;
