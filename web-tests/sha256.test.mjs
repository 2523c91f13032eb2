// The page's SHA-256 (crates/server/web/js/sha256.js): its JavaScript path, which a page served
// over plain HTTP uses, gives Node's digests for the FIPS 180-4 examples and for random inputs of
// every length around the block boundaries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { sha256, sha256Js } from '../crates/server/web/js/sha256.js';

const hex = bytes => Buffer.from(bytes).toString('hex');

test('the FIPS 180-4 examples', () => {
  const enc = new TextEncoder();
  assert.equal(hex(sha256Js(enc.encode('abc'))), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(hex(sha256Js(new Uint8Array(0))), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(
    hex(sha256Js(enc.encode('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'))),
    '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  );
});

test('random inputs of every length up to 300 bytes, both paths', async () => {
  for (let n = 0; n <= 300; n++) {
    const bytes = new Uint8Array(randomBytes(n));
    const want = createHash('sha256').update(bytes).digest('hex');
    assert.equal(hex(sha256Js(bytes)), want, `length ${n}`);
    assert.equal(hex(await sha256(bytes)), want, `length ${n}`);
  }
});
