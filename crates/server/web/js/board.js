// The board: chessgroundx on a FEN of any size from 5x5 to 8x8, with pockets for hands, the
// legal moves the server sent as the only destinations, and the probability overlay.

import { Chessground } from '../vendor/chessgroundx/chessground.js';
import { premove } from '../vendor/chessgroundx/premove.js';

/** A FEN's board for chessgroundx: Baby Chess's column-switch counts (`R{3}`) left out. */
export function boardField(fen) {
  return fen.split(' ')[0].replace(/\{\d\}/g, '');
}

/** Width and height of a FEN's board. */
export function dimensions(fen) {
  const board = boardField(fen).split('[')[0];
  const ranks = board.split('/');
  let width = 0;
  for (const c of ranks[0]) {
    if (c >= '0' && c <= '9') width += Number(c);
    else if (/[a-zA-Z]/.test(c)) width += 1;
  }
  return { width, height: ranks.length };
}

/** The pockets of a FEN (`[QRp]`), or null when the variant has no hands. */
export function pockets(fen) {
  const m = boardField(fen).match(/\[([^\]]*)\]/);
  if (!m) return null;
  const count = { white: {}, black: {} };
  for (const c of m[1]) {
    const color = c === c.toUpperCase() ? 'white' : 'black';
    const l = c.toLowerCase();
    count[color][l] = (count[color][l] || 0) + 1;
  }
  return count;
}

/** The piece letter on `square` of a FEN's board (any size), or null. */
function pieceOn(fen, square) {
  const rows = boardField(fen).split('[')[0].replace(/~/g, '').split('/');
  const row = rows[rows.length - Number(square.slice(1))] || '';
  let file = 0;
  for (const c of row) {
    if (/\d/.test(c)) file += Number(c);
    else if (file++ === square.charCodeAt(0) - 97) return c;
  }
  return null;
}

/**
 * Chess960 castling is the king taking its own rook (`b1h1`), as is castling on boards of 5 to
 * 7 files where the king's move would read as a step. The board also takes the king's move to
 * its castling square (short: the second file from the corner, g on 8 files; long: the
 * c-file), as lichess does, where no other king move goes there: a map from that gesture
 * (`b1g1`) to the castling move.
 */
export function castlingGestures(legal, fen) {
  const gestures = new Map();
  const short = String.fromCharCode(97 + dimensions(fen).width - 2);
  for (const uci of legal) {
    if (uci.length !== 4 || uci.includes('@')) continue;
    const [orig, dest] = [uci.slice(0, 2), uci.slice(2, 4)];
    const king = pieceOn(fen, orig);
    const rook = pieceOn(fen, dest);
    if (!king || !rook || king.toLowerCase() !== 'k' || rook.toLowerCase() !== 'r' || (king === 'K') !== (rook === 'R')) continue;
    const to = (dest > orig ? short : 'c') + orig.slice(1);
    if (to !== orig && !legal.includes(orig + to)) gestures.set(orig + to, uci);
  }
  return gestures;
}

/** chessgroundx destinations from UCI moves: `e2e4` → e2: [e4]; a drop `Q@f7` → `Q@`: [f7]. */
export function destinations(legal, gestures = new Map()) {
  const dests = new Map();
  for (const uci of [...legal, ...gestures.keys()]) {
    const drop = uci.match(/^([A-Za-z])@([a-h][1-8])$/);
    const [orig, dest] = drop ? [drop[1].toUpperCase() + '@', drop[2]] : [uci.slice(0, 2), uci.slice(2, 4)];
    if (!dests.has(orig)) dests.set(orig, []);
    if (!dests.get(orig).includes(dest)) dests.get(orig).push(dest);
  }
  return dests;
}

/**
 * The legal UCI moves a board gesture can mean: one, or one per promotion piece (the player
 * then chooses).
 */
export function gestureCandidates(legal, orig, dest, gestures = new Map()) {
  const found = legal.filter(u => {
    const drop = u.match(/^([A-Za-z])@([a-h][1-8])$/);
    if (drop) return orig === drop[1].toUpperCase() + '@' && dest === drop[2];
    return u.slice(0, 2) === orig && u.slice(2, 4) === dest;
  });
  const castle = gestures.get(orig + dest);
  return found.length || !castle ? found : [castle];
}

const PIECE_NAMES = { q: 'Queen', r: 'Rook', b: 'Bishop', n: 'Knight', k: 'King', p: 'Pawn', a: 'Archbishop', c: 'Chancellor', m: 'Met', f: 'Ferz' };

/** A piece's name in words from its letter or chessgroundx role (`N`, `n-piece`: knight). */
export function pieceName(letter) {
  const l = letter.replace(/-piece$/, '').slice(-1).toLowerCase();
  return PIECE_NAMES[l] ? PIECE_NAMES[l].toLowerCase() : `${l.toUpperCase()} piece`;
}

/**
 * Asks which piece a pawn promotes to: a dialog over the board with one button per choice
 * (keyboard: Tab and Enter, the focus kept inside it). Escape anywhere or a click outside it
 * cancels it. Resolves to the chosen UCI move, or null; the promise's `cancel()` closes it from
 * outside (the position changed under it). The focus goes back to where it was (the board).
 */
export function choosePromotion(root, candidates) {
  let done;
  const asked = new Promise(resolve => {
    const returnTo = document.activeElement;
    const box = document.createElement('div');
    box.className = 'promotion';
    box.setAttribute('role', 'dialog');
    box.setAttribute('aria-label', 'Promote to');
    const order = u => {
      const i = 'qrbn'.indexOf(u.slice(4).toLowerCase());
      return i < 0 ? 4 : i;
    };
    box.innerHTML = `<p>Promote to</p>${[...candidates]
      .sort((a, b) => order(a) - order(b))
      .map(u => {
        const l = u.slice(4).toLowerCase();
        return `<button type="button" data-uci="${u}">${PIECE_NAMES[l] || l.toUpperCase()}</button>`;
      })
      .join('')}<button type="button" data-uci="" class="cancel">Cancel</button>`;
    // Escape wherever the focus is, and a press outside the dialog, cancel it.
    const onKey = ev => {
      if (ev.key === 'Escape') done(null);
    };
    const onPress = ev => {
      if (!box.contains(ev.target)) done(null);
    };
    done = uci => {
      if (!box.isConnected) return;
      const hadFocus = box.contains(document.activeElement);
      box.remove();
      document.removeEventListener('keydown', onKey, true);
      document.removeEventListener('pointerdown', onPress, true);
      // The focus was in the dialog: back to the board (or the field) it came from, not lost.
      if (hadFocus) {
        const back = returnTo && returnTo.isConnected && returnTo !== document.body ? returnTo : root;
        back.focus({ preventScroll: true });
      }
      resolve(uci || null);
    };
    box.addEventListener('click', ev => {
      const b = ev.target.closest('button');
      if (b) done(b.dataset.uci);
    });
    // Tab stays within the dialog (from the last choice to the first and back).
    box.addEventListener('keydown', ev => {
      if (ev.key !== 'Tab') return;
      const buttons = [...box.querySelectorAll('button')];
      const i = buttons.indexOf(document.activeElement);
      const next = ev.shiftKey ? (i <= 0 ? buttons.length - 1 : i - 1) : (i + 1) % buttons.length;
      ev.preventDefault();
      buttons[next].focus();
    });
    document.addEventListener('keydown', onKey, true);
    document.addEventListener('pointerdown', onPress, true);
    root.appendChild(box);
    box.querySelector('button').focus();
  });
  asked.cancel = () => done(null);
  return asked;
}

const POCKET_ROLES = ['q-piece', 'r-piece', 'b-piece', 'n-piece', 'p-piece'];

/** The pieces of a FEN's board: a Map from square (`e4`) to its letter (`N` White's, `n` Black's). */
export function fenPieces(fen) {
  const rows = boardField(fen).split('[')[0].split('/');
  const pieces = new Map();
  rows.forEach((row, i) => {
    let file = 0;
    for (const c of row) {
      if (/\d/.test(c)) file += Number(c);
      else if (/[a-zA-Z]/.test(c)) pieces.set(String.fromCharCode(97 + file++) + (rows.length - i), c);
    }
  });
  return pieces;
}

const colorOf = letter => (letter === letter.toUpperCase() ? 'white' : 'black');
const capital = s => s[0].toUpperCase() + s.slice(1);
const KINDS = ['king', 'queen', 'rook', 'bishop', 'knight', 'pawn'];

/** A pocket's content in words: `white's pocket: 1 knight, 2 pawns` (`counts`: letter → n). */
export function pocketWords(color, counts) {
  const held = Object.entries(counts || {})
    .filter(([, n]) => n > 0)
    .map(([l, n]) => `${n} ${pieceName(l)}${n === 1 ? '' : 's'}`);
  return `${color}'s pocket: ${held.join(', ') || 'empty'}`;
}

/**
 * The position in words, the board's text alternative for a screen reader: each side's pieces
 * by kind, the pockets, then rank by rank from the top as the board is seen, with each square's
 * success probability where the variant has them. One sentence per list item.
 */
export function boardWords(fen, orientation, probabilities) {
  const { width, height } = dimensions(fen);
  const pieces = fenPieces(fen);
  const items = [];
  for (const color of ['white', 'black']) {
    const kinds = new Map();
    for (const [square, l] of pieces) {
      if (colorOf(l) === color) kinds.set(pieceName(l), [...(kinds.get(pieceName(l)) || []), square]);
    }
    const rank = n => (KINDS.includes(n) ? KINDS.indexOf(n) : KINDS.length);
    const text = [...kinds]
      .sort((a, b) => rank(a[0]) - rank(b[0]))
      .map(([n, squares]) => `${squares.length > 1 ? `${n}s` : n} ${squares.sort().join(', ')}`)
      .join('; ');
    items.push(`${capital(color)}: ${text || 'no pieces'}.`);
  }
  const hands = pockets(fen);
  if (hands) for (const color of ['white', 'black']) items.push(`${capital(pocketWords(color, hands[color]))}.`);
  const white = orientation !== 'black';
  for (let i = 0; i < height; i++) {
    const r = white ? height - 1 - i : i;
    const squares = [];
    for (let j = 0; j < width; j++) {
      const f = white ? j : width - 1 - j;
      const key = String.fromCharCode(97 + f) + (r + 1);
      const l = pieces.get(key);
      // The probability map's rows are the ranks from the top as White sees the board.
      const p = probabilities && probabilities[height - 1 - r] ? probabilities[height - 1 - r][f] : undefined;
      if (!l && p === undefined) continue;
      squares.push(`${key} ${l ? `${colorOf(l)} ${pieceName(l)}` : 'empty'}${p !== undefined ? ` (${p} %)` : ''}`);
    }
    items.push(`Rank ${r + 1}: ${squares.join(', ') || 'empty'}.`);
  }
  return items;
}

/** What decides whether a promotion asked for still applies: the position, side and moves. */
const positionKey = view => JSON.stringify([view.fen, view.orientation, view.movable, view.premove, view.legal]);

/**
 * A board in `root`: `update(view)` draws a position; `view` is {fen, orientation, turn,
 * movable (color or null), premove (the color that may premove while the other side is to
 * move, or null), legal (UCI), lastMove ([orig, dest]), probabilities (rows of percentages, top
 * rank first, or null), shapes (chessground arrows, optional)}; `onMove(uci)` is called for the
 * player's gesture. A premove (a move or drop made while the opponent is to move, shown on the
 * board as lichess shows it) is played as soon as the player is to move, if it is legal then;
 * otherwise it is dropped. Clicking an empty square cancels it.
 *
 * The board is also played from the keyboard: it takes the focus (Tab), the arrow keys move a
 * cursor over the squares, Enter or Space picks a piece up and puts it down (as two clicks
 * would), Escape puts it back; the player's pocket pieces are buttons that pick a piece up for a
 * drop. What the cursor is on is said in a live region beside the board, and the position is
 * written out in words in a visually hidden list under it.
 */
export class Board {
  constructor(root, onMove) {
    this.root = root;
    this.onMove = onMove;
    this.cg = null;
    this.key = '';
    this.legal = [];
    this.gestures = new Map();
    // The square under the keyboard's cursor (`e2`), and the promotion being asked for.
    this.cursor = null;
    this.promotion = null;
    // The board's announcements, beside it so that they outlive a rebuilt board.
    this.live = document.createElement('p');
    this.live.className = 'sr-only board-live';
    this.live.setAttribute('aria-live', 'polite');
    root.after(this.live);
  }

  update(view) {
    const dims = dimensions(view.fen);
    const hands = pockets(view.fen);
    // A new board when the size or the presence of pockets changes (chessgroundx fixes both).
    const key = `${dims.width}x${dims.height}:${hands ? 'p' : ''}`;
    this.lastView = view;
    // A promotion asked for in a position no longer shown (the move made otherwise, the board
    // turned, the game over) is cancelled: its choice would send a stale move.
    if (this.promotion && this.promotion.key !== positionKey(view)) this.promotion.cancel();
    if (key !== this.key) this.build(dims, hands, key, boardField(view.fen));
    // The same view again (a refresh that changed nothing): leave the board alone, so that a
    // piece the player has picked up stays picked up.
    const signature = JSON.stringify([view.fen, view.orientation, view.turn, view.movable, view.premove, view.legal, view.lastMove, view.shapes, view.probabilities, view.check]);
    if (signature === this.signature && key === this.key) return;
    this.signature = signature;
    this.legal = view.legal || [];
    this.gestures = castlingGestures(this.legal, view.fen);
    const wrap = this.root.querySelector('.board-wrap');
    wrap.dataset.orientation = view.orientation;
    // a1 is dark: the top-left square is dark when the rank (or file) count is odd.
    const topLeftDark = (view.orientation === 'white' ? dims.height : dims.width) % 2 === 1;
    wrap.classList.toggle('top-left-dark', topLeftDark);
    wrap.dataset.turn = view.turn || '';
    this.cg.set({
      fen: boardField(view.fen),
      orientation: view.orientation,
      turnColor: view.turn || 'white',
      lastMove: view.lastMove || undefined,
      // The king in check is marked, as lichess marks it.
      check: view.check ? view.turn || 'white' : false,
      viewOnly: false,
      movable: {
        free: false,
        color: view.movable || view.premove || undefined,
        dests: view.movable ? destinations(this.legal, this.gestures) : new Map(),
        showDests: true,
      },
      premovable: { enabled: !!view.premove || !!view.movable },
      drawable: { autoShapes: view.shapes || [] },
    });
    this.overlay(dims, view.orientation, view.probabilities);
    this.root.querySelector('.board-words ul').innerHTML = boardWords(view.fen, view.orientation, view.probabilities)
      .map(t => `<li>${t.replace(/[&<>]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c])}</li>`)
      .join('');
    this.placeCursor();
    // The player's turn has come: a premove made meanwhile is played now if it is legal
    // (chessground checks it against the new destinations and calls the move handler).
    if (view.movable) this.cg.playPremove();
    else if (!view.premove) this.cg.cancelPremove();
  }

  /** The premove waiting, as [orig, dest] (orig `Q@` for a drop), or null. */
  pendingPremove() {
    return (this.cg && this.cg.state.premovable.current) || null;
  }

  build(dims, hands, key, fen) {
    if (this.cg) this.cg.destroy();
    if (this.promotion) this.promotion.cancel();
    if (this.pocketWatch) this.pocketWatch.disconnect();
    // A board rebuilt while it had the focus keeps it.
    const focused = !!this.root.querySelector('.board-wrap:focus');
    this.key = key;
    this.dims = dims;
    this.signature = '';
    // The page sizes the board's column from its shape (files, ranks and the pockets' two rows)
    // so that board and pockets fit the screen's height too (a phone held sideways).
    const host = this.root.closest('.game') || this.root;
    host.style.setProperty('--files', dims.width);
    host.style.setProperty('--ranks', dims.height);
    host.style.setProperty('--pockets', hands ? 2 : 0);
    this.root.innerHTML = `
      <div class="pocket-slot top"></div>
      <div class="board-wrap" style="--files:${dims.width};--ranks:${dims.height}"
           data-width="${dims.width}" data-height="${dims.height}" tabindex="0" role="application"
           aria-label="Board. Arrow keys move the cursor; Enter or Space picks up a piece and puts it on the square; Escape puts it back. The position in words follows the board.">
        <div class="cg-board-holder" aria-hidden="true"></div><div class="prob-overlay" aria-hidden="true"></div><div class="kb-cursor" aria-hidden="true"></div>
      </div>
      <div class="pocket-slot bottom"></div>
      <div class="board-words sr-only"><h2>The position in words</h2><ul></ul></div>`;
    const top = hands ? this.root.querySelector('.pocket-slot.top') : undefined;
    const bottom = hands ? this.root.querySelector('.pocket-slot.bottom') : undefined;
    this.cg = Chessground(
      this.root.querySelector('.cg-board-holder'),
      {
        fen,
        dimensions: dims,
        coordinates: true,
        autoCastle: true,
        animation: { enabled: true, duration: 150 },
        draggable: { enabled: true, showGhost: true },
        selectable: { enabled: true },
        pocketRoles: hands ? { white: POCKET_ROLES, black: POCKET_ROLES } : undefined,
        // Premove destinations by the chess pieces' moves on this board (a premove that the
        // variant's rules refuse when its turn comes is dropped then).
        premovable: { enabled: false, showDests: true, castle: true, premoveFunc: premove('chess', false, dims) },
        movable: {
          free: false,
          events: {
            after: (orig, dest) => this.gesture(orig, dest),
            afterNewPiece: (piece, dest) => this.gesture(piece.role[0].toUpperCase() + '@', dest),
          },
        },
      },
      top,
      bottom,
    );
    const wrap = this.root.querySelector('.board-wrap');
    this.bindKeys(wrap);
    if (hands) this.bindPockets([top, bottom]);
    if (focused) wrap.focus({ preventScroll: true });
    // chessgroundx places pieces in pixels: place them again when the board's size changes
    // (a rotated phone, a narrower window).
    if (this.resize) this.resize.disconnect();
    this.resize = new ResizeObserver(() => this.cg && this.cg.redrawAll());
    this.resize.observe(wrap);
  }

  async gesture(orig, dest) {
    // chessground has moved the piece: the next view is drawn whatever it is.
    this.signature = '';
    const candidates = gestureCandidates(this.legal, orig, dest, this.gestures);
    let uci = candidates[0];
    if (candidates.length > 1) {
      if (this.promotion) this.promotion.cancel();
      const asked = choosePromotion(this.root.querySelector('.board-wrap'), candidates);
      asked.key = positionKey(this.lastView);
      this.promotion = asked;
      uci = await asked;
      if (this.promotion === asked) this.promotion = null;
    }
    if (uci) this.onMove(uci);
    // Nothing played (a cancelled promotion): the board goes back to the position.
    else this.redraw();
  }

  /** Draws the last view again (the piece a cancelled gesture moved goes back). */
  redraw() {
    const last = this.lastView;
    this.signature = '';
    if (last) this.update(last);
  }

  /** Says `text` in the board's live region (the same words again are said again). */
  say(text) {
    this.live.textContent = text === this.live.textContent ? `${text}\u00a0` : text;
  }

  /** The keyboard's way to play: the cursor's keys on the board, which takes the focus. */
  bindKeys(wrap) {
    wrap.addEventListener('focus', () => {
      this.placeCursor();
      this.say(`Cursor on ${this.squareWords(this.cursor)}.`);
    });
    wrap.addEventListener('keydown', ev => {
      // Keys within the promotion dialog (over the board) are the dialog's.
      if (ev.target !== wrap || ev.altKey || ev.ctrlKey || ev.metaKey) return;
      const step = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] }[ev.key];
      if (step) this.moveCursor(...step);
      else if (ev.key === 'Enter') this.activate();
      else if (ev.key === 'Escape') this.putBack();
      // Space acts when it is released, as a button's does (its release would otherwise press
      // the promotion dialog's first button, which has the focus by then).
      else if (ev.key !== ' ') return;
      ev.preventDefault();
      // The arrows move the cursor here, not through the game's moves.
      ev.stopPropagation();
    });
    wrap.addEventListener('keyup', ev => {
      if (ev.target !== wrap || ev.key !== ' ') return;
      ev.preventDefault();
      this.activate();
    });
  }

  /** The cursor's square, kept on the board: the last move's target or the near left corner at first. */
  placeCursor() {
    const wrap = this.root.querySelector('.board-wrap');
    const view = this.lastView;
    if (!wrap || !view) return;
    const { width, height } = this.dims;
    const inside = k => k && /^[a-z]\d$/.test(k) && k.charCodeAt(0) - 97 < width && Number(k[1]) <= height;
    if (!inside(this.cursor)) this.cursor = view.lastMove && inside(view.lastMove[1]) ? view.lastMove[1] : this.keyAt(0, height - 1);
    const [x, y] = this.seen(this.cursor);
    const cursor = wrap.querySelector('.kb-cursor');
    cursor.style.setProperty('--x', x);
    cursor.style.setProperty('--y', y);
  }

  /** Where a square is seen: [column from the left, row from the top]. */
  seen(key) {
    const { width, height } = this.dims;
    const [f, r] = [key.charCodeAt(0) - 97, Number(key.slice(1)) - 1];
    return this.lastView.orientation === 'black' ? [width - 1 - f, r] : [f, height - 1 - r];
  }

  /** The square seen at column `x` from the left and row `y` from the top. */
  keyAt(x, y) {
    const { width, height } = this.dims;
    const [f, r] = this.lastView.orientation === 'black' ? [width - 1 - x, y] : [x, height - 1 - y];
    return String.fromCharCode(97 + f) + (r + 1);
  }

  moveCursor(dx, dy) {
    const [x, y] = this.seen(this.cursor);
    const clamp = (v, n) => Math.max(0, Math.min(n - 1, v));
    this.cursor = this.keyAt(clamp(x + dx, this.dims.width), clamp(y + dy, this.dims.height));
    this.placeCursor();
    this.say(this.squareWords(this.cursor));
  }

  /** A square in words, as drawn: `e4: white knight, 45 %`, `d5: empty`. */
  squareWords(key) {
    const piece = this.cg.state.boardState.pieces.get(key);
    const rows = this.lastView.probabilities;
    const [f, r] = [key.charCodeAt(0) - 97, Number(key.slice(1)) - 1];
    const row = rows && rows[this.dims.height - 1 - r];
    const p = row ? `, ${row[f]} %` : '';
    return `${key}: ${piece ? `${piece.color} ${pieceName(piece.role)}` : 'empty'}${p}`;
  }

  /** Enter or Space on the cursor's square: chessground's click there (pick up, move, premove). */
  activate() {
    const st = this.cg.state;
    const key = this.cursor;
    const before = st.selectable.selected;
    if (before === key) return this.putBack();
    const lastMove = st.lastMove;
    const premoveBefore = st.premovable.current;
    this.cg.selectSquare(key);
    // A move (the page then says it once the server has it) or a premove made.
    if (st.lastMove !== lastMove) return;
    const planned = st.premovable.current;
    if (planned && planned !== premoveBefore) return this.say(`Premove ${planned[0]} to ${planned[1]}: played when your turn comes.`);
    const selected = st.selectable.selected;
    if (selected === key) {
      const dests = (st.movable.dests && st.movable.dests.get(key)) || st.premovable.dests || [];
      return this.say(`${this.squareWords(key)} picked up; ${dests.length ? `it goes to ${dests.join(', ')}` : 'it has no move'}.`);
    }
    if (before) return this.say(`${this.squareWords(key)}: not a square it goes to. Nothing picked up now.`);
    this.say(`${this.squareWords(key)}: nothing of yours to move there.`);
  }

  /** Escape: the piece picked up goes back, or the premove waiting is cancelled. */
  putBack() {
    const st = this.cg.state;
    if (st.selectable.selected) {
      this.cg.selectSquare(null);
      this.say('Put back; nothing picked up.');
    } else if (st.premovable.current) {
      this.cg.cancelPremove();
      this.say('Premove cancelled.');
    }
  }

  /**
   * The pockets' pieces named for a screen reader (`white's pocket: 1 knight`) and, in the
   * player's own pocket, buttons that pick a piece up for a drop (Enter or Space), after which
   * the board takes the focus to choose its square. chessgroundx redraws the pockets itself:
   * they are named again whenever it does.
   */
  bindPockets(slots) {
    const label = () => {
      for (const slot of slots) {
        const mine = slot.classList.contains('usable');
        for (const sq of slot.querySelectorAll('square')) {
          const p = sq.querySelector('piece');
          if (!p) continue;
          const n = Number(p.dataset.nb || 0);
          const name = pieceName(p.dataset.role);
          sq.setAttribute('aria-label', `${p.dataset.color}'s pocket: ${n} ${name}${n === 1 ? '' : 's'}`);
          sq.setAttribute('role', mine ? 'button' : 'img');
          if (mine && n > 0) sq.tabIndex = 0;
          else sq.removeAttribute('tabindex');
          if (mine) sq.setAttribute('aria-disabled', String(n === 0));
          else sq.removeAttribute('aria-disabled');
        }
      }
    };
    this.pocketWatch = new MutationObserver(label);
    for (const slot of slots) {
      this.pocketWatch.observe(slot, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-nb', 'class'] });
      slot.addEventListener('keydown', ev => {
        const sq = ev.target.closest('square');
        if (!sq || !['Enter', ' '].includes(ev.key)) return;
        ev.preventDefault();
        if (ev.key === 'Enter') this.pick(sq);
      });
      slot.addEventListener('keyup', ev => {
        const sq = ev.target.closest('square');
        if (!sq || ev.key !== ' ') return;
        ev.preventDefault();
        this.pick(sq);
      });
    }
    label();
  }

  /** A pocket piece picked up from the keyboard: its square is then chosen on the board. */
  pick(sq) {
    const p = sq.querySelector('piece');
    const piece = { role: p.dataset.role, color: p.dataset.color };
    const name = pieceName(piece.role);
    this.cg.selectPocket(piece);
    const selected = this.cg.state.selectable.selected;
    if (!selected || typeof selected === 'string' || selected.role !== piece.role) return this.say(`No ${name} of yours to drop now.`);
    const st = this.cg.state;
    const dests = (st.movable.dests && st.movable.dests.get(piece.role[0].toUpperCase() + '@')) || st.premovable.dests || [];
    this.root.querySelector('.board-wrap').focus();
    this.say(`${capital(name)} from the pocket picked up; ${dests.length ? `it drops on ${dests.length} squares` : 'it has no square'}: choose one with the arrow keys and Enter. Cursor on ${this.squareWords(this.cursor)}.`);
  }

  /** Each square's success probability as a number on the square (Probabilistic chess). */
  overlay(dims, orientation, rows) {
    const el = this.root.querySelector('.prob-overlay');
    if (!rows) {
      el.innerHTML = '';
      el.hidden = true;
      return;
    }
    el.hidden = false;
    const cells = [];
    for (let r = 0; r < dims.height; r++) {
      for (let f = 0; f < dims.width; f++) {
        // rows[0] is the top rank as White sees the board.
        const [rr, ff] = orientation === 'white' ? [r, f] : [dims.height - 1 - r, dims.width - 1 - f];
        const p = rows[rr] ? rows[rr][ff] : '';
        cells.push(`<span class="prob" style="--p:${p}">${p}%</span>`);
      }
    }
    el.innerHTML = cells.join('');
  }
}
