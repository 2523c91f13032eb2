// The analysis board at `/analysis?variant=V&fen=F&play=M1,M2` (as lichess's /analysis): any
// built-in variant's position, moves tried on the board, the engine and the opening explorer.
// The line shown lives in the URL, the other lines tried (variations) in the page; every
// position, legal move and outcome comes from the server.

import { BASE, at, call, rememberCreated } from './api.js';
import { Board } from './board.js';
import * as panels from './panels.js';

const { esc } = panels;

/** Variants the board does not take: both sides move at once, or a coin decides. */
const NOT_ON_THE_BOARD = ['predictor', 'coinflip'];

/** The analysis board in `main`. */
export async function analysisBoard(main) {
  document.title = 'fairylab — analysis board';
  const params = new URLSearchParams(location.search);
  let variant = params.get('variant') || 'chess';
  let start = params.get('fen') || '';
  let line = (params.get('play') || '').split(',').filter(Boolean);
  let shown = line.length;
  // The other lines tried from the same start, each `{ uci, san }` (lichess's variations): a
  // line is kept when a move played in its middle starts another one.
  let variations = [];
  // The main line (UCI) once there are others: a pasted record's, or the first line set aside
  // for another; it stays the main line of the exported PGN whichever line is shown (lichess).
  let mainLine = null;
  // What a pasted record says beyond its moves (POST /api/position): its tags, its comment
  // before the first move, and its moves' NAGs and comments by the moves up to each (`at`,
  // UCI, comma-separated), so that a note stays on its move whichever line is shown.
  let record = null;
  const noRecord = () => ({ tags: null, comment: null, notes: {}, main: null, loaded: 0 });
  let imports = 0;
  record = noRecord();
  let flipped = false;
  main.innerHTML = `
    <div class="game">
      <div class="board-col"><div id="board"></div></div>
      <aside class="side">
        <h1>Analysis board</h1>
        <form id="setup" class="setup">
          <label>Variant <select id="variant"></select></label>
          <label class="wide">Start position (FEN, empty: the variant's) <input id="fen" spellcheck="false" autocomplete="off"></label>
          <button type="submit">Set up</button>
        </form>
        <details class="import"><summary>Paste a game (PGN)</summary>
          <form id="import" class="setup">
            <label class="wide">A PGN record (its Variant and FEN tags are read) <textarea id="pgn-in" rows="4" spellcheck="false" placeholder="1. e4 e5 2. Nf3 Nc6"></textarea></label>
            <button type="submit">Load the game</button>
          </form>
        </details>
        <p class="status" id="status" role="status" aria-live="polite"></p>
        <div class="controls">
          <button id="flip" type="button">Flip board</button>
          <button id="clear" type="button">Clear the moves</button>
          <a id="link" href="">Link to this line</a>
        </div>
        <div class="controls">
          <button id="play-ai" type="button">Play the AI from here</button>
          <button id="play-friend" type="button">Play a friend from here</button>
        </div>
        <p class="error" id="error" role="alert"></p>
        <section id="moves"></section>
        <label class="copy">FEN of the position shown <input id="fen-out" readonly spellcheck="false"></label>
        <label class="copy">PGN of the line <textarea id="pgn-out" rows="4" readonly spellcheck="false"></textarea></label>
        <section id="analysis"></section>
        <section id="odds" hidden>
          <h2>SnowFall odds</h2>
          <label>SnowFall % <input id="sf-percent" type="number" min="0" max="100" value="17"></label>
          <div id="odds-figures"></div>
        </section>
        <section id="explorer"></section>
      </aside>
    </div>`;
  const error = document.getElementById('error');
  const select = document.getElementById('variant');
  // A SnowFall game's percentage, from its game page's link (else the seed's usual 17).
  const percent = Number(params.get('snowfall'));
  if (params.get('snowfall') !== null && Number.isInteger(percent) && percent >= 0 && percent <= 100) {
    document.getElementById('sf-percent').value = String(percent);
  }
  try {
    const { variants } = await call('GET', '/api/variants');
    select.innerHTML = variants
      .filter(v => v.served && !NOT_ON_THE_BOARD.includes(v.name))
      .map(v => `<option value="${esc(v.name)}" title="${esc(v.summary)}">${esc(v.name)}</option>`)
      .join('');
  } catch (e) {
    error.textContent = e.message;
  }

  // The whole line (its moves in SAN) and the position shown (its legal moves, outcome and
  // verdict), each asked of the server once per line.
  let full = null;
  let here = null;
  let explored = null;
  let report = null;
  let analysing = false;
  // SnowFall: the exact odds of the position shown (GET /api/odds) at the percentage chosen.
  let odds = null;
  const query = plies => {
    const q = new URLSearchParams({ variant });
    if (start) q.set('fen', start);
    if (plies.length) q.set('play', plies.join(','));
    return q.toString();
  };
  const board = new Board(document.getElementById('board'), uci => play(uci));
  const key = () => query(line.slice(0, shown));

  const load = async (keepError = false) => {
    if (!keepError) error.textContent = '';
    // Moves played on at the main line's end extend it.
    if (mainLine && line.length > mainLine.length && parting(line, mainLine) === mainLine.length) mainLine = line.slice();
    // What this call loads; an answer that comes after a newer call began is dropped.
    const wanted = key();
    const whole = query(line);
    // The page's link keeps a SnowFall percentage (the API's line has no such part).
    const sf = variant === 'snowfall' ? `&snowfall=${encodeURIComponent(document.getElementById('sf-percent').value)}` : '';
    const url = at(`/analysis?${whole}${sf}`);
    history.replaceState(null, '', url);
    document.getElementById('link').href = url;
    try {
      let all = full;
      if (!all || all.query !== whole) all = { query: whole, ...(await call('GET', `/api/position?${whole}`)) };
      const at = wanted === whole ? all : await call('GET', `/api/position?${wanted}`);
      if (key() !== wanted || query(line) !== whole) return;
      full = all;
      here = at;
    } catch (e) {
      if (key() !== wanted) return;
      // A line that does not read (a bad FEN, move or variant in the URL): the variant's start
      // instead, or chess's.
      error.textContent = e.message;
      if (start || line.length || variant !== 'chess') {
        if (!start && !line.length) variant = 'chess';
        // The FEN typed stays in its field with the error, to be corrected rather than retyped.
        const typed = start;
        start = '';
        line = [];
        variations = [];
        mainLine = null;
        record = noRecord();
        shown = 0;
        full = null;
        await load(true);
        const input = document.getElementById('fen');
        if (input && typed) input.value = typed;
        return;
      }
      return;
    }
    render();
    explore();
  };

  // The explorer's answer for the position shown and the games chosen, asked once each.
  const exploreKey = () => `${key()}&players=${panels.explorerPlayers()}`;
  const explore = async () => {
    const wanted = exploreKey();
    if (explored && explored.key === wanted) return;
    let r;
    try {
      r = await call('GET', `/api/explorer?${wanted}`);
    } catch (e) {
      r = { error: e.message };
    }
    if (exploreKey() === wanted) {
      explored = { key: wanted, ...r };
      render();
    }
  };

  const render = () => {
    if (!here) return;
    select.value = here.variant;
    const fenInput = document.getElementById('fen');
    if (document.activeElement !== fenInput) fenInput.value = start;
    // A draw a player could claim (threefold, fifty moves) ends a game on the server, but the
    // line may go on: the position still has its legal moves.
    const ended = here.result !== null;
    const over = ended && here.legal_moves.length === 0;
    const best = report && !report.error && report.key === key() && report.bestmove ? report.bestmove : null;
    const last = shown ? line[shown - 1] : null;
    board.update({
      fen: here.fen,
      orientation: flipped ? 'black' : 'white',
      turn: here.turn,
      movable: over ? null : here.turn,
      premove: null,
      legal: here.legal_moves,
      lastMove: last ? (last.includes('@') ? [last.slice(0, 2).toUpperCase(), last.slice(2, 4)] : [last.slice(0, 2), last.slice(2, 4)]) : null,
      probabilities: panels.probabilityRows(here.fen),
      shapes: best && !best.includes('@') ? [{ orig: best.slice(0, 2), dest: best.slice(2, 4), brush: 'blue' }] : [],
    });
    document.getElementById('status').textContent = over
      ? `${here.variant}: the game is over here, ${here.result} (${here.reason}).`
      : ended
        ? `${here.variant}: ${here.turn} to move; a draw could be claimed here (${here.reason}), which ends a game on this server.`
        : `${here.variant}: ${here.turn} to move.`;
    const notes = { start: record.comment, at: i => record.notes[line.slice(0, i + 1).join(',')] };
    document.getElementById('moves').innerHTML = panels.moveList(full, shown, null, notes) + variationList();
    document.getElementById('fen-out').value = here.fen;
    renderPgn();
    const chance = /^(probabilistic|snowfall)/.test(here.variant);
    document.getElementById('analysis').innerHTML = panels.analysis(here.tablebase, report && report.key === key() ? report : null, analysing, chance);
    document.getElementById('analyse').disabled = analysing || over;
    for (const b of ['play-ai', 'play-friend']) document.getElementById(b).disabled = ended;
    renderOdds();
    document.getElementById('explorer').innerHTML = panels.explorer(explored && explored.key === exploreKey() ? explored : null, line[shown] || null, true);
  };

  // The line's record with the variations tried (POST /api/position/pgn), asked once per set
  // of lines; until it comes, and in a variant with chance (no side lines), the line's own.
  let exported = null;
  const pgnKey = () => JSON.stringify([variant, start, line, mainLine, variations.map(v => v.uci), record.loaded]);
  const renderPgn = async () => {
    const out = document.getElementById('pgn-out');
    const k = pgnKey();
    const said = record.tags || record.comment || Object.keys(record.notes).length;
    if ((!variations.length && !said) || /^(probabilistic|snowfall)/.test(variant)) {
      out.value = full.pgn;
      return;
    }
    if (exported && exported.key === k) {
      out.value = exported.pgn;
      return;
    }
    out.value = full.pgn;
    if (exported && exported.pending === k) return;
    exported = { pending: k };
    try {
      // The main line, then every other line from where it leaves the main line or an earlier
      // one (`of`), so that a deep tree is sent once, not line by line from the start.
      const main = mainLine || line;
      const others = [line, ...variations.map(v => v.uci)];
      const sent = [];
      const sides = [];
      for (const u of others) {
        let parts = parting(u, main);
        let of = null;
        sent.forEach((w, k) => {
          const p = parting(u, w);
          if (p > parts) [parts, of] = [p, k];
        });
        if (parts === u.length) continue;
        sides.push(of === null ? { parts, play: u.slice(parts).join(',') } : { of, parts, play: u.slice(parts).join(',') });
        sent.push(u);
      }
      const body = { variant, fen: start || null, play: main.join(','), variations: sides };
      if (said) {
        // The record's tags, its result only while its main line is the one it had; its notes
        // on the moves still on a line (all are: a line left is kept as a variation).
        const same = record.main && main.join(',') === record.main.join(',');
        body.tags = (record.tags || []).filter(([name]) => same || name !== 'Result');
        body.comment = record.comment;
        // Each note by the first line sent that plays its move (null: the main line) and the
        // move's index there.
        const place = new Map();
        [[null, main, 0], ...sides.map((side, k) => [k, sent[k], side.parts])].forEach(([k, u, from]) => {
          let key = u.slice(0, from).join(',');
          for (let i = from; i < u.length; i += 1) {
            key = i ? `${key},${u[i]}` : u[i];
            if (!place.has(key)) place.set(key, { line: k, ply: i });
          }
        });
        body.notes = Object.entries(record.notes).filter(([key]) => place.has(key)).map(([key, n]) => ({ ...place.get(key), ...n }));
      }
      const r = await call('POST', '/api/position/pgn', body);
      exported = { key: k, pgn: r.pgn };
      if (pgnKey() === k) out.value = r.pgn;
    } catch (e) {
      // The line's own record stays, and the page says why the variations are not in it.
      exported = null;
      if (pgnKey() === k) {
        const lost = [variations.length ? 'variations' : '', said ? 'tags, comments and NAGs' : ''].filter(Boolean).join(' and its ');
        error.textContent = `The PGN below has the line shown only: its ${lost} could not be written (${e.message}).`;
      }
    }
  };

  const oddsKey = () => `${here.fen}|${document.getElementById('sf-percent').value}`;
  const renderOdds = () => {
    const section = document.getElementById('odds');
    section.hidden = here.variant !== 'snowfall';
    if (section.hidden) return;
    const el = document.getElementById('odds-figures');
    if (odds && odds.key === oddsKey() && !odds.pending) {
      el.innerHTML = odds.error
        ? `<p class="error">${esc(odds.error)}</p>`
        : `<dl class="odds">${panels.oddsFigures(odds).map(o => `<dt>${esc(o.label)}</dt><dd>${esc(o.value)}</dd>`).join('')}</dl>`;
      return;
    }
    el.innerHTML = '<p>Odds: being computed…</p>';
    fetchOdds();
  };
  const fetchOdds = async () => {
    const k = oddsKey();
    if (odds && odds.key === k) return;
    odds = { key: k, pending: true };
    const [fen, percent] = [here.fen, document.getElementById('sf-percent').value];
    let r;
    try {
      r = await call('GET', `/api/odds?fen=${encodeURIComponent(fen)}&snowfall=${encodeURIComponent(percent)}`);
    } catch (e) {
      r = { error: e.message };
    }
    if (odds.key === k) {
      odds = { key: k, ...r };
      renderOdds();
    }
  };

  /** Where two lines part: the first ply at which they differ. */
  const parting = (a, b) => {
    let i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
    return i;
  };
  /** The line shown, kept among the variations (its moves in SAN when they are loaded), unless
   * another line already holds all of it. */
  const keepLine = () => {
    if (!line.length) return;
    if (!mainLine) mainLine = line.slice();
    const san = full && full.query === query(line) ? full.moves.map(m => m.san) : line;
    variations = variations.filter(v => !(v.uci.length <= line.length && parting(v.uci, line) === v.uci.length));
    if (!variations.some(v => parting(v.uci, line) === line.length)) variations.push({ uci: line, san });
  };
  /** Another line becomes the one shown (at the move where it parts from the line shown),
   * the line shown becoming a variation. */
  const switchTo = (v, at) => {
    variations = variations.filter(x => x !== v);
    keepLine();
    line = v.uci;
    shown = Math.min(at, line.length);
    load();
  };
  /** The variations, each from the move where it parts from the line shown. */
  const variationList = () => {
    if (!variations.length) return '';
    const numberOf = panels.numbering(full && full.start_fen);
    const numbered = (v, from, to) => v.san.slice(from, to).map((san, k) => {
      const { white, number } = numberOf(from + k);
      return `${white ? `${number}. ` : k === 0 ? `${number}… ` : ''}${san}`;
    });
    const items = variations.map((v, i) => {
      const at = parting(v.uci, line);
      // Its first eight moves, and where they are another's too, its moves up to the one
      // where it leaves that one (lichess shows the whole tree; a list names each line apart).
      const apart = Math.min(v.uci.length, Math.max(0, ...variations.filter(w => w !== v).map(w => parting(v.uci, w.uci) + 1)));
      const moves = apart <= at + 8 ? numbered(v, at, at + 8) : [...numbered(v, at, at + 4), '…', ...numbered(v, apart - 3, apart)];
      const more = v.san.length > Math.max(at + 8, apart) ? ' …' : '';
      const main = mainLine && v.uci.length === mainLine.length && parting(v.uci, mainLine) === mainLine.length ? 'Main line: ' : '';
      return `<li><button type="button" data-variation="${i}">${esc(main + moves.join(' ') + more)}</button></li>`;
    });
    return `<h2>Variations</h2><ul class="variations" aria-label="variations">${items.join('')}</ul>`;
  };

  /** A move made on the board or chosen in the explorer: the line's next move if it is that
   * one (the rest of the line stays), a variation's if one goes on with it, else a new
   * continuation from the position shown (the line it leaves kept as a variation). */
  const play = uci => {
    if (line[shown] !== uci) {
      const next = [...line.slice(0, shown), uci];
      const known = variations.find(v => parting(v.uci, next) === next.length);
      if (known) return switchTo(known, shown + 1);
      if (line.length > shown) keepLine();
      line = next;
    }
    shown += 1;
    load();
  };
  const show = ply => {
    const next = Math.max(0, Math.min(line.length, ply === 'back' ? shown - 1 : ply === 'forward' ? shown + 1 : ply));
    if (next === shown) return;
    shown = next;
    load();
  };

  document.getElementById('setup').addEventListener('submit', ev => {
    ev.preventDefault();
    variant = select.value;
    start = document.getElementById('fen').value.trim();
    line = [];
    variations = [];
    mainLine = null;
    record = noRecord();
    shown = 0;
    load();
  });
  // A game from the position shown (lichess's "continue from here"): you play the board's
  // bottom side, the AI or a friend (by invitation link) the other.
  const playFrom = async opponent => {
    if (!here) return;
    const mine = flipped ? 'black' : 'white';
    const other = mine === 'white' ? 'black' : 'white';
    try {
      const g = await call('POST', '/api/games', { variant: here.variant, fen: here.fen, [mine]: 'me', [other]: opponent });
      rememberCreated(g);
      const invite = g[other] && g[other].invite;
      location.href = `${BASE}/game/${g.id}${invite ? `?shared=${invite}` : ''}`;
    } catch (e) {
      error.textContent = e.message;
    }
  };
  document.getElementById('play-ai').onclick = () => playFrom('ai');
  document.getElementById('play-friend').onclick = () => playFrom('invite');
  // A pasted record: its variant, its start (kept out of the URL when it is the variant's) and
  // its moves, shown at its end, with its variations; a side line that does not read is said.
  document.getElementById('import').addEventListener('submit', async ev => {
    ev.preventDefault();
    error.textContent = '';
    try {
      const r = await call('POST', '/api/position', { pgn: document.getElementById('pgn-in').value });
      const usual = await call('GET', `/api/position?variant=${encodeURIComponent(r.variant)}`);
      variant = r.variant;
      start = r.start_fen === usual.start_fen ? '' : r.start_fen;
      line = r.moves.map(m => m.uci);
      variations = (r.variations || []).map(v => ({ uci: v.uci, san: v.san }));
      mainLine = variations.length ? line.slice() : null;
      const notes = {};
      for (const n of r.notes || []) {
        const u = n.line === null ? line : r.variations[n.line].uci;
        notes[u.slice(0, n.ply + 1).join(',')] = { nags: n.nags, comment: n.comment, before: n.before };
      }
      record = { tags: r.tags || null, comment: r.comment || null, notes, main: line.slice(), loaded: ++imports };
      shown = line.length;
      full = null;
      const unread = r.unread_variations || [];
      if (unread.length) {
        const more = unread.length > 3 ? `; and ${unread.length - 3} more` : '';
        error.textContent = `${unread.length === 1 ? 'A variation was' : `${unread.length} variations were`} not loaded: ${unread.slice(0, 3).join('; ')}${more}`;
      }
      load(unread.length > 0);
    } catch (e) {
      error.textContent = e.message;
    }
  });
  document.getElementById('sf-percent').addEventListener('change', () => here && renderOdds());
  document.getElementById('flip').onclick = () => {
    flipped = !flipped;
    render();
  };
  document.getElementById('clear').onclick = () => {
    line = [];
    variations = [];
    mainLine = null;
    record = noRecord();
    shown = 0;
    load();
  };
  document.getElementById('moves').addEventListener('click', ev => {
    const b = ev.target.closest('button');
    if (!b) return;
    if (b.dataset.variation !== undefined) {
      const v = variations[Number(b.dataset.variation)];
      if (v) switchTo(v, parting(v.uci, line) + 1);
    } else if (b.dataset.ply !== undefined) show(Number(b.dataset.ply));
    else if (b.dataset.step) show(b.dataset.step === '-1' ? 'back' : 'forward');
  });
  document.getElementById('explorer').addEventListener('change', ev => {
    if (ev.target.id !== 'explorer-players') return;
    panels.setExplorerPlayers(ev.target.value);
    render();
    explore();
  });
  document.getElementById('explorer').addEventListener('click', ev => {
    const b = ev.target.closest('button[data-uci]');
    if (b && here && here.legal_moves.includes(b.dataset.uci)) play(b.dataset.uci);
  });
  document.addEventListener('keydown', ev => {
    // Not while typing, nor on the board (its arrows move its cursor) or its promotion dialog.
    if (ev.target.closest && ev.target.closest('input, textarea, select, .board-wrap, .pocket')) return;
    if (ev.key === 'ArrowLeft') show('back');
    else if (ev.key === 'ArrowRight') show('forward');
  });
  document.getElementById('analysis').addEventListener('click', async ev => {
    if (!ev.target.closest('#analyse') || analysing) return;
    const k = key();
    const body = { variant, play: line.slice(0, shown).join(','), movetime_ms: 1000, lines: 3 };
    if (start) body.fen = start;
    analysing = true;
    report = null;
    render();
    let r;
    try {
      r = await call('POST', '/api/analyse', body);
    } catch (e) {
      r = { error: e.message };
    }
    analysing = false;
    report = { key: k, ...r };
    render();
  });
  await load();
}
