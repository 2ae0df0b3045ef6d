// The portal's shell: the layout every signed-in portal page uses, with its navigation.
import type { Children } from '@kitajs/html';
import { Layout, type NavItem } from '../layout';
import type { PartnerPage } from '../session';

const NAV: NavItem[] = [
  { href: '/portal', label: 'Home' },
  { href: '/portal/links', label: 'Links' },
  { href: '/portal/traffic', label: 'Traffic' },
  { href: '/portal/codes', label: 'Codes' },
  { href: '/portal/resources', label: 'Resources' },
  { href: '/portal/recruits', label: 'Recruits' },
  { href: '/portal/commissions', label: 'Commissions' },
  { href: '/portal/payouts', label: 'Payouts' },
  { href: '/portal/tax', label: 'Tax form' },
  { href: '/portal/notifications', label: 'Emails' },
  { href: '/portal/profile', label: 'Profile' },
];

export function PortalLayout(props: { page: PartnerPage; title: string; current: string; scripts?: string[]; children?: Children }) {
  return (
    <Layout
      title={props.title}
      who={`${props.page.partner.name} (${props.page.partner.email})`}
      nav={NAV}
      current={props.current}
      signOut={{ action: '/portal/sign-out', csrf: props.page.csrf }}
      scripts={props.scripts}
      brand={props.page.brand}
    >
      {props.children}
    </Layout>
  );
}
