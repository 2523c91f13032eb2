// End-to-end tests of the web page in headless Chromium: a person creates a game against the
// AI in the lobby for each variant, plays it by clicking and dropping on the real board, sees
// the variant's panel change, downloads the record and sees the fairness check; screenshots of
// every game page at desktop and phone width go to target/web-screenshots/.
//
// Run by scripts/test.sh (FAIRYLAB_BIN names the fairylab binary); needs /usr/bin/chromium.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const BIN = process.env.FAIRYLAB_BIN || '../target/debug/fairylab';
const SHOTS = process.env.FAIRYLAB_SCREENSHOTS || '../target/web-screenshots';
const MAX_MOVES = Number(process.env.FAIRYLAB_E2E_MAX_MOVES || 60);
let server, base, browser, database;

/** Starts `fairylab serve` on `listen` and the test's database; resolves to its base URL. */
function startServer(listen) {
  server = spawn(BIN, ['serve', '--listen', listen, '--database-url', database], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    server.stdout.on('data', d => {
      const m = String(d).match(/http:\/\/[0-9.:]+/);
      if (m) resolve(m[0]);
    });
    server.on('exit', code => reject(new Error(`the server exited (${code})`)));
  });
}

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  database = `sqlite://${mkdtempSync(join(tmpdir(), 'fairylab-e2e-'))}/games.sqlite3`;
  base = await startServer('127.0.0.1:0');
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill();
});

/** The game's state from the server, as the page's own API sees it. */
const stateOf = (page, id) => page.evaluate(async id => (await fetch(`/api/games/${id}`)).json(), id);

/** The centre of a square (file, rank from 0) of the board on the page. */
async function squareCenter(page, file, rank) {
  const wrap = page.locator('.board-wrap');
  const box = await wrap.boundingBox();
  const [w, h, orient] = await wrap.evaluate(e => [Number(e.dataset.width), Number(e.dataset.height), e.dataset.orientation]);
  const [f, r] = orient === 'white' ? [file, h - 1 - rank] : [w - 1 - file, rank];
  return { x: box.x + ((f + 0.5) * box.width) / w, y: box.y + ((r + 0.5) * box.height) / h };
}

const ROLES = ['q', 'r', 'b', 'n', 'p'];

/** Plays a UCI move or drop by clicking the board (and the pocket for a drop). */
async function clickMove(page, uci) {
  const sq = s => [s.charCodeAt(0) - 97, Number(s.slice(1)) - 1];
  const drop = uci.match(/^([A-Za-z])@([a-h][1-8])$/);
  if (drop) {
    const i = ROLES.indexOf(drop[1].toLowerCase());
    await page.locator('.pocket-slot.bottom square').nth(i).click();
    const [f, r] = sq(drop[2]);
    const c = await squareCenter(page, f, r);
    await page.mouse.click(c.x, c.y);
    return;
  }
  for (const s of [uci.slice(0, 2), uci.slice(2, 4)]) {
    const [f, r] = sq(s);
    const c = await squareCenter(page, f, r);
    await page.mouse.click(c.x, c.y);
  }
}

/** A small deterministic generator for the person's choices. */
function lcg(seed) {
  let s = BigInt(seed);
  return n => {
    s = (s * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    return Number((s >> 33n) % BigInt(n));
  };
}

async function playVariant(variant, seed, check) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', e => errors.push(e.message));
  page.on('dialog', d => d.accept());
  await page.goto(base + '/');
  await page.selectOption('#variant', variant);
  await page.selectOption('select[name=opponent]', 'ai');
  await page.selectOption('select[name=color]', 'white');
  await page.fill('input[name=movetime]', '20');
  if (check.snowfall !== undefined) await page.fill('input[name=snowfall]', String(check.snowfall));
  await page.click('button[type=submit]');
  await page.waitForURL(/\/game\/[0-9a-f]+/);
  const id = page.url().match(/\/game\/([0-9a-f]+)/)[1];
  await page.waitForSelector('.board-wrap');
  const pick = lcg(seed);
  let moves = 0;
  let drops = 0;
  let st = await stateOf(page, id);
  let panelSeen = false;
  while (st.status === 'active' && moves < MAX_MOVES) {
    if (st.turn === 'white' && !st.thinking && st.legal_moves.length) {
      const uci = st.legal_moves[pick(st.legal_moves.length)];
      const ply = st.ply;
      if (check.keyboard && moves === 0) {
        // The first move from the keyboard alone: Tab to the move field, type, Enter.
        await page.focus('#flip');
        for (let i = 0; i < 12 && !(await page.evaluate(() => document.activeElement.id === 'move-text')); i++) {
          await page.keyboard.press('Tab');
        }
        await page.keyboard.type(uci);
        await page.keyboard.press('Enter');
      } else {
        await clickMove(page, uci);
      }
      if (uci.includes('@')) drops++;
      await page.waitForFunction(
        async ([id, ply]) => (await (await fetch(`/api/games/${id}`)).json()).ply > ply,
        [id, ply],
        { timeout: 15000, polling: 100 },
      );
      moves++;
      // The page shows the move (the move list grows) without a reload.
      await page.waitForFunction(n => document.querySelectorAll('ol.moves li').length >= n, ply + 1, { timeout: 5000 });
      if (!panelSeen && check.panel) panelSeen = await check.panel(page);
    } else {
      await page.waitForTimeout(60);
    }
    st = await stateOf(page, id);
  }
  if (st.status === 'active') {
    // A long game: end it from the page with the Resign button (the dialog is accepted).
    await page.click('#resign');
    await page.waitForFunction(async id => (await (await fetch(`/api/games/${id}`)).json()).status === 'finished', id, { timeout: 10000 });
  }
  await page.waitForSelector('#status:has-text("Game over")', { timeout: 10000 });
  await page.waitForSelector('.verified', { timeout: 10000 });
  const download = page.waitForEvent('download');
  await page.click('#record');
  const file = await (await download).path();
  const record = readFileSync(file, 'utf8');
  assert.match(record, new RegExp(`\\[GameId "${id}"\\]`));
  assert.match(record, /\[Seed "[0-9a-f]{64}"\]/);
  if (check.panel) assert.ok(panelSeen, `${variant}: the panel never showed what was expected`);
  await page.screenshot({ path: `${SHOTS}/${variant}-desktop.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(200);
  await page.screenshot({ path: `${SHOTS}/${variant}-phone.png`, fullPage: true });
  assert.deepEqual(errors, [], `${variant}: errors on the page`);
  await context.close();
  return { id, moves, drops };
}

test('chess against the AI, played by clicking (the first move typed from the keyboard)', async () => {
  await playVariant('chess', 1, { keyboard: true });
});

test('crazyhouse: pockets and drops', async () => {
  const { drops } = await playVariant('crazyhouse', 2, {});
  assert.ok(drops > 0, 'no drop was played from the pocket');
});

test('gardner on a 5x5 board', async () => {
  await playVariant('gardner', 3, {});
});

test('baby chess', async () => {
  // The panel shows a piece that has spent a column switch (from the FEN's counts).
  await playVariant('baby', 4, { panel: async p => /: [0-4] left/.test(await p.locator('#variant-panel').innerText()) });
});

test('snowfall: hands and gifts', async () => {
  // SnowFall 100 %: a gift event after every move, so the panel must show gifts.
  await playVariant('snowfall', 5, { snowfall: 100, panel: async p => (await p.locator('.gifts li').first().innerText()).startsWith('after ply') });
});

test('probabilistic: the map and the rolls', async () => {
  await playVariant('probabilistic', 6, {
    panel: async p => (await p.locator('.prob').count()) === 64 && (await p.locator('.roll').count()) > 0,
  });
});

test('the page reconnects after a server restart and the game goes on', async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  page.on('dialog', d => d.accept());
  await page.goto(base + '/');
  await page.selectOption('#variant', 'chess');
  await page.fill('input[name=movetime]', '20');
  await page.click('button[type=submit]');
  await page.waitForURL(/\/game\/[0-9a-f]+/);
  const id = page.url().match(/\/game\/([0-9a-f]+)/)[1];
  await page.waitForSelector('.board-wrap');
  await clickMove(page, 'e2e4');
  await page.waitForFunction(() => document.querySelectorAll('ol.moves li').length >= 2, null, { timeout: 15000 });
  // The server stops (SIGKILL) and comes back on the same address and database.
  const listen = base.replace('http://', '');
  server.kill('SIGKILL');
  await new Promise(r => server.once('exit', r));
  await page.waitForSelector('#conn:has-text("Reconnecting")', { timeout: 10000 });
  base = await startServer(listen);
  await page.waitForFunction(() => document.getElementById('conn').textContent === '', null, { timeout: 15000 });
  await clickMove(page, 'd2d4');
  await page.waitForFunction(() => document.querySelectorAll('ol.moves li').length >= 4, null, { timeout: 15000 });
  const st = await stateOf(page, id);
  assert.equal(st.moves[2].uci, 'd2d4');
  await context.close();
});
