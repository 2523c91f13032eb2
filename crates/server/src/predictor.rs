//! Predictor chess games on the server: ranked teams, one commitment per member and ply, the
//! ply's closing (both sides ready, or the deadline), reveals checked against commitments, and
//! each ply resolved once both chosen members revealed; rebuilt from the stored rows on load.
//!
//! A side is ready when its highest-ranked member has committed or every member has; the ply
//! closes when both sides are ready, or at the deadline (`ply_seconds`, counted from the ply's
//! start), where a side without any commitment loses on time. The server never sees orders
//! before their reveal, and publishes a reveal only when the ply resolves.

use crate::store::PredictorRow;
use rules::predictor::commit::{Commitment, Reveal};
use rules::predictor::game::{PredictorGame, Seal};
use rules::predictor::record;
use rules::predictor::referee::{PlyDesk, RefereeError};
use rules::{Color, Position};
use serde_json::{json, Value};

/// A member of a side's team (the side's creator is the captain, `white` or `black`, rank 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The name, unique on the side.
    pub name: String,
    /// The rank: 1 is the highest; equal ranks go by joining order.
    pub rank: i64,
    /// SHA-256 of the member's token.
    pub token: String,
}

/// A Predictor game's table: the game, the teams, and the current ply's desk.
#[derive(Debug, Clone)]
pub struct Table {
    /// The plies played.
    pub game: PredictorGame,
    /// Each side's members in joining order (the captain first once seated).
    pub members: [Vec<Member>; 2],
    /// The current ply's commitments and reveals.
    pub desk: PlyDesk,
    /// The chosen members once the ply closed.
    pub chosen: Option<[String; 2]>,
    /// When the current ply started (Unix milliseconds).
    pub ply_started: i64,
    /// The commitment deadline, seconds after the ply starts (none: wait for both sides).
    pub ply_seconds: Option<i64>,
    /// A seat still waits for its player (an invitation or a seat open to anyone): no deadline
    /// runs, and the first ply starts when the seat is taken ([`Table::seated`]).
    pub waiting: bool,
    /// The server AI's reveals for the current ply, kept until it closes.
    pub ai_secrets: [Option<Reveal>; 2],
    /// Revealed orders that could not be played, which forfeited the game (published in the
    /// record, RULINGS 7: a forfeited ply's orders are not lost).
    pub forfeited: Option<ForfeitedOrders>,
    game_id: String,
}

/// A reveal that opened its commitment with orders illegal in the position: the game is lost.
#[derive(Debug, Clone)]
pub struct ForfeitedOrders {
    /// Whose orders.
    pub side: Color,
    /// The reveal line as sent (it opens the commitment).
    pub reveal: String,
    /// The commitment it opens.
    pub commitment: String,
    /// Why the orders cannot be played.
    pub reason: String,
}

/// The side of a stored row (`white` or `black`).
fn parse_side(text: &str) -> Option<Color> {
    rules::predictor::commit::parse_side(text).ok()
}

/// The primaries open to `side` in `pos` (UCI): its legal moves but en passant (only a
/// conditional), and captures of an attacked enemy king (RULINGS 5, 6).
pub fn primaries(pos: &Position, side: Color) -> Vec<String> {
    let view = rules::predictor::side_view(pos, side);
    rules::predictor::primaries(&view).iter().map(|&m| rules::uci::to_uci(&view, m)).collect()
}

impl Table {
    /// A table for a new game from `start`.
    pub fn new(game_id: &str, start: Position, ply_seconds: Option<i64>, now: i64) -> Table {
        let desk = PlyDesk::new(game_id, 1, start.clone(), Vec::new(), Vec::new());
        Table {
            game: PredictorGame::new(start),
            members: [Vec::new(), Vec::new()],
            desk,
            chosen: None,
            ply_started: now,
            ply_seconds,
            waiting: false,
            ai_secrets: [None, None],
            forfeited: None,
            game_id: game_id.to_string(),
        }
    }

    /// Notes that `member`'s reveal for `side` opened its commitment with orders that cannot be
    /// played (`reason`): the game is forfeited, and the record will publish them.
    pub fn note_forfeit(&mut self, side: Color, member: &str, reveal: &Reveal, reason: String) {
        let commitment =
            self.desk.commitments(side).find(|(m, _)| *m == member).map(|(_, c)| c.to_string()).unwrap_or_default();
        self.forfeited = Some(ForfeitedOrders { side, reveal: reveal.to_line(), commitment, reason });
    }

    /// Why the game was forfeited, in words, for a game that ended by forfeit: revealed orders
    /// that cannot be played, or a chosen member who did not reveal by the reveal deadline.
    pub fn forfeit_text(&self) -> Option<String> {
        let ply = self.desk.ply();
        if let Some(f) = &self.forfeited {
            return Some(format!("ply {ply}: {}'s revealed orders cannot be played: {}", f.side, f.reason));
        }
        let chosen = self.chosen.as_ref()?;
        let silent: Vec<Color> = Color::ALL.into_iter().filter(|&c| self.desk.revealed(c).is_none()).collect();
        match silent[..] {
            [side] => Some(format!(
                "ply {ply}: {side}'s chosen member ({}) did not reveal the committed orders by the reveal deadline",
                chosen[side.index()]
            )),
            [_, _] => Some(format!(
                "ply {ply}: neither side's chosen member revealed the committed orders by the reveal deadline"
            )),
            _ => None,
        }
    }

    /// A side's member names, highest-ranked first.
    pub fn ranked(&self, side: Color) -> Vec<String> {
        let mut m: Vec<(i64, usize, &str)> =
            self.members[side.index()].iter().enumerate().map(|(i, m)| (m.rank, i, m.name.as_str())).collect();
        m.sort_unstable();
        m.into_iter().map(|(_, _, n)| n.to_string()).collect()
    }

    /// A fresh desk for the current ply with the current teams, keeping its commitments when the
    /// ply is the same (a member joined) and starting empty for a new ply.
    fn rebuild_desk(&mut self) -> Result<(), RefereeError> {
        let fresh = PlyDesk::new(
            &self.game_id,
            self.game.next_ply(),
            self.game.position().clone(),
            self.ranked(Color::White),
            self.ranked(Color::Black),
        );
        let old = std::mem::replace(&mut self.desk, fresh);
        if old.ply() != self.desk.ply() {
            return Ok(());
        }
        for side in Color::ALL {
            for (member, c) in old.commitments(side) {
                self.desk.commit(side, member, c)?;
            }
        }
        Ok(())
    }

    /// Adds a member (the desk learns the new team unless the ply has closed).
    pub fn add_member(&mut self, side: Color, member: Member) -> Result<(), RefereeError> {
        self.members[side.index()].push(member);
        if self.chosen.is_none() {
            self.rebuild_desk()?;
        }
        Ok(())
    }

    /// The side and name of the member holding a token (hashed).
    pub fn member_of(&self, token_hash: &str) -> Option<(Color, String)> {
        Color::ALL
            .into_iter()
            .find_map(|c| self.members[c.index()].iter().find(|m| m.token == token_hash).map(|m| (c, m.name.clone())))
    }

    /// Whether `side` is ready: its highest-ranked member committed, or every member did.
    fn ready(&self, side: Color) -> bool {
        let committed: Vec<String> = self.desk.commitments(side).map(|(m, _)| m.to_string()).collect();
        let ranked = self.ranked(side);
        !committed.is_empty()
            && (ranked.first().is_some_and(|top| committed.contains(top)) || committed.len() == ranked.len())
    }

    /// Whether both sides are ready.
    pub fn both_ready(&self) -> bool {
        Color::ALL.into_iter().all(|c| self.ready(c))
    }

    /// The commitment deadline, if any (none while a seat waits for its player).
    pub fn deadline(&self) -> Option<i64> {
        self.ply_seconds
            .filter(|_| !self.waiting)
            .map(|s| self.ply_started + s * 1000 + crate::pause::after(self.ply_started))
    }

    /// The reveal deadline: as long again after the commitment deadline.
    pub fn reveal_deadline(&self) -> Option<i64> {
        self.ply_seconds
            .filter(|_| !self.waiting)
            .map(|s| self.ply_started + 2 * s * 1000 + crate::pause::after(self.ply_started))
    }

    /// Both seats are held from `at` on: the deadlines run, the first ply's from then (a game
    /// is not decided on time against a player who has not come yet).
    pub fn seated(&mut self, at: i64) {
        if self.waiting && self.game.next_ply() == 1 {
            self.ply_started = at;
        }
        self.waiting = false;
    }

    /// Closes the ply: the chosen members, or the time-loss outcome.
    pub fn close(&mut self) -> Result<[String; 2], rules::outcome::Outcome> {
        let chosen = self.desk.close()?;
        self.chosen = Some(chosen.clone());
        Ok(chosen)
    }

    /// Plays the ply from both reveals, then opens the next one at `now`.
    pub fn resolve(&mut self, now: i64) -> Result<String, RefereeError> {
        let (_, report) = self.desk.resolve()?;
        let seal = |side: Color| {
            let chosen = self.chosen.as_ref()?[side.index()].clone();
            let (_, commitment) = self.desk.commitments(side).find(|(m, _)| *m == chosen)?;
            self.desk.revealed(side).map(|r| Seal { commitment, nonce: r.nonce })
        };
        let seals = match (seal(Color::White), seal(Color::Black)) {
            (Some(w), Some(b)) => Some([w, b]),
            _ => None,
        };
        let before = self.game.position().clone();
        let number = self.game.next_ply();
        let ply = self
            .game
            .play(&report.orders[0], &report.orders[1], seals)
            .map_err(|e| match e {
                rules::predictor::game::GameError::Orders { error, .. } => RefereeError::Orders(error),
                other => RefereeError::Orders(rules::predictor::OrderError::Syntax {
                    text: String::new(),
                    reason: other.to_string(),
                }),
            })?
            .clone();
        self.chosen = None;
        self.ai_secrets = [None, None];
        self.ply_started = now;
        self.rebuild_desk()?;
        Ok(record::ply_line(&before, number, &ply))
    }

    /// Rebuilds a table from its stored rows; `waiting`: a seat still waits for its player.
    #[allow(clippy::too_many_arguments)]
    pub fn load(
        game_id: &str,
        start: Position,
        ply_seconds: Option<i64>,
        waiting: bool,
        created_at: i64,
        now: i64,
        members: &[PredictorRow],
        commits: &[PredictorRow],
        reveals: &[PredictorRow],
        secrets: &[PredictorRow],
    ) -> Result<Table, String> {
        let mut t = Table::new(game_id, start, ply_seconds, created_at);
        t.waiting = waiting;
        for m in members {
            let side = parse_side(&m.side).ok_or_else(|| format!("member side '{}'", m.side))?;
            t.members[side.index()].push(Member { name: m.member.clone(), rank: m.rank, token: m.text.clone() });
        }
        t.rebuild_desk().map_err(|e| e.to_string())?;
        // The first ply starts once both seats are held: at the last captain's seating (a
        // captain created with the game is seated at its creation).
        t.ply_started = members.iter().filter(|m| m.rank == 1).map(|m| m.created_at).fold(created_at, i64::max);
        let mut ply = 1i64;
        loop {
            let mine = |rows: &[PredictorRow]| rows.iter().filter(|r| r.ply == ply).cloned().collect::<Vec<_>>();
            let (c, r) = (mine(commits), mine(reveals));
            if c.is_empty() {
                break;
            }
            for row in &c {
                let side = parse_side(&row.side).ok_or_else(|| format!("commit side '{}'", row.side))?;
                let commitment: Commitment = row.text.parse().map_err(|e| format!("ply {ply}: {e}"))?;
                t.desk.commit(side, &row.member, commitment).map_err(|e| format!("ply {ply}: {e}"))?;
            }
            // The ply closed if a reveal was taken, both sides were ready, or the deadline passed.
            let deadline_passed = t.deadline().is_some_and(|d| now >= d);
            if r.is_empty() && !t.both_ready() && !deadline_passed {
                break;
            }
            if t.close().is_err() {
                break;
            }
            for row in &r {
                let side = parse_side(&row.side).ok_or_else(|| format!("reveal side '{}'", row.side))?;
                let reveal = Reveal::parse(&row.text).map_err(|e| format!("ply {ply}: {e}"))?;
                match t.desk.reveal(side, &row.member, &reveal) {
                    Ok(_) => {}
                    // Orders that could not be played: the game was forfeited there.
                    Err(rules::predictor::referee::RefereeError::Orders(e)) => {
                        t.note_forfeit(side, &row.member, &reveal, e.to_string());
                        return Ok(t);
                    }
                    Err(e) => return Err(format!("ply {ply}: {e}")),
                }
            }
            if r.len() < 2 {
                break;
            }
            let at = r.iter().map(|x| x.created_at).max().unwrap_or(created_at);
            t.resolve(at).map_err(|e| format!("ply {ply}: {e}"))?;
            ply += 1;
        }
        for row in secrets.iter().filter(|r| r.ply == i64::from(t.game.next_ply())) {
            let side = parse_side(&row.side).ok_or_else(|| format!("secret side '{}'", row.side))?;
            t.ai_secrets[side.index()] = Some(Reveal::parse(&row.text).map_err(|e| e.to_string())?);
        }
        Ok(t)
    }

    /// The public state: plies, teams, the current ply's commitments (never an unrevealed order).
    pub fn state(&self) -> Value {
        let lines: Vec<String> = self
            .game
            .plies()
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let before = self.game.position_before(i + 1).unwrap_or_else(|| self.game.start());
                record::ply_line(before, i as u32 + 1, p)
            })
            .collect();
        let side = |c: Color| {
            let commits: Vec<Value> =
                self.desk.commitments(c).map(|(m, h)| json!({ "member": m, "commitment": h.to_string() })).collect();
            json!({
                "members": self.members[c.index()].iter().map(|m| json!({ "name": m.name, "rank": m.rank })).collect::<Vec<_>>(),
                "commitments": commits,
                "chosen": self.chosen.as_ref().map(|ch| ch[c.index()].clone()),
                "revealed": self.desk.revealed(c).is_some(),
            })
        };
        let open = self.game.ended().is_none() && self.chosen.is_none();
        let primaries = |c: Color| if open { primaries(self.game.position(), c) } else { Vec::new() };
        // The position after each ply, for replaying the game on the page.
        let fens: Vec<String> = (1..=lines.len())
            .map(|k| self.game.position_before(k + 1).unwrap_or_else(|| self.game.position()).fen())
            .collect();
        json!({
            "ply": self.game.next_ply(),
            "plies": lines,
            "fens": fens,
            "primaries": { "white": primaries(Color::White), "black": primaries(Color::Black) },
            "closed": self.chosen.is_some(),
            "deadline": self.deadline(),
            "reveal_deadline": self.reveal_deadline(),
            "white_team": side(Color::White),
            "black_team": side(Color::Black),
        })
    }

    /// The game record with its tags; `ended`: how the game ended off the board (a
    /// resignation, a forfeit, on time), for its `Result` and `Termination`.
    pub fn record(&self, tags: &[(String, String)], ended: Option<rules::outcome::Outcome>) -> String {
        // A forfeited ply's orders: the unplayable reveal with the commitment it opens (check
        // it with `fairylab predictor verify`), and the opponent's, if revealed.
        let mut tags = tags.to_vec();
        let by_forfeit = matches!(ended, Some(o) if o.reason() == rules::outcome::EndReason::Forfeit);
        if self.forfeited.is_none() && by_forfeit {
            // Orders not revealed in time: the forfeit said, and the orders the other side
            // revealed published (RULINGS 7).
            if let Some(text) = self.forfeit_text() {
                tags.push(("Forfeit".into(), text));
                for side in Color::ALL {
                    if let (Some(r), None) = (self.desk.revealed(side), self.desk.revealed(!side)) {
                        tags.push(("OpponentReveal".into(), r.to_line()));
                    }
                }
            }
        }
        if let (Some(f), Some(text)) = (&self.forfeited, self.forfeit_text()) {
            tags.push(("Forfeit".into(), text));
            tags.push(("ForfeitCommitment".into(), f.commitment.clone()));
            tags.push(("ForfeitReveal".into(), f.reveal.clone()));
            if let Some(r) = self.desk.revealed(!f.side) {
                tags.push(("OpponentReveal".into(), r.to_line()));
            }
        }
        let tags = &tags[..];
        match ended {
            Some(o) if self.game.outcome().is_none() => {
                let mut game = self.game.clone();
                game.end(o);
                record::write(&game, tags)
            }
            _ => record::write(&self.game, tags),
        }
    }
}
