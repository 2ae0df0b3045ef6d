// The portal's shell: the layout every signed-in portal page uses, with its navigation.
import type { Children } from '@kitajs/html';
import { Layout, type NavItem } from '../layout';
import type { PartnerPage } from '../session';

const TAX_FORM = '/portal/tax';

const NAV: NavItem[] = [
  { href: '/portal', label: 'Home' },
  { href: '/portal/links', label: 'Links' },
  { href: '/portal/traffic', label: 'Traffic' },
  { href: '/portal/codes', label: 'Codes' },
  { href: '/portal/resources', label: 'Resources' },
  { href: '/portal/recruits', label: 'Recruits' },
  { href: '/portal/commissions', label: 'Commissions' },
  { href: '/portal/payouts', label: 'Payouts' },
  // only while the program asks for tax forms (taxForms collect or require)
  { href: TAX_FORM, label: 'Tax form' },
  { href: '/portal/notifications', label: 'Emails' },
  { href: '/portal/profile', label: 'Profile' },
];

export function PortalLayout(props: { page: PartnerPage; title: string; current: string; scripts?: string[]; children?: Children }) {
  return (
    <Layout
      title={props.title}
      who={`${props.page.partner.name} (${props.page.partner.email})`}
      nav={props.page.tax.setting === 'off' ? NAV.filter((item) => item.href !== TAX_FORM) : NAV}
      current={props.current}
      signOut={{ action: '/portal/sign-out', csrf: props.page.csrf }}
      scripts={props.scripts}
      brand={props.page.brand}
    >
      {props.children}
    </Layout>
  );
}

/** Home and Payouts: when taxForms is require and the partner has no valid form, what to do about it. */
export function TaxHoldNote(props: { page: PartnerPage }) {
  if (!props.page.tax.held) return '';
  return (
    <p class="notice error" id="tax-hold" role="status">
      Your payouts are on hold: the program needs a valid tax form from you before it can pay you. <a href={TAX_FORM}>Fill in your tax form</a>; it takes a
      few minutes, and the next payout run pays what you are owed.
    </p>
  );
}
