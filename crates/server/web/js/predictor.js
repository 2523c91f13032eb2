// Predictor chess in the page: the order form (primary, and a conditional: prediction and
// response), sealing in the browser, commitments of both teams, reveals, and the ply report.
//
// Orders never leave the browser before the ply closes except to the server's stateless check
// (`orders/check`, nothing kept): the page seals them here (docs/FORMATS.md § Commitment, with
// SHA-256 (sha256.js) and a random 32-byte nonce), sends only the commitment, keeps the reveal
// line in localStorage (a reload or restart loses nothing), and reveals once the ply closes.

import { BASE, call } from './api.js';
import { esc, hex, unhex } from './panels.js';
import { sha256 } from './sha256.js';

const DOMAIN = 'fairylab/predictor/commit/v1';
const SLOTS = ['primary', 'prediction', 'response'];

/** The commitment (hex) to `orders` of `side` for `ply` of `game` under `nonceHex`. */
export async function commitment(game, ply, side, orders, nonceHex) {
  const enc = new TextEncoder();
  const u32 = n => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];
  const g = enc.encode(game);
  const o = enc.encode(orders);
  const bytes = new Uint8Array([
    ...enc.encode(DOMAIN), 0,
    ...u32(g.length), ...g,
    ...u32(ply),
    side === 'white' ? 0x77 : 0x62,
    ...u32(o.length), ...o,
    ...unhex(nonceHex),
  ]);
  return hex(await sha256(bytes));
}

/**
 * A ply line of the record (`3. e2e4 if e7e5 then d2d3 | d7d5 {fired: white; ...}`) read
 * into {number, white, black, fired, annihilated, captured, commit, nonce}; each side's orders
 * as {text, primary, prediction, response}.
 */
export function readPlyLine(line) {
  const m = line.match(/^(\d+)\.\s+(.*?)\s+\|\s+(.*?)\s*(?:\{(.*)\})?$/);
  if (!m) return null;
  const orders = text => {
    const w = text.split(/\s+/);
    return { text, primary: w[0], prediction: w[1] === 'if' ? w[2] : null, response: w[3] === 'then' ? w[4] : null };
  };
  const parts = {};
  for (const p of (m[4] || '').split(';')) {
    const i = p.indexOf(':');
    if (i > 0) parts[p.slice(0, i).trim()] = p.slice(i + 1).trim();
  }
  const pair = t => {
    const x = (t || '').match(/W ([0-9a-f]{64}) B ([0-9a-f]{64})/);
    return x ? { white: x[1], black: x[2] } : null;
  };
  return {
    number: Number(m[1]),
    white: orders(m[2]),
    black: orders(m[3]),
    fired: parts.fired || '',
    annihilated: parts.annihilated || '',
    captured: parts.captured || '',
    commit: pair(parts.commit),
    nonce: pair(parts.nonce),
  };
}

/**
 * The squares the moves of a ply (a `readPlyLine` result) left and reached: both primaries and
 * the responses that fired, for the board's last-move mark (both sides move in one ply).
 */
export function plySquares(ply) {
  const squares = [];
  const add = uci => {
    if (!uci || !/^[a-h][1-8][a-h][1-8]/.test(uci)) return;
    for (const sq of [uci.slice(0, 2), uci.slice(2, 4)]) if (!squares.includes(sq)) squares.push(sq);
  };
  for (const side of ['white', 'black']) {
    add(ply[side].primary);
    if (ply.fired === side || ply.fired === 'both') add(ply[side].response);
  }
  return squares.length ? squares : null;
}

/** Whether every sealed ply of `plies` opens its commitments (checked in the browser). */
export async function verifySeals(game, plies) {
  let sealed = 0;
  for (const line of plies) {
    const p = readPlyLine(line);
    if (!p || !p.commit) continue;
    for (const side of ['white', 'black']) {
      if ((await commitment(game, p.number, side, p[side].text, p.nonce[side])) !== p.commit[side]) return { ok: false, sealed, bad: p.number };
    }
    sealed++;
  }
  return { ok: true, sealed };
}

const revealKey = (id, ply, side) => `fairylab:reveal:${id}:${ply}:${side}`;

/**
 * The seals this browser made for a ply and side, oldest first: [{line, commitment, orders}].
 * Every seal is kept until the ply is over, so that whichever commitment reached the server (a
 * commit whose reply was lost may have) can still be revealed.
 */
function sealedLines(key) {
  try {
    const v = JSON.parse(localStorage.getItem(key));
    if (!v) return [];
    if (Array.isArray(v.sealed)) return v.sealed;
    // The form kept before 0.3.2: one seal.
    return v.line ? [{ line: v.line, commitment: v.commitment }] : [];
  } catch {
    return [];
  }
}

/** Keeps a seal beside the others of its ply and side. */
function keepSeal(key, seal) {
  const all = sealedLines(key).filter(e => e.commitment !== seal.commitment);
  all.push(seal);
  localStorage.setItem(key, JSON.stringify({ sealed: all.slice(-16) }));
}

/**
 * The Predictor desk of a game page: `render(state)` fills `root` (kept across refreshes so that
 * typing is not lost), `boardView(state)` says what the board offers, `onBoardMove(uci)` takes a
 * board gesture into the selected field; `refresh()` is called after each request.
 */
export class PredictorDesk {
  constructor(root, id, seat, refresh) {
    this.root = root;
    this.id = id;
    this.seat = seat;
    this.refresh = refresh;
    this.ply = 0;
    this.slot = 'primary';
    this.busy = false;
    this.revealing = null;
    this.seals = null;
    this.sealsChecked = -1;
    this.build();
  }

  get name() {
    return this.seat ? this.seat.name || this.seat.color : null;
  }

  build() {
    this.root.innerHTML = `
      <h2>Predictor chess</h2>
      <p class="pred-status" id="pred-status" role="status" aria-live="polite"></p>
      <p class="pred-countdown" id="pred-countdown"></p>
      <form id="orders" class="orders" ${this.seat ? '' : 'hidden'}>
        <fieldset>
          <legend>Your orders (<span id="pred-ply"></span>)</legend>
          <p class="hint">Click a move on the board for the selected field, or type it (UCI, e.g. e2e4).</p>
          ${SLOTS.map(
            (s, i) => `<div class="slot">
              <input type="radio" name="slot" id="slot-${s}" value="${s}" ${i === 0 ? 'checked' : ''}>
              <label for="slot-${s}">${['Primary', 'If the opponent plays', 'then respond'][i]}</label>
              <input id="o-${s}" class="order-move" autocomplete="off" spellcheck="false" placeholder="${['e2e4', 'e7e5 (optional)', 'g1f3 (optional)'][i]}" aria-label="${s}">
            </div>`,
          ).join('')}
          <div class="controls">
            <button type="submit" id="o-commit">Seal and commit</button>
            <button type="button" id="o-clear">Clear</button>
          </div>
          <p class="error" id="o-error" role="alert"></p>
        </fieldset>
      </form>
      <details id="o-sealed" hidden><summary>Your sealed orders (the reveal line)</summary><code class="hash" id="o-line"></code></details>
      <div id="pred-teams"></div>
      <div id="pred-report"></div>
      <details id="pred-team-form" hidden>
        <summary>Add a member to your team</summary>
        <form id="member-form" class="move-form">
          <label for="m-name">Name</label><input id="m-name" required maxlength="32" pattern="[A-Za-z0-9_.\\-]+">
          <label for="m-rank">Rank</label><input id="m-rank" type="number" min="1" value="2" required>
          <button type="submit">Add</button>
        </form>
        <p id="m-link"></p>
      </details>`;
    const form = this.root.querySelector('#orders');
    form.addEventListener('change', ev => {
      if (ev.target.name === 'slot') {
        this.slot = ev.target.value;
        this.refresh(false);
      }
    });
    for (const s of SLOTS) this.root.querySelector(`#o-${s}`).addEventListener('focus', () => this.select(s));
    form.addEventListener('submit', ev => {
      ev.preventDefault();
      this.commit();
    });
    this.root.querySelector('#o-clear').onclick = () => {
      for (const s of SLOTS) this.field(s).value = '';
      this.select('primary');
    };
    this.root.querySelector('#member-form').addEventListener('submit', ev => {
      ev.preventDefault();
      this.addMember();
    });
  }

  field(slot) {
    return this.root.querySelector(`#o-${slot}`);
  }

  select(slot) {
    if (this.slot === slot) return;
    this.slot = slot;
    this.root.querySelector(`#slot-${slot}`).checked = true;
    this.refresh(false);
  }

  /** The orders text the fields make. */
  ordersText() {
    const [p, q, r] = SLOTS.map(s => this.field(s).value.trim());
    if (q || r) return `${p} if ${q} then ${r}`;
    return p;
  }

  /** A board gesture: fills the selected field, then moves on to the next one. */
  onBoardMove(uci) {
    this.field(this.slot).value = uci;
    const next = { primary: 'prediction', prediction: 'response', response: 'primary' }[this.slot];
    this.select(next);
    this.refresh(false);
  }

  team(state, side) {
    return state[`${side}_team`];
  }

  /** Which order a move made on the board fills now, in words ('' when the orders are closed). */
  boardHint(state) {
    const mine = this.seat ? this.seat.color : null;
    if (!(state.status === 'active' && !state.closed && mine && !this.committed(state))) return '';
    const words = {
      primary: 'your primary order (a move of yours)',
      prediction: "the opponent's move you predict (a move of theirs; optional)",
      response: 'your response if they play it (a move of yours; optional)',
    }[this.slot];
    return `A move on the board fills ${words}. Seal and commit below.`;
  }

  /** The board after ply `shown` of the game (browsing back): that ply's moves as arrows. */
  pastView(state, shown) {
    const p = shown ? readPlyLine(state.plies[shown - 1]) : null;
    const shapes = [];
    const arrow = (uci, brush) => uci && /^[a-h][1-8][a-h][1-8]/.test(uci) && shapes.push({ orig: uci.slice(0, 2), dest: uci.slice(2, 4), brush });
    if (p) {
      arrow(p.white.primary, 'green');
      arrow(p.black.primary, 'blue');
    }
    return {
      fen: shown ? state.fens[shown - 1] : state.start_fen,
      turn: 'white',
      movable: null,
      legal: [],
      lastMove: p ? plySquares(p) : null,
      shapes,
    };
  }

  /** What the board offers: the side whose moves fill the selected field, and the arrows. */
  boardView(state) {
    const mine = this.seat ? this.seat.color : null;
    const other = mine === 'white' ? 'black' : 'white';
    const open = state.status === 'active' && !state.closed && mine && !this.committed(state);
    const side = this.slot === 'prediction' ? other : mine;
    const shapes = [];
    const arrow = (uci, brush) => uci && /^[a-h][1-8][a-h][1-8]/.test(uci) && shapes.push({ orig: uci.slice(0, 2), dest: uci.slice(2, 4), brush });
    const last = state.plies.length ? readPlyLine(state.plies[state.plies.length - 1]) : null;
    if (open) {
      arrow(this.field('primary').value.trim(), 'green');
      arrow(this.field('prediction').value.trim(), 'red');
      arrow(this.field('response').value.trim(), 'yellow');
    } else if (last) {
      arrow(last.white.primary, 'green');
      arrow(last.black.primary, 'blue');
    }
    return {
      turn: open ? side : 'white',
      movable: open ? side : null,
      legal: open ? state.primaries[side] : [],
      lastMove: last ? plySquares(last) : null,
      shapes,
    };
  }

  committed(state) {
    return !!this.myCommitment(state);
  }

  /** The commitment the server holds for this member in the current ply, if any. */
  myCommitment(state) {
    const t = this.seat && this.team(state, this.seat.color);
    const c = t && t.commitments.find(c => c.member === this.name);
    return c ? c.commitment : null;
  }

  /** The seal this browser holds for the commitment the server has (else the latest made). */
  mySeal(state) {
    if (!this.seat) return null;
    const all = sealedLines(revealKey(this.id, state.ply, this.seat.color));
    const held = this.myCommitment(state);
    if (held) return all.find(e => e.commitment === held) || null;
    return all[all.length - 1] || null;
  }

  status(state) {
    if (state.status !== 'active') return state.forfeit ? `The game is over: ${state.forfeit}.` : 'The game is over.';
    const side = c => {
      const t = this.team(state, c);
      if (state.closed) return `${c}: ${t.revealed ? 'revealed' : `waiting for ${t.chosen || 'nobody'} to reveal`}`;
      return `${c}: ${t.commitments.length ? `committed (${t.commitments.length})` : 'not committed'}`;
    };
    const due = state.closed ? state.reveal_deadline : state.deadline;
    const when = due ? ` Deadline ${new Date(due).toLocaleTimeString()}.` : '';
    return `Ply ${state.ply}: ${side('white')}; ${side('black')}.${when}`;
  }

  /**
   * The time left to the ply's deadline, counted down (the page ticks it; out of the status's
   * live region, so that a screen reader is not told every second).
   */
  tick(state) {
    const el = this.root.querySelector('#pred-countdown');
    if (!el) return;
    const due = state && state.status === 'active' ? (state.closed ? state.reveal_deadline : state.deadline) : null;
    const left = due ? Math.max(0, Math.ceil((due - Date.now()) / 1000)) : 0;
    const text = due ? `${state.closed ? 'Reveals due' : 'Orders due'} in ${left} s` : '';
    if (el.textContent !== text) el.textContent = text;
    el.classList.toggle('urgent', !!due && left <= 5);
  }

  teams(state) {
    const list = c => {
      const t = this.team(state, c);
      const done = new Set(t.commitments.map(x => x.member));
      const rows = [...t.members]
        .sort((a, b) => a.rank - b.rank)
        .map(m => {
          const mark = state.status !== 'active' ? '' : t.chosen === m.name ? ' ★ chosen' : done.has(m.name) ? ' ✓ committed' : '';
          return `<li>${esc(m.name)} <span class="rank">(rank ${m.rank})</span>${mark}${m.name === this.name && c === (this.seat && this.seat.color) ? ' — you' : ''}</li>`;
        });
      // A finished game's commitments are of a ply that was never played: not shown.
      const commits = state.status === 'active' ? t.commitments.map(x => `<li><code class="hash" title="${esc(x.member)}">${esc(x.commitment.slice(0, 16))}…</code></li>`) : [];
      return `<div><h3>${c === 'white' ? 'White' : 'Black'}</h3><ul class="team">${rows.join('') || '<li>nobody yet</li>'}</ul>
        ${commits.length ? `<p>Commitments this ply:</p><ul class="commits">${commits.join('')}</ul>` : ''}</div>`;
    };
    return `<h3 class="sr-only">Teams</h3><div class="teams">${list('white')}${list('black')}</div>`;
  }

  /** The report of ply `shown` (default: the last played). */
  report(state, shown = state.plies.length) {
    if (!shown) return '';
    const p = readPlyLine(state.plies[shown - 1]);
    if (!p) return `<p>${esc(state.plies[shown - 1])}</p>`;
    const fired = c => p.fired === c || p.fired === 'both';
    const row = c => {
      const o = p[c];
      return `<tr><th scope="row">${c === 'white' ? 'White' : 'Black'}</th><td class="primary">${esc(o.primary)}</td>
        <td class="prediction${fired(c) ? ' hit' : ''}">${o.prediction ? esc(o.prediction) : '—'}</td>
        <td class="response${fired(c) ? ' fired' : ''}">${o.response ? `${esc(o.response)}${fired(c) ? ' (fired)' : ' (not fired)'}` : '—'}</td></tr>`;
    };
    const extra = [p.annihilated && `annihilated: ${p.annihilated}`, p.captured && `captured: ${p.captured}`].filter(Boolean).join('; ');
    return `<h3>Ply ${p.number} report</h3>
      <table class="ply-report"><thead><tr><th></th><th>primary</th><th>prediction</th><th>response</th></tr></thead>
      <tbody>${row('white')}${row('black')}</tbody></table>
      <p class="ply-extra">${esc(extra || 'no piece lost')}${p.fired ? `; the prediction of ${esc(p.fired)} came true` : '; no prediction came true'}</p>`;
  }

  /**
   * The ply lines as the page's move list, each a button that shows the position after it
   * (`shown`: the ply on the board), with the browsing buttons of the other games' list.
   */
  moveList(state, shown = state.plies.length) {
    const n = state.plies.length;
    const items = state.plies.map((l, i) => {
      const current = shown === i + 1 ? ' aria-current="true" class="ply shown"' : ' class="ply"';
      return `<li><button type="button" data-ply="${i + 1}"${current}>${esc(l.replace(/\s*\{.*\}$/, ''))}</button></li>`;
    });
    return `<h2>Plies</h2><ol class="plies moves" aria-live="polite" aria-label="plies">${items.join('')}</ol>
      <div class="browse controls"><button type="button" data-ply="0" aria-label="the start position">« Start</button>
        <button type="button" data-step="-1" aria-label="previous ply (left arrow)">‹ Back</button>
        <button type="button" data-step="1" aria-label="next ply (right arrow)">Next ›</button>
        <button type="button" data-ply="${n}" aria-label="the current position">Now »</button>
        ${shown !== n ? `<span class="browsing">showing the position after ply ${shown} of ${n}</span>` : ''}</div>`;
  }

  /** The seals of the revealed plies, checked here: '' until there is one. */
  async sealsText(state) {
    if (this.sealsChecked !== state.plies.length) {
      this.sealsChecked = state.plies.length;
      this.seals = await verifySeals(this.id, state.plies);
    }
    const s = this.seals;
    if (!s || !s.sealed) return '';
    return s.ok
      ? `<p>Every sealed ply opens its commitments (${s.sealed} checked here): <strong class="verified">seals verified ✓</strong></p>`
      : `<p><strong class="bad">ply ${s.bad}'s reveal does not open its commitment ✗</strong></p>`;
  }

  render(state) {
    if (state.ply !== this.ply) {
      // A new ply: fresh fields.
      this.ply = state.ply;
      for (const s of SLOTS) this.field(s).value = '';
      this.slot = 'primary';
      this.root.querySelector('#slot-primary').checked = true;
      this.root.querySelector('#o-error').textContent = '';
    }
    this.root.querySelector('#pred-status').textContent = this.status(state);
    this.tick(state);
    this.root.querySelector('#pred-ply').textContent = `ply ${state.ply}`;
    const form = this.root.querySelector('#orders');
    const canCommit = !!this.seat && state.status === 'active' && !state.closed && !this.committed(state);
    form.hidden = !canCommit;
    const stored = this.mySeal(state);
    const sealed = this.root.querySelector('#o-sealed');
    sealed.hidden = !(stored && state.status === 'active' && this.committed(state));
    this.root.querySelector('#o-line').textContent = stored ? stored.line : '';
    this.root.querySelector('#pred-teams').innerHTML = this.teams(state);
    this.root.querySelector('#pred-report').innerHTML = this.report(state);
    const captain = this.seat && !this.seat.name;
    this.root.querySelector('#pred-team-form').hidden = !(captain && state.status === 'active');
    this.maybeReveal(state);
  }

  /** Once the ply closed with this member chosen: the reveal kept in this browser goes out. */
  async maybeReveal(state) {
    if (!this.seat || state.status !== 'active' || !state.closed) return;
    const t = this.team(state, this.seat.color);
    if (t.chosen !== this.name || t.revealed) return;
    const key = revealKey(this.id, state.ply, this.seat.color);
    const stored = this.mySeal(state);
    if (!stored) {
      this.root.querySelector('#pred-status').textContent += ' Your reveal is not in this browser: reveal from where you committed.';
      return;
    }
    if (this.revealing === key) return;
    this.revealing = key;
    try {
      await call('POST', `/api/games/${this.id}/reveal`, { reveal: stored.line }, this.seat.token);
    } catch (e) {
      this.root.querySelector('#o-error').textContent = e.message;
      this.revealing = null;
    }
    this.refresh(true);
  }

  /** Checks the orders on the server, seals them here, and sends the commitment. */
  async commit() {
    if (this.busy) return;
    this.busy = true;
    const error = this.root.querySelector('#o-error');
    error.textContent = '';
    try {
      const check = await call('POST', `/api/games/${this.id}/orders/check`, { orders: this.ordersText() }, this.seat.token);
      if (!check.valid) {
        error.textContent = check.reason;
        return;
      }
      const side = this.seat.color;
      const key = revealKey(this.id, check.ply, side);
      // The same orders sealed before (a commit whose reply was lost): sent again as they were,
      // which the server answers as the first time if it has them. Other orders get a new seal.
      let seal = sealedLines(key).find(e => e.orders === check.orders);
      if (!seal) {
        const nonce = hex(crypto.getRandomValues(new Uint8Array(32)));
        const c = await commitment(this.id, check.ply, side, check.orders, nonce);
        const line = `predictor-reveal v1 game=${this.id} ply=${check.ply} side=${side} nonce=${nonce} orders=${check.orders}`;
        seal = { line, commitment: c, orders: check.orders };
        // Kept before it is sent, beside any earlier seal: whichever reaches the server, this
        // browser can reveal it.
        keepSeal(key, seal);
      }
      await call('POST', `/api/games/${this.id}/commit`, { ply: check.ply, commitment: seal.commitment }, this.seat.token);
    } catch (e) {
      error.textContent = e.message;
    } finally {
      this.busy = false;
      this.refresh(true);
    }
  }

  async addMember() {
    const name = this.root.querySelector('#m-name').value.trim();
    const rank = Number(this.root.querySelector('#m-rank').value);
    const out = this.root.querySelector('#m-link');
    try {
      const m = await call('POST', `/api/games/${this.id}/members`, { name, rank }, this.seat.token);
      const link = `${location.origin}${BASE}/game/${this.id}#member=${m.side}.${encodeURIComponent(m.name)}.${m.token}`;
      out.innerHTML = `Link for ${esc(m.name)} (rank ${m.rank}): <input readonly value="${esc(link)}" aria-label="member link">`;
    } catch (e) {
      out.textContent = e.message;
    }
    this.refresh(true);
  }
}
