// The server's HTTP and WebSocket API (docs/API.md) as the page uses it, and the tokens the
// browser holds for its seats (localStorage, one entry per game).

/** The path the site is served under (`serve --base-path`, e.g. `/chess`; empty at the root of
 * its host), as the page says it in `<meta name="fairylab-base">`. */
export const BASE = (document.querySelector('meta[name="fairylab-base"]')?.content || '').replace(/\/+$/, '');

/** A path of the site (`/game/abc`, `/api/games`) as its address under [BASE]. */
export const at = path => BASE + path;

/** The page's own path with [BASE] taken off (`/game/abc`; `/` for the lobby). */
export function pagePath() {
  const p = location.pathname;
  if (!BASE || p === BASE) return BASE ? '/' : p;
  return p.startsWith(`${BASE}/`) ? p.slice(BASE.length) : p;
}

/** A refused request: the server's error text and status. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** Calls an endpoint: JSON in and out; a refusal throws ApiError with the server's message. */
export async function call(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  let reply;
  try {
    reply = await fetch(at(path), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new ApiError(0, `the server cannot be reached (${e.message})`);
  }
  const text = await reply.text();
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    data = { error: text };
  }
  if (!reply.ok) throw new ApiError(reply.status, data.error || `${reply.status}`);
  return data;
}

const KEY = 'fairylab:seat:';

/**
 * The seat this browser holds in a game: {color, token}, or {color: 'both', tokens: {white,
 * black}} when it holds both (a board where one person moves both sides), or null.
 */
export function seat(id) {
  try {
    return JSON.parse(localStorage.getItem(KEY + id));
  } catch {
    return null;
  }
}

/** Remembers this browser's seat in a game (`name`: a Predictor team member's, not a captain),
 * with when (`at`, for the lobby's list of the browser's games). */
export function remember(id, color, token, name) {
  const at = Date.now();
  localStorage.setItem(KEY + id, JSON.stringify(name ? { color, token, name, at } : { color, token, at }));
}

/** Remembers that this browser holds both seats of a game (`tokens`: {white, black}). */
export function rememberBoth(id, tokens) {
  localStorage.setItem(KEY + id, JSON.stringify({ color: 'both', tokens, at: Date.now() }));
}

/** Remembers a new game's seats from its creation reply: one, or both (kept together); with
 * one, the invitation code of the other seat if it has one (the link can be sent later). */
export function rememberCreated(g) {
  const tokens = { white: g.white.token, black: g.black.token };
  if (tokens.white && tokens.black) rememberBoth(g.id, tokens);
  else {
    for (const c of ['white', 'black']) {
      if (!tokens[c]) continue;
      const invite = g[c === 'white' ? 'black' : 'white'].invite;
      const entry = { color: c, token: tokens[c], at: Date.now() };
      if (invite) entry.invite = invite;
      localStorage.setItem(KEY + g.id, JSON.stringify(entry));
    }
  }
}

/** The games this browser holds a seat in, as [id, seat], the latest taken first (seats
 * remembered before `at` was kept come last). */
export function heldGames() {
  const held = [];
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (!k || !k.startsWith(KEY)) continue;
    const s = seat(k.slice(KEY.length));
    if (s) held.push([k.slice(KEY.length), s]);
  }
  return held.sort((a, b) => (b[1].at || 0) - (a[1].at || 0));
}

/**
 * Follows a game's live stream: calls onEvent(message) for each message, and reconnects with a
 * growing pause when the stream closes (a server restart), calling onStatus(connected).
 */
export function follow(id, onEvent, onStatus) {
  return stream(`/api/games/${id}/ws`, onEvent, onStatus);
}

/** Calls `onChange({game, change})` whenever the lobby's stream says the games list changed;
 * returns a stop function. Reconnects as `follow` does. */
export function followLobby(onChange) {
  return stream('/api/lobby/ws', e => e.type === 'lobby' && onChange(e.data || {}), () => {});
}

/** How often a stream is checked (ms), and how long its answer may take: a test may set
 * `window.fairylabPingMs` before the page loads. */
const PING_MS = Number(globalThis.fairylabPingMs) || 15000;
const PONG_MS = Math.min(10000, PING_MS);

/** A WebSocket at `path` whose JSON messages go to `onEvent` and whose state goes to
 * `onStatus(open)`, reopened after a growing pause when it closes, until stopped. A stream that
 * died without a close (a network switch: the browser may keep it "open" for minutes) is found
 * by the page's own ping, which the server answers `pong`, and replaced at once: the new
 * stream's first message is the whole state. The check also runs when the page comes back into
 * view or the browser back online. */
function stream(path, onEvent, onStatus) {
  let socket = null;
  let pause = 250;
  let stopped = false;
  let heard = 0;
  const open = () => {
    if (stopped) return;
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const s = new WebSocket(`${scheme}://${location.host}${at(path)}`);
    socket = s;
    s.onopen = () => {
      pause = 250;
      heard = Date.now();
      onStatus(true);
    };
    s.onmessage = m => {
      heard = Date.now();
      let message;
      try {
        message = JSON.parse(m.data);
      } catch {
        return; /* not JSON: ignored */
      }
      if (message.type !== 'pong') onEvent(message);
    };
    s.onclose = () => {
      if (socket !== s) return;
      onStatus(false);
      if (!stopped) setTimeout(open, pause);
      pause = Math.min(pause * 2, 4000);
    };
  };
  const check = () => {
    const s = socket;
    if (stopped || !s || s.readyState !== WebSocket.OPEN) return;
    const sent = Date.now();
    try {
      s.send('ping');
    } catch {
      /* closing: onclose reopens */
    }
    setTimeout(() => {
      if (stopped || socket !== s || heard >= sent) return;
      // Nothing heard since the ping: this stream is gone. A new one now, without waiting
      // for the dead one's close.
      s.onclose = null;
      s.onmessage = null;
      s.close();
      onStatus(false);
      open();
    }, PONG_MS);
  };
  const timer = setInterval(check, PING_MS);
  const visible = () => {
    if (!document.hidden) check();
  };
  document.addEventListener('visibilitychange', visible);
  window.addEventListener('online', check);
  open();
  return () => {
    stopped = true;
    clearInterval(timer);
    document.removeEventListener('visibilitychange', visible);
    window.removeEventListener('online', check);
    if (socket) socket.close();
  };
}
