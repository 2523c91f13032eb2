// The page: the lobby at `/` (create a game, the games list), a game at `/game/{id}` (board,
// moves, clocks, controls, the variant's panel), kept current by the live stream, and the
// analysis board at `/analysis` (analysis.js).

import { BASE, at, pagePath, call, seat, remember, rememberBoth, rememberCreated, heldGames, follow, followLobby, ApiError } from './api.js';
import { Board, pockets } from './board.js';
import * as panels from './panels.js';
import { PredictorDesk } from './predictor.js';
import { analysisBoard } from './analysis.js';
import { Chat } from './chat.js';

const main = document.getElementById('main');
const { esc } = panels;

function route() {
  const path = pagePath();
  const m = path.match(/^\/game\/([0-9a-f]{1,64})$/);
  const skip = document.querySelector('.skip');
  skip.textContent = m || path === '/analysis' ? 'Skip to the board' : 'Skip to the content';
  if (m) gamePage(m[1]);
  // A game address whose id cannot be a game's: said as for an id no game has.
  else if (path.startsWith('/game/')) noSuchGame();
  else if (path === '/analysis') analysisBoard(main);
  else lobby();
}

/** The page for a game that does not exist (or no longer: `said`): said, without a game's controls. */
function noSuchGame(said = 'No such game.') {
  document.title = 'No such game — fairylab';
  main.innerHTML = '<h1 class="sr-only">No such game</h1><p class="error" id="error" role="alert">' + esc(said) + '</p><p><a href="' + esc(at('/')) + '">Back to the lobby</a></p>';
}

// The skip link goes to the board (or the page's content) by moving the focus: a new fragment
// in the address would route the page again.
document.querySelector('.skip').addEventListener('click', ev => {
  ev.preventDefault();
  const target = document.querySelector('.board-wrap') || document.getElementById('move-text') || main;
  target.focus();
});

// ---------------------------------------------------------------- lobby

async function lobby() {
  document.title = 'fairylab — lobby';
  main.innerHTML = `
    <section class="create" aria-labelledby="create-h">
      <h1 id="create-h">New game</h1>
      <form id="create">
        <label>Variant <select name="variant" id="variant"></select></label>
        <label>Opponent
          <select name="opponent">
            <option value="ai">the AI (full strength)</option>
            <optgroup label="A weaker AI">
              ${[1, 2, 3, 4, 5, 6, 7].map(n => `<option value="ai:level${n}">the AI, level ${n} of 8${n === 1 ? ' (weakest)' : ''}</option>`).join('')}
            </optgroup>
            <option value="ai:blind">the AI, blind to chance</option>
            <option value="invite">a friend (invitation link)</option>
            <option value="open">anyone (an open seat in the lobby)</option>
            <option value="me">myself (a board where I move both sides)</option>
            <option value="watch">watch the AI play itself</option>
          </select></label>
        <label>I play <select name="color"><option value="white">White</option><option value="black">Black</option><option value="random">either</option></select></label>
        <label class="ai-only">AI time per move (ms) <input name="movetime" type="number" min="10" max="10000" value="300"></label>
        <label class="clock-only">Clock (minutes, empty: none) <input name="minutes" type="number" min="1" max="1440" placeholder="none"></label>
        <label class="clock-only">Increment (s) <input name="increment" type="number" min="0" max="3600" placeholder="0"></label>
        <label class="predictor-only">Seconds per ply (empty: no limit) <input name="ply_seconds" type="number" min="1" max="86400" placeholder="none"></label>
        <label class="snowfall-only">SnowFall % (empty: drawn) <input name="snowfall" type="number" min="0" max="100"></label>
        <label class="wide">Start position (FEN, empty: the variant's) <input name="fen" spellcheck="false" autocomplete="off"></label>
        <label class="wide">Moves to start from (PGN or SAN, empty: none; a whole game with its result, 1-0, 0-1 or 1/2-1/2, is imported finished, for its review) <textarea name="pgn" rows="2" spellcheck="false" placeholder="1. e4 e5 2. Nf3"></textarea></label>
        <button type="submit">Create</button>
        <p class="error" role="alert"></p>
      </form>
    </section>
    <section aria-labelledby="mine-h" id="mine-section" hidden><h1 id="mine-h">Your games</h1><div id="mine"></div></section>
    <section aria-labelledby="games-h"><h1 id="games-h">Games</h1><div id="games">Loading…</div></section>`;
  const form = document.getElementById('create');
  const error = form.querySelector('.error');
  try {
    const { variants } = await call('GET', '/api/variants');
    document.getElementById('variant').innerHTML = variants
      .filter(v => v.served && v.name !== 'coinflip')
      .map(v => `<option value="${esc(v.name)}" title="${esc(v.summary)}">${esc(v.name)}</option>`)
      .join('');
  } catch (e) {
    error.textContent = e.message;
  }
  // The SnowFall percentage is asked for SnowFall games only; Predictor chess is timed by the
  // ply, the others by clocks.
  const snowfallField = form.querySelector('.snowfall-only');
  const showSnowfall = () => {
    const v = document.getElementById('variant').value;
    snowfallField.hidden = v !== 'snowfall';
    for (const l of form.querySelectorAll('.clock-only')) l.hidden = v === 'predictor';
    form.querySelector('.predictor-only').hidden = v !== 'predictor';
  };
  document.getElementById('variant').addEventListener('change', showSnowfall);
  showSnowfall();
  // The AI's time per move is asked for games with the AI only.
  const aiField = form.querySelector('.ai-only');
  const opponentField = form.querySelector('select[name=opponent]');
  const showAi = () => (aiField.hidden = ['invite', 'open', 'me'].includes(opponentField.value));
  opponentField.addEventListener('change', showAi);
  showAi();
  form.addEventListener('submit', async ev => {
    ev.preventDefault();
    error.textContent = '';
    const f = new FormData(form);
    let mine = f.get('color');
    if (mine === 'random') mine = Math.random() < 0.5 ? 'white' : 'black';
    const other = mine === 'white' ? 'black' : 'white';
    const opponent = f.get('opponent');
    const body = { variant: f.get('variant'), movetime_ms: Number(f.get('movetime')) || 300 };
    if (opponent === 'watch') {
      body.white = 'ai';
      body.black = 'ai';
    } else if (opponent === 'me' && body.variant === 'predictor') {
      error.textContent = 'Predictor chess is played by two sides ordering in secret: invite a friend, open a seat or play the AI.';
      return;
    } else {
      body[mine] = 'me';
      body[other] = opponent;
    }
    if (body.variant !== 'predictor' && f.get('increment') && Number(f.get('increment')) > 0 && !f.get('minutes')) {
      error.textContent = 'An increment needs a clock: give the minutes per side too.';
      return;
    }
    if (body.variant === 'predictor') {
      if (f.get('ply_seconds')) body.ply_seconds = Number(f.get('ply_seconds'));
    } else if (f.get('minutes')) body.clock_seconds = Number(f.get('minutes')) * 60;
    if (body.clock_seconds && f.get('increment')) body.increment_seconds = Number(f.get('increment'));
    if (f.get('snowfall') !== '' && body.variant === 'snowfall') body.snowfall = Number(f.get('snowfall'));
    if (f.get('fen').trim()) body.fen = f.get('fen').trim();
    if (f.get('pgn').trim()) body.pgn = f.get('pgn').trim();
    try {
      const g = await call('POST', '/api/games', body);
      rememberCreated(g);
      const invite = g[other] && g[other].invite;
      history.pushState({}, '', `${BASE}/game/${g.id}${invite ? `?shared=${invite}` : ''}`);
      route();
    } catch (e) {
      error.textContent = e.message;
    }
  });
  const list = document.getElementById('games');
  list.addEventListener('click', async ev => {
    const b = ev.target.closest('button.join');
    if (!b) return;
    try {
      const j = await call('POST', `/api/games/${b.dataset.id}/join`, {});
      remember(b.dataset.id, j.color, j.token);
      location.href = at(`/game/${b.dataset.id}`);
    } catch (e) {
      b.replaceWith(document.createTextNode(` ${e.message}`));
    }
  });
  // The games list, read again whenever the lobby's stream says a game was created, a seat taken
  // or a game ended (new games and open seats appear, taken seats go, as lichess's lobby keeps
  // its seeks current), and every half minute in case the stream is down.
  const load = async () => {
    if (!list.isConnected) return;
    try {
      const { games } = await call('GET', '/api/games');
      list.innerHTML = games.length
        ? `<table><thead><tr><th>game</th><th>variant</th><th>White</th><th>Black</th><th>state</th></tr></thead><tbody>${games
            .map(g => {
              // A seat open to anyone: a button takes it (unless this browser already holds one).
              const join = g.open_to_anyone && !seat(g.id) ? ` <button type="button" class="join" data-id="${esc(g.id)}">Join as ${esc(g.open_seat)}</button>` : '';
              const stateText = (g.result === '*' ? 'aborted' : g.result) || (g.open_seat ? `open: waiting for ${g.open_seat}` : g.status);
              // Players named as the game page names them (a person, the AI and its level).
              const player = p => (p === 'human' ? 'a person' : aiName(p));
              return `<tr><td data-label="game"><a href="${esc(BASE)}/game/${esc(g.id)}">${esc(g.id)}</a></td><td data-label="variant">${esc(g.variant)}</td><td data-label="White">${esc(player(g.white))}</td><td data-label="Black">${esc(player(g.black))}</td><td data-label="state">${esc(stateText)}${join}</td></tr>`;
            })
            .join('')}</tbody></table>`
        : '<p>No games yet.</p>';
    } catch (e) {
      list.textContent = e.message;
    }
  };
  // The games this browser holds a seat in (its tokens), the latest first: where it is to move,
  // as lichess's "playing now" list shows it.
  const mine = document.getElementById('mine');
  const loadMine = async () => {
    const held = heldGames().slice(0, MY_GAMES);
    document.getElementById('mine-section').hidden = !held.length;
    if (!held.length) return;
    const rows = await Promise.all(
      held.map(async ([id, s]) => {
        let st;
        try {
          st = await call('GET', `/api/games/${id}`);
        } catch {
          return '';
        }
        const colour = s.color === 'both' ? 'both sides' : s.color;
        const mover = st.variant === 'predictor' ? null : st.turn;
        const state =
          st.status !== 'active'
            ? (st.result === '*' ? 'aborted' : `over: ${st.result}`)
            : mover && (s.color === 'both' || s.color === mover)
              ? '<strong>your move</strong>'
              : 'waiting';
        return `<tr><td data-label="game"><a href="${esc(BASE)}/game/${esc(id)}">${esc(id)}</a></td><td data-label="variant">${esc(st.variant)}</td><td data-label="you play">${esc(colour)}</td><td data-label="state">${state}</td></tr>`;
      }),
    );
    mine.innerHTML = `<table><thead><tr><th>game</th><th>variant</th><th>you play</th><th>state</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  };
  const poll = async () => {
    if (!list.isConnected) return;
    await Promise.all([load(), loadMine()]);
    setTimeout(poll, LOBBY_REFRESH_MS);
  };
  // Changes read the list again (at most once a second however many arrive, so a burst of new
  // games costs one request), and this browser's games when one of them changed.
  let pending = null;
  let mineChanged = false;
  const stop = followLobby(change => {
    if (!list.isConnected) return stop();
    mineChanged ||= Boolean(seat(change.game));
    if (pending) return;
    pending = setTimeout(() => {
      pending = null;
      if (!list.isConnected) return;
      load();
      if (mineChanged) loadMine();
      mineChanged = false;
    }, LOBBY_COALESCE_MS);
  });
  await poll();
}

/** How long the lobby gathers the stream's changes before reading the list again. */
const LOBBY_COALESCE_MS = 1000;

/** How often the lobby reads the games list again without being told (the stream's fallback). */
const LOBBY_REFRESH_MS = 30000;

/** How many of the browser's own games the lobby lists. */
const MY_GAMES = 12;

/** How many of the latest announcements a game page's live region keeps. */
const ANNOUNCED_LINES = 3;

/** How long a game page waits before asking an unreachable server again. */
const CONNECTION_RETRY_MS = 2000;

// ---------------------------------------------------------------- game

/** The focus to give back to a section's control once it can take it (it was disabled). */
const focusLater = new Map();

/** A selector finding again, once `section` is drawn anew, the control in it with the focus. */
function focusSelector(section) {
  const el = document.activeElement;
  if (!el || el === document.body || !section.contains(el)) return null;
  if (el.id) return `#${CSS.escape(el.id)}`;
  const attrs = ['data-ply', 'data-step', 'data-uci']
    .filter(a => el.hasAttribute(a))
    .map(a => `[${a}="${CSS.escape(el.getAttribute(a))}"]`)
    .join('');
  if (!attrs) return null;
  // The move list's buttons and the browsing buttons under it share their `data-ply`s.
  const within = el.closest('ol') ? 'ol ' : el.closest('.browse') ? '.browse ' : '';
  return `${within}${el.localName}${attrs}`;
}

/**
 * Draws a section of the page anew (`html`, then `then(section)`), keeping the keyboard's focus
 * on the same control in it (a move in the list, ‹ Back): a control replaced under the focus
 * would drop it to the page. A control disabled meanwhile (Analyse while the engine thinks)
 * gets the focus back once it is enabled again, unless the focus went elsewhere.
 */
function redraw(section, html, then) {
  const lost = document.activeElement === document.body || !document.activeElement;
  const selector = focusSelector(section) || (lost ? focusLater.get(section.id) : null);
  focusLater.delete(section.id);
  section.innerHTML = html;
  if (then) then(section);
  if (!selector) return;
  const again = section.querySelector(selector);
  if (again && !again.disabled) again.focus({ preventScroll: true });
  else focusLater.set(section.id, selector);
}

/** How the page names an AI player (`ai:engine`, `ai:blind`, `ai:level3`). */
function aiName(player) {
  const level = /^ai:level(\d)$/.exec(player || '');
  if (level) return `the AI, level ${level[1]} of 8`;
  return player === 'ai:blind' ? 'the AI, blind to chance' : 'the AI';
}

/** A word with a capital first letter. */
const capital = w => w[0].toUpperCase() + w.slice(1);

async function gamePage(id) {
  const params = new URLSearchParams(location.search);
  // An invitation: take the seat, then forget the code. A browser that already holds a seat
  // of the game is its creator opening the link it is to send: it keeps its own seat. The
  // creator's own address (`?shared=`) holds the same code: a visitor without a seat who opens
  // it is the friend it was sent to, and joins as with the link. A code that does not work
  // (used, mistyped) is said on the page, which shows the game to watch.
  const code = params.get('invite') || (!seat(id) && params.get('shared'));
  let joinError = '';
  if (code) {
    if (!seat(id)) {
      try {
        const j = await call('POST', `/api/games/${id}/join`, { code });
        remember(id, j.color, j.token);
      } catch (e) {
        joinError = `This invitation could not be used (${e.message}): you are watching the game.`;
      }
    }
    history.replaceState({}, '', at(`/game/${id}`));
  }
  // A Predictor team member's link: `#member=<side>.<name>.<token>` (a fragment: never sent).
  const member = location.hash.match(/^#member=(white|black)\.([^.]+)\.([0-9a-f]+)$/);
  if (member) {
    remember(id, member[1], member[3], decodeURIComponent(member[2]));
    history.replaceState({}, '', at(`/game/${id}`));
  }
  // The invitation for the opponent: from the page that created the game, or kept with the
  // seat, so that it can be sent later (until the seat is taken).
  const kept = seat(id);
  const shared = (kept && kept.invite) || (kept && !code && params.get('shared')) || null;
  document.title = 'Game — fairylab';
  main.innerHTML = `
    <h1 class="sr-only" id="game-h">Game</h1>
    <div class="game play">
      <div class="board-col"><p class="conn" id="conn" role="status"></p><div id="board"></div><p class="board-hint" id="board-hint" hidden></p></div>
      <aside class="side">
        <p class="status" id="status"></p>
        <div class="sr-only" id="announce" aria-live="polite"></div>
        <div class="clocks" id="clocks"></div>
        <div class="controls">
          <button id="flip" type="button">Flip board</button>
          <button id="join" type="button" hidden>Join</button>
          <button id="resign" type="button">Resign</button>
          <button id="draw" type="button">Offer draw</button>
          <button id="takeback" type="button" hidden>Take back</button>
          <button id="decline" type="button" hidden>Decline</button>
          <button id="rematch" type="button">Rematch</button>
          <a id="to-rematch" hidden>Watch the rematch</a>
          <a id="record" href="${esc(BASE)}/api/games/${id}/record" download="fairylab-${id}.pgn">Download record</a>
          <a id="to-board" hidden>Analysis board</a>
        </div>
        ${shared ? `<p class="invite" id="invite">Invitation link for your opponent: <span class="copy-row"><input readonly value="${esc(`${location.origin}${BASE}/game/${id}?invite=${shared}`)}" aria-label="invitation link"><button type="button" id="copy-invite">Copy</button></span></p>` : ''}
        <form id="move-form" class="move-form">
          <label for="move-text">Type a move (UCI or SAN)</label>
          <input id="move-text" autocomplete="off" spellcheck="false" placeholder="e2e4, Nf3, Q@f7">
          <button type="submit">Play</button>
        </form>
        <p class="error" id="error" role="alert"></p>
        <section id="variant-panel"></section>
        <section id="moves"></section>
        <section id="chat" hidden></section>
        <section id="analysis"></section>
        <section id="review"></section>
        <section id="explorer"></section>
        <section id="fairness"></section>
        <span class="sr-only" id="draw-why"></span>
      </aside>
    </div>`;
  // The seat held; with both seats (one person moving both sides) the seat of the side to move,
  // set at every state.
  const held = seat(id);
  const both = !!held && held.color === 'both';
  let mySeat = both ? null : held;
  let flipped = false;
  let state = null;
  let fetchedAt = 0;
  let verdict;
  const error = document.getElementById('error');
  if (joinError) error.textContent = joinError;
  let desk = null;
  // The ply shown on the board (null: the current position) and the analysis of it.
  let viewPly = null;
  let report = null;
  let reportKey = '';
  let analysing = false;
  // The game's review (GET .../review), once asked for; `reviewing` while the server works.
  let gameReview = null;
  let reviewing = false;
  const board = new Board(document.getElementById('board'), async uci => {
    if (desk) return desk.onBoardMove(uci);
    error.textContent = '';
    try {
      await call('POST', `/api/games/${id}/moves`, { move: uci, ply: state.ply }, mySeat.token);
    } catch (e) {
      showError(e);
      // Not played: the piece goes back at once, to the last position the server gave.
      render();
    }
    refresh();
  });

  // The connection to the server: lost when the live stream closes or a request cannot reach
  // the server, said in the banner above the board (a status region that stays in the page),
  // and found again when a request gets through (the page asks again every few seconds).
  let streamDown = false;
  let unreachable = false;
  let retry = null;
  const showConnection = () => {
    const conn = document.getElementById('conn');
    if (!conn) return;
    const text = streamDown || unreachable ? 'Connection to the server lost — reconnecting…' : '';
    if (conn.textContent !== text) conn.textContent = text;
  };
  /** An error said under the controls; one from an unreachable server also in the banner. */
  const showError = e => {
    error.textContent = e.message;
    const lost = e instanceof ApiError && e.status === 0;
    error.dataset.lost = lost ? 'yes' : '';
    if (!lost) return;
    unreachable = true;
    showConnection();
    if (!retry) retry = setTimeout(() => {
      retry = null;
      refresh();
    }, CONNECTION_RETRY_MS);
  };
  /** The server answered: the banner and the error of the lost connection go. */
  const reached = () => {
    if (!unreachable) return;
    unreachable = false;
    showConnection();
    if (error.dataset.lost) {
      error.textContent = '';
      error.dataset.lost = '';
    }
  };

  // For the browser tests' diagnostics: the board and the state the page holds.
  window.fairylab = { board: () => board, state: () => state };
  const orientation = () => ((mySeat && !both ? mySeat.color : 'white') === 'white' !== flipped ? 'white' : 'black');
  /** The FEN after `ply` plies of a sequential game. */
  const fenAt = ply => (ply === state.moves.length ? state.fen : ply === 0 ? state.start_fen : state.moves[ply - 1].fen);
  /** The side this browser plays: null when watching, or moving both sides. */
  const mySide = () => (mySeat && !both ? mySeat.color : null);
  /** A game's end in words: who won and how, and for a player what it means for them. */
  const endWords = s => {
    if (s.reason === 'aborted' || s.result === '*') return 'Game aborted: no result.';
    const winner = { '1-0': 'white', '0-1': 'black' }[s.result];
    const side = mySide();
    const mine = !side || !winner ? '' : winner === side ? ' You won.' : ' You lost.';
    // How a Predictor forfeit came about (a reveal not made in time, orders not playable).
    const why = s.forfeit ? ` ${capital(s.forfeit)}.` : '';
    return `Game over: ${panels.resultWords(s)} (${s.result}).${why}${mine}`;
  };
  /** The page's title: whose move it is or the result, then the variant. */
  const setTitle = () => {
    const side = mySide();
    const myTurn = state.variant !== 'predictor' && (both || (side && state.turn === side));
    const what =
      state.status !== 'active'
        ? state.result === '*' ? 'Game aborted' : `Game over: ${state.result}`
        : state.variant === 'predictor' ? `Ply ${state.ply}` : myTurn ? 'Your move' : `${capital(state.turn)} to move`;
    const title = `${what} — ${state.variant} — fairylab`;
    if (document.title !== title) document.title = title;
  };
  /** Whether the seat of colour `c` still waits for its player (both may). */
  const seatOpen = c => (state.open_seats || [state.open_seat]).includes(c);
  /** The page's heading (for a screen reader): the game, and who plays whom. */
  const gameHeading = () => {
    const name = c => (seatOpen(c) ? 'an opponent still to come' : state[c] === 'human' ? 'a person' : aiName(state[c]));
    const side = mySide();
    if (both) return `${state.variant} game: you play both sides`;
    if (side) return `${state.variant} game: you (${side}) against ${name(other(side))}`;
    return `${state.variant} game: ${name('white')} (white) against ${name('black')} (black)`;
  };
  /**
   * The focus kept on the controls: when the control that had it is disabled or hidden by the
   * new state (Resign once the game is over, Offer draw once offered), the next control that can
   * take it does (Rematch), else the previous one, rather than the page.
   */
  const keepControlFocus = had => {
    const bar = had && had.closest && had.closest('.controls');
    if (!bar || (!had.disabled && !had.hidden)) return;
    const usable = el => !el.disabled && !el.hidden && el.getClientRects().length > 0;
    const all = [...bar.querySelectorAll('button, a[href]')];
    const i = all.indexOf(had);
    const next = all.slice(i + 1).find(usable) || all.slice(0, i).reverse().find(usable);
    if (next) next.focus({ preventScroll: true });
  };
  /**
   * Words for a screen reader, added as a new line to the page's live region (one made with the
   * page and kept): an addition is said even when another came just before it (your move, then
   * the AI's reply) or says the same. The last few lines are kept.
   */
  const announce = text => {
    const el = document.getElementById('announce');
    if (!el || !text) return;
    const line = document.createElement('span');
    line.textContent = text;
    el.append(line);
    while (el.childElementCount > ANNOUNCED_LINES) el.firstElementChild.remove();
  };
  /** Move `i` of state `s` in words: `Black played knight to c6`, `You played …, the roll failed`. */
  const moveSaid = (s, i) => {
    const m = s.moves[i];
    const before = i === 0 ? s.start_fen : s.moves[i - 1].fen;
    const mover = before.split(' ')[1] === 'b' ? 'black' : 'white';
    const who = mover === mySide() ? 'You' : capital(mover);
    const chance = m.event === 'failed' ? ', the roll failed' : m.event.startsWith('gift') ? `; ${m.event}` : '';
    return `${who} played ${panels.sanWords(m.san)}${chance}.`;
  };
  /**
   * What changed from state `a` to state `b`, in words for a screen reader: the moves played, a
   * takeback, the opponent's offers, the game's end, and whether it is the player's move. (The
   * status line is not a live region: it changes at every move and would be read each time.)
   */
  const changesSaid = (a, b) => {
    const said = [];
    const side = mySide();
    const theirs = side && other(side);
    if (b.variant !== 'predictor') {
      if (b.moves.length < a.moves.length) said.push('Moves taken back.');
      // The last few, when many came at once (the page was away).
      for (let i = Math.max(a.moves.length, b.moves.length - 4); i < b.moves.length; i++) said.push(moveSaid(b, i));
    } else if (b.ply > a.ply) said.push(`Ply ${a.ply} resolved.`);
    if (theirs && b.status === 'active') {
      if (b.draw_offer === theirs && a.draw_offer !== theirs) said.push('Your opponent offers a draw.');
      if (b.takeback_offer === theirs && a.takeback_offer !== theirs) said.push('Your opponent proposes a takeback.');
    }
    if (a.status === 'active' && b.status !== 'active') said.push(endWords(b));
    else if (theirs && b.status !== 'active' && !b.rematch && b.rematch_offer === theirs && a.rematch_offer !== theirs) said.push('Your opponent offers a rematch.');
    const mine = b.status === 'active' && b.variant !== 'predictor' && side && b.turn === side;
    if (mine && (b.moves.length !== a.moves.length || a.turn !== side)) said.push('Your move.');
    return said.join(' ');
  };
  /** What every game page shows alike: the status (`active` while the game goes on), the
   * controls, and the seed checked once the game is over. */
  const renderControls = (active, moveField) => {
    // The control with the focus, which may be disabled or hidden below (Resign once resigned).
    const had = document.activeElement;
    const over = state.status !== 'active';
    const ended = endWords(state);
    // An offer from the opponent is announced in the status, as lichess announces it.
    const theirs = !over && mySeat && !both ? other(mySeat.color) : null;
    const offers = [
      theirs && state.draw_offer === theirs ? ' Your opponent offers a draw.' : '',
      theirs && state.takeback_offer === theirs ? ' Your opponent proposes a takeback.' : '',
    ].join('');
    // Once the game is over, the opponent's rematch offer (as lichess shows it).
    const opponent = mySeat && !both ? other(mySeat.color) : null;
    const rematchOffered = over && !state.rematch && opponent && state.rematch_offer === opponent;
    const statusText = over ? ended + (rematchOffered ? ' Your opponent offers a rematch.' : '') : active + offers;
    const status = document.getElementById('status');
    if (status.textContent !== statusText) status.textContent = statusText;
    // The opponent's offer may be declined (the draw's first, then the takeback's).
    const declineBtn = document.getElementById('decline');
    declineBtn.hidden = !offers && !rematchOffered;
    declineBtn.textContent = rematchOffered
      ? 'Decline rematch'
      : theirs && state.draw_offer === theirs ? 'Decline draw' : 'Decline takeback';
    // A rematch once the game is over (colours swapped, the same settings), for a player; a
    // spectator is shown the way to it once it is made.
    const rematchBtn = document.getElementById('rematch');
    const myRematch = over && !both && mySeat && state.rematch_offer === mySeat.color;
    rematchBtn.disabled = !over || !!myRematch;
    rematchBtn.hidden = !mySeat && !both;
    rematchBtn.textContent = state.rematch ? 'Go to the rematch' : rematchOffered ? 'Accept rematch' : myRematch ? 'Rematch offered' : 'Rematch';
    const watch = document.getElementById('to-rematch');
    watch.hidden = !state.rematch || !!mySeat || both;
    if (state.rematch) watch.href = at(`/game/${state.rematch}`);
    // Until both sides have moved, the game is aborted rather than resigned (as on lichess).
    // Only a seat's holder (a Predictor team's captain, not a member) resigns or aborts.
    // A spectator is shown neither: nothing of theirs to resign or offer.
    const resignBtn = document.getElementById('resign');
    resignBtn.hidden = !mySeat;
    resignBtn.disabled = !mySeat || over || !!(held && held.name);
    resignBtn.textContent = state.abortable ? 'Abort' : 'Resign';
    // A visitor may take a seat open to anyone.
    const joinBtn = document.getElementById('join');
    joinBtn.hidden = !!mySeat || over || !state.open_to_anyone;
    joinBtn.textContent = `Join as ${state.open_seat}`;
    showInvite();
    document.getElementById('move-form').hidden = !moveField || !mySeat || over;
    const drawBtn = document.getElementById('draw');
    const myOffer = mySeat && !both && state.draw_offer === mySeat.color;
    // The AI takes no draw offers.
    const aiOpponent = mySeat && !both && state[other(mySeat.color)] !== 'human';
    // No draw before both sides have moved: the game is aborted then (as on lichess).
    // None in a variant without draws by agreement (Baby Chess, Probabilistic chess).
    drawBtn.hidden = !mySeat || state.draws === false;
    drawBtn.disabled = !mySeat || over || myOffer || aiOpponent || state.abortable || !!(held && held.name);
    drawBtn.textContent = both ? 'Agree a draw' : state.draw_offer && mySeat && state.draw_offer !== mySeat.color ? 'Accept draw' : myOffer ? 'Draw offered' : 'Offer draw';
    // Why the button cannot be pressed, where that is not plain from it (its tooltip and its
    // description to a screen reader).
    const why = over ? '' : aiOpponent ? 'The AI takes no draw offers.' : mySeat && state.abortable ? 'No draw before both sides have moved: the game can be aborted instead.' : '';
    drawBtn.title = why;
    document.getElementById('draw-why').textContent = why;
    if (why) drawBtn.setAttribute('aria-describedby', 'draw-why');
    else drawBtn.removeAttribute('aria-describedby');
    // Takebacks: at once against the AI, proposed and accepted between people; none in games
    // with chance, clocks or sealed orders (the state's `takebacks` is false there).
    const backBtn = document.getElementById('takeback');
    backBtn.hidden = !mySeat || !state.takebacks;
    const offer = state.takeback_offer;
    backBtn.disabled = !mySeat || over || (offer && offer === mySeat.color) || !(state.moves && state.moves.length);
    backBtn.textContent = both ? 'Take back' : offer && mySeat && offer !== mySeat.color ? 'Accept takeback' : offer ? 'Takeback proposed' : aiOpponent ? 'Take back' : 'Propose takeback';
    if (both) backBtn.disabled = over || !state.moves.length;
    keepControlFocus(had);
    setTitle();
    const heading = document.getElementById('game-h');
    if (heading.textContent !== gameHeading()) heading.textContent = gameHeading();
    if (state.status === 'finished' && state.seed && verdict === undefined) {
      panels.verifySeed(state.seed, state.seed_hash).then(ok => {
        verdict = ok;
        render();
      });
    }
  };
  // The move list scrolled to the move shown (the latest as the game goes on), as lichess keeps it.
  const showCurrentMove = () => {
    const list = document.querySelector('#moves ol.moves');
    const current = list && list.querySelector('[aria-current="true"]');
    if (!list) return;
    if (!current) {
      list.scrollTop = 0;
      return;
    }
    const li = current.closest('li');
    if (li.offsetTop < list.scrollTop || li.offsetTop + li.offsetHeight > list.scrollTop + list.clientHeight) {
      list.scrollTop = li.offsetTop - list.clientHeight + li.offsetHeight + 4;
    }
  };
  const render = () => {
    if (!state) return;
    // The layout's variant (a narrow screen puts the Predictor orders right under the board).
    document.querySelector('.game').dataset.variant = state.variant;
    if (state.variant === 'predictor') return renderPredictor();
    const shown = viewPly === null ? state.moves.length : Math.min(viewPly, state.moves.length);
    const live = shown === state.moves.length;
    const myTurn = live && mySeat && state.status === 'active' && state.turn === mySeat.color;
    const fen = fenAt(shown);
    const last = shown ? state.moves[shown - 1].uci : null;
    const lastMove = last ? (last.includes('@') ? [last.slice(0, 2).toUpperCase(), last.slice(2, 4)] : [last.slice(0, 2), last.slice(2, 4)]) : null;
    const key = `${shown}:${fen}`;
    const best = report && !report.error && reportKey === key && report.bestmove ? report.bestmove : null;
    board.update({
      fen,
      orientation: orientation(),
      turn: fen.split(' ')[1] === 'b' ? 'black' : 'white',
      movable: myTurn ? mySeat.color : null,
      // While the opponent (a person or the AI) is to move, the player may premove.
      premove: live && mySeat && state.status === 'active' && state.turn !== mySeat.color ? mySeat.color : null,
      legal: myTurn ? state.legal_moves : [],
      lastMove,
      // In check after the move shown (its SAN says so: `+` or `#`).
      check: shown > 0 && /[+#]$/.test(state.moves[shown - 1].san),
      probabilities: panels.probabilityRows(fen),
      shapes: [
        ...(best && !best.includes('@') ? [{ orig: best.slice(0, 2), dest: best.slice(2, 4), brush: 'blue' }] : []),
        // A move whose roll failed (Probabilistic chess): its target circled in red on the board.
        ...(shown > 0 && state.moves[shown - 1].event === 'failed' ? [{ orig: last.slice(2, 4), brush: 'red' }] : []),
      ],
    });
    const who = c =>
      seatOpen(c) ? 'nobody yet (waiting for the invited player)' : state[c] === 'human' ? (both || (mySeat && mySeat.color === c) ? 'you' : 'a person') : aiName(state[c]);
    // A roll that just failed (Probabilistic chess) is said in the status line too.
    const latest = state.moves.length ? state.moves[state.moves.length - 1] : null;
    const failed =
      live && latest && latest.event === 'failed'
        ? ` ${capital(other(state.turn))}'s ${latest.san} failed its roll${latest.percent === null ? '' : ` (${latest.percent} % to succeed)`}: nothing moved.`
        : '';
    renderControls(
      `${state.variant}:${failed} ${state.turn} to move${myTurn ? ' — your move' : state.thinking ? ' — the AI is thinking' : ''}. White: ${who('white')}; Black: ${who('black')}.`,
      true,
    );
    if (state.variant === 'snowfall' && state.ply !== oddsPly) odds = null;
    redraw(document.getElementById('variant-panel'), variantPanel(state, shown));
    // The rolls list scrolls to the roll of the ply shown (the latest while the game is live).
    const rollList = document.querySelector('#variant-panel .rolls');
    if (rollList) {
      const at = rollList.querySelector('[aria-current="true"]') || rollList.lastElementChild;
      if (at) rollList.scrollTop = Math.max(0, at.offsetTop - rollList.clientHeight + at.offsetHeight + 4);
    }
    fetchOdds();
    redraw(document.getElementById('moves'), panels.moveList(state, shown, gameReview));
    showCurrentMove();
    const verdictShown = live ? state.tablebase : reportKey === key && report && report.tablebase;
    const chance = /^(probabilistic|snowfall)/.test(state.variant);
    const helped = state.engine_help !== false;
    // The position shown on the analysis board: by the game's moves from its start, or by its
    // FEN where chance played (the board's moves have no chance).
    const toBoard = document.getElementById('to-board');
    toBoard.hidden = !helped || !!(state.options && state.options.toml);
    const q = new URLSearchParams({ variant: state.variant });
    // The game's SnowFall percentage goes along (the board's odds are for it).
    if (state.variant === 'snowfall' && state.options && state.options.snowfall != null) q.set('snowfall', state.options.snowfall);
    if (chance) q.set('fen', fen);
    else {
      q.set('fen', state.start_fen);
      if (shown) q.set('play', state.moves.slice(0, shown).map(m => m.uci).join(','));
    }
    toBoard.href = at(`/analysis?${q}`);
    // The final position can be analysed when the game ended by a person's decision or the
    // clock (resignation, agreement, abort, time), not when the rules ended it (nothing to search).
    const byChoice = /^(resignation|agreement|time|time forfeit|forfeit|aborted)$/.test(state.reason || '');
    redraw(document.getElementById('analysis'), panels.analysis(verdictShown, reportKey === key ? report : null, analysing, chance, helped), section => {
      section.querySelector('#analyse').disabled = !helped || analysing || (live && state.status !== 'active' && !byChoice);
    });
    document.getElementById('fairness').innerHTML = panels.fairness(state, verdict);
    redraw(document.getElementById('review'), state.status === 'active' || !state.moves.length ? '' : panels.review(gameReview, reviewing, shown, chance, id));
    // The opening explorer once the game is over (as lichess keeps it out of games in play),
    // for the built-in variants.
    const explorable = state.status !== 'active' && !(state.options && state.options.toml);
    const exploreKey = `${state.variant}|${fen}|${panels.explorerPlayers()}`;
    redraw(
      document.getElementById('explorer'),
      explorable ? panels.explorer(exploredKey === exploreKey ? explored : null, shown < state.moves.length ? state.moves[shown].uci : null) : '',
    );
    if (explorable) fetchExplorer(exploreKey, fen);
    renderClocks();
  };

  // The explorer's answer for the position shown, asked of the server once per position.
  let explored = null;
  let exploredKey = '';
  const fetchExplorer = async (key, fen) => {
    if (exploredKey === key) return;
    exploredKey = key;
    explored = null;
    let r;
    try {
      r = await call('GET', `/api/explorer?variant=${encodeURIComponent(state.variant)}&fen=${encodeURIComponent(fen)}&players=${panels.explorerPlayers()}`);
    } catch (e) {
      r = { error: e.message };
    }
    if (exploredKey === key) {
      explored = r;
      render();
    }
  };

  // Browsing the game's positions: a move in the list, the arrows under it, or ←/→.
  const show = ply => {
    if (!state || !(state.moves || state.plies)) return;
    const n = state.variant === 'predictor' ? state.plies.length : state.moves.length;
    const shown = viewPly === null ? n : viewPly;
    const next = Math.max(0, Math.min(n, ply === 'back' ? shown - 1 : ply === 'forward' ? shown + 1 : ply));
    viewPly = next === n ? null : next;
    render();
  };
  document.getElementById('explorer').addEventListener('change', ev => {
    if (ev.target.id !== 'explorer-players') return;
    panels.setExplorerPlayers(ev.target.value);
    render();
  });
  document.getElementById('moves').addEventListener('click', ev => {
    const b = ev.target.closest('button');
    if (!b) return;
    if (b.dataset.ply !== undefined) show(Number(b.dataset.ply));
    else if (b.dataset.step === '-1') show('back');
    else if (b.dataset.step === '1') show('forward');
  });
  document.addEventListener('keydown', ev => {
    // Not while typing, nor on the board (its arrows move its cursor) or its promotion dialog.
    if (ev.target.closest && ev.target.closest('input, textarea, select, .board-wrap, .pocket')) return;
    if (ev.key === 'ArrowLeft') show('back');
    else if (ev.key === 'ArrowRight') show('forward');
  });
  // The analysis of the position shown: asked of the server, which searches with its tables.
  document.getElementById('analysis').addEventListener('click', async ev => {
    if (!ev.target.closest('#analyse') || analysing || !state) return;
    const ply = viewPly === null ? state.moves.length : viewPly;
    analysing = true;
    reportKey = `${ply}:${fenAt(ply)}`;
    render();
    try {
      report = await call('POST', `/api/games/${id}/analyse`, { ply, movetime_ms: 1000, lines: 3 });
    } catch (e) {
      report = { error: e.message };
    }
    analysing = false;
    render();
  });

  // The game's review, asked for once the game is over; its graph shows a position when clicked
  // (anywhere on it: the point nearest across, as a finger cannot hit a 4-pixel dot).
  document.getElementById('review').addEventListener('click', async ev => {
    const point = ev.target.closest('[data-ply]');
    if (point) return show(Number(point.dataset.ply));
    const graph = ev.target.closest('svg.review-graph');
    if (graph) {
      const dots = [...graph.querySelectorAll('[data-ply]')];
      if (!dots.length) return;
      const near = d => Math.abs(d.getBoundingClientRect().left + d.getBoundingClientRect().width / 2 - ev.clientX);
      return show(Number(dots.reduce((a, b) => (near(b) < near(a) ? b : a)).dataset.ply));
    }
    if (!ev.target.closest('#review-game') || reviewing || !state) return;
    reviewing = true;
    render();
    try {
      gameReview = await call('GET', `/api/games/${id}/review`);
    } catch (e) {
      gameReview = { error: e.message };
    }
    reviewing = false;
    render();
  });

  const renderPredictor = () => {
    if (!desk) desk = new PredictorDesk(document.getElementById('variant-panel'), id, mySeat, full => (full ? refresh() : render()));
    // The desk first: a new ply resets its fields and selected slot, which the board follows.
    desk.render(state);
    // Browsing back (the list, its buttons, ←/→): the position after the ply shown.
    const n = state.plies.length;
    const shown = viewPly === null ? n : Math.min(viewPly, n);
    if (shown === n) board.update({ fen: state.fen, orientation: orientation(), ...desk.boardView(state), probabilities: null });
    else board.update({ orientation: orientation(), ...desk.pastView(state, shown), probabilities: null });
    if (shown !== n) document.getElementById('pred-report').innerHTML = desk.report(state, shown);
    // Under the board, which order a move made on it fills (the form may be out of sight).
    const hint = document.getElementById('board-hint');
    hint.textContent = desk.boardHint(state);
    hint.hidden = !hint.textContent;
    const who = c =>
      seatOpen(c) ? 'nobody yet (waiting for the invited player)' : state[c] === 'human' ? (mySeat && mySeat.color === c ? 'you' : 'a person') : aiName(state[c]);
    renderControls(`predictor: both sides order at once — ply ${state.ply}. White: ${who('white')}; Black: ${who('black')}.`, false);
    redraw(document.getElementById('moves'), desk.moveList(state, shown));
    showCurrentMove();
    document.getElementById('analysis').hidden = true;
    const fair = document.getElementById('fairness');
    fair.innerHTML = `${panels.fairness(state, verdict)}<div id="seals"></div>`;
    // The seals, checked in the browser: the latest check fills its own place (a render that
    // comes meanwhile starts another).
    desk.sealsText(state).then(t => {
      const el = document.getElementById('seals');
      if (el) el.innerHTML = t;
    });
  };

  // The invitation link, while its seat is still open.
  // The invitation link copied with one tap (a phone's long-press selection is fiddly); where
  // the clipboard API is missing (plain HTTP on a network address), the text is selected for
  // the system's copy.
  const copyButton = document.getElementById('copy-invite');
  if (copyButton) {
    copyButton.onclick = async () => {
      const input = document.querySelector('#invite input');
      try {
        await navigator.clipboard.writeText(input.value);
        copyButton.textContent = 'Copied';
      } catch {
        input.focus();
        input.select();
        copyButton.textContent = 'Selected: copy it';
      }
      setTimeout(() => (copyButton.textContent = 'Copy'), 2500);
    };
  }
  const showInvite = () => {
    const el = document.getElementById('invite');
    if (el) el.hidden = !state.open_seat;
  };

  // The clocks, built once and then ticked in place, as is the first move's countdown: a
  // screen reader is not told of every tick, only once when the player's first move has 10 s left.
  const clocksEl = document.getElementById('clocks');
  let warnedFirst = -1;
  const renderClocks = () => {
    // The page no longer shows this game (no such game, another page): nothing to tick.
    if (!clocksEl.isConnected) return;
    if (desk && state && state.variant === 'predictor') desk.tick(state);
    if (!state || !state.clock) {
      if (clocksEl.firstChild) clocksEl.innerHTML = '';
      return;
    }
    if (!clocksEl.querySelector('.clock')) {
      clocksEl.innerHTML = ['white', 'black'].map(col => `<div class="clock ${col}"></div>`).join('');
    }
    const c = state.clock;
    const elapsed = c.running ? Date.now() - fetchedAt : 0;
    const left = col => c[`${col}_ms`] - (c.running === col ? elapsed : 0);
    // The clocks follow the board: the side at its top first (left, or above when stacked),
    // the side at its bottom second, as on lichess; the player's own is marked.
    const bottom = orientation();
    for (const col of ['white', 'black']) {
      const clock = clocksEl.querySelector(`.clock.${col}`);
      clock.classList.toggle('running', c.running === col);
      const order = col === bottom ? '2' : '1';
      if (clock.style.order !== order) clock.style.order = order;
      const you = mySeat && !both && mySeat.color === col ? ' (you)' : '';
      const text = `${col}${you}: ${panels.clockText(left(col))}`;
      if (clock.textContent !== text) clock.textContent = text;
    }
    // Before the clocks run, a person has a limited time for their first move (as on lichess).
    const first = state.status === 'active' && state.first_move;
    let notice = clocksEl.querySelector('.first-move');
    if (!first) {
      if (notice) notice.remove();
      return;
    }
    if (!notice) {
      notice = document.createElement('div');
      notice.className = 'first-move';
      clocksEl.append(notice);
    }
    const mine = first.side === (mySeat && mySeat.color) && !both;
    const seconds = Math.ceil(Math.max(0, first.ms_left - (Date.now() - fetchedAt)) / 1000);
    const text = `${mine ? 'You have' : `${first.side} has`} ${seconds} s to make the first move, or ${state.abortable ? 'the game is aborted' : 'it is lost on time'}.`;
    if (notice.textContent !== text) notice.textContent = text;
    if (mine && seconds <= 10 && warnedFirst !== state.ply) {
      warnedFirst = state.ply;
      announce(`${seconds} seconds left to make your first move.`);
    }
  };
  setInterval(renderClocks, 250);

  // SnowFall's odds: asked of the server once per ply (its search covers every gift outcome).
  let odds = null;
  let oddsPly = -1;
  const fetchOdds = async () => {
    if (!state || state.variant !== 'snowfall' || state.status !== 'active' || oddsPly === state.ply) return;
    const ply = state.ply;
    oddsPly = ply;
    try {
      const r = await call('GET', `/api/games/${id}/odds`);
      if (state.ply === ply) {
        odds = panels.oddsFigures(r);
        document.getElementById('variant-panel').innerHTML = variantPanel(state);
      }
    } catch {
      oddsPly = -1;
    }
  };
  const variantPanel = (s, shown) => {
    if (s.variant.startsWith('probabilistic')) return panels.rolls(s, shown);
    if (s.variant === 'snowfall') return panels.snowfall(s, pockets(s.fen), odds);
    if (s.variant.startsWith('baby')) return panels.babySwitches(s.fen);
    if (s.variant === 'chess960' || s.variant === 'crazyhouse960') return panels.chess960(s);
    return '';
  };

  let chat = null;
  // One state request at a time; a refresh asked for meanwhile runs once it is done.
  let pending = false;
  // Stops following the live stream (set once it is followed).
  let stopFollowing = null;
  let again = false;
  const refresh = async () => {
    if (pending) {
      again = true;
      return;
    }
    pending = true;
    try {
      do {
        again = false;
        const before = state;
        state = await call('GET', `/api/games/${id}`);
        fetchedAt = Date.now();
        reached();
        // What changed since the last state is told to a screen reader (not at the first).
        if (before) announce(changesSaid(before, state));
        if (both) mySeat = { color: state.turn, token: held.tokens[state.turn] };
        // The chat, for a player (not a team member) whose opponent is a person.
        if (!chat && held && !both && !held.name && state[other(held.color)] === 'human') {
          const section = document.getElementById('chat');
          section.hidden = false;
          chat = new Chat(section, id, held, state.variant === 'snowfall' ? state.options.snowfall : null);
        }
        render();
      } while (again);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) {
        // No game to show or follow: the page says so, without the game's controls. A game
        // this page had shown is gone only by its deletion (its stream's event may come after).
        if (stopFollowing) stopFollowing();
        noSuchGame(state ? "This game was deleted by the server's operator." : undefined);
        return;
      }
      showError(e);
    } finally {
      pending = false;
    }
  };

  // The keyboard's way to move: the server reads the text and says what is wrong with it.
  document.getElementById('move-form').addEventListener('submit', async ev => {
    ev.preventDefault();
    const input = document.getElementById('move-text');
    error.textContent = '';
    if (!mySeat) {
      error.textContent = 'You are watching this game.';
      return;
    }
    try {
      await call('POST', `/api/games/${id}/moves`, { move: input.value.trim(), ply: state.ply }, mySeat.token);
      input.value = '';
    } catch (e) {
      showError(e);
    }
    refresh();
  });
  document.getElementById('flip').onclick = () => {
    flipped = !flipped;
    render();
  };
  document.getElementById('join').onclick = async () => {
    try {
      const j = await call('POST', `/api/games/${id}/join`, {});
      remember(id, j.color, j.token);
      location.reload();
    } catch (e) {
      showError(e);
    }
  };
  document.getElementById('resign').onclick = async () => {
    const abort = state.abortable;
    if (!confirm(abort ? 'Abort this game? It ends without a result.' : 'Resign this game?')) return;
    try {
      await call('POST', `/api/games/${id}/${abort ? 'abort' : 'resign'}`, undefined, mySeat.token);
    } catch (e) {
      showError(e);
    }
    refresh();
  };
  // With both seats, an offer is made by one side and accepted by the other at once.
  const other = c => (c === 'white' ? 'black' : 'white');
  document.getElementById('draw').onclick = async () => {
    const action = state.draw_offer && state.draw_offer !== mySeat.color ? 'accept' : 'offer';
    try {
      await call('POST', `/api/games/${id}/draw`, { action }, mySeat.token);
      if (both) await call('POST', `/api/games/${id}/draw`, { action: 'accept' }, held.tokens[other(mySeat.color)]);
    } catch (e) {
      showError(e);
    }
    refresh();
  };
  document.getElementById('decline').onclick = async () => {
    const what =
      state.status !== 'active' ? 'rematch' : state.draw_offer && state.draw_offer !== mySeat.color ? 'draw' : 'takeback';
    try {
      await call('POST', `/api/games/${id}/${what}`, { action: 'decline' }, mySeat.token);
    } catch (e) {
      showError(e);
    }
    refresh();
  };
  document.getElementById('takeback').onclick = async () => {
    const action = state.takeback_offer && state.takeback_offer !== mySeat.color ? 'accept' : 'propose';
    error.textContent = '';
    try {
      if (both) {
        // The side that moved last takes its move back: one ply.
        await call('POST', `/api/games/${id}/takeback`, { action: 'propose' }, held.tokens[other(state.turn)]);
        await call('POST', `/api/games/${id}/takeback`, { action: 'accept' }, held.tokens[state.turn]);
      } else await call('POST', `/api/games/${id}/takeback`, { action }, mySeat.token);
      viewPly = null;
    } catch (e) {
      showError(e);
    }
    refresh();
  };
  /** Takes this browser's seat in the rematch once it is made (`made`: the server's answer
   * giving it, or null to ask for it) and goes there. */
  let leaving = false;
  const toRematch = async made => {
    // Once: the click's answer and the stream's `rematch` event both lead here, and a second
    // navigation would abort the first.
    if (leaving) return;
    leaving = true;
    if (both) {
      // One person with both seats: the seat of each colour in the new game.
      const tokens = {};
      for (const c of ['white', 'black']) {
        const s = await call('POST', `/api/games/${id}/rematch`, { action: 'accept' }, held.tokens[c]);
        tokens[s.color] = s.token;
        made = s;
      }
      rememberBoth(made.game, tokens);
    } else {
      made = made || (await call('POST', `/api/games/${id}/rematch`, { action: 'accept' }, mySeat.token));
      remember(made.game, made.color, made.token);
    }
    location.href = at(`/game/${made.game}`);
  };
  /** `toRematch`, allowing another try if it failed (the seat could not be had). */
  const goToRematch = made =>
    toRematch(made).catch(e => {
      leaving = false;
      throw e;
    });
  document.getElementById('rematch').onclick = async () => {
    error.textContent = '';
    try {
      if (state.rematch) return await goToRematch(null);
      // The same game again, colours swapped, made by the server: at once against the AI,
      // offered to a person, who accepts or declines; with both seats, offered and accepted.
      const first = both ? held.tokens.white : mySeat.token;
      const action = state.rematch_offer && !both && state.rematch_offer !== mySeat.color ? 'accept' : 'offer';
      const r = await call('POST', `/api/games/${id}/rematch`, { action }, first);
      if (r.game && !both) return await goToRematch(r);
      if (both) {
        if (!r.game) await call('POST', `/api/games/${id}/rematch`, { action: 'accept' }, held.tokens.black);
        return await goToRematch(null);
      }
    } catch (e) {
      showError(e);
    }
    refresh();
  };

  stopFollowing = follow(
    id,
    e => {
      if (e.type === 'chat') return chat && chat.load();
      if (e.type === 'deleted') {
        stopFollowing();
        return noSuchGame("This game was deleted by the server's operator.");
      }
      // The rematch was accepted: its players go to it, as on lichess.
      if (e.type === 'rematch' && (mySeat || both)) return goToRematch(null).catch(() => refresh());
      refresh();
    },
    connected => {
      streamDown = !connected;
      showConnection();
      if (connected) {
        refresh();
        if (chat) chat.load();
      }
    },
  );
  await refresh();
}

window.addEventListener('popstate', route);
route();
