// The panels beside the board: moves, clocks, and what each variant adds (Probabilistic rolls
// and map, SnowFall hands and gifts, Baby Chess column switches) and the fairness check.
// Everything shown comes from the server's state; nothing is computed from the rules here.

import { BASE } from './api.js';
import { pieceName } from './board.js';
import { sha256 } from './sha256.js';

/** Text made safe to put in HTML. */
export const esc = s => String(s).replace(/[&<>"]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** Bytes as lower-case hex. */
export const hex = bytes => Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('');

/** Hex as bytes. */
export const unhex = h => new Uint8Array(h.match(/../g).map(x => parseInt(x, 16)));

/** Milliseconds as m:ss (h:mm:ss from an hour). */
export function clockText(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/**
 * A move's SAN in words, for a screen reader: `Nc6` knight to c6, `exd5` pawn from e takes on
 * d5, `N@f3` knight dropped on f3, `O-O` castles kingside; a SAN not read so is given as it is.
 */
export function sanWords(san) {
  const check = /#/.test(san) ? ', checkmate' : /\+/.test(san) ? ', check' : '';
  const core = san.replace(/[+#!?]+$/, '');
  if (/^(O-O-O|0-0-0)$/.test(core)) return `castles queenside${check}`;
  if (/^(O-O|0-0)$/.test(core)) return `castles kingside${check}`;
  const drop = core.match(/^([A-Z]?)@([a-h]\d)$/);
  if (drop) return `${pieceName(drop[1] || 'P')} dropped on ${drop[2]}${check}`;
  const m = core.match(/^([A-Z]?)([a-h]?\d?)(x?)([a-h]\d)(?:=?([A-Z]))?$/);
  if (!m) return san;
  const [, piece, from, takes, to, promoted] = m;
  const where = `${from ? ` from ${from}` : ''} ${takes ? 'takes on' : 'to'} ${to}`;
  return `${pieceName(piece || 'P')}${where}${promoted ? `, promoted to ${pieceName(promoted)}` : ''}${check}`;
}

/** How a game ended, as words: `resignation` → `by resignation`. */
const ENDINGS = {
  checkmate: 'by checkmate',
  stalemate: 'by stalemate',
  resignation: 'by resignation',
  agreement: 'by agreement',
  time: 'on time',
  kingcaptured: 'by capturing the king',
  repetition: 'by threefold repetition',
  fiftymoves: 'by the fifty-move rule',
  insufficientmaterial: 'by insufficient material',
  plylimit: 'at the ply limit',
  forfeit: 'by forfeit',
  imported: "by the imported record's result",
  adjudication: "by the operator's adjudication",
};

/** A finished game's result in words: `White wins by checkmate`, `Draw by agreement`. */
export function resultWords(state) {
  const who = { '1-0': 'White wins', '0-1': 'Black wins', '1/2-1/2': 'Draw' }[state.result] || `Result ${state.result}`;
  const how = ENDINGS[state.reason] || (state.reason ? `(${state.reason})` : '');
  return how ? `${who} ${how}` : who;
}

/**
 * The move list, numbered, with each move's chance outcome. Each move is a button that shows
 * the position after it (`shown`: the ply on the board). (A screen reader is told of new moves
 * by the page's own live region: this list is drawn anew at every change.)
 */
export function moveList(state, shown, review, notes = null) {
  const judged = review && review.moves ? review.moves : [];
  // A record's comments stand on lines of their own across both columns (as lichess shows
  // them); Black's move after one keeps its column behind a "…".
  // Commands (`[%clk 0:03:00]`, `[%eval 0.25]`) are for programs: not shown (the record keeps them).
  const comment = (text, where) => {
    const shownText = text.replace(/\[%[^\]]*\]/g, ' ').replace(/\s+/g, ' ').trim();
    return shownText ? `<li class="comment"><span class="sr-only">${where}: </span>${esc(shownText)}</li>` : '';
  };
  const items = [];
  if (notes && notes.start) items.push(comment(notes.start, 'comment before the first move'));
  const numberOf = numbering(state.start_fen);
  // Whether Black's move has no White move before it in its row (after a comment, or first).
  let apart = true;
  state.moves.forEach((m, i) => {
    const { white, number } = numberOf(i);
    const n = white ? `${number}. ` : '';
    const named = `${white ? `${number}. ` : `${number}… `}${m.san}`;
    const note = m.event === 'failed' ? ' (failed roll)' : m.event.startsWith('gift') ? ` (${m.event})` : '';
    const current = shown === i + 1 ? ' aria-current="true" class="ply shown"' : ' class="ply"';
    const said = notes && notes.at ? notes.at(i) : null;
    if (said && said.before) {
      const c = comment(said.before, `comment before ${named}`);
      items.push(c);
      apart = apart || c !== '';
    }
    if (!white && apart) items.push(`<li class="gap" aria-hidden="true">${number}…</li>`);
    apart = false;
    // The review's glyph after a judged move, as lichess marks it (?! ? ??); a record's NAGs.
    const j = judged[i] && judged[i].judgement;
    let glyph = j ? `<span class="glyph ${esc(j)}" title="${esc(j)}">${esc(judged[i].glyph)}</span>` : '';
    if (said && said.nags && said.nags.length) {
      glyph += said.nags.map(nag => `<span class="glyph nag" title="${esc(nagMeaning(nag))}">${esc(nagGlyph(nag))}</span>`).join('');
    }
    items.push(`<li>${n}<button type="button" data-ply="${i + 1}"${current}>${esc(m.san)}${glyph}</button>${esc(note)}</li>`);
    if (said && said.comment) {
      const c = comment(said.comment, `comment on ${named}`);
      items.push(c);
      apart = c !== '';
    }
  });
  const browsing = shown !== state.moves.length;
  return `<h2>Moves</h2><ol class="moves" aria-label="moves">${items.join('')}</ol>
    <div class="browse controls"><button type="button" data-ply="0" aria-label="the start position">« Start</button>
      <button type="button" data-step="-1" aria-label="previous move (left arrow)">‹ Back</button>
      <button type="button" data-step="1" aria-label="next move (right arrow)">Next ›</button>
      <button type="button" data-ply="${state.moves.length}" aria-label="the current position">Now »</button>
      ${browsing ? `<span class="browsing">showing the position after ply ${shown} of ${state.moves.length}</span>` : ''}</div>`;
}

/**
 * How a line from `startFen` numbers its moves, as a record does: the move at index `i` is
 * White's or Black's, of full move `number` (`41… Ra4 42. Rd7` from a FEN with Black to move at 41).
 */
export function numbering(startFen) {
  const fields = (startFen || '').split(' ');
  const offset = fields[1] === 'b' ? 1 : 0;
  const first = Math.max(1, parseInt(fields[5], 10) || 1);
  return i => ({ white: (i + offset) % 2 === 0, number: first + Math.floor((i + offset) / 2) });
}

/** PGN's NAGs as glyphs (the common ones, as lichess and ChessBase print them), `$n` else. */
const NAG_GLYPHS = {
  1: ['!', 'good move'], 2: ['?', 'mistake'], 3: ['!!', 'brilliant move'], 4: ['??', 'blunder'],
  5: ['!?', 'interesting move'], 6: ['?!', 'dubious move'], 7: ['□', 'only move'], 10: ['=', 'equal position'],
  13: ['∞', 'unclear position'], 14: ['⩲', 'White is slightly better'], 15: ['⩱', 'Black is slightly better'],
  16: ['±', 'White is better'], 17: ['∓', 'Black is better'], 18: ['+−', 'White is winning'],
  19: ['−+', 'Black is winning'], 22: ['⨀', 'zugzwang'], 32: ['⟳', 'development'], 36: ['↑', 'initiative'],
  40: ['→', 'attack'], 132: ['⇆', 'counterplay'], 138: ['⊕', 'time trouble'], 146: ['N', 'novelty'],
};
export const nagGlyph = nag => (NAG_GLYPHS[nag] ? NAG_GLYPHS[nag][0] : `$${nag}`);
const nagMeaning = nag => (NAG_GLYPHS[nag] ? NAG_GLYPHS[nag][1] : `NAG ${nag}`);

/**
 * An evaluation of the review (`{cp}` or `{mate}`, White's view) as text; in dice variants
 * (`scale` > 0, the review's `win_scale`) the value is White's expected winning chance.
 */
function evalText(e, scale = 0) {
  if (e.mate !== undefined) return `#${e.mate}`;
  if (scale > 0) return `White ${(50 + (50 * Math.max(-1, Math.min(1, e.cp / scale)))).toFixed(1)} %`;
  return `${e.cp > 0 ? '+' : ''}${(e.cp / 100).toFixed(2)}`;
}

/**
 * The game's review (lichess's computer analysis): each side's inaccuracies, mistakes,
 * blunders, average centipawn loss and accuracy (and luck with chance), White's winning
 * chances over the game as a graph whose points show their position, and the judgement of the
 * move leading to the position shown.
 */
export function review(r, busy, shown, chance, id) {
  const head = '<h2>Game review</h2>';
  if (busy) return `${head}<p>The engine is reviewing every move…</p>`;
  if (!r) return `${head}<button type="button" id="review-game">Review the game</button>`;
  if (r.error) return `${head}<p class="error">${esc(r.error)}</p>`;
  const row = (name, s) => `<tr><th scope="row">${name}</th><td>${s.inaccuracies}</td><td>${s.mistakes}</td><td>${s.blunders}</td><td>${s.acpl}</td><td>${s.accuracy === null ? '–' : `${Math.round(s.accuracy)} %`}</td>${chance ? `<td>${s.luck > 0 ? '+' : ''}${Math.round(s.luck)}</td>` : ''}</tr>`;
  const table = `<table class="review-sides"><thead><tr><th></th><th>?! inaccuracies</th><th>? mistakes</th><th>?? blunders</th><th>average centipawn loss</th><th>accuracy</th>${chance ? '<th>luck (win % points)</th>' : ''}</tr></thead>
    <tbody>${row('White', r.sides.white)}${row('Black', r.sides.black)}</tbody></table>`;
  const sides = `<div class="scroll-x">${table}</div>`;
  // White's win percentage, one point per position, 0 % at the bottom; each point a button.
  const w = r.win_percent;
  const x = i => (w.length > 1 ? (i * 300) / (w.length - 1) : 0);
  const y = p => 60 - (p * 60) / 100;
  const line = w.map((p, i) => `${x(i).toFixed(1)},${y(p).toFixed(1)}`).join(' ');
  const points = w.map((p, i) => `<circle class="${i === shown ? 'shown' : ''}" data-ply="${i}" cx="${x(i).toFixed(1)}" cy="${y(p).toFixed(1)}" r="${i === shown ? 3 : 2}"><title>ply ${i}: White ${p} %</title></circle>`).join('');
  const graph = `<svg class="review-graph" viewBox="-4 -4 308 68" role="img" aria-label="White's winning chances, move by move">
    <line x1="0" y1="30" x2="300" y2="30" class="mid"/><polyline points="${line}"/>${points}</svg>`;
  const m = shown > 0 ? r.moves[shown - 1] : null;
  let detail = '';
  if (m) {
    const n = `${m.fullmove}${m.side === 'white' ? '.' : '...'} ${esc(m.san)}${m.glyph ? esc(m.glyph) : ''}`;
    const judged = m.judgement ? ` — ${esc(m.judgement)}${m.mate ? ` (${esc(m.mate)})` : ''}` : '';
    const best = m.best ? ` Best was ${esc(m.best)}.` : '';
    const luck = m.luck !== null && m.luck !== undefined ? ` Luck ${m.luck > 0 ? '+' : ''}${m.luck} points (after the outcome: ${evalText(m.outcome, r.win_scale)}).` : '';
    // A move that ends the game is named, not scored (lichess: "Checkmate").
    const after = /#$/.test(m.san) ? (chance ? 'the king captured' : 'checkmate') : evalText(m.after, r.win_scale);
    detail = `<p class="review-move">${n}: ${evalText(m.before, r.win_scale)} → ${after}${judged}.${best}${luck}</p>`;
  }
  const download = `<p><a id="annotated" href="${esc(BASE)}/api/games/${esc(id)}/record?annotated=true" download="fairylab-${esc(id)}-annotated.pgn">Download the annotated record</a></p>`;
  return `${head}${sides}${graph}${detail}${download}`;
}

/** The explorer's filters of games (GET /api/explorer?players=): a label and how the empty
 * answer names them. */
const EXPLORER_PLAYERS = {
  all: ['All games', ''],
  people: ['Between people', ' between people'],
  ai: ['Against the AI', ' against the AI'],
};
const EXPLORER_PLAYERS_KEY = 'fairylab.explorer.players';

/** Whose games the explorer counts, as this browser last chose: `all`, `people` or `ai`. */
export function explorerPlayers() {
  const p = localStorage.getItem(EXPLORER_PLAYERS_KEY);
  return Object.hasOwn(EXPLORER_PLAYERS, p) ? p : 'all';
}

/** Keeps the explorer's filter chosen in the panel's `#explorer-players` (for every page). */
export function setExplorerPlayers(p) {
  if (Object.hasOwn(EXPLORER_PLAYERS, p)) localStorage.setItem(EXPLORER_PLAYERS_KEY, p);
}

/**
 * The opening explorer (GET /api/explorer) for the position shown: each move the server's
 * finished games played from it, how many games, and how they ended (White wins, draws, Black
 * wins, as lichess's explorer bars show them), with a link to the latest game that played it.
 * `next` is the move the game (or the line) played from the position, marked; with `playable`
 * each move is a button (`data-uci`) that plays it.
 */
export function explorer(r, next, playable = false) {
  const choice = explorerPlayers();
  const options = Object.entries(EXPLORER_PLAYERS)
    .map(([v, [label]]) => `<option value="${v}"${v === choice ? ' selected' : ''}>${label}</option>`)
    .join('');
  const head = `<h2>Opening explorer</h2><p><label>Games: <select id="explorer-players">${options}</select></label></p>`;
  if (!r) return `${head}<p>Looking the position up…</p>`;
  if (r.error) return `${head}<p class="error">${esc(r.error)}</p>`;
  if (!r.moves.length) return `${head}<p>No finished game${EXPLORER_PLAYERS[choice][1]} on this server played on from this position (the explorer counts the first 50 plies).</p>`;
  const pc = (n, all) => (all ? Math.round((100 * n) / all) : 0);
  const bar = (w, d, b) => {
    const all = w + d + b;
    const seg = (cls, n) => {
      const p = pc(n, all);
      return p ? `<span class="${cls}" style="width:${p}%">${p >= 15 ? `${p} %` : ''}</span>` : '';
    };
    return `<span class="wdl" title="White wins ${pc(w, all)} %, draws ${pc(d, all)} %, Black wins ${pc(b, all)} %">${seg('w', w)}${seg('d', d)}${seg('b', b)}</span>`;
  };
  const rows = r.moves.map(
    m => `<tr${m.uci === next ? ' class="played" title="played in this game"' : ''}><th scope="row">${playable ? `<button type="button" class="explore-move" data-uci="${esc(m.uci)}">${esc(m.san)}</button>` : esc(m.san)}</th><td>${m.games}</td><td>${bar(m.white, m.draws, m.black)}</td><td><a href="/game/${esc(m.last_game)}">latest game</a></td></tr>`,
  );
  const games = r.white + r.draws + r.black;
  return `${head}<table class="explorer"><thead><tr><th>Move</th><th>Games</th><th>White / draw / Black</th><th></th></tr></thead>
    <tbody>${rows.join('')}</tbody><tfoot><tr><th scope="row">Σ</th><td>${games}</td><td>${bar(r.white, r.draws, r.black)}</td><td></td></tr></tfoot></table>`;
}

/** A score for White as text: `+1.25`, `#3`, `#-2`. */
export function scoreText(score) {
  if (score.white_mate !== undefined) return `#${score.white_mate}`;
  if (score.white_table) return score.white_table === 'win' ? 'White wins (table)' : 'Black wins (table)';
  const v = score.white_cp / 100;
  return `${v > 0 ? '+' : ''}${v.toFixed(2)}`;
}

/**
 * The analysis panel: the endgame tables' verdict on the position shown (from the state or
 * the analysis), and the engine's evaluation and best line once asked for. `allowed` is false
 * while two people play each other (the state's `engine_help`): the button is disabled.
 */
export function analysis(verdict, report, busy, chance, allowed = true) {
  if (!allowed) {
    return '<h2>Analysis</h2><button type="button" id="analyse" disabled>Analyse this position (1 s)</button><p class="no-engine">No engine or endgame table while two people play each other: the game can be analysed once it is over.</p>';
  }
  const table = verdict ? `<p class="tb">Endgame table: <strong>${esc(verdict.text)}</strong></p>${tableMoves(verdict)}` : '';
  let engine = '';
  if (busy) engine = '<p>The engine is thinking…</p>';
  else if (report && report.error) engine = `<p class="error">${esc(report.error)}</p>`;
  else if (report) {
    const line = report.pv.map(m => esc(m.san)).join(' ');
    const nodes = report.nodes >= 1e6 ? `${(report.nodes / 1e6).toFixed(1)} M` : `${Math.round(report.nodes / 1e3)} k`;
    // The other lines the engine found, each with its own evaluation.
    const others = (report.lines || []).slice(1).map(l =>
      `<li><span class="line-score">${scoreText(l.score)}</span> <span class="alt-pv">${l.pv.map(m => esc(m.san)).join(' ') || '—'}</span></li>`);
    engine = `<p class="eval">Evaluation (White's view${chance ? ', expected over the chance outcomes' : ''}): <strong>${scoreText(report.score)}</strong>
      · depth ${report.depth} · ${nodes} nodes</p><p>Best line: <span class="pv">${line || '—'}</span></p>
      ${others.length ? `<p>Other moves:</p><ol class="other-lines">${others.join('')}</ol>` : ''}`;
  }
  return `<h2>Analysis</h2>${table}<button type="button" id="analyse">Analyse this position (1 s)</button>${engine}`;
}

/** The tables' optimal line and every move with the verdict it leads to for the mover, best
 * first (as lichess's tablebase explorer lists them). */
function tableMoves(verdict) {
  // Numbered as in a record: `1. Ke2 Kd4 2. Ra5`, or `1... Kd4 2. Ke2` with Black to move.
  const black = verdict.side === 'black';
  const line = (verdict.line || [])
    .map((m, i) => {
      const n = (verdict.fullmove || 1) + Math.floor((i + (black ? 1 : 0)) / 2);
      const white = (i % 2 === 0) !== black;
      return `${white ? `${n}. ` : i === 0 ? `${n}... ` : ''}${esc(m.san)}`;
    })
    .join(' ');
  const moves = (verdict.by_move || []).map(m =>
    `<li class="tb-${esc(m.result)}"><span class="san">${esc(m.san)}</span> <span class="tb-value">${esc(m.text)}</span></li>`);
  return `${line ? `<p class="tb-line">Optimal line: <span class="tb-pv">${line}</span></p>` : ''}${moves.length ? `<ol class="tb-moves" aria-label="Every move by the endgame table">${moves.join('')}</ol>` : ''}`;
}

/** Chess960 and crazyhouse960: the start position's number (Scharnagl's, 518 the orthodox
 * setup) and its back rank. */
export function chess960(state) {
  const n = state.options && state.options.chess960;
  const rank = ((state.start_fen || '').split('/')[7] || '').split(' ')[0].replace(/\[.*$/, '');
  const start = Number.isInteger(n) ? `start position no. ${n} (${esc(rank)})` : 'a start position given by FEN';
  const title = state.variant === 'crazyhouse960' ? 'Crazyhouse960' : 'Chess960';
  return `<h2>${title}</h2><p class="c960">${start}. Castle by moving the king onto its rook, or to its castling square.</p>`;
}

/** The probability map of a Probabilistic FEN (its seventh field), top rank first. */
export function probabilityRows(fen) {
  const field = fen.split(' ')[6];
  if (!field || !field.includes(',')) return null;
  return field.split('/').map(r => r.split(',').map(Number));
}

/**
 * Probabilistic chess: every move's roll with its chance (a list that scrolls), the last one
 * animated, the one of the ply shown (`shown`, when browsing) marked.
 */
export function rolls(state, shown = state.moves.length) {
  const list = state.moves.map((m, i) => {
    const ok = m.event !== 'failed';
    const last = i === state.moves.length - 1 && shown === state.moves.length ? ' last' : '';
    const here = i + 1 === shown ? ' shown" aria-current="true' : '';
    const chance = m.percent === null || m.percent === undefined ? '' : ` (${m.percent} %)`;
    return `<li class="roll ${ok ? 'ok' : 'failed'}${last}${here}">ply ${i + 1} ${esc(m.san)}${chance}: ${ok ? '✓ success' : '✗ failed'}</li>`;
  });
  return `<h2>Rolls</h2><p>Each move succeeds with its destination square's probability (the numbers on the board).</p>
    <ul class="rolls" aria-label="rolls">${list.join('')}</ul>`;
}

/** SnowFall: the percentage, both hands, the gifts so far, and the live odds (from the server). */
export function snowfall(state, hands, odds) {
  const hand = c => {
    const h = hands ? hands[c] : {};
    const text = Object.entries(h).map(([l, n]) => `${n}×${l.toUpperCase()}`).join(' ');
    return text || '—';
  };
  const gifts = state.moves
    .map((m, i) => ({ m, i }))
    .filter(({ m }) => m.event.startsWith('gift'))
    .map(({ m, i }) => `<li>after ply ${i + 1}: ${esc(m.event.slice(5))}</li>`);
  const oddsHtml = odds
    ? `<dl class="odds">${odds.map(o => `<dt>${esc(o.label)}</dt><dd>${esc(o.value)}</dd>`).join('')}</dl>`
    : `<p class="odds">${state.status === 'active' ? 'Odds: being computed…' : 'The game is over.'}</p>`;
  return `<h2>SnowFall ${esc(state.options.snowfall ?? '')} %</h2>
    <p>White's hand: <span class="hand white">${esc(hand('white'))}</span><br>
       Black's hand: <span class="hand black">${esc(hand('black'))}</span></p>
    <h3>Gifts</h3><ul class="gifts">${gifts.join('') || '<li>none yet</li>'}</ul>
    <h3>Next gift</h3>${oddsHtml}`;
}

/**
 * The server's SnowFall odds report (GET /api/games/{id}/odds) as labelled figures: the next
 * gift's pieces and the chance to be mated thanks to a gift. Nothing is computed here.
 */
export function oddsFigures(r) {
  const pc = p => `${(100 * p.decimal).toFixed(1)} %`;
  const names = { Q: 'a queen', R: 'a rook', B: 'a bishop', N: 'a knight', P: 'a pawn' };
  const cap = c => c[0].toUpperCase() + c.slice(1);
  const g = r.next_gift;
  const out = [{ label: `A gift event after ${g.after_move_of}'s next move`, value: pc(g.event_probability) }];
  for (const c of ['white', 'black']) {
    const k = g.kinds[c];
    out.push({ label: `${cap(c)}'s gift, if one comes`, value: ['Q', 'R', 'B', 'N', 'P'].map(l => `${names[l]} ${pc(k[l])}`).join(', ') });
  }
  const m = r.mated_next;
  const best = m.best_defence;
  out.push({
    label: `${cap(m.by)} mates ${m.side} next move (after ${m.side}'s move and its gift)`,
    value:
      m.risky_moves === 0
        ? `0 % whatever ${m.side} plays`
        : `${pc(best.probability)} after the safest move ${best.san}, up to ${pc(m.worst.probability)} after ${m.worst.san} (${m.risky_moves} of ${m.moves} moves carry a risk)`,
  });
  return out;
}

/** The fairness panel: the seed commitment, and once the game is over the check in the browser. */
export function fairness(state, verdict) {
  const v = verdict === undefined ? '' : verdict ? '<strong class="verified">verified ✓</strong>' : '<strong class="bad">does not match ✗</strong>';
  return `<h2>Fairness</h2><p>Seed commitment (SHA-256): <code class="hash">${esc(state.seed_hash)}</code></p>
    ${state.seed ? `<p>Seed: <code class="hash">${esc(state.seed)}</code> ${v}</p>` : '<p>The seed is revealed when the game ends.</p>'}`;
}

/** Whether a revealed seed (hex) hashes to its commitment, by SHA-256 (sha256.js). */
export async function verifySeed(seedHex, hashHex) {
  const digest = await sha256(unhex(seedHex));
  return hex(digest) === hashHex.toLowerCase();
}

/** Baby Chess: every piece's column switches left (of five), read from the FEN's `{n}` counts. */
export function babySwitches(fen, limit = 5) {
  const ranks = fen.split(' ')[0].split('[')[0].split('/');
  const rows = [];
  ranks.forEach((rank, i) => {
    const r = ranks.length - i;
    let file = 0;
    for (let k = 0; k < rank.length; k++) {
      const c = rank[k];
      if (/[0-9]/.test(c)) {
        file += Number(c);
        continue;
      }
      if (!/[a-zA-Z]/.test(c)) continue;
      let used = 0;
      if (rank[k + 1] === '~') k++;
      const m = rank.slice(k + 1).match(/^\{(\d)\}/);
      if (m) {
        used = Number(m[1]);
        k += 3;
      }
      const square = String.fromCharCode(97 + file) + r;
      rows.push({ square, piece: c, left: limit - used });
      file++;
    }
  });
  const side = white =>
    rows
      .filter(x => (x.piece === x.piece.toUpperCase()) === white && x.piece.toLowerCase() !== 'k')
      .map(x => `<li${x.left === 0 ? ' class="frozen"' : ''}>${esc(x.piece.toUpperCase())} ${x.square}: ${x.left} left</li>`)
      .join('');
  return `<h2>Column switches left</h2><p>No backward moves; a piece may change columns ${limit} times, then only moves along its own column (a new queen starts afresh).</p>
    <div class="switches"><div><h3>White</h3><ul>${side(true)}</ul></div><div><h3>Black</h3><ul>${side(false)}</ul></div></div>`;
}
