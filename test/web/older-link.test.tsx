// The next-page link shared by every list page: filters kept and escaped, nothing on the last page.
import { expect, test } from 'bun:test';
import { OlderLink } from '../../src/web/layout';

test('keeps the filters that are set, escapes them, and adds the cursor', () => {
  const html = OlderLink({ path: '/admin/partners', query: { q: 'a&b "c"', status: undefined }, cursor: 'ptn_01', label: 'More <partners>' }) as string;
  expect(html).toBe('<p><a href="/admin/partners?q=a%26b+%22c%22&cursor=ptn_01">More &lt;partners&gt;</a></p>');
});

test('renders nothing on the last page', () => {
  expect(OlderLink({ path: '/portal/links', cursor: null, label: 'Older links' })).toBe('');
});
