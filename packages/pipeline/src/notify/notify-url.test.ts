import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkNotifyUrl, isInternalAddress, NotifyRefusedError, NotifyUrlError, parseAllowList, resolveNotifyAddress } from './notify-url.js';

const allow = parseAllowList('hooks.example.com, 127.0.0.1:9000, [::1]:8080, 10.1.2.3');

test('WEBHOOK_ALLOW takes hosts and host:port, IPv6 in brackets, and refuses anything else', () => {
  assert.deepEqual(allow.entries, [
    { host: 'hooks.example.com', port: null },
    { host: '127.0.0.1', port: '9000' },
    { host: '::1', port: '8080' },
    { host: '10.1.2.3', port: null },
  ]);
  assert.deepEqual(parseAllowList('').entries, []);
  assert.throws(() => parseAllowList('a:b:c'), /not a host or host:port/);
  assert.throws(() => parseAllowList('host:99999x'), /not a host or host:port/);
});

test('a notify URL passes only with a listed host (and port), http(s), no credentials', () => {
  assert.equal(checkNotifyUrl('https://hooks.example.com/in', allow).host, 'hooks.example.com');
  assert.equal(checkNotifyUrl('http://127.0.0.1:9000/x', allow).port, '9000');
  assert.ok(checkNotifyUrl('http://[::1]:8080/x', allow));
  for (const url of ['http://127.0.0.1:9001/x', 'http://127.0.0.1/x', 'http://evil.example.com/', 'ftp://hooks.example.com/', 'https://u:p@hooks.example.com/', 'nonsense', `https://hooks.example.com/${'a'.repeat(3000)}`]) {
    assert.throws(() => checkNotifyUrl(url, allow), (error: unknown) => error instanceof NotifyUrlError && error.problems[0]?.path === 'notify.url', url);
  }
  assert.throws(() => checkNotifyUrl('https://hooks.example.com/', parseAllowList('')), /webhooks are off/);
});

test('internal addresses are loopback, private, link-local, CGNAT, unspecified, ULA and IPv4-mapped; public ones are not', () => {
  for (const address of ['127.0.0.1', '10.0.0.8', '172.20.1.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', 'not-an-ip']) assert.equal(isInternalAddress(address), true, address);
  for (const address of ['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946']) assert.equal(isInternalAddress(address), false, address);
});

test('at delivery a listed name resolving to an unlisted internal address is refused, even beside a public one; listed internal addresses pass', async () => {
  const url = new URL('https://hooks.example.com/in');
  assert.deepEqual(await resolveNotifyAddress(url, allow, async () => [{ address: '93.184.216.34', family: 4 }]), { address: '93.184.216.34', family: 4 });
  await assert.rejects(resolveNotifyAddress(url, allow, async () => [{ address: '169.254.169.254', family: 4 }]), NotifyRefusedError);
  await assert.rejects(resolveNotifyAddress(url, allow, async () => [{ address: '93.184.216.34', family: 4 }, { address: '127.0.0.1', family: 4 }]), /resolves to 127\.0\.0\.1/);
  assert.deepEqual(await resolveNotifyAddress(url, allow, async () => [{ address: '10.1.2.3', family: 4 }]), { address: '10.1.2.3', family: 4 }, 'an internal address listed itself (any port) passes');
  assert.deepEqual(await resolveNotifyAddress(new URL('http://127.0.0.1:9000/'), allow), { address: '127.0.0.1', family: 4 });
  await assert.rejects(resolveNotifyAddress(url, parseAllowList('other.example.com'), async () => [{ address: '93.184.216.34', family: 4 }]), /no longer in WEBHOOK_ALLOW/);
});
