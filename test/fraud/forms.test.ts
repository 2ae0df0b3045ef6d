// The normal forms the fraud signals compare in: emails, networks, the review threshold, and the
// in-memory flood counter's hour.
import { describe, expect, test } from 'bun:test';
import { aboveThreshold } from '../../src/modules/fraud/service';
import { FloodCounter, isBotAgent, networkOf, normalizeEmail } from '../../src/modules/fraud/signals';

describe('normalizeEmail', () => {
  test.each([
    ['Ann+1@Example.com', 'ann@example.com'],
    ['ANN@EXAMPLE.COM', 'ann@example.com'],
    ['  ann+a+b@example.com ', 'ann@example.com'],
    ['ann.b@example.com', 'ann.b@example.com'],
    ['+tag@example.com', null],
    ['no-at-sign', null],
    ['@example.com', null],
    ['ann@', null],
    // as the mail providers deliver: one mailbox, one form
    ['A.nn+promo@gmail.com', 'ann@gmail.com'],
    ['a.n.n@googlemail.com', 'ann@gmail.com'],
    ['Ann@GoogleMail.com.', 'ann@gmail.com'],
    ['ann.b+x@example.com', 'ann.b@example.com'],
    ['ann@example.com.', 'ann@example.com'],
    ['"Ann"@example.com', 'ann@example.com'],
    ['"ann+tag"@example.com', 'ann@example.com'],
    ['"a.nn"@gmail.com', 'ann@gmail.com'],
    ['ann@example.com..', 'ann@example.com'],
    ['ann@.', null],
    ['...@gmail.com', null],
  ])('%p -> %p', (input, expected) => {
    expect(normalizeEmail(input)).toBe(expected);
  });
});

describe('networkOf', () => {
  test.each([
    ['IPv4 as it is', '203.0.113.7', '203.0.113.7'],
    ['IPv6 compressed', '2001:db8:aa:bb::1', '2001:db8:aa:bb::/64'],
    ['IPv6 in full with zeros', '2001:0db8:00aa:00bb:0000:0000:0000:0001', '2001:db8:aa:bb::/64'],
    ['IPv6 upper case', '2001:DB8:AA:BB:FFFF::1', '2001:db8:aa:bb::/64'],
    ['IPv6 compressed inside the /64', '2001:db8::5', '2001:db8:0:0::/64'],
    ['IPv6 with a zone', 'fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['IPv6 in brackets', '[2001:db8:1:2::3]', '2001:db8:1:2::/64'],
    ['embedded IPv4 tail', '2001:db8:1:2::1.2.3.4', '2001:db8:1:2::/64'],
    ['garbage stays as it is', 'not:an:address::x::y', 'not:an:address::x::y'],
  ])('%s', (_label, input, expected) => {
    expect(networkOf(input)).toBe(expected);
  });
});

describe('aboveThreshold (exact, minor units against major-unit text)', () => {
  test.each([
    ['100.01 USD over 100', 10_001n, 'USD', '100', true],
    ['100.00 USD at 100', 10_000n, 'USD', '100', false],
    ['101 JPY over 100.5', 101n, 'JPY', '100.5', true],
    ['100 JPY under 100.5', 100n, 'JPY', '100.5', false],
    ['1.001 KWD over 1', 1_001n, 'KWD', '1', true],
    ['1.000 KWD at 1.000', 1_000n, 'KWD', '1.000', false],
    ['0 over 0 is not', 0n, 'USD', '0', false],
  ])('%s', (_label, amount, currency, threshold, expected) => {
    expect(aboveThreshold(amount, currency, threshold)).toBe(expected);
  });
});

describe('FloodCounter', () => {
  test('counts per link and network within a clock hour, then starts again', () => {
    const counter = new FloodCounter(2);
    const hour = Date.UTC(2026, 10, 24, 10);
    const over = (link: string, ip: string, at: number) => counter.over(link, ip, at);
    expect([over('l1', '2001:db8::1', hour), over('l1', '2001:db8::2', hour + 1), over('l1', '2001:db8::3', hour + 2)]).toEqual([false, false, true]);
    expect(over('l2', '2001:db8::4', hour + 3)).toBe(false);
    expect(over('l1', '2001:db9::1', hour + 4)).toBe(false);
    expect(over('l1', '2001:db8::5', hour + 3_600_000)).toBe(false); // next hour
    expect(new FloodCounter(0).over('l1', '1.2.3.4', hour)).toBe(false);
    expect(counter.over('l1', null, hour)).toBe(false);
  });

  test('past its key limit it stops limiting new pairs instead of growing', () => {
    const counter = new FloodCounter(1, 2);
    const at = Date.UTC(2026, 10, 24, 10);
    counter.over('l', '10.0.0.1', at);
    counter.over('l', '10.0.0.2', at);
    expect([counter.over('l', '10.0.0.3', at), counter.over('l', '10.0.0.3', at)]).toEqual([false, false]);
    expect(counter.over('l', '10.0.0.1', at)).toBe(true);
  });
});

describe('isBotAgent', () => {
  test.each([
    ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', true],
    ['Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', true],
    ['curl/8.5.0', true],
    ['python-requests/2.32.3', true],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', false],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1', false],
    // no User-Agent at all is no browser's
    [null, true],
    ['', true],
    ['   ', true],
  ])('%p -> %p', (agent, expected) => {
    expect(isBotAgent(agent)).toBe(expected);
  });
});
