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

/** The piece letter on `square` of an 8x8 FEN's board, or null. */
function pieceOn(fen, square) {
  const rows = boardField(fen).split('[')[0].replace(/~/g, '').split('/');
  if (rows.length !== 8) return null;
  const row = rows[8 - Number(square[1])] || '';
  let file = 0;
  for (const c of row) {
    if (/\d/.test(c)) file += Number(c);
    else if (file++ === square.charCodeAt(0) - 97) return c;
  }
  return null;
}

/**
 * Chess960 castling is the king taking its own rook (`b1h1`). The board also takes the king's
 * move to its castling square (g- or c-file), as lichess does, where no other king move goes
 * there: a map from that gesture (`b1g1`) to the castling move.
 */
export function castlingGestures(legal, fen) {
  const gestures = new Map();
  for (const uci of legal) {
    if (uci.length !== 4 || uci.includes('@')) continue;
    const [orig, dest] = [uci.slice(0, 2), uci.slice(2, 4)];
    const king = pieceOn(fen, orig);
    const rook = pieceOn(fen, dest);
    if (!king || !rook || king.toLowerCase() !== 'k' || rook.toLowerCase() !== 'r' || (king === 'K') !== (rook === 'R')) continue;
    const to = (dest > orig ? 'g' : 'c') + orig[1];
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

const PIECE_NAMES = { q: 'Queen', r: 'Rook', b: 'Bishop', n: 'Knight', k: 'King', a: 'Archbishop', c: 'Chancellor', m: 'Met', f: 'Ferz' };

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

/**
 * A board in `root`: `update(view)` draws a position; `view` is {fen, orientation, turn,
 * movable (color or null), premove (the color that may premove while the other side is to
 * move, or null), legal (UCI), lastMove ([orig, dest]), probabilities (rows of percentages, top
 * rank first, or null), shapes (chessground arrows, optional)}; `onMove(uci)` is called for the
 * player's gesture. A premove (a move or drop made while the opponent is to move, shown on the
 * board as lichess shows it) is played as soon as the player is to move, if it is legal then;
 * otherwise it is dropped. Clicking an empty square cancels it.
 */
export class Board {
  constructor(root, onMove) {
    this.root = root;
    this.onMove = onMove;
    this.cg = null;
    this.key = '';
    this.legal = [];
    this.gestures = new Map();
  }

  update(view) {
    const dims = dimensions(view.fen);
    const hands = pockets(view.fen);
    // A new board when the size or the presence of pockets changes (chessgroundx fixes both).
    const key = `${dims.width}x${dims.height}:${hands ? 'p' : ''}`;
    this.lastView = view;
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
    this.key = key;
    this.signature = '';
    this.root.innerHTML = `
      <div class="pocket-slot top"></div>
      <div class="board-wrap" style="--files:${dims.width};--ranks:${dims.height}"
           data-width="${dims.width}" data-height="${dims.height}">
        <div class="cg-board-holder"></div><div class="prob-overlay" aria-hidden="true"></div>
      </div>
      <div class="pocket-slot bottom"></div>`;
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
    // chessgroundx places pieces in pixels: place them again when the board's size changes
    // (a rotated phone, a narrower window).
    if (this.resize) this.resize.disconnect();
    this.resize = new ResizeObserver(() => this.cg && this.cg.redrawAll());
    this.resize.observe(this.root.querySelector('.board-wrap'));
  }

  async gesture(orig, dest) {
    // chessground has moved the piece: the next view is drawn whatever it is.
    this.signature = '';
    const candidates = gestureCandidates(this.legal, orig, dest, this.gestures);
    const uci = candidates.length > 1 ? await choosePromotion(this.root.querySelector('.board-wrap'), candidates) : candidates[0];
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
