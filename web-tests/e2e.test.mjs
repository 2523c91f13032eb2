// End-to-end tests of the web page in headless Chromium: a person creates a game against the
// AI in the lobby for each variant, plays it by clicking and dropping on the real board, sees
// the variant's panel change, downloads the record and sees the fairness check; screenshots of
// every game page at desktop and phone width go to target/web-screenshots/.
//
// Run by scripts/test.sh (FAIRYLAB_BIN names the fairylab binary); needs /usr/bin/chromium.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const BIN = process.env.FAIRYLAB_BIN || '../target/debug/fairylab';
const SHOTS = process.env.FAIRYLAB_SCREENSHOTS || '../target/web-screenshots';
const MAX_MOVES = Number(process.env.FAIRYLAB_E2E_MAX_MOVES || 60);
let server, base, browser, database, tables, adminFile;
/** The operator's token of the test's server (`serve --admin-token-file`). */
const OPERATOR = 'e2e-operator-token-0123456789';

/** Starts `fairylab serve` on `listen` and the test's database; resolves to its base URL. */
function startServer(listen) {
  const args = ['serve', '--listen', listen, '--database-url', database, '--tables', tables, '--admin-token-file', adminFile];
  server = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'inherit'] });
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
  const dir = mkdtempSync(join(tmpdir(), 'fairylab-e2e-'));
  database = `sqlite://${dir}/games.sqlite3`;
  adminFile = join(dir, 'admin-token');
  writeFileSync(adminFile, `${OPERATOR}\n`, { mode: 0o600 });
  // A KR.K endgame table for the server (`serve --tables`): its verdict on the game page.
  tables = join(dir, 'KR.K.egt');
  const gen = spawnSync(BIN, ['egt', 'KR.K', '--out', tables], { stdio: ['ignore', 'ignore', 'inherit'] });
  assert.equal(gen.status, 0, 'the KR.K table was not generated');
  base = await startServer('127.0.0.1:0');
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
});

after(async () => {
  if (browser) await browser.close();
  if (server) server.kill();
});

/** The game's state from the server, as the page's own API sees it. */
const stateOf = (page, id) => page.evaluate(async id => (await fetch(`/api/games/${id}`)).json(), id);

/**
 * Polls `check` (an async function, run here in Node) until it is truthy. Playwright's
 * waitForFunction does not await an async predicate (a promise is truthy), so server state is
 * waited for here.
 */
async function until(check, what, timeout = 15000) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms waiting for ${what}`);
    await new Promise(r => setTimeout(r, 100));
  }
}

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
  // The board in view first: the mouse clicks where the viewport shows the square.
  await page.locator('.board-wrap').scrollIntoViewIfNeeded();
  for (const [i, s] of [uci.slice(0, 2), uci.slice(2, 4)].entries()) {
    const [f, r] = sq(s);
    const c = await squareCenter(page, f, r);
    await page.mouse.click(c.x, c.y);
    // The piece picked up before the destination is clicked, as a person sees it lift; a
    // click the board missed (it was still moving a piece under load) is said and made again.
    if (i === 0 && !(await page.locator('cg-board square.selected').waitFor({ timeout: 2000 }).then(() => true, () => false))) {
      console.error(`clickMove ${uci}: ${s} was not picked up; clicking it again`);
      await page.mouse.click(c.x, c.y);
    }
  }
  // A promotion with a choice: the page asks, the person picks the piece of the move.
  if (uci.length === 5) {
    const choice = page.locator(`.promotion button[data-uci="${uci}"]`);
    if (await choice.waitFor({ timeout: 1000 }).then(() => true, () => false)) await choice.click();
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

/** The squares a FEN's board occupies (`e4`), Baby Chess counts and pockets left out. */
function occupied(fen) {
  const squares = new Set();
  const ranks = fen.split(' ')[0].split('[')[0].replace(/\{\d\}/g, '').split('/');
  ranks.forEach((row, i) => {
    let file = 0;
    for (const c of row.match(/\d+|./g)) {
      if (/\d/.test(c)) file += Number(c);
      else if (c !== '~') squares.add(String.fromCharCode(97 + file++) + (ranks.length - i));
    }
  });
  return squares;
}

/**
 * The person's move: uniform over the legal moves, or for a `greedy` person a drop first, then
 * a capture, so that a crazyhouse game reliably reaches a drop before the AI mates.
 */
function choose(st, pick, greedy) {
  const legal = st.legal_moves;
  if (greedy) {
    const drops = legal.filter(u => u.includes('@'));
    if (drops.length) return drops[pick(drops.length)];
    const taken = occupied(st.fen);
    const captures = legal.filter(u => taken.has(u.slice(2, 4)));
    if (captures.length) return captures[pick(captures.length)];
  }
  return legal[pick(legal.length)];
}

/**
 * A new browser context with one page at desktop size, and the page's uncaught errors (a test
 * ends by asserting there were none).
 */
async function desktopPage() {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', e => errors.push(e.message));
  return { context, page, errors };
}

/** Screenshots of the page as it is, at desktop width and at phone width (then back). */
async function screenshots(page, name) {
  await page.screenshot({ path: `${SHOTS}/${name}-desktop.png`, fullPage: true });
  const size = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForTimeout(200);
  await page.screenshot({ path: `${SHOTS}/${name}-phone.png`, fullPage: true });
  await page.setViewportSize(size);
  await page.waitForTimeout(200);
}

/**
 * Creates a game from the lobby's form as a person would, and resolves to its id once the game
 * page is open. `opponent` is the form's value (`ai`, `invite`, `watch`); `fen`, `movetime` and
 * `snowfall` are filled only when given.
 */
async function newGame(page, { variant, opponent = 'ai', color = 'white', movetime, fen, snowfall, pgn, minutes, plySeconds }) {
  await page.goto(base + '/');
  await page.selectOption('#variant', variant);
  await page.selectOption('select[name=opponent]', opponent);
  await page.selectOption('select[name=color]', color);
  if (movetime !== undefined) await page.fill('input[name=movetime]', String(movetime));
  if (fen !== undefined) await page.fill('input[name=fen]', fen);
  if (snowfall !== undefined) await page.fill('input[name=snowfall]', String(snowfall));
  if (pgn !== undefined) await page.fill('textarea[name=pgn]', pgn);
  if (minutes !== undefined) await page.fill('input[name=minutes]', String(minutes));
  if (plySeconds !== undefined) await page.fill('input[name=ply_seconds]', String(plySeconds));
  await page.click('button[type=submit]');
  await page.waitForURL(/\/game\/[0-9a-f]+/);
  return page.url().match(/\/game\/([0-9a-f]+)/)[1];
}

async function playVariant(variant, seed, check) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', e => errors.push(e.message));
  page.on('dialog', d => d.accept());
  const id = await newGame(page, { variant, movetime: 20, snowfall: check.snowfall, opponent: check.opponent });
  await page.waitForSelector('.board-wrap');
  const pick = lcg(seed);
  let moves = 0;
  let drops = 0;
  let st = await stateOf(page, id);
  let panelSeen = false;
  while (st.status === 'active' && moves < MAX_MOVES) {
    if (st.turn === 'white' && !st.thinking && st.legal_moves.length) {
      const uci = choose(st, pick, check.greedy);
      const ply = st.ply;
      // The page must have caught up with the server (the AI's reply shown, the board movable)
      // before the person acts, as a person waits to see the reply.
      await page.waitForFunction(
        n => document.querySelectorAll('ol.moves li').length === n && document.getElementById('status').textContent.includes('your move'),
        ply,
        { timeout: 15000 },
      );
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
      await until(async () => (await stateOf(page, id)).ply > ply, `${variant}: the server to take ${uci} after ply ${ply}`).catch(async e => {
        // What the board offered: chessground's own state.
        const seen = await page.evaluate(u => {
          const cg = window.fairylab.board().cg.state;
          const dests = cg.movable.dests ? [...cg.movable.dests.entries()].map(([k, v]) => `${k}:${v.join(',')}`).join(' ') : '';
          const st = window.fairylab.state();
          return { turn: cg.turnColor, color: cg.movable.color, selected: cg.selected, from: dests.split(' ').filter(d => d.startsWith(u.slice(0, 2))), fen: st.fen, legal: st.legal_moves.includes(u), status: document.getElementById('status').textContent, error: document.getElementById('error').textContent };
        }, uci);
        throw new Error(`${e.message}; the page: ${JSON.stringify(seen)}`);
      });
      moves++;
      // The page shows the move (the move list grows) without a reload.
      await page
        .waitForFunction(n => document.querySelectorAll('ol.moves li').length >= n, ply + 1, { timeout: 15000 })
        .catch(async e => {
          // Say what the page showed against what the server holds, for a failure in CI.
          const shown = await page.locator('ol.moves li').count();
          const server = await stateOf(page, id);
          const said = await page.locator('#error').innerText();
          throw new Error(`${variant}: after ${uci} the page lists ${shown} moves, the server ${server.moves.length} (${server.status}); page error text: '${said}'; page errors: ${JSON.stringify(errors)}; ${e.message}`);
        });
      if (!panelSeen && check.panel) panelSeen = await check.panel(page);
    } else {
      await page.waitForTimeout(60);
    }
    st = await stateOf(page, id);
  }
  if (st.status === 'active') {
    // A long game: end it from the page with the Resign button (the dialog is accepted).
    await page.click('#resign');
    await until(async () => (await stateOf(page, id)).status === 'finished', `${variant}: the resignation`);
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
  if (check.review) {
    // The game reviewed: with chance, each side's luck beside its errors and accuracy.
    await page.click('#review-game');
    await page.waitForSelector('table.review-sides', { timeout: 60000 });
    assert.match(await page.locator('table.review-sides thead').innerText(), /luck \(win % points\)/);
    assert.match(await page.locator('table.review-sides tbody tr:first-child').innerText(), /^White\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+ %\s+[+-]?\d+$/);
    // A dice variant's values are winning chances (the review's win_scale), shown as such.
    if (variant === 'probabilistic') {
      await page.locator('.review-graph circle[data-ply="1"]').dispatchEvent('click');
      await page.waitForSelector('.review-move');
      assert.match(await page.locator('.review-move').innerText(), /^1\. \S+: White \d+\.\d % → /);
    }
  }
  if (check.failedMark) {
    // A move whose roll failed: its target is circled on the board when the move list shows it
    // (a whole game of Probabilistic chess has failed rolls: the map's squares are 5 to 99 %).
    const done = await stateOf(page, id);
    const k = done.moves.findIndex(m => m.event === 'failed');
    assert.ok(k >= 0, `${variant}: no failed roll in ${done.moves.length} moves`);
    await page.click(`ol.moves button[data-ply="${k + 1}"]`);
    await page.waitForSelector('.cg-wrap svg.cg-shapes circle', { timeout: 5000 });
    // Every roll is listed (not the last twelve), with its chance; the one shown is marked.
    assert.equal(await page.locator('.roll').count(), done.moves.length);
    const marked = await page.locator('.roll.shown').innerText();
    assert.ok(marked.startsWith(`ply ${k + 1} `) && marked.includes(`(${done.moves[k].percent} %): ✗ failed`), marked);
    // Probabilistic chess has no draws by agreement: no button offers one.
    assert.equal(await page.locator('#draw').isHidden(), true);
  }
  await screenshots(page, variant);
  assert.deepEqual(errors, [], `${variant}: errors on the page`);
  await context.close();
  return { id, moves, drops };
}

test('chess against the AI, played by clicking (the first move typed from the keyboard)', async () => {
  await playVariant('chess', 1, { keyboard: true });
});

test('the analysis board: the game browsed by its move list and the keyboard, the engine, the endgame table', async () => {
  const { context, page, errors } = await desktopPage();
  // From the lobby: a KR.K ending (the FEN field), the AI against itself.
  const fen = '8/8/8/4k3/8/8/8/R3K3 w - - 0 1';
  const id = await newGame(page, { variant: 'chess', opponent: 'watch', movetime: 50, fen });
  // The table's verdict on the position shown, as the server's probe gives it.
  await page.waitForSelector('.tb strong', { timeout: 10000 });
  await page.waitForFunction(() => document.querySelectorAll('ol.moves li').length >= 3, null, { timeout: 15000 });
  // Back to the start with the keyboard: the board shows the FEN's position and its verdict.
  await page.click('ol.moves li:first-child button');
  await page.waitForSelector('.browsing:has-text("after ply 1")');
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('.browsing:has-text("after ply 0")');
  await page.click('#analyse');
  await page.waitForSelector('.eval strong', { timeout: 15000 });
  assert.match(await page.locator('.eval strong').innerText(), /^(\+\d+\.\d\d|#\d+|White wins \(table\))$/, 'White is winning');
  assert.notEqual(await page.locator('.pv').innerText(), '—');
  // The page asks for three lines: the two others, each with its own evaluation and moves.
  assert.equal(await page.locator('ol.other-lines li').count(), 2);
  for (const t of await page.locator('ol.other-lines .line-score').allInnerTexts()) assert.match(t, /^([+-]?\d+\.\d\d|#-?\d+|(White|Black) wins \(table\))$/);
  assert.match(await page.locator('.tb strong').innerText(), /^white to move wins in 14 moves \(DTC\)$/);
  // The table's moves, best first, and its optimal line to mate.
  assert.equal(await page.locator('ol.tb-moves li').count(), 15);
  assert.match(await page.locator('ol.tb-moves li').first().innerText(), /^(Ke2|Ra5\+)\s+win in 14$/);
  assert.match(await page.locator('ol.tb-moves li').last().innerText(), /^R[bc]1\s+win in 16$/);
  assert.match(await page.locator('.tb-line .tb-pv').innerText(), /^1\. Ke2 Kd4 2\. .* 14\. Ra5#$/);
  // The analysis is the server's: the same figures through the API.
  const api = await page.evaluate(async id => (await fetch(`/api/games/${id}/analyse`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ply: 0, movetime_ms: 100 }) })).json(), id);
  assert.equal(api.tablebase.moves, 14);
  assert.equal(api.lines.length, 1);
  assert.deepEqual(api.lines[0].pv, api.pv);
  await page.screenshot({ path: `${SHOTS}/analysis-desktop.png`, fullPage: true });
  assert.deepEqual(errors, []);
  await context.close();
});

test('against a weaker AI, resigned: the final position can still be analysed', async () => {
  const { context, page, errors } = await desktopPage();
  page.on('dialog', d => d.accept());
  const id = await newGame(page, { variant: 'chess', opponent: 'ai:level1', color: 'white', movetime: 20 });
  await page.waitForSelector('#status:has-text("your move")');
  assert.match(await page.locator('#status').innerText(), /Black: the AI, level 1 of 8/);
  // Before both sides have moved the button aborts; after the AI's reply it resigns.
  assert.equal(await page.locator('#resign').innerText(), 'Abort');
  await clickMove(page, 'e2e4');
  await until(async () => (await stateOf(page, id)).ply === 2, "the AI's reply");
  await page.waitForSelector('#resign:has-text("Resign")');
  await page.click('#resign');
  await page.waitForSelector('#status:has-text("Game over")', { timeout: 10000 });
  // The game ended by a person's choice: the position has moves, and the engine looks at it.
  await page.waitForSelector('#analyse:not([disabled])');
  await page.click('#analyse');
  await page.waitForSelector('.eval strong', { timeout: 15000 });
  assert.notEqual(await page.locator('.pv').innerText(), '—');
  assert.equal((await stateOf(page, id)).reason, 'resignation');
  // A rematch against the AI is made at once: the same AI and time, colours swapped.
  await page.click('#rematch');
  await page.waitForURL(url => !url.pathname.endsWith(id));
  const next = page.url().match(/\/game\/([0-9a-f]+)/)[1];
  await page.waitForSelector('#status:has-text("Black: you")');
  const st = await stateOf(page, next);
  assert.deepEqual([st.white, st.black, st.movetime_ms], ['ai:level1', 'human', 20]);
  assert.equal((await stateOf(page, id)).rematch, next);
  await until(async () => (await stateOf(page, next)).ply === 1, "the AI's first move as White");
  assert.deepEqual(errors, []);
  await context.close();
});

test('a takeback against the AI: the move and the reply go, and the game goes on', async () => {
  const { context, page, errors } = await desktopPage();
  const id = await newGame(page, { variant: 'chess', opponent: 'ai:level1', color: 'white', movetime: 20 });
  await page.waitForSelector('#status:has-text("your move")');
  assert.equal(await page.locator('#takeback').innerText(), 'Take back');
  await page.fill('#move-text', 'e4');
  await page.click('#move-form button[type=submit]');
  await until(async () => (await stateOf(page, id)).ply === 2, "the AI's reply");
  await page.waitForSelector('#status:has-text("your move")');
  await page.click('#takeback');
  await until(async () => (await stateOf(page, id)).ply === 0, 'the takeback');
  await page.waitForFunction(() => document.querySelectorAll('ol.moves li').length === 0);
  await page.waitForSelector('#status:has-text("your move")');
  await page.fill('#move-text', 'd4');
  await page.click('#move-form button[type=submit]');
  const st = await until(async () => { const s = await stateOf(page, id); return s.ply === 2 && s; }, "the AI's reply to d4");
  assert.equal(st.moves[0].san, 'd4');
  // SnowFall draws every ply's gift from the seed: no takebacks, and no button.
  await newGame(page, { variant: 'snowfall', opponent: 'ai:level1', color: 'white', movetime: 20 });
  await page.waitForSelector('#status:has-text("your move")');
  assert.equal(await page.locator('#takeback').isHidden(), true);
  assert.deepEqual(errors, []);
  await context.close();
});

test('premoves and predrops: made while the AI thinks, played at once when it has replied; cancelled by clicking elsewhere', async () => {
  const { context, page, errors } = await desktopPage();
  // Two seconds a move for the AI: time to premove while it thinks.
  const id = await newGame(page, { variant: 'chess', opponent: 'ai', color: 'white', movetime: 2000 });
  await page.waitForSelector('#status:has-text("your move")');
  await clickMove(page, 'e2e4');
  await page.waitForSelector('#status:has-text("the AI is thinking")');
  // A premove, then another square clicked: none left; then the premove kept.
  await clickMove(page, 'g1f3');
  assert.deepEqual(await page.evaluate(() => window.fairylab.board().pendingPremove()), ['g1', 'f3']);
  const empty = await squareCenter(page, 0, 4);
  await page.mouse.click(empty.x, empty.y);
  assert.equal(await page.evaluate(() => window.fairylab.board().pendingPremove()), null);
  await clickMove(page, 'd2d4');
  assert.deepEqual(await page.evaluate(() => window.fairylab.board().pendingPremove()), ['d2', 'd4']);
  assert.equal((await stateOf(page, id)).ply, 1, 'the premove waits for the reply');
  // The AI replies (no reply of Black's first move stops d2-d4): the premove is played.
  const st = await until(async () => { const s = await stateOf(page, id); return s.ply >= 3 && s; }, 'the premove played');
  assert.equal(st.moves[2].uci, 'd2d4');
  assert.equal(await page.evaluate(() => window.fairylab.board().pendingPremove()), null);
  // A predrop in crazyhouse: a knight from the pocket while the AI thinks.
  const zh = await newGame(page, { variant: 'crazyhouse', opponent: 'ai', color: 'white', movetime: 2000, fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Nn] w KQkq - 0 1' });
  await page.waitForSelector('#status:has-text("your move")');
  await clickMove(page, 'e2e4');
  await page.waitForSelector('#status:has-text("the AI is thinking")');
  await clickMove(page, 'N@h3');
  assert.ok(await page.evaluate(() => window.fairylab.board().pendingPremove()), 'a predrop waits');
  const zs = await until(async () => { const s = await stateOf(page, zh); return s.ply >= 3 && s; }, 'the predrop played');
  assert.equal(zs.moves[2].uci, 'N@h3');
  assert.deepEqual(errors, []);
  await context.close();
});

/** Two browsers (two people) at desktop size, with the page errors of both collected. */
async function twoBrowsers() {
  const a = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const b = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const pa = await a.newPage();
  const pb = await b.newPage();
  const errors = [];
  for (const p of [pa, pb]) p.on('pageerror', e => errors.push(e.message));
  return { a, b, pa, pb, errors };
}

test('an open seat: appears in an open lobby with a button, taken by another browser, played', async () => {
  const { a, b, pa, pb, errors } = await twoBrowsers();
  // Another browser has the lobby open before the game exists: the lobby's stream brings the
  // game at once (the list's own refresh is every 30 s, longer than this test waits).
  await pb.goto(base + '/');
  await pb.waitForSelector('#games table, #games p');
  const id = await newGame(pa, { variant: 'chess', opponent: 'open', color: 'white' });
  await pa.waitForSelector('#status:has-text("your move")');
  assert.equal(await pa.locator('#join').isHidden(), true, 'the creator holds a seat');
  const join = pb.locator(`button.join[data-id="${id}"]`);
  await join.waitFor({ timeout: 10000 });
  assert.equal(await join.innerText(), 'Join as black');
  await join.click();
  await pb.waitForURL(new RegExp(`/game/${id}$`));
  await pb.waitForSelector('#status:has-text("Black: you")');
  assert.equal((await stateOf(pb, id)).open_to_anyone, false);
  // White moves, then Black from the second browser.
  await clickMove(pa, 'e2e4');
  await pb.waitForSelector('#status:has-text("your move")');
  await pb.fill('#move-text', 'e5');
  await pb.click('#move-form button[type=submit]');
  await until(async () => (await stateOf(pa, id)).ply === 2, "Black's move");
  // A third visitor finds no seat: no button on the game page.
  const c = await browser.newContext();
  const pc = await c.newPage();
  await pc.goto(`${base}/game/${id}`);
  await pc.waitForSelector('#status:has-text("white to move")');
  assert.equal(await pc.locator('#join').isHidden(), true);
  // Two people play: no engine for anyone until the game is over.
  for (const p of [pa, pc]) {
    assert.equal(await p.locator('#analyse').isDisabled(), true);
    assert.match(await p.locator('.no-engine').innerText(), /^No engine or endgame table while two people play each other/);
  }
  // The players chat; what they say reaches the other at once, and the spectator sees no chat.
  await pa.fill('#chat-text', 'good luck <b>!</b>');
  await pa.click('.chat-form button[type=submit]');
  await pb.waitForSelector('ol.chat li.theirs:has-text("White good luck <b>!</b>")');
  await pb.fill('#chat-text', 'you too');
  await pb.press('#chat-text', 'Enter');
  await pa.waitForSelector('ol.chat li.theirs:has-text("Black you too")');
  assert.equal(await pa.locator('ol.chat li.mine').innerText(), 'You good luck <b>!</b>');
  assert.equal(await pa.inputValue('#chat-text'), '', 'sent, the field is emptied');
  assert.equal(await pc.locator('#chat').isHidden(), true, 'no chat for a spectator');
  await pa.screenshot({ path: `${SHOTS}/chat-desktop.png` });
  // On a phone the chat is below the board: a message arriving out of sight is announced by a
  // button at the foot of the window, which scrolls to it.
  await pb.setViewportSize({ width: 390, height: 844 });
  await pb.evaluate(() => window.scrollTo(0, 0));
  const badge = pb.locator('button.chat-unread');
  assert.equal(await badge.isHidden(), true, 'nothing unread yet');
  // (One message a second for each player.)
  await pa.waitForTimeout(1100);
  await pa.fill('#chat-text', 'your move');
  await pa.press('#chat-text', 'Enter');
  await badge.waitFor({ timeout: 10000 });
  assert.equal(await badge.innerText(), '1 new chat message ↓');
  await pb.screenshot({ path: `${SHOTS}/chat-unread-phone.png` });
  await badge.click();
  await badge.waitFor({ state: 'hidden' });
  assert.ok(await pb.locator('ol.chat li.theirs:has-text("White your move")').isVisible());
  assert.ok(await pb.evaluate(() => { const r = document.querySelector('#chat-text').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }), 'the chat is in view');
  // A message that comes while the chat is in view is no news.
  await pa.waitForTimeout(1100);
  await pa.fill('#chat-text', 'and again');
  await pa.press('#chat-text', 'Enter');
  await pb.waitForSelector('ol.chat li.theirs:has-text("White and again")');
  await pb.waitForTimeout(300);
  assert.equal(await badge.isHidden(), true);
  assert.deepEqual(errors, []);
  await Promise.all([a.close(), b.close(), c.close()]);
});

test('an invitation: the link stays on the creator\'s page, opening it there keeps the creator\'s seat, the friend joins; check is marked; a rematch keeps the settings', async () => {
  const { a, b, pa, pb, errors } = await twoBrowsers();
  pb.on('dialog', d => d.accept());
  const id = await newGame(pa, { variant: 'chess', opponent: 'invite', color: 'white', minutes: 5 });
  const link = await pa.inputValue('#invite input');
  assert.match(link, new RegExp(`/game/${id}\\?invite=[0-9a-f]+$`));
  // The game reopened from the lobby still offers the link to send.
  await pa.goto(`${base}/game/${id}`);
  await pa.waitForSelector('#status:has-text("waiting for the invited player")');
  assert.equal(await pa.inputValue('#invite input'), link);
  // The creator opening the link in their own browser keeps their seat (the link is the friend's).
  await pa.goto(link);
  await pa.waitForSelector('#status:has-text("White: you")');
  assert.equal((await stateOf(pa, id)).open_seat, 'black');
  // The friend joins with it; the link goes from the creator's page.
  await pb.goto(link);
  await pb.waitForSelector('#status:has-text("Black: you")');
  await pa.waitForSelector('#invite', { state: 'hidden' });
  // 1. e4 f5 2. Qh5+: Black's king is marked in check on both boards.
  for (const [p, m] of [[pa, 'e4'], [pb, 'f5'], [pa, 'Qh5+']]) {
    await p.waitForSelector('#status:has-text("your move")');
    await p.fill('#move-text', m);
    await p.press('#move-text', 'Enter');
    await p.waitForSelector(`ol.moves button:has-text("${m}")`);
  }
  for (const p of [pa, pb]) await p.waitForSelector('.cg-wrap cg-board square.check');
  // A draw offer: announced to the opponent, who may decline it; the offerer's button says so.
  await pa.click('#draw');
  await pa.waitForSelector('#draw:has-text("Draw offered")');
  await pb.waitForSelector('#status:has-text("Your opponent offers a draw.")');
  await pb.click('#decline:has-text("Decline draw")');
  await pa.waitForSelector('#draw:has-text("Offer draw")');
  await pb.waitForSelector('#decline', { state: 'hidden' });
  assert.equal((await stateOf(pa, id)).draw_offer, null);
  // No rematch while the game goes on; once it is over, one offered to the opponent, who may
  // decline it or accept it: both players go to the same game, with the same clock, colours
  // swapped.
  assert.equal(await pa.locator('#rematch').isDisabled(), true);
  await pb.click('#resign');
  await pa.waitForSelector('#status:has-text("Game over")');
  await pa.click('#rematch');
  await pa.waitForSelector('#rematch:has-text("Rematch offered")');
  await pb.waitForSelector('#status:has-text("Your opponent offers a rematch.")');
  await pb.click('#decline:has-text("Decline rematch")');
  await pa.waitForSelector('#rematch:has-text("Rematch"):not(:has-text("offered"))');
  assert.equal(await pa.locator('#rematch').isDisabled(), false);
  await pb.waitForSelector('#decline', { state: 'hidden' });
  await pa.click('#rematch');
  await pb.click('#rematch:has-text("Accept rematch")');
  await pb.waitForURL(url => !url.pathname.endsWith(id));
  const next = pb.url().match(/\/game\/([0-9a-f]+)/)[1];
  await pa.waitForURL(new RegExp(`/game/${next}$`));
  await pa.waitForSelector('#status:has-text("Black: you")');
  await pb.waitForSelector('#status:has-text("White: you")');
  const st = await stateOf(pa, next);
  assert.deepEqual([st.variant, st.white, st.black, st.open_seat, st.clock && st.clock.initial_ms], ['chess', 'human', 'human', null, 300000]);
  assert.equal((await stateOf(pa, id)).rematch, next);
  // The new game is played with the new seats: White (the former Black) moves.
  await pb.fill('#move-text', 'd4');
  await pb.press('#move-text', 'Enter');
  await pa.waitForSelector('ol.moves button:has-text("d4")');
  // A game that does not exist: said so, without a game's controls or a stream to retry.
  await pb.goto(`${base}/game/00000000deadbeef`);
  await pb.waitForSelector('#error:has-text("No such game.")');
  assert.equal(await pb.locator('#resign').count(), 0);
  await pb.waitForTimeout(600);
  assert.deepEqual(errors, []);
  await Promise.all([a.close(), b.close()]);
});

test('a SnowFall game between two people: the chat opens with the game\'s SnowFall percentage, as the seed\'s chat shows it', async () => {
  const a = await desktopPage();
  const b = await desktopPage();
  const id = await newGame(a.page, { variant: 'snowfall', opponent: 'invite', color: 'white', snowfall: 21 });
  const link = await a.page.inputValue('.invite input');
  await b.page.goto(link);
  await b.page.waitForSelector('#status:has-text("Black: you")');
  for (const p of [a.page, b.page]) {
    await p.waitForSelector('ol.chat li.system');
    assert.equal(await p.locator('ol.chat li.system').innerText(), 'SnowFall for this game: 21 % (the chance of a gift event after every move).');
  }
  await b.page.fill('#chat-text', 'gifts, please');
  await b.page.press('#chat-text', 'Enter');
  await a.page.waitForSelector('ol.chat li.theirs:has-text("Black gifts, please")');
  assert.equal((await stateOf(a.page, id)).options.snowfall, 21);
  assert.deepEqual([...a.errors, ...b.errors], []);
  await Promise.all([a.context.close(), b.context.close()]);
});

test('with clocks, the first move is awaited for 30 s (counted down on the page), then the clocks run', async () => {
  const { context, page, errors } = await desktopPage();
  const id = await newGame(page, { variant: 'chess', opponent: 'ai', color: 'black', movetime: 20, minutes: 3 });
  // The AI (White) moves at once; the person has 30 s for the first move.
  await page.waitForSelector('#status:has-text("your move")');
  const notice = page.locator('.first-move');
  await notice.waitFor();
  assert.match(await notice.innerText(), /^You have (30|29|28|27|26|25) s to make the first move, or the game is aborted\.$/);
  assert.equal((await stateOf(page, id)).first_move.side, 'black');
  // The notice and the clocks are made once and ticked in place, and the notice is no live
  // region: a screen reader is not told of every tick.
  await page.evaluate(() => {
    window.ticked = [document.querySelector('.first-move'), ...document.querySelectorAll('.clock')];
  });
  await page.waitForTimeout(600);
  assert.ok(await page.evaluate(() => window.ticked.every((e, i) => e === [document.querySelector('.first-move'), ...document.querySelectorAll('.clock')][i])), 'the same elements');
  assert.deepEqual([await notice.getAttribute('role'), await notice.getAttribute('aria-live')], [null, null]);
  // The clocks follow the board: the opponent's (at the board's top) first, the player's
  // own, marked, second; flipped, the other way round.
  const clockTexts = () => page.evaluate(() => [...document.querySelectorAll('.clock')]
    .sort((a, b) => a.getBoundingClientRect().left - b.getBoundingClientRect().left || a.getBoundingClientRect().top - b.getBoundingClientRect().top)
    .map(c => c.textContent.replace(/:.*$/, '')));
  assert.deepEqual(await clockTexts(), ['white', 'black (you)']);
  await page.click('#flip');
  await until(async () => (await clockTexts())[0] === 'black (you)', 'the clocks turned with the board');
  await page.click('#flip');
  await until(async () => (await clockTexts())[0] === 'white', 'and back');
  await page.screenshot({ path: `${SHOTS}/first-move-desktop.png` });
  await clickMove(page, 'e7e5');
  await until(async () => (await stateOf(page, id)).ply >= 3, "the AI's second move");
  await page.waitForSelector('.clock.black.running');
  assert.equal(await notice.count(), 0, 'the clocks run: no first-move notice');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a finished game reviewed: the sides\' totals, the blunder marked in the move list, the graph browses the game', async () => {
  const { context, page, errors } = await desktopPage();
  const id = await newGame(page, { variant: 'chess', opponent: 'me', color: 'white', pgn: '1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7#' });
  await page.waitForSelector('#status:has-text("Game over")');
  await page.click('#review-game');
  await page.waitForSelector('table.review-sides', { timeout: 30000 });
  assert.match(await page.locator('table.review-sides tbody tr:nth-child(2)').innerText(), /^Black\s+0\s+0\s+1\s/);
  assert.equal(await page.locator('ol.moves button[data-ply="6"] .glyph.blunder').innerText(), '??');
  // The graph has a point per position; clicking the one after 3...Nf6 shows it and its judgement.
  assert.equal(await page.locator('.review-graph circle').count(), 8);
  await page.locator('.review-graph circle[data-ply="6"]').click();
  await page.waitForSelector('.review-move:has-text("3... Nf6??")');
  assert.match(await page.locator('.review-move').innerText(), /blunder \(Checkmate is now unavoidable\)\. Best was/);
  await page.waitForSelector('.browsing:has-text("after ply 6 of 7")');
  // The mating move is named, not scored as a mate still to come.
  await page.locator('.review-graph circle[data-ply="7"]').click();
  await page.waitForSelector('.review-move:has-text("4. Qxf7#")');
  assert.match(await page.locator('.review-move').innerText(), /→ checkmate\./);
  assert.equal(await page.locator('#annotated').getAttribute('href'), `/api/games/${id}/record?annotated=true`);
  await page.screenshot({ path: `${SHOTS}/review-desktop.png`, fullPage: true });
  assert.equal((await stateOf(page, id)).status, 'finished');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the opening explorer: once the game is over, the moves played from the position shown and how their games ended', async () => {
  const { context, page, errors } = await desktopPage();
  const id = await newGame(page, { variant: 'chess', opponent: 'me', color: 'white' });
  await page.waitForSelector('.board-wrap');
  assert.equal(await page.locator('#explorer h2').count(), 0, 'no explorer during the game');
  for (const [uci, ply] of [['e2e4', 1], ['c7c5', 2], ['g1f3', 3]]) {
    await clickMove(page, uci);
    await until(async () => (await stateOf(page, id)).ply >= ply, `ply ${ply}`);
  }
  page.once('dialog', d => d.accept());
  await page.click('#resign');
  await page.waitForSelector('#status:has-text("Game over")');
  // Counted moments after its end: from the start, 1. e4 is this game's move, and its latest game.
  await page.click('button[data-ply="0"]');
  const e4 = page.locator('table.explorer tbody tr.played');
  await e4.waitFor({ timeout: 15000 });
  assert.match(await e4.innerText(), /^e4\s+\d+/);
  assert.equal(await e4.locator('a').getAttribute('href'), `/game/${id}`);
  assert.match(await e4.locator('.wdl').getAttribute('title'), /^White wins \d+ %, draws \d+ %, Black wins \d+ %$/);
  // After 1. e4 c5: 2. Nf3 is marked; the position after the last move has no move yet.
  await page.click('ol.moves button[data-ply="2"]');
  await page.waitForSelector('table.explorer tbody tr.played th:has-text("Nf3")');
  await page.click('ol.moves button[data-ply="3"]');
  await page.waitForSelector('#explorer p:has-text("No finished game")');
  await page.click('button[data-ply="1"]');
  await page.waitForSelector('table.explorer tbody tr.played th:has-text("c5")');
  // Games between people hold this one; games against the AI do not, and the choice is kept.
  await page.selectOption('#explorer-players', 'people');
  await page.waitForSelector('table.explorer tbody tr.played th:has-text("c5")');
  await page.selectOption('#explorer-players', 'ai');
  await until(
    async () => (await page.locator('#explorer p:has-text("No finished game against the AI"), table.explorer').count()) > 0,
    'the games against the AI',
  );
  assert.equal(await page.locator('table.explorer tbody tr.played').count(), 0, 'this game is not against the AI');
  assert.equal(await page.evaluate(() => localStorage.getItem('fairylab.explorer.players')), 'ai');
  await page.selectOption('#explorer-players', 'all');
  await page.waitForSelector('table.explorer tbody tr.played th:has-text("c5")');
  await page.waitForTimeout(400);
  await screenshots(page, 'explorer');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the analysis board: moves tried on the board, a new continuation, the engine, the explorer\'s moves played, a drop, a link from a game', async () => {
  const { context, page, errors } = await desktopPage();
  await page.goto(`${base}/`);
  // A finished game, for the explorer (made through the API).
  const id = await page.evaluate(async () => {
    const post = (path, body, token) => fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) }).then(r => r.json());
    const g = await post('/api/games', { variant: 'chess', white: 'me', black: 'me' });
    for (const [i, move] of ['e2e4', 'c7c5', 'b1c3'].entries()) await post(`/api/games/${g.id}/moves`, { move }, (i % 2 ? g.black : g.white).token);
    await post(`/api/games/${g.id}/resign`, {}, g.black.token);
    return g.id;
  });
  // A variant the board does not know, in the URL: said, and chess instead.
  await page.goto(`${base}/analysis?variant=nosuch`);
  await page.waitForSelector('#error:has-text("no variant \'nosuch\'")');
  await page.waitForSelector('#status:has-text("chess: white to move")');
  await page.click('nav a[href="/analysis"]');
  await page.waitForSelector('#status:has-text("chess: white to move")');
  await clickMove(page, 'e2e4');
  await page.waitForSelector('#status:has-text("black to move")');
  await clickMove(page, 'e7e5');
  await page.waitForSelector('ol.moves button[data-ply="2"]');
  assert.match(page.url(), /\/analysis\?variant=chess&play=e2e4%2Ce7e5$/);
  // Back one move and another reply: the line continues from there.
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('#status:has-text("black to move")');
  await clickMove(page, 'c7c5');
  await page.waitForSelector('ol.moves button[data-ply="2"]:has-text("c5")');
  // The line left is kept as a variation.
  await page.waitForSelector('ul.variations button:has-text("1… e5")');
  // The explorer knows the finished game's next move: played from the explorer.
  const nc3 = page.locator('table.explorer button[data-uci="b1c3"]');
  await nc3.waitFor({ timeout: 15000 });
  // Not among the games against the AI.
  await page.selectOption('#explorer-players', 'ai');
  await page.waitForSelector('#explorer p:has-text("against the AI"), table.explorer');
  assert.equal(await nc3.count(), 0, 'a game between people is not against the AI');
  await page.selectOption('#explorer-players', 'all');
  await nc3.waitFor();
  await nc3.click();
  await page.waitForSelector('ol.moves button[data-ply="3"]:has-text("Nc3")');
  assert.equal(await page.locator('#link').getAttribute('href'), '/analysis?variant=chess&play=e2e4%2Cc7c5%2Cb1c3');
  assert.equal(await page.locator('#fen-out').inputValue(), 'rnbqkbnr/pp1ppppp/8/2p5/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - 1 2');
  // (The first line, 1... e5, stays the main line, the one shown a variation of it, as lichess keeps it.)
  await page.waitForFunction(() => document.getElementById('pgn-out').value.includes('\n1. e4 e5 (1... c5 2. Nc3) *\n'));
  // A variation shown: the line it leaves becomes one; replaying a variation's move goes back to it, whole.
  await page.click('ul.variations button:has-text("1… e5")');
  await page.waitForSelector('ol.moves button[data-ply="2"][aria-current="true"]:has-text("e5")');
  await page.waitForSelector('ul.variations button:has-text("1… c5 2. Nc3")');
  assert.match(page.url(), /\/analysis\?variant=chess&play=e2e4%2Ce7e5$/);
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('#status:has-text("black to move")');
  await clickMove(page, 'c7c5');
  await page.waitForSelector('ol.moves button[data-ply="2"][aria-current="true"]:has-text("c5")');
  await page.waitForSelector('ol.moves button[data-ply="3"]:has-text("Nc3")');
  await page.waitForSelector('ul.variations button:has-text("1… e5")');
  assert.equal(await page.locator('ul.variations li').count(), 1);
  await page.keyboard.press('ArrowRight');
  await page.waitForSelector('ol.moves button[data-ply="3"][aria-current="true"]');
  await page.click('#analyse');
  await page.waitForSelector('.eval strong', { timeout: 15000 });
  assert.match(await page.locator('.eval strong').innerText(), /^([+-]?\d+\.\d\d|#-?\d+)$/);
  await screenshots(page, 'analysis-board');
  // Another variant from a FEN: a drop from the pocket.
  await page.selectOption('#variant', 'crazyhouse');
  await page.fill('#fen', 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Nn] w KQkq - 0 1');
  await page.click('#setup button[type=submit]');
  await page.waitForSelector('#status:has-text("crazyhouse: white to move")');
  await clickMove(page, 'N@e4');
  await page.waitForSelector('ol.moves button[data-ply="1"]:has-text("N@e4")');
  // A FEN that does not read: said, and the variant's start instead.
  await page.fill('#fen', 'not a fen');
  await page.click('#setup button[type=submit]');
  await page.waitForSelector('#error:has-text("invalid FEN")');
  await page.waitForSelector('#status:has-text("crazyhouse: white to move")');
  // SnowFall: the exact odds of the position shown, at the percentage chosen.
  await page.selectOption('#variant', 'snowfall');
  await page.fill('#fen', 'b3k3/8/8/8/6n1/8/7P/5BKR[] b - - 1 1');
  await page.click('#setup button[type=submit]');
  await page.waitForSelector('#odds dl.odds');
  assert.match(await page.locator('#odds').innerText(), /Black's gift, if one comes/);
  await page.fill('#sf-percent', '100');
  await page.locator('#sf-percent').dispatchEvent('change');
  await page.waitForSelector('#odds dt:has-text("A gift event after black\'s next move") + dd:has-text("100.0 %")');
  // A pasted record: its variant and moves, shown at the end; one with a gift is refused.
  await page.click('details.import summary');
  await page.fill('#pgn-in', '[Variant "Gardner"]\n\n1. d3 b4 2. exd4 *');
  await page.click('#import button[type=submit]');
  await page.waitForSelector('#error:has-text("does not read")');
  await page.fill('#pgn-in', '[Variant "Gardner"]\n\n1. d3 e3 *');
  await page.click('#import button[type=submit]');
  await page.waitForSelector('ol.moves button[data-ply="2"][aria-current="true"]:has-text("e3")');
  assert.match(page.url(), /\/analysis\?variant=gardner&play=d2d3%2Ce4e3$/);
  // A record with variations: listed, one played by a click; a side line that does not read is
  // said, and kept up to its bad move.
  await page.fill('#pgn-in', '1. e4 e5 (1... c5 2. Nf3 (2. c3 d5) d6) (1... e6 2. Qh5 Kxe4) 2. Nf3 *');
  await page.click('#import button[type=submit]');
  await page.waitForSelector('ol.moves button[data-ply="3"][aria-current="true"]:has-text("Nf3")');
  await page.waitForSelector('#error:has-text("A variation was not loaded: line 1: move 2... Kxe4: illegal")');
  assert.deepEqual(await page.locator('ul.variations button').allInnerTexts(), ['1… c5 2. Nf3 d6', '1… c5 2. c3 d5', '1… e6 2. Qh5']);
  await page.click('ul.variations button:has-text("2. c3 d5")');
  // (Shown at the move where it parts, as a variation's first move.)
  await page.waitForSelector('ol.moves button[data-ply="2"][aria-current="true"]:has-text("c5")');
  await page.waitForSelector('ol.moves button[data-ply="4"]:has-text("d5")');
  assert.match(page.url(), /play=e2e4%2Cc7c5%2Cc2c3%2Cd7d5$/);
  // The line left is a variation now, named as the main line, and the other side line parts
  // from this one at 2. Nf3.
  assert.deepEqual(await page.locator('ul.variations button').allInnerTexts(), ['2. Nf3 d6', '1… e6 2. Qh5', 'Main line: 1… e5 2. Nf3']);
  // The PGN to copy has them all, in parentheses where they leave the main line, which stays
  // the record's.
  await page.waitForFunction(() => document.getElementById('pgn-out').value.includes('('));
  assert.match(await page.locator('#pgn-out').inputValue(), /\n1\. e4 e5 \(1\.\.\. c5 2\. c3 \(2\. Nf3 d6\) 2\.\.\. d5\)\n?\s*\(1\.\.\. e6 2\. Qh5\) 2\. Nf3 \*\n$/);
  // An annotated record: its comments on lines of their own in the move list (Black's move
  // after one behind "1…"; a clock command not shown), its NAGs as glyphs, a variation's
  // opening comment where it begins; the PGN to copy keeps its tags, comments and NAGs.
  await page.fill('#pgn-in', '[White "Coach"]\n\n{start} 1. e4! {[%clk 0:03:00] best} e5 ({or} 1... c5 $5 {Sicilian} 2. Nf3) 2. Nf3 *');
  await page.click('#import button[type=submit]');
  await page.waitForSelector('ol.moves li.comment:has-text("start")');
  assert.deepEqual(await page.locator('ol.moves li').allTextContents(), [
    'comment before the first move: start', '1. e4!', 'comment on 1. e4: best', '1…', 'e5', '2. Nf3',
  ]);
  assert.equal(await page.locator('ol.moves button[data-ply="1"] .glyph.nag').getAttribute('title'), 'good move');
  await page.waitForFunction(() => document.getElementById('pgn-out').value.includes('best}'));
  const annotatedPgn = await page.locator('#pgn-out').inputValue();
  assert.match(annotatedPgn, /\[White "Coach"\]\n/);
  assert.match(annotatedPgn, /\n\{start\} 1\. e4 \$1 \{\[%clk 0:03:00\] best\} 1\.\.\. e5 \(\{or\} 1\.\.\. c5 \$5 \{Sicilian\}\s2\. Nf3\) 2\. Nf3 \*\n$/);
  await page.click('ul.variations button:has-text("1… c5 2. Nf3")');
  await page.waitForSelector('ol.moves button[data-ply="2"][aria-current="true"]:has-text("c5")');
  assert.deepEqual(await page.locator('ol.moves li').allTextContents(), [
    'comment before the first move: start', '1. e4!', 'comment on 1. e4: best', 'comment before 1… c5: or', '1…', 'c5!?',
    'comment on 1… c5: Sicilian', '2. Nf3',
  ]);
  // Two variations alike in their first eight moves are named apart by where they part.
  await page.fill('#pgn-in', '1. e4 (1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O) (1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. Nf3 O-O) 1... e5 *');
  await page.click('#import button[type=submit]');
  await page.waitForSelector('ul.variations button:has-text("5. e3")');
  assert.deepEqual(await page.locator('ul.variations button').allInnerTexts(), [
    '1. d4 d5 2. c4 e6 … 4. Bg5 Be7 5. e3 …', '1. d4 d5 2. c4 e6 … 4. Bg5 Be7 5. Nf3 …',
  ]);
  // A record from a FEN with Black to move at move 41 is numbered from there, Black's first
  // move in its column.
  await page.fill('#pgn-in', '[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/4P3/4K3 b - - 0 41"]\n\n41... Kd7 42. Kd2 (42. e4 Kc6) 42... Kd6 *');
  await page.click('#import button[type=submit]');
  await page.waitForSelector('ul.variations button:has-text("42. e4 Kc6")');
  assert.deepEqual(await page.locator('ol.moves li').allTextContents(), ['41…', 'Kd7', '42. Kd2', 'Kd6']);
  await page.fill('#pgn-in', '[Variant "SnowFall"]\n\n1. e4 {H:Qq gift W:Q B:Q} e5 *');
  await page.click('#import button[type=submit]');
  await page.waitForSelector('#error:has-text("1. e4 (ply 1) of the record brought gifts")');
  await page.selectOption('#variant', 'crazyhouse');
  await page.fill('#fen', '');
  await page.click('#setup button[type=submit]');
  await page.waitForSelector('#status:has-text("crazyhouse: white to move")');
  // A game against the AI from the position shown: the AI (White) is to move there.
  await page.click('#flip');
  await page.click('#play-ai');
  await page.waitForURL(/\/game\/[0-9a-f]+$/);
  const played = page.url().match(/\/game\/([0-9a-f]+)/)[1];
  const st = await stateOf(page, played);
  assert.deepEqual([st.variant, st.start_fen, st.white, st.black], ['crazyhouse', 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1', 'ai:engine', 'human']);
  await page.waitForSelector('#status:has-text("your move")', { timeout: 15000 });
  // From a finished game's page to the board at the position shown.
  await page.goto(`${base}/game/${id}`);
  await page.waitForSelector('#status:has-text("Game over")');
  await page.click('ol.moves button[data-ply="2"]');
  await page.click('#to-board');
  await page.waitForSelector('ol.moves button[data-ply="2"][aria-current="true"]:has-text("c5")');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the lobby lists the games this browser plays, where it is to move first', async () => {
  const { context, page, errors } = await desktopPage();
  await page.goto(`${base}/`);
  assert.equal(await page.locator('#mine-section').isHidden(), true, 'no games yet');
  const id = await newGame(page, { variant: 'chess', opponent: 'invite', color: 'white' });
  await page.click('nav a[href="/"]');
  const row = page.locator(`#mine tr:has(a[href="/game/${id}"])`);
  await row.waitFor();
  assert.match(await row.innerText(), /chess\s+white\s+your move/);
  await page.goto(`${base}/game/${id}`);
  await clickMove(page, 'e2e4');
  await until(async () => (await stateOf(page, id)).ply === 1, 'the move');
  await page.goto(`${base}/`);
  await row.waitFor();
  assert.match(await row.innerText(), /chess\s+white\s+waiting/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('an open seat withdrawn with Abort: the game ends without a result and the lobby no longer offers it', async () => {
  const { context, page, errors } = await desktopPage();
  page.on('dialog', d => d.accept());
  const id = await newGame(page, { variant: 'chess', opponent: 'open', color: 'white' });
  await page.waitForSelector('#resign:has-text("Abort")');
  await page.click('#resign');
  await page.waitForSelector('#status:has-text("Game aborted")', { timeout: 10000 });
  const st = await stateOf(page, id);
  assert.deepEqual([st.result, st.reason, st.open_to_anyone], ['*', 'aborted', false]);
  await page.goto(base + '/');
  await page.waitForSelector(`#games a[href="/game/${id}"]`);
  assert.equal(await page.locator(`button.join[data-id="${id}"]`).count(), 0);
  assert.match(await page.locator(`#games tr:has(a[href="/game/${id}"])`).innerText(), /chess\s+a person\s+a person\s+aborted/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a board where one person moves both sides: both colours by clicking, a takeback of one ply, a draw, imported moves', async () => {
  const { context, page, errors } = await desktopPage();
  page.on('dialog', d => d.accept());
  const id = await newGame(page, { variant: 'chess', opponent: 'me', color: 'white' });
  await page.waitForSelector('#status:has-text("White: you; Black: you")');
  await clickMove(page, 'e2e4');
  await page.waitForSelector('#status:has-text("black to move — your move")');
  // The board stays with White at the bottom while Black moves.
  assert.equal(await page.locator('.board-wrap').getAttribute('data-orientation'), 'white');
  await clickMove(page, 'e7e5');
  await until(async () => (await stateOf(page, id)).ply === 2, "Black's move");
  await page.waitForSelector('#status:has-text("white to move — your move")');
  // Take back: Black's move only.
  assert.equal(await page.locator('#takeback').innerText(), 'Take back');
  await page.click('#takeback');
  const st = await until(async () => { const s = await stateOf(page, id); return s.ply === 1 && s; }, 'the takeback of one ply');
  assert.equal(st.turn, 'black');
  await page.waitForSelector('#status:has-text("black to move — your move")');
  await clickMove(page, 'c7c5');
  await until(async () => (await stateOf(page, id)).ply === 2, 'the other reply');
  await page.waitForSelector('#status:has-text("white to move — your move")');
  await page.click('#draw');
  const end = await until(async () => { const s = await stateOf(page, id); return s.status === 'finished' && s; }, 'the draw');
  assert.equal(end.result, '1/2-1/2');
  // Its rematch: one person again on both sides of a new board.
  await page.click('#rematch');
  await page.waitForURL(url => !url.pathname.endsWith(id));
  await page.waitForSelector('#status:has-text("White: you; Black: you")');
  const again = page.url().match(/\/game\/([0-9a-f]+)/)[1];
  await clickMove(page, 'd2d4');
  await until(async () => (await stateOf(page, again)).ply === 1, 'the first move of the rematch');
  // A board from imported moves: the game goes on from them.
  const imported = await newGame(page, { variant: 'chess', opponent: 'me', color: 'white', pgn: '1. e4 e5 2. Nf3 Nc6' });
  await page.waitForSelector('#status:has-text("white to move — your move")');
  assert.deepEqual((await stateOf(page, imported)).moves.map(m => m.san), ['e4', 'e5', 'Nf3', 'Nc6']);
  await clickMove(page, 'f1b5');
  await until(async () => (await stateOf(page, imported)).ply === 5, 'the move after the imported ones');
  // Predictor chess cannot be played so: the form says why.
  await page.goto(base + '/');
  await page.selectOption('#variant', 'predictor');
  await page.selectOption('select[name=opponent]', 'me');
  await page.click('button[type=submit]');
  await page.waitForSelector('#create .error:has-text("two sides ordering in secret")');
  assert.deepEqual(errors, []);
  await context.close();
});

test('chess960: castling by clicking the king, then its rook (the king stays on g1), also premoved', async () => {
  const { context, page, errors } = await desktopPage();
  const fen = 'b1rb1nk1/1p3p2/p3pnpp/2ppB3/1P3P2/2PPN1P1/P3P2P/1QRBN1KR w KQq - 0 11';
  const id = await newGame(page, { variant: 'chess960', opponent: 'ai:level1', color: 'white', movetime: 20, fen });
  await page.waitForSelector('#status:has-text("your move")');
  await clickMove(page, 'g1h1');
  const st = await until(async () => { const s = await stateOf(page, id); return s.ply >= 1 && s; }, 'the castling');
  assert.equal(st.moves[0].san, 'O-O');
  assert.match(st.moves[0].fen, /^b1rb1nk1\/1p3p2\/p3pnpp\/2ppB3\/1P3P2\/2PPN1P1\/P3P2P\/1QRBNRK1 b q /);
  await page.waitForFunction(() => document.querySelectorAll('ol.moves li').length >= 1);
  // The king moved to its castling square castles too, where no other king move goes there.
  const wide = 'rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w KQkq - 0 1';
  const second = await newGame(page, { variant: 'chess960', opponent: 'ai:level1', color: 'white', movetime: 20, fen: wide });
  await page.waitForSelector('#status:has-text("your move")');
  await clickMove(page, 'b1g1');
  const castled = await until(async () => { const s = await stateOf(page, second); return s.ply >= 1 && s; }, 'castling by the king\'s square');
  assert.deepEqual([castled.moves[0].uci, castled.moves[0].san], ['b1h1', 'O-O']);
  // The castling squares a king may be dropped on follow the board's width (short: the second
  // file from the corner; long: the c-file), on boards of any height; a square the king steps
  // to is no castling gesture.
  const gestures = await page.evaluate(async () => {
    const { castlingGestures } = await import('/static/js/board.js');
    const of = (legal, fen) => [...castlingGestures(legal, fen).entries()].map(([g, m]) => `${g}=${m}`);
    return [
      of(['e1h1'], '4k3/8/8/8/8/8/8/4K2R w K - 0 1'),
      of(['d1f1', 'd1a1'], 'r2k1r/pppppp/6/6/6/6/PPPPPP/R2K1R w KQkq - 0 1'),
      of(['d1f1', 'd1a1'], 'r2k1r/pppppp/6/6/PPPPPP/R2K1R w KQkq - 0 1'),
      of(['d1f1', 'd1a1', 'd1e1'], 'r2k1r/pppppp/6/6/PPPPPP/R2K1R w KQkq - 0 1'),
    ];
  });
  assert.deepEqual(gestures, [['e1g1=e1h1'], ['d1e1=d1f1', 'd1c1=d1a1'], ['d1e1=d1f1', 'd1c1=d1a1'], ['d1c1=d1a1']]);
  // Castling premoved while the AI thinks: the king onto its rook, as Chess960 castles
  // (chessgroundx's premove king may go onto any rook of its back rank).
  const pre = await newGame(page, { variant: 'chess960', opponent: 'ai', color: 'white', movetime: 1500, fen: wide });
  await page.waitForSelector('#status:has-text("your move")');
  await clickMove(page, 'a2a3');
  await page.waitForSelector('#status:has-text("the AI is thinking")');
  await clickMove(page, 'b1h1');
  assert.deepEqual(await page.evaluate(() => window.fairylab.board().pendingPremove()), ['b1', 'h1']);
  const premoved = await until(async () => { const s = await stateOf(page, pre); return s.ply >= 3 && s; }, 'the castling premove played');
  assert.deepEqual([premoved.moves[2].uci, premoved.moves[2].san], ['b1h1', 'O-O']);
  // A game from the lobby without a FEN starts from a drawn position, numbered in the options.
  const other = await newGame(page, { variant: 'chess960', opponent: 'ai:level1', color: 'white', movetime: 20 });
  const drawn = await stateOf(page, other);
  assert.equal(typeof drawn.options.chess960, 'number');
  assert.match(drawn.start_fen, /^[bnqrk]{8}\/p{8}\/8\/8\/8\/8\/P{8}\/[BNQRK]{8} w KQkq - 0 1$/);
  // The page names the start by its number and back rank.
  const rank = drawn.start_fen.split('/')[7].split(' ')[0];
  await page.waitForSelector(`.c960:has-text("start position no. ${drawn.options.chess960} (${rank})")`);
  // Crazyhouse960: a drawn start with pockets, named the same way.
  const zh = await newGame(page, { variant: 'crazyhouse960', opponent: 'ai:level1', color: 'white', movetime: 20 });
  const zs = await stateOf(page, zh);
  assert.match(zs.start_fen, /^[bnqrk]{8}\/p{8}\/8\/8\/8\/8\/P{8}\/[BNQRK]{8}\[\] w KQkq - 0 1$/);
  const zrank = zs.start_fen.split('/')[7].split('[')[0];
  await page.waitForSelector(`h2:has-text("Crazyhouse960") + .c960:has-text("start position no. ${zs.options.chess960} (${zrank})")`);
  await page.waitForSelector('.pocket-slot.bottom square', { state: 'attached' });
  assert.deepEqual(errors, []);
  await context.close();
});

test('a promotion asks for the piece (a knight chosen with the keyboard), and Escape cancels it', async () => {
  const { context, page, errors } = await desktopPage();
  const id = await newGame(page, { variant: 'chess', opponent: 'invite', fen: '8/P6k/8/8/8/8/8/K7 w - - 0 1' });
  await page.waitForSelector('#status:has-text("your move")');
  // Cancelled: nothing is played and the pawn is back.
  await clickMove(page, 'a7a8');
  await page.waitForSelector('.promotion[role=dialog]');
  assert.deepEqual(await page.locator('.promotion button').allInnerTexts(), ['Queen', 'Rook', 'Bishop', 'Knight', 'Cancel']);
  await page.keyboard.press('Escape');
  await page.waitForSelector('.promotion', { state: 'detached' });
  assert.equal((await stateOf(page, id)).ply, 0);
  // Chosen from the keyboard: Tab to the knight, Enter.
  await clickMove(page, 'a7a8');
  await page.waitForSelector('.promotion[role=dialog]');
  for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Knight');
  await page.keyboard.press('Enter');
  const st = await until(async () => {
    const s = await stateOf(page, id);
    return s.ply === 1 && s;
  }, 'the promotion');
  assert.equal(st.moves[0].uci, 'a7a8n');
  assert.equal(st.moves[0].san, 'a8=N');
  assert.deepEqual(errors, []);
  await context.close();
});

test('crazyhouse: pockets and drops', async () => {
  const { drops } = await playVariant('crazyhouse', 2, { greedy: true });
  assert.ok(drops > 0, 'no drop was played from the pocket');
});

test('gardner on a 5x5 board, against a weaker AI (level 2 of 8)', async () => {
  const { id } = await playVariant('gardner', 3, { opponent: 'ai:level2', panel: async p => /Black: the AI, level 2 of 8/.test(await p.locator('#status').innerText()) });
  const res = await fetch(`${base}/api/games/${id}`);
  assert.equal((await res.json()).black, 'ai:level2');
});

/** The board's coordinates as seen: the rank names top to bottom, the file names left to right. */
async function coordinatesSeen(page) {
  return page.evaluate(() => {
    const read = (sel, key) =>
      [...document.querySelectorAll(sel)]
        .map(c => [c.getBoundingClientRect()[key], c.textContent])
        .sort((a, b) => a[0] - b[0])
        .map(([, t]) => t)
        .join('');
    return [read('.board-wrap coords.side coord', 'top'), read('.board-wrap coords.bottom coord', 'left')];
  });
}

test('the board names its files and ranks, and they turn with it', async () => {
  const { context, page, errors } = await desktopPage();
  await newGame(page, { variant: 'gardner', opponent: 'me', color: 'white' });
  await page.waitForSelector('.board-wrap coords.side');
  assert.deepEqual(await coordinatesSeen(page), ['54321', 'abcde']);
  // Each name sits on its own square: the rank 1 name is on a1, the file e name on e1.
  const [a1, e1] = await Promise.all([squareCenter(page, 0, 0), squareCenter(page, 4, 0)]);
  const at = (sel, text) =>
    page.evaluate(([sel, text]) => {
      const r = [...document.querySelectorAll(sel)].find(c => c.textContent === text).getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    }, [sel, text]);
  const one = await at('.board-wrap coords.side coord', '1');
  const e = await at('.board-wrap coords.bottom coord', 'e');
  const half = (await page.locator('.board-wrap').boundingBox()).width / 5 / 2;
  const inside = (p, c) => Math.abs(p.x - c.x) < half && Math.abs(p.y - c.y) < half;
  assert.ok(inside(one, a1) && inside(e, e1), `coordinates off their squares: ${JSON.stringify({ one, a1, e, e1, half })}`);
  await page.click('#flip');
  await until(async () => (await coordinatesSeen(page))[0] === '12345', 'the ranks to turn with the board');
  assert.deepEqual(await coordinatesSeen(page), ['12345', 'edcba']);
  assert.deepEqual(errors, []);
  await context.close();
});

test('on a phone: the board fits, names its squares the right way, and takes taps; held sideways it fits the height', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', e => errors.push(e.message));
  const id = await newGame(page, { variant: 'snowfall', movetime: 20 });
  await page.waitForSelector('.board-wrap coords.side');
  assert.deepEqual(await coordinatesSeen(page), ['87654321', 'abcdefgh']);
  const layout = () =>
    page.evaluate(() => {
      const box = s => document.querySelector(s).getBoundingClientRect();
      return {
        width: document.documentElement.scrollWidth,
        board: box('.board-wrap').toJSON(),
        status: box('#status').toJSON(),
        moves: box('#moves').toJSON(),
        rematchShown: document.getElementById('to-rematch').getBoundingClientRect().height > 0,
      };
    });
  let l = await layout();
  assert.equal(l.width, 390, 'the page scrolls sideways');
  assert.ok(l.board.width > 350, `the board is ${l.board.width} px wide`);
  // What a player needs while playing is on the first screen: the status and the moves' heading.
  assert.ok(l.status.bottom < 844 && l.moves.top < 800, JSON.stringify(l));
  assert.ok(!l.rematchShown, 'a hidden link is shown');
  // A move by two taps.
  for (const [file, rank] of [[4, 1], [4, 3]]) {
    const c = await squareCenter(page, file, rank);
    await page.touchscreen.tap(c.x, c.y);
  }
  await until(async () => (await stateOf(page, id)).moves.length >= 1, 'the tapped move');
  assert.equal((await stateOf(page, id)).moves[0].uci, 'e2e4');
  // Sideways: board and pockets within the window's height, the status beside them.
  await page.setViewportSize({ width: 844, height: 390 });
  await page.waitForTimeout(300);
  l = await layout();
  assert.ok(l.board.bottom <= 390 && l.status.left >= l.board.right && l.status.top < 390, JSON.stringify(l));
  assert.deepEqual(errors, []);
  await context.close();
});

test('baby chess', async () => {
  // The panel shows a piece that has spent a column switch (from the FEN's counts).
  await playVariant('baby', 4, { panel: async p => /: [0-4] left/.test(await p.locator('#variant-panel').innerText()) });
});

test('snowfall: hands and gifts', async () => {
  // SnowFall 100 %: a gift event after every move, so the panel must show gifts.
  // The odds come from the server's explainer: a queen's chance and the danger of a gift mate.
  await playVariant('snowfall', 5, {
    snowfall: 100,
    panel: async p =>
      (await p.locator('.gifts li').first().innerText()).startsWith('after ply') &&
      /a queen \d+\.\d %/.test(await p.locator('dl.odds').innerText().catch(() => '')) &&
      /mates (white|black) next move \(after (white|black)'s move and its gift\)/.test(await p.locator('dl.odds').innerText()),
  });
});

test("a SnowFall game's link to the analysis board carries its percentage, which the board's odds use", async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', e => errors.push(e.message));
  const id = await newGame(page, { variant: 'snowfall', movetime: 20, snowfall: 23 });
  await page.waitForSelector('.board-wrap');
  await until(async () => (await stateOf(page, id)).ply === 0, 'the game to start');
  const href = await page.getAttribute('#to-board', 'href');
  assert.match(href, /[?&]snowfall=23(&|$)/);
  await page.goto(base + href);
  await page.waitForSelector('#odds:not([hidden])', { timeout: 10000 });
  assert.equal(await page.inputValue('#sf-percent'), '23');
  await page.waitForFunction(() => /23\.0 %/.test(document.getElementById('odds-figures').textContent), null, { timeout: 15000 });
  assert.match(page.url(), /[?&]snowfall=23(&|$)/, 'the page keeps it in its own address');
  assert.deepEqual(errors, []);
  await context.close();
});

test('probabilistic: the map and the rolls', async () => {
  await playVariant('probabilistic', 6, {
    panel: async p => (await p.locator('.prob').count()) === 64 && (await p.locator('.roll').count()) > 0,
    review: true,
    failedMark: true,
  });
});

/** A page's Predictor game: waits until its order form is open for `ply`, or the game ended. */
async function orderFormOpen(page, ply) {
  await page.waitForFunction(
    ply => {
      const [status, form, at] = ['#status', '#orders', '#pred-ply'].map(s => document.querySelector(s));
      return (status && status.textContent.startsWith('Game over')) || (form && !form.hidden && at.textContent === `ply ${ply}`);
    },
    ply,
    { timeout: 15000, polling: 50 },
  );
}

/**
 * One side's orders for a Predictor ply, given on the board: the primary by clicking, and when
 * `conditional`, a prediction and a response (the response picked at random among this side's
 * moves: when the server's check refuses it, the page shows why and the side commits the
 * primary alone). Returns whether a conditional was committed.
 */
async function giveOrders(page, id, color, pick, conditional, shots) {
  const st = await stateOf(page, id);
  const ply = st.ply;
  const other = color === 'white' ? 'black' : 'white';
  const mine = st.primaries[color];
  // A gesture fills the selected field (chessground reports it a moment later).
  const gesture = async (slot, uci) => {
    await clickMove(page, uci);
    await page.waitForFunction(s => document.getElementById(`o-${s}`).value !== '', slot, { timeout: 5000 }).catch(() => {
      throw new Error(`${color}: the board gesture ${uci} did not fill the ${slot} (ply ${ply})`);
    });
  };
  await gesture('primary', mine[pick(mine.length)]);
  if (conditional) {
    const theirs = st.primaries[other];
    await gesture('prediction', theirs[pick(theirs.length)]);
    await gesture('response', mine[pick(mine.length)]);
  }
  if (shots) {
    // The order form filled in, at desktop and phone width.
    await screenshots(page, shots);
  }
  await page.click('#o-commit');
  // Either the commitment is in (the form closes, or the ply already resolved) or the check
  // said why not.
  const settled = () =>
    page.waitForFunction(
      ply => document.querySelector('#o-error').textContent !== '' || document.querySelector('#orders').hidden || document.querySelector('#pred-ply').textContent !== `ply ${ply}`,
      ply,
      { timeout: 10000 },
    );
  await settled();
  if ((await page.locator('#o-error').innerText()) !== '') {
    assert.match(await page.locator('#o-error').innerText(), /prediction|response|primary|path|piece|target/i);
    await page.fill('#o-prediction', '');
    await page.fill('#o-response', '');
    await page.click('#o-commit');
    await page.waitForFunction(
      ply => document.querySelector('#orders').hidden || document.querySelector('#pred-ply').textContent !== `ply ${ply}`,
      ply,
      { timeout: 10000 },
    );
    assert.equal(await page.locator('#o-error').innerText(), '');
    return false;
  }
  return conditional;
}

/** The end of a Predictor game on a page: over, seals and seed verified, the record downloaded. */
async function predictorEnd(page, id, name) {
  await page.waitForSelector('#status:has-text("Game over")', { timeout: 15000 });
  await page.waitForSelector('.verified:has-text("seals verified")', { timeout: 10000 });
  assert.equal(await page.locator('.verified:has-text("seals verified")').count(), 1, 'the seals are reported once');
  await page.waitForSelector('.verified:has-text("verified ✓")', { timeout: 10000 });
  const download = page.waitForEvent('download');
  await page.click('#record');
  const record = readFileSync(await (await download).path(), 'utf8');
  assert.match(record, /\[Variant "Predictor"\]/);
  assert.match(record, new RegExp(`\\[GameId "${id}"\\]`));
  assert.match(record, /commit: W [0-9a-f]{64} B [0-9a-f]{64}/);
  await screenshots(page, name);
}

test('predictor against the AI: orders given on the board, sealed in the browser, the ply report', async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', e => errors.push(e.message));
  page.on('dialog', d => d.accept());
  const id = await newGame(page, { variant: 'predictor', movetime: 20, plySeconds: 600 });
  // Predictor chess is timed by the ply, from the form's own field.
  assert.equal((await stateOf(page, id)).options.ply_seconds, 600);
  const pick = lcg(7);
  let conditionals = 0;
  let ply = 1;
  for (; ply <= 30; ply++) {
    await orderFormOpen(page, ply);
    if ((await stateOf(page, id)).status !== 'active') break;
    // The last ply's moves are marked on the board while the next orders are written: both
    // primaries and the responses that fired.
    if (ply > 1) {
      const plies = (await stateOf(page, id)).plies;
      const m = plies[plies.length - 1].match(/^\d+\.\s+(.*?)\s+\|\s+(.*?)\s*(?:\{(.*)\})?$/);
      const fired = ((m[3] || '').match(/fired: (\w+)/) || [])[1] || '';
      const squares = new Set();
      for (const [i, side] of [[1, 'white'], [2, 'black']]) {
        const w = m[i].split(/\s+/);
        const moves = [w[0], ...(fired === side || fired === 'both' ? [w[4]] : [])];
        for (const u of moves) if (/^[a-h][1-8][a-h][1-8]/.test(u)) { squares.add(u.slice(0, 2)); squares.add(u.slice(2, 4)); }
      }
      const marked = await page.evaluate(() => [...document.querySelectorAll('cg-board square.last-move')].map(e => e.cgKey).sort());
      assert.deepEqual(marked, [...squares].sort(), `ply ${ply - 1}: ${plies[plies.length - 1]}`);
    }
    if (await giveOrders(page, id, 'white', pick, ply % 3 === 1, ply === 4 ? 'predictor-orders' : null)) conditionals++;
    await until(async () => {
      const s = await stateOf(page, id);
      return s.ply > ply || s.status !== 'active';
    }, `predictor: ply ${ply} to resolve`);
    // The ply report shows this ply's four moves.
    if ((await stateOf(page, id)).status === 'active') {
      await page.waitForSelector(`#pred-report h3:has-text("Ply ${ply} report")`, { timeout: 10000 });
      assert.equal(await page.locator('table.ply-report tbody tr').count(), 2);
      assert.equal(await page.locator('ol.plies li').count(), ply);
    }
  }
  if ((await stateOf(page, id)).status === 'active') await page.click('#resign');
  await predictorEnd(page, id, 'predictor');
  assert.ok(ply > 2, 'the game ended before a few plies were played');
  assert.deepEqual(errors, []);
  await context.close();
});

test('predictor between two people in two browsers: commitments, reveals, a team member', async () => {
  const ctxA = await browser.newContext({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
  const ctxB = await browser.newContext({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
  const a = await ctxA.newPage();
  const b = await ctxB.newPage();
  const errors = [];
  for (const p of [a, b]) {
    p.on('pageerror', e => errors.push(e.message));
    p.on('dialog', d => d.accept());
  }
  const id = await newGame(a, { variant: 'predictor', opponent: 'invite' });
  const link = await a.inputValue('.invite input');
  await b.goto(link);
  await b.waitForSelector('#orders');
  // The seat is taken: the link goes from the creator's page.
  await a.waitForSelector('#invite', { state: 'hidden' });
  // White's captain adds a member; the member's link shows the team with the member in it.
  await a.click('#pred-team-form summary');
  await a.fill('#m-name', 'bo');
  await a.fill('#m-rank', '2');
  await a.click('#member-form button');
  const memberLink = await a.inputValue('#m-link input');
  const ctxC = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const c = await ctxC.newPage();
  await c.goto(memberLink);
  await c.waitForSelector('ul.team li:has-text("bo (rank 2) — you")');
  await ctxC.close();
  const pick = lcg(11);
  let conditionals = 0;
  for (let ply = 1; ply <= 5; ply++) {
    await orderFormOpen(a, ply);
    await orderFormOpen(b, ply);
    // White commits first: Black's page shows the commitment, never the orders.
    if (await giveOrders(a, id, 'white', pick, ply === 2)) conditionals++;
    await b.waitForSelector('#pred-status:has-text("white: committed")', { timeout: 10000 });
    const whiteReveal = await a.locator('#o-line').textContent();
    assert.match(whiteReveal, new RegExp(`^predictor-reveal v1 game=${id} ply=${ply} side=white`));
    assert.ok(!(await b.content()).includes(whiteReveal), "White's sealed orders reached Black's page");
    assert.ok(!JSON.stringify(await stateOf(b, id)).includes(whiteReveal.split('orders=')[0]));
    if (await giveOrders(b, id, 'black', pick, ply >= 3)) conditionals++;
    for (const p of [a, b]) await p.waitForSelector(`#pred-report h3:has-text("Ply ${ply} report")`, { timeout: 15000 });
  }
  assert.equal(await b.locator('ol.plies li').count(), 5);
  // The game browsed by its plies: a ply in the list, ←/→, Now »; the board and the report follow.
  const fens = (await stateOf(b, id)).fens;
  assert.equal(fens.length, 5);
  const boardPlacement = () => b.evaluate(() => window.fairylab.board().cg.getFen());
  await b.click('ol.plies button[data-ply="2"]');
  await b.waitForSelector('#pred-report h3:has-text("Ply 2 report")');
  assert.equal(await boardPlacement(), fens[1].split(' ')[0]);
  assert.match(await b.locator('#moves .browsing').innerText(), /after ply 2 of 5/);
  await b.locator('#moves button[data-step="1"]').focus();
  await b.keyboard.press('ArrowRight');
  await b.waitForSelector('#pred-report h3:has-text("Ply 3 report")');
  assert.equal(await boardPlacement(), fens[2].split(' ')[0]);
  await b.click('#moves button[data-ply="0"]');
  await until(async () => (await boardPlacement()) === (await stateOf(b, id)).start_fen.split(' ')[0], 'the start position');
  await b.click('#moves button[data-ply="5"]');
  await b.waitForSelector('#pred-report h3:has-text("Ply 5 report")');
  assert.equal(await boardPlacement(), fens[4].split(' ')[0]);
  await b.click('#resign');
  await predictorEnd(a, id, 'predictor-two-white');
  await predictorEnd(b, id, 'predictor-two-black');
  assert.deepEqual(errors, []);
  await ctxA.close();
  await ctxB.close();
});

test('predictor: a side whose chosen member does not reveal in time forfeits, and both pages say why; the deadline is counted down', async () => {
  const ctxA = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const ctxB = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const a = await ctxA.newPage();
  const b = await ctxB.newPage();
  const errors = [];
  for (const p of [a, b]) p.on('pageerror', e => errors.push(e.message));
  const id = await newGame(a, { variant: 'predictor', opponent: 'invite', plySeconds: 4 });
  await b.goto(await a.inputValue('.invite input'));
  await b.waitForSelector('#orders');
  await orderFormOpen(a, 1);
  await a.waitForFunction(() => /^Orders due in \d+ s$/.test(document.getElementById('pred-countdown').textContent), null, { timeout: 5000 });
  // Black commits, then its page goes before the ply closes (its reveal stays in that browser).
  await giveOrders(b, id, 'black', lcg(3), false);
  await b.close();
  await giveOrders(a, id, 'white', lcg(5), false);
  await a.waitForSelector('#status:has-text("Game over")', { timeout: 20000 });
  const said = await a.locator('#status').innerText();
  assert.match(said, /White wins by forfeit \(1-0\)\. Ply 1: black's chosen member \(.+\) did not reveal the committed orders by the reveal deadline\. You won\./);
  assert.match(await a.locator('#pred-status').innerText(), /did not reveal/);
  assert.equal(await a.locator('#pred-countdown').innerText(), '');
  // Black's page, opened again, says the same from its side.
  const b2 = await ctxB.newPage();
  b2.on('pageerror', e => errors.push(e.message));
  await b2.goto(`${base}/game/${id}`);
  await b2.waitForSelector('#status:has-text("did not reveal")', { timeout: 10000 });
  assert.match(await b2.locator('#status').innerText(), /You lost\.$/);
  // A finished game shows no commitment of a ply never played.
  assert.equal(await b2.locator('ul.commits').count(), 0);
  assert.deepEqual(errors, []);
  await ctxA.close();
  await ctxB.close();
});

// The game page for a screen reader, the keyboard alone and a lost connection (the findings
// of an accessibility and a player's audit).

/** A player's token for a game, as this browser holds it. */
const tokenOf = (page, id) => page.evaluate(id => JSON.parse(localStorage.getItem(`fairylab:seat:${id}`)).token, id);

test('a promotion dialog closes when the move is made otherwise, the board turns, on Escape anywhere or a click outside; the focus goes into it and back', async () => {
  const { context, page, errors } = await desktopPage();
  const id = await newGame(page, { variant: 'chess', opponent: 'invite', fen: '8/P6k/8/8/8/8/8/K7 w - - 0 1' });
  await page.waitForSelector('#status:has-text("your move")');
  const dialog = page.locator('.promotion');
  const ask = async () => {
    await clickMove(page, 'a7a8');
    await dialog.waitFor({ timeout: 5000 });
    assert.ok(await page.evaluate(() => !!document.activeElement.closest('.promotion')), 'the focus is in the dialog');
  };
  const closed = () => dialog.waitFor({ state: 'detached', timeout: 5000 });
  // Escape: closed, the focus back on the board.
  await ask();
  await page.keyboard.press('Escape');
  await closed();
  assert.ok(await page.evaluate(() => document.activeElement.matches('.board-wrap')), 'the focus is back on the board');
  // Escape with the focus elsewhere (the move field): closed, the focus left there.
  await ask();
  await page.focus('#move-text');
  await page.keyboard.press('Escape');
  await closed();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'move-text');
  // The board turned (Flip board pressed from a script: no click outside), and back.
  await ask();
  await page.evaluate(() => document.getElementById('flip').click());
  await closed();
  await page.evaluate(() => document.getElementById('flip').click());
  // A click outside it.
  await ask();
  await page.click('#status');
  await closed();
  assert.equal((await stateOf(page, id)).ply, 0, 'nothing played');
  // The move made otherwise (by the API, as from another tab): closed, its stale choice gone.
  await ask();
  const token = await tokenOf(page, id);
  await page.evaluate(
    async ([id, token]) => fetch(`/api/games/${id}/moves`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ move: 'a8=R', ply: 0 }) }),
    [id, token],
  );
  await closed();
  assert.deepEqual((await stateOf(page, id)).moves.map(m => m.uci), ['a7a8r']);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a move made while the server cannot be reached goes back at once, and a banner above the board says so until the server answers again', async () => {
  const { context, page, errors } = await desktopPage();
  const id = await newGame(page, { variant: 'chess', opponent: 'ai:level1', movetime: 20 });
  await page.waitForSelector('#status:has-text("your move")');
  // Every request fails as with the network down (the live stream stays open).
  await page.route('**/api/games/**', route => route.abort('internetdisconnected'));
  await clickMove(page, 'e2e4');
  const banner = page.locator('#conn');
  await page.waitForSelector('#conn:has-text("Connection to the server lost")', { timeout: 5000 });
  assert.equal(await banner.getAttribute('role'), 'status');
  const pawn = () => page.evaluate(() => {
    const pieces = window.fairylab.board().cg.state.boardState.pieces;
    return [pieces.get('e2') && pieces.get('e2').role, pieces.has('e4')];
  });
  assert.deepEqual(await pawn(), ['p-piece', false], 'the pawn is back on e2');
  const [b, w] = [await banner.boundingBox(), await page.locator('.board-wrap').boundingBox()];
  assert.ok(b.y + b.height <= w.y + 1, 'the banner is above the board');
  assert.notEqual(await page.locator('#error').innerText(), '');
  // The server reachable again: the banner and the error go, and the move is made.
  await page.unroute('**/api/games/**');
  await page.waitForFunction(() => document.getElementById('conn').textContent === '' && document.getElementById('error').textContent === '', null, { timeout: 10000 });
  await clickMove(page, 'e2e4');
  await until(async () => (await stateOf(page, id)).ply >= 1, 'the move once the server answers');
  assert.deepEqual(errors, []);
  await context.close();
});

test("the creator's own address (?shared=) seats the friend who opens it, as the invitation does", async () => {
  const { a, b, pa, pb, errors } = await twoBrowsers();
  const id = await newGame(pa, { variant: 'chess', opponent: 'invite', color: 'white' });
  const address = pa.url();
  assert.match(address, /\?shared=[0-9a-f]+$/);
  await pb.goto(address);
  await pb.waitForSelector('#status:has-text("Black: you")', { timeout: 10000 });
  assert.equal(pb.url(), `${base}/game/${id}`);
  assert.equal(await pb.locator('#invite').count(), 0, 'no invitation for the friend to send');
  await pa.waitForSelector('#invite', { state: 'hidden' });
  // The creator opening it again keeps their seat.
  await pa.goto(address);
  await pa.waitForSelector('#status:has-text("White: you")');
  assert.equal((await stateOf(pa, id)).open_seat, null);
  assert.deepEqual(errors, []);
  await Promise.all([a.close(), b.close()]);
});

test("the moves and the end said in one live region (not at the load or while browsing), the title says whose move or the result, the result in words, and why the AI's draw button is off", async () => {
  const { context, page, errors } = await desktopPage();
  page.on('dialog', d => d.accept());
  await page.goto(base + '/');
  assert.equal(await page.title(), 'fairylab — lobby');
  const id = await newGame(page, { variant: 'chess', opponent: 'ai:level1', color: 'white', movetime: 20 });
  await page.waitForSelector('#status:has-text("your move")');
  await page.waitForFunction(() => document.title === 'Your move — chess — fairylab', null, { timeout: 5000 });
  const live = page.locator('#announce');
  assert.equal(await live.getAttribute('aria-live'), 'polite');
  assert.equal(await live.textContent(), '', 'nothing said at the load');
  await page.evaluate(() => { window.liveRegion = document.getElementById('announce'); });
  await clickMove(page, 'e2e4');
  const st = await until(async () => { const s = await stateOf(page, id); return s.ply === 2 && s; }, "the AI's reply");
  // Said in words, with the reply's target square: `Black played knight to f6. Your move.`
  // (each announcement a line of its own, added to the region).
  const square = st.moves[1].san.match(/[a-h][1-8]/g).pop();
  await page.waitForFunction(sq => new RegExp(`Black played [a-z ]+${sq}[a-z ,]*\\. Your move\\.$`).test(document.getElementById('announce').textContent), square, { timeout: 5000 });
  // Browsing the game says nothing.
  const said = await live.textContent();
  await page.click('ol.moves button[data-ply="1"]');
  await page.waitForSelector('.browsing');
  await page.click('.browse button[data-ply="2"]');
  assert.equal(await live.textContent(), said);
  // The AI takes no draw offers: the disabled button says why.
  assert.equal(await page.locator('#draw').isDisabled(), true);
  assert.equal(await page.locator('#draw').getAttribute('title'), 'The AI takes no draw offers.');
  assert.equal(await page.evaluate(() => document.getElementById(document.getElementById('draw').getAttribute('aria-describedby')).textContent), 'The AI takes no draw offers.');
  // Resigned: who won and how, for this player too, said, and in the title.
  await page.click('#resign');
  await page.waitForSelector('#status:has-text("Game over")', { timeout: 10000 });
  assert.equal(await page.locator('#status').innerText(), 'Game over: Black wins by resignation (0-1). You lost.');
  await page.waitForFunction(() => document.getElementById('announce').textContent.includes('Game over: Black wins by resignation (0-1). You lost.'), null, { timeout: 5000 });
  assert.equal(await page.title(), 'Game over: 0-1 — chess — fairylab');
  assert.ok(await page.evaluate(() => window.liveRegion === document.getElementById('announce')), 'one live region, kept');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a malformed game address and a wrong invitation code are said on the page (no alert); a spectator has no Resign or Offer draw', async () => {
  const { context, page, errors } = await desktopPage();
  const dialogs = [];
  page.on('dialog', d => {
    dialogs.push(d.message());
    d.dismiss();
  });
  await page.goto(`${base}/game/not-a-hex-id`);
  await page.waitForSelector('#error:has-text("No such game.")', { timeout: 5000 });
  assert.equal(await page.locator('#create').count(), 0, 'not the lobby');
  // A game waiting for its invited player, opened with a wrong code: watched.
  const g = await page.evaluate(async () => (await fetch('/api/games', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ variant: 'chess', white: 'me', black: 'invite' }) })).json());
  await page.goto(`${base}/game/${g.id}?invite=0000`);
  await page.waitForSelector('#error:has-text("This invitation could not be used")', { timeout: 5000 });
  await page.waitForSelector('#status:has-text("white to move")');
  assert.deepEqual(dialogs, []);
  assert.equal(page.url(), `${base}/game/${g.id}`);
  assert.equal(await page.locator('#resign').isHidden(), true);
  assert.equal(await page.locator('#draw').isHidden(), true);
  assert.equal(await page.title(), 'White to move — chess — fairylab');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the board played from the keyboard alone: the skip link to it, its cursor, a piece picked up and put down, the position in words; the page has a heading', async () => {
  const { context, page, errors } = await desktopPage();
  const id = await newGame(page, { variant: 'chess', opponent: 'ai:level1', color: 'white', movetime: 20 });
  await page.reload();
  await page.waitForSelector('#status:has-text("your move")');
  assert.equal(await page.locator('h1#game-h').textContent({ timeout: 5000 }), 'chess game: you (white) against the AI, level 1 of 8');
  // The first Tab: the skip link, which goes to the board.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.className), 'skip');
  await page.keyboard.press('Enter');
  assert.ok(await page.evaluate(() => document.activeElement.matches('.board-wrap[tabindex="0"][aria-label]')), 'the board has the focus');
  await page.waitForSelector('.kb-cursor', { state: 'visible' });
  const said = () => page.locator('.board-live').textContent();
  assert.equal(await said(), 'Cursor on a1: white rook.');
  // The arrows move the cursor (not through the game's moves); Enter and Space pick up and put down.
  for (const k of ['ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowUp']) await page.keyboard.press(k);
  assert.equal(await said(), 'e2: white pawn');
  await page.keyboard.press('Enter');
  assert.equal(await said(), 'e2: white pawn picked up; it goes to e3, e4.');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  assert.equal(await said(), 'e4: empty');
  await page.keyboard.press('Space');
  const st = await until(async () => { const s = await stateOf(page, id); return s.ply >= 1 && s; }, 'the move from the keyboard');
  assert.equal(st.moves[0].uci, 'e2e4');
  assert.ok(await page.evaluate(() => document.activeElement.matches('.board-wrap')), 'the focus stays on the board');
  // The position in words, for a screen reader.
  await page.waitForFunction(() => /Rank 4: e4 white pawn\./.test(document.querySelector('.board-words').textContent), null, { timeout: 5000 });
  assert.match(await page.locator('.board-words').textContent(), /White: king e1; queen d1; rooks a1, h1;/);
  // Away from the board, the arrows still browse the game.
  await page.waitForSelector('ol.moves button[data-ply="2"]', { timeout: 10000 });
  await page.focus('#flip');
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('.browsing:has-text("after ply 1")');
  assert.deepEqual(errors, []);
  await context.close();
});

test('pockets named for a screen reader and dropped from the keyboard; probabilistic squares give their percentage in words', async () => {
  const { context, page, errors } = await desktopPage();
  const id = await newGame(page, { variant: 'crazyhouse', opponent: 'ai:level1', color: 'white', movetime: 20, fen: 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Nn] w KQkq - 0 1' });
  await page.waitForSelector('#status:has-text("your move")');
  const knight = page.locator('.pocket-slot.bottom square[aria-label="white\'s pocket: 1 knight"]');
  await knight.waitFor({ timeout: 5000 });
  assert.equal(await knight.getAttribute('role'), 'button');
  assert.equal(await page.locator('.pocket-slot.top square[aria-label="black\'s pocket: 1 knight"]').count(), 1);
  assert.match(await page.locator('.board-words').textContent(), /White's pocket: 1 knight\./);
  // Enter on the knight, then its square on the board (a3, two up from the cursor's a1).
  await knight.focus();
  await page.keyboard.press('Enter');
  assert.ok(await page.evaluate(() => document.activeElement.matches('.board-wrap')), 'the board has the focus');
  assert.match(await page.locator('.board-live').textContent(), /^Knight from the pocket picked up/);
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  const st = await until(async () => { const s = await stateOf(page, id); return s.ply >= 1 && s; }, 'the drop from the keyboard');
  assert.equal(st.moves[0].uci, 'N@a3');
  // Probabilistic chess: each square's chance, in words.
  await newGame(page, { variant: 'probabilistic', opponent: 'me', color: 'white' });
  await page.waitForSelector('.prob');
  assert.match(await page.locator('.board-words').textContent(), /Rank 4: a4 empty \(\d+ %\), b4 empty \(\d+ %\)/);
  await page.focus('.board-wrap');
  assert.match(await page.locator('.board-live').textContent(), /^Cursor on a1: white rook, \d+ %\.$/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the focus stays on the control pressed: ‹ Back, Next ›, a move in the list; after Resign (here Abort), on Rematch', async () => {
  const { context, page, errors } = await desktopPage();
  page.on('dialog', d => d.accept());
  await newGame(page, { variant: 'chess', opponent: 'me', color: 'white', pgn: '1. e4 e5 2. Nf3 Nc6' });
  await page.waitForSelector('#status:has-text("your move")');
  const focused = () => page.evaluate(() => {
    const e = document.activeElement;
    return e.id || (e.dataset.step ? `step ${e.dataset.step}` : `ply ${e.dataset.ply}${e.closest('ol') ? ' in the list' : ''}`);
  });
  await page.focus('#moves button[data-step="-1"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.browsing:has-text("after ply 3")');
  assert.equal(await focused(), 'step -1');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.browsing:has-text("after ply 2")');
  await page.focus('#moves button[data-step="1"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.browsing:has-text("after ply 3")');
  assert.equal(await focused(), 'step 1');
  await page.focus('ol.moves button[data-ply="1"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.browsing:has-text("after ply 1")');
  assert.equal(await focused(), 'ply 1 in the list');
  // (A board with both sides' moves imported is still aborted rather than resigned.)
  await page.focus('#resign');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#status:has-text("Game aborted")', { timeout: 10000 });
  assert.equal(await focused(), 'rematch');
  assert.deepEqual(errors, []);
  await context.close();
});

test("the review's ?! ? ?? marks read at 4.5:1 or more, on the page and on the move shown", async () => {
  const { context, page, errors } = await desktopPage();
  await page.goto(base + '/');
  // The marks as the move list draws them, each on a move and on the move shown.
  const ratios = await page.evaluate(() => {
    const luminance = css => {
      const [r, g, b] = css.match(/[\d.]+/g).slice(0, 3).map(v => {
        const c = Number(v) / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const background = el => {
      for (; el; el = el.parentElement) {
        const bg = getComputedStyle(el).backgroundColor;
        if (bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') return bg;
      }
      return 'rgb(255, 255, 255)';
    };
    const list = document.createElement('ol');
    list.className = 'moves';
    list.innerHTML = ['inaccuracy', 'mistake', 'blunder']
      .map(j => `<li><button class="ply">e4<span class="glyph ${j}">?!</span></button></li><li><button class="ply shown">e5<span class="glyph ${j}">?!</span></button></li>`)
      .join('');
    document.getElementById('main').append(list);
    return [...list.querySelectorAll('.glyph')].map(g => {
      const [a, b] = [luminance(getComputedStyle(g).color), luminance(background(g))].sort((x, y) => y - x);
      return [`${g.className} on ${g.parentElement.className}`, (a + 0.05) / (b + 0.05)];
    });
  });
  for (const [what, ratio] of ratios) assert.ok(ratio >= 4.5, `${what}: ${ratio.toFixed(2)}:1`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the page reconnects after a server restart and the game goes on', async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  page.on('dialog', d => d.accept());
  const id = await newGame(page, { variant: 'chess', movetime: 20 });
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

test('a site served under a base path (serve --base-path /club/chess): the lobby, a game, its stream, its record and the analysis board all stay below it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fairylab-e2e-base-'));
  const other = spawn(BIN, ['serve', '--listen', '127.0.0.1:0', '--database-url', `sqlite://${dir}/games.sqlite3`, '--base-path', '/club/chess'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const saved = base;
  try {
    base = await new Promise((resolve, reject) => {
      other.stdout.on('data', d => {
        const m = String(d).match(/http:\/\/\S+/);
        if (m) resolve(m[0].replace(/\/$/, ''));
      });
      other.on('exit', code => reject(new Error(`the server exited (${code})`)));
    });
    assert.match(base, /\/club\/chess$/);
    const { context, page, errors } = await desktopPage();
    const requests = [];
    page.on('request', r => requests.push(new URL(r.url()).pathname));
    const id = await newGame(page, { variant: 'chess', opponent: 'me', color: 'white' });
    assert.equal(new URL(page.url()).pathname, `/club/chess/game/${id}`);
    await page.waitForSelector('#status:has-text("White: you; Black: you")');
    await clickMove(page, 'e2e4');
    // Black's turn is shown: the move went through and the stream (below the base) said so.
    await page.waitForSelector('#status:has-text("black to move — your move")');
    await clickMove(page, 'e7e5');
    await page.waitForFunction(() => document.querySelectorAll('ol.moves li').length === 2, null, { timeout: 15000 });
    const st = await page.evaluate(async id => (await fetch(`/club/chess/api/games/${id}`)).json(), id);
    assert.deepEqual(st.moves.map(m => m.san), ['e4', 'e5']);
    assert.equal(await page.locator('#record').getAttribute('href'), `/club/chess/api/games/${id}/record`);
    // The lobby lists the game with its address below the base.
    await page.click('a.brand');
    await page.waitForSelector(`#mine a[href="/club/chess/game/${id}"]`);
    // The analysis board, from the header.
    await page.click('nav a:has-text("Analysis board")');
    await page.waitForURL(url => url.pathname === '/club/chess/analysis');
    await page.waitForSelector('.board-wrap');
    await clickMove(page, 'd2d4');
    await page.waitForFunction(() => document.getElementById('link').getAttribute('href').startsWith('/club/chess/analysis?'), null, { timeout: 15000 });
    // Nothing was asked for outside the base.
    assert.deepEqual(requests.filter(p => !p.startsWith('/club/chess/')), []);
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    base = saved;
    other.kill();
  }
});

test('predictor: a commitment whose reply was lost is sent again as it was, and revealed (no new seal that the server would refuse)', async () => {
  const { context, page, errors } = await desktopPage();
  page.on('dialog', d => d.accept());
  const id = await newGame(page, { variant: 'predictor', movetime: 20, plySeconds: 600 });
  await orderFormOpen(page, 1);
  let offline = false;
  let commits = 0;
  await page.route('**/api/**', async route => {
    if (offline) return route.abort('internetdisconnected');
    if (route.request().url().endsWith('/commit') && commits++ === 0) {
      // The commitment reaches the server; its reply, and everything after, is lost.
      await route.fetch();
      offline = true;
      return route.abort('connectionreset');
    }
    return route.continue();
  });
  const st = await stateOf(page, id);
  const primary = st.primaries.white[0];
  await clickMove(page, primary);
  await page.waitForFunction(() => document.getElementById('o-primary').value !== '', null, { timeout: 5000 });
  await page.click('#o-commit');
  await page.waitForSelector('#o-error:has-text("cannot be reached")', { timeout: 10000 });
  // Back online, the player presses Commit again.
  offline = false;
  await page.click('#o-commit');
  const after = await until(async () => {
    const s = await stateOf(page, id);
    return (s.ply > 1 || s.status !== 'active') && s;
  }, 'the ply to resolve with the first commitment revealed', 20000);
  assert.equal(after.status, 'active', JSON.stringify(after.result));
  assert.ok(after.plies[0].startsWith(`1. ${primary}`), after.plies[0]);
  assert.equal(commits, 2);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a stream that dies without a close (a network switch) is found by the page's ping and replaced: the AI's reply still shows", async () => {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.addInitScript(() => {
    window.fairylabPingMs = 1000;
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', e => errors.push(e.message));
  // Every game stream passes through here; `silent` ones forward nothing either way, as a
  // connection that died unseen.
  const streams = [];
  await page.routeWebSocket(/\/api\/games\/[0-9a-f]+\/ws$/, ws => {
    const server = ws.connectToServer();
    const s = { silent: false };
    streams.push(s);
    ws.onMessage(m => { if (!s.silent) server.send(m); });
    server.onMessage(m => { if (!s.silent) ws.send(m); });
  });
  const id = await newGame(page, { variant: 'chess', movetime: 20 });
  await page.waitForSelector('#status:has-text("your move")');
  await until(async () => streams.length >= 1, 'the stream');
  for (const s of streams) s.silent = true;
  const before = streams.length;
  await clickMove(page, 'e2e4');
  // The silent stream answers no ping, so the page opens a new one (the AI's reply may come
  // first by the page's own refresh after its move: under load it often does), and the reply
  // is shown.
  await until(async () => streams.length > before, 'a new stream after the silent one', 10000);
  await page.waitForFunction(() => document.querySelectorAll('ol.moves li').length >= 2, null, { timeout: 10000 });
  assert.equal((await stateOf(page, id)).ply, 2);
  assert.deepEqual(errors, []);
  await context.close();
});

test("a game the operator deletes: its page says so at once, without the game's controls", async () => {
  const { context, page, errors } = await desktopPage();
  await page.goto(`${base}/`);
  // A game between two people, aborted (never counted by the explorer).
  const g = await page.evaluate(async () => {
    const r = await fetch('/api/games', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ variant: 'gardner', white: 'me', black: 'me' }) });
    return r.json();
  });
  await page.goto(`${base}/game/${g.id}`);
  await page.waitForSelector('#status');
  const del = () => fetch(`${base}/api/admin/games/${g.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${OPERATOR}` } });
  assert.equal((await del()).status, 409, 'a game being played is not deleted');
  const abort = await fetch(`${base}/api/games/${g.id}/abort`, { method: 'POST', headers: { authorization: `Bearer ${g.white.token}` } });
  assert.equal(abort.status, 200);
  // The page has the end (its stream is up and its state read again) before the game goes.
  await page.waitForSelector('#status:has-text("Game aborted")', { timeout: 10000 });
  assert.equal((await del()).status, 200);
  await page.waitForSelector('#error:has-text("This game was deleted by the server\'s operator.")');
  assert.equal(await page.locator('.board-wrap').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});
