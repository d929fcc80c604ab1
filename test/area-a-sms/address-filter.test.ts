import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { addressRefusal } from '../../shared/callbacks/address-policy';
import { parseAllowedHosts } from '../../shared/callbacks/allowed-hosts';
import { CallbackUrlRefused, checkCallbackUrl } from '../../shared/callbacks/callback-url';
import { forwardReceipt } from '../../shared/callbacks/forwarder';
import { publicOnlyLookup, RefusedAddressError } from '../../shared/callbacks/resolve-host';

const publicResolver = async () => ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'];
const noAllowedHosts = { allowedHosts: [] as string[], resolve: publicResolver };

const refusal = async (url: unknown, policy = noAllowedHosts): Promise<string> => {
  try {
    await checkCallbackUrl(url, policy);
  } catch (error) {
    if (error instanceof CallbackUrlRefused) return error.detail;
    throw error;
  }
  throw new Error(`${String(url)} was accepted`);
};

const publicHost = (host: string, reason: string) =>
  `callback_url must point to a publicly reachable host; ${host} is ${reason}.`;

describe('address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'shared address space (CGNAT)'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'documentation (TEST-NET-1)'],
    ['198.51.100.7', 'documentation (TEST-NET-2)'],
    ['203.0.113.9', 'documentation (TEST-NET-3)'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fc00::1', 'unique local'],
    ['fd12:3456:789a::1', 'unique local'],
    ['fec0::1', 'site-local (deprecated)'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped link-local (cloud metadata)'],
    ['::127.0.0.1', 'IPv4-compatible (deprecated)'],
    ['64:ff9b::10.0.0.1', 'NAT64 private'],
    ['64:ff9b::7f00:1', 'NAT64 loopback'],
    ['2002:7f00:1::1', '6to4 loopback'],
    ['2002:c0a8:101::1', '6to4 private'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'discard-only'],
    ['fe80::1%eth0', 'scoped (zone id)'],
  ])('refuses %s as %s', (address, reason) => {
    expect(addressRefusal(address)).toBe(reason);
  });

  it.each(['8.8.8.8', '93.184.215.14', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'])(
    'accepts the public address %s',
    (address) => {
      expect(addressRefusal(address)).toBeUndefined();
    },
  );
});

describe('callback_url check', () => {
  it.each([
    ['https://127.0.0.1/hook', publicHost('127.0.0.1', 'loopback')],
    ['https://2130706433/', publicHost('127.0.0.1', 'loopback')],
    ['https://0x7f.1/', publicHost('127.0.0.1', 'loopback')],
    ['https://017700000001/', publicHost('127.0.0.1', 'loopback')],
    ['https://127.1/', publicHost('127.0.0.1', 'loopback')],
    ['https://0/', publicHost('0.0.0.0', 'unspecified ("this network")')],
    ['https://169.254.169.254/latest/meta-data/', publicHost('169.254.169.254', 'link-local (cloud metadata)')],
    ['https://0xa9fea9fe/', publicHost('169.254.169.254', 'link-local (cloud metadata)')],
    ['https://10.0.0.1:8443/', publicHost('10.0.0.1', 'private')],
    ['https://192.168.1.1/', publicHost('192.168.1.1', 'private')],
    ['https://100.100.100.200/', publicHost('100.100.100.200', 'shared address space (CGNAT)')],
    ['https://[::1]/', publicHost('[::1]', 'loopback')],
    ['https://[::]/', publicHost('[::]', 'unspecified')],
    ['https://[::ffff:127.0.0.1]/', publicHost('[::ffff:7f00:1]', 'IPv4-mapped loopback')],
    ['https://[::ffff:169.254.169.254]/', publicHost('[::ffff:a9fe:a9fe]', 'IPv4-mapped link-local (cloud metadata)')],
    ['https://[64:ff9b::169.254.169.254]/', publicHost('[64:ff9b::a9fe:a9fe]', 'NAT64 link-local (cloud metadata)')],
    ['https://[2002:a9fe:a9fe::1]/', publicHost('[2002:a9fe:a9fe::1]', '6to4 link-local (cloud metadata)')],
    ['https://[fe80::1]/', publicHost('[fe80::1]', 'link-local')],
    ['https://[fd00::1]/', publicHost('[fd00::1]', 'unique local')],
    ['https://[ff02::1]/', publicHost('[ff02::1]', 'multicast')],
    ['https://224.0.0.1/', publicHost('224.0.0.1', 'multicast')],
    ['https://255.255.255.255/', publicHost('255.255.255.255', 'broadcast')],
  ])('refuses %s', async (url, detail) => {
    expect(await refusal(url)).toBe(detail);
  });

  it('refuses URLs that are not HTTPS, carry credentials, or are not URLs', async () => {
    expect(await refusal('http://receiver.example/hook')).toBe('callback_url must use HTTPS.');
    expect(await refusal('ftp://receiver.example/')).toBe('callback_url must use HTTPS.');
    expect(await refusal('https://user:secret@receiver.example/')).toBe(
      'callback_url must not contain a user name or password.',
    );
    expect(await refusal('not a url')).toBe('callback_url is not a valid absolute URL.');
    expect(await refusal(42)).toBe('callback_url must be a non-empty string.');
    expect(await refusal(`https://receiver.example/${'a'.repeat(2048)}`)).toBe('callback_url must be at most 2048 characters.');
  });

  it('refuses a name that resolves to a private address (localhost, with the system resolver)', async () => {
    expect(await refusal('https://localhost:8443/hook', { allowedHosts: [] } as never)).toBe(
      'callback_url must point to a publicly reachable host; localhost resolves to a loopback address.',
    );
  });

  it('refuses a name when any one of its addresses is not public', async () => {
    const mixed = { allowedHosts: [], resolve: async () => ['93.184.215.14', '10.0.0.5'] };
    expect(await refusal('https://receiver.example/', mixed)).toBe(
      'callback_url must point to a publicly reachable host; receiver.example resolves to a private address.',
    );
  });

  it('refuses a name that does not resolve', async () => {
    const failing = {
      allowedHosts: [],
      resolve: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    };
    expect(await refusal('https://nowhere.example/', failing)).toBe('callback_url host nowhere.example does not resolve.');
  });

  it('accepts an HTTPS URL whose host resolves only to public addresses, normalised', async () => {
    expect(await checkCallbackUrl('HTTPS://Receiver.Example:443/hooks/sms?x=1', noAllowedHosts)).toBe(
      'https://receiver.example/hooks/sms?x=1',
    );
    expect(await checkCallbackUrl('https://8.8.8.8/', noAllowedHosts)).toBe('https://8.8.8.8/');
  });

  it('exempts CALLBACK_ALLOWED_HOSTS from the public-address rule but still requires HTTPS', async () => {
    const allowed = { allowedHosts: parseAllowedHosts(' LOCALHOST , 127.0.0.1,[::1]'), resolve: publicResolver };
    expect(allowed.allowedHosts).toEqual(['localhost', '127.0.0.1', '::1']);
    expect(await checkCallbackUrl('https://localhost:9443/hook', allowed)).toBe('https://localhost:9443/hook');
    expect(await checkCallbackUrl('https://127.1:9443/', allowed)).toBe('https://127.0.0.1:9443/');
    expect(await checkCallbackUrl('https://[0:0::1]/', allowed)).toBe('https://[::1]/');
    expect(await refusal('http://localhost:9443/hook', allowed)).toBe('callback_url must use HTTPS.');
    expect(await refusal('https://127.0.0.2/', allowed)).toBe(publicHost('127.0.0.2', 'loopback'));
  });

  it('exempts only the one origin of an entry with a port (the local webhook inbox)', async () => {
    const allowed = { allowedHosts: parseAllowedHosts('127.0.0.1:9443, [0:0::1]:8443,Inbox.Test:443'), resolve: publicResolver };
    expect(allowed.allowedHosts).toEqual(['127.0.0.1:9443', '[::1]:8443', 'inbox.test:443']);
    expect(await checkCallbackUrl('https://127.0.0.1:9443/hook', allowed)).toBe('https://127.0.0.1:9443/hook');
    expect(await checkCallbackUrl('https://[::1]:8443/', allowed)).toBe('https://[::1]:8443/');
    expect(await refusal('https://127.0.0.1:9444/hook', allowed)).toBe(publicHost('127.0.0.1', 'loopback'));
    expect(await refusal('https://127.0.0.1/hook', allowed)).toBe(publicHost('127.0.0.1', 'loopback'));
    expect(await refusal('https://[::1]:8444/', allowed)).toBe(publicHost('[::1]', 'loopback'));
  });
});

describe('connection-time check', () => {
  it('refuses to connect when the name resolves to a private address', async () => {
    const error = await new Promise<unknown>((resolve) =>
      publicOnlyLookup('localhost', { all: true }, (failure) => resolve(failure)),
    );
    expect(error).toBeInstanceOf(RefusedAddressError);
    expect((error as RefusedAddressError).reason).toBe('loopback');
  });

  it('never connects to an internal address even if the name looked public when the URL was accepted (DNS rebinding)', async () => {
    let requests = 0;
    const server = createServer((_request, response) => {
      requests += 1;
      response.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const url = `https://localhost:${port}/hook`;
    // At submission the name answered with a public address...
    expect(await checkCallbackUrl(url, noAllowedHosts)).toBe(url);
    // ...at delivery it answers 127.0.0.1: the connection is refused before it is made.
    const result = await forwardReceipt(
      {
        receipt: { message_id: 'm-1', iccid: '8944500000000001001', msisdn: '447700900001', status: 'delivered', received_at: '2026-11-22T10:00:00.000+00:00' },
        callback_url: url,
        customer_id: 'acme',
      },
      { signingSecret: 'master', allowedHosts: [] },
    );
    expect(result).toEqual({ delivered: false, reason: 'refused_address', detail: 'address 127.0.0.1 is not public (loopback)' });
    expect(requests).toBe(0);
    await new Promise((resolve) => server.close(resolve));
  });
});
