// The tabs at the top of Settings, Team and Sessions: the pages the member's role may open.
import type { AdminPage } from '../session';
import { can } from './kit';

const TABS = [
  { href: '/admin/settings', label: 'Settings' },
  { href: '/admin/team', label: 'Team' },
  { href: '/admin/sessions', label: 'Your sessions' },
];

export function SettingsTabs(props: { page: AdminPage; current: string }) {
  return (
    <nav class="tabs" aria-label="Settings sections">
      {TABS.filter((t) => can(props.page, 'GET', t.href)).map((t) => (
        <a href={t.href} aria-current={t.href === props.current ? 'page' : undefined} safe>
          {t.label}
        </a>
      ))}
    </nav>
  );
}
