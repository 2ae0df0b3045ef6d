// The portal's profile and payout details page: name, payout email, billing Connect account id.
import type { Partner } from '../../modules/partners/service';
import { CsrfInput, Field, type FormErrors } from '../forms';
import { Notice } from '../layout';
import type { PartnerPage } from '../session';
import { attr } from '../ui';
import { PortalLayout } from './shell';

export type ProfileValues = { name?: string; payoutEmail?: string; billingConnectAccountId?: string };

export function ProfilePage(props: { page: PartnerPage; partner: Partner; values?: ProfileValues; errors?: FormErrors; saved?: boolean }) {
  const p = props.partner;
  const v = props.values ?? { name: p.name, payoutEmail: p.payoutEmail ?? '', billingConnectAccountId: p.billingConnectAccountId ?? '' };
  const errors = props.errors ?? {};
  const problems = Object.entries(errors).filter(([k]) => k !== '_form');
  const accountSet = p.billingConnectAccountId !== null;
  return (
    <PortalLayout page={props.page} title="Profile" current="/portal/profile">
      <div class="form-width">
        <h1>Profile and payout details</h1>
        {props.saved ? <Notice kind="ok" text="Your profile is saved." /> : ''}
        {problems.length > 0 || errors._form ? (
          <div class="notice error" role="alert" id="error-summary">
            <p safe>{problems.length === 1 ? 'One field needs a fix:' : errors._form && problems.length === 0 ? 'Not saved:' : `${problems.length} fields need a fix:`}</p>
            <ul>
              {problems.map(([field, message]) => (
                <li>
                  <a href={`#f-${field}`} safe>{`${FIELD_LABELS[field] ?? field}: ${message}`}</a>
                </li>
              ))}
              {errors._form ? <li safe>{errors._form}</li> : ''}
            </ul>
          </div>
        ) : (
          ''
        )}
        <dl class="facts">
          <dt>Sign-in email</dt>
          <dd safe>{p.email}</dd>
          <dt>Partner since</dt>
          <dd safe>{(p.activatedAt ?? p.createdAt).slice(0, 10)}</dd>
        </dl>
        <form method="post" action="/portal/profile" novalidate>
          <CsrfInput token={props.page.csrf} />
          <Field name="name" label="Name" value={attr(v.name ?? '')} error={errors.name} required autocomplete="name" />
          <Field
            name="payoutEmail"
            label="Payout email (optional)"
            type="email"
            hint="Where payout notices go, if not your sign-in email. Empty: your sign-in email."
            value={attr(v.payoutEmail ?? '')}
            error={errors.payoutEmail}
            autocomplete="email"
          />
          {accountSet ? (
            <div class="field">
              <label for="f-billingConnectAccountId">Payout account (Stripe Connect id)</label>
              <small id="f-billingConnectAccountId-hint">Payouts are sent here. To change it, ask the program: it cannot be changed from the portal.</small>
              <input id="f-billingConnectAccountId" value={attr(p.billingConnectAccountId ?? '')} readonly aria-describedby="f-billingConnectAccountId-hint" />
            </div>
          ) : (
            <Field
              name="billingConnectAccountId"
              label="Payout account (Stripe Connect id, optional)"
              hint="Starts with acct_. You can set it once; after that only the program can change it."
              value={attr(v.billingConnectAccountId ?? '')}
              error={errors.billingConnectAccountId}
              autocomplete="off"
            />
          )}
          <button type="submit">Save profile</button>
        </form>
      </div>
    </PortalLayout>
  );
}

const FIELD_LABELS: Record<string, string> = { name: 'Name', payoutEmail: 'Payout email', billingConnectAccountId: 'Payout account' };
