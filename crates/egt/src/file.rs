//! The table file: a magic line, a one-line JSON header naming the rules it was generated under
//! (material, board, pieces, options, metric, tables, the payload's CRC-32), the header's CRC-32,
//! then the values of every table.
//!
//! Layout (docs/FORMATS.md, "Endgame table files"): `FAIRYLAB-EGT 2\n`, the header and `\n`,
//! `header-crc32 XXXXXXXX\n`, then for each header table in order its White-to-move bytes and its
//! Black-to-move bytes, one per index. Version 1 files (no header checksum line) are still read.
//! Loading checks the header's checksum before believing it and rebuilds indexing from it, so a
//! file is read back exactly as generated; a file whose rules differ from what the caller requires
//! is refused naming the field.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::sync::Arc;

use rules::movement::{Mode, Movement};
use rules::piecedef::parse_piecedef_moves;
use serde::{Deserialize, Serialize};

use crate::board::BoardShape;
use crate::error::EgtError;
use crate::material::Material;
use crate::pieces::PieceSet;
use crate::symmetry::SymmetryGroup;
use crate::table::{Family, Table};
use crate::value::TableRules;

/// The format version written: 2 adds the header's checksum line.
pub const FORMAT: u32 = 2;
/// The magic line's words before the version number.
const MAGIC: &str = "FAIRYLAB-EGT";
/// The header checksum line's word before the 8 hex digits (format 2 on).
const HEADER_CRC: &str = "header-crc32";
const BUFFER: usize = 1 << 20;

/// One piece in a header: its letter and its moves as explicit piecedef steps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderPiece {
    /// The letter.
    pub letter: char,
    /// Every step written out (`1,0,s 0,1,s ...`), no symmetry marks, so any reader parses it alike.
    pub steps: String,
}

/// One table in a header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderTable {
    /// Its material, `KQ.K` style.
    pub material: String,
    /// Indices per side to move.
    pub indices: u64,
}

/// The file header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Format version ([`FORMAT`] when written; 1 is still read).
    pub format: u32,
    /// The main ending.
    pub material: String,
    /// The board, `8x8` style.
    pub board: String,
    /// The pieces the materials use.
    pub pieces: Vec<HeaderPiece>,
    /// Options and metric.
    pub rules: TableRules,
    /// The symmetry reduction (informative; recomputed on load).
    pub symmetry: String,
    /// The tables, sub-endings first, in payload order.
    pub tables: Vec<HeaderTable>,
    /// CRC-32 of the payload.
    pub crc32: u32,
}

/// A movement as explicit piecedef steps.
pub fn steps_text(m: &Movement) -> String {
    m.atoms()
        .iter()
        .map(|a| {
            let mut specs = String::new();
            match a.range {
                0 => specs.push('s'),
                1 => {}
                n => specs.push_str(&n.to_string()),
            }
            match a.mode {
                Mode::Capture => specs.push('c'),
                Mode::Move => specs.push('n'),
                Mode::Both => {}
            }
            if specs.is_empty() {
                format!("{},{}", a.dx, a.dy)
            } else {
                format!("{},{},{specs}", a.dx, a.dy)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether two movements have the same atoms, in any order.
pub(crate) fn same_moves(a: &Movement, b: &Movement) -> bool {
    let key = |m: &Movement| {
        let mut v: Vec<String> = steps_text(m).split(' ').map(str::to_string).collect();
        v.sort();
        v
    };
    key(a) == key(b)
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> EgtError + '_ {
    move |source| EgtError::Io { path: path.display().to_string(), source }
}

impl Family {
    /// The header describing this family.
    pub fn header(&self, crc32: u32) -> Header {
        let main = &self.main().material;
        Header {
            format: FORMAT,
            material: main.to_string(),
            board: self.board.to_string(),
            pieces: main
                .kinds()
                .iter()
                .map(|k| HeaderPiece { letter: k.letter, steps: steps_text(&k.movement) })
                .collect(),
            rules: self.rules,
            symmetry: self.group.name(),
            tables: self
                .tables
                .iter()
                .map(|t| HeaderTable { material: t.material.to_string(), indices: t.size() })
                .collect(),
            crc32,
        }
    }

    fn payload_crc(&self) -> u32 {
        let mut h = crc32fast::Hasher::new();
        let mut buf = vec![0u8; BUFFER];
        self.for_each_block(&mut buf, |b| h.update(b));
        h.finalize()
    }

    fn for_each_block(&self, buf: &mut [u8], mut f: impl FnMut(&[u8])) {
        for t in &self.tables {
            for stm in 0..2 {
                let mut at = 0u64;
                while at < t.size() {
                    let n = (t.size() - at).min(buf.len() as u64) as usize;
                    t.copy_values(stm, at, &mut buf[..n]);
                    f(&buf[..n]);
                    at += n as u64;
                }
            }
        }
    }

    /// Writes the family to `path`.
    ///
    /// # Errors
    ///
    /// [`EgtError::Io`] naming the file.
    pub fn save(&self, path: &Path) -> Result<(), EgtError> {
        let file = File::create(path).map_err(io(path))?;
        self.write_to(BufWriter::new(file), &path.display().to_string())
    }

    /// Writes the family, as [`Family::save`] writes a file, to `w` (standard output, say); `name`
    /// names it in errors.
    ///
    /// # Errors
    ///
    /// [`EgtError::Io`] naming `name`.
    pub fn write_to(&self, mut w: impl Write, name: &str) -> Result<(), EgtError> {
        let path = Path::new(name);
        let header = self.header(self.payload_crc());
        let json = serde_json::to_string(&header)
            .map_err(|e| EgtError::BadFile { path: name.to_string(), reason: e.to_string() })?;
        writeln!(w, "{MAGIC} {FORMAT}").map_err(io(path))?;
        writeln!(w, "{json}").map_err(io(path))?;
        writeln!(w, "{HEADER_CRC} {:08x}", crc32fast::hash(json.as_bytes())).map_err(io(path))?;
        let mut buf = vec![0u8; BUFFER];
        let mut result = Ok(());
        self.for_each_block(&mut buf, |b| {
            if result.is_ok() {
                result = w.write_all(b);
            }
        });
        result.map_err(io(path))?;
        w.flush().map_err(io(path))
    }

    /// Reads a family from `path`, checking its magic line, the header's checksum (format 2 on),
    /// the header and the payload's checksum.
    ///
    /// # Errors
    ///
    /// [`EgtError::Io`] when unreadable; [`EgtError::BadFile`] naming what is wrong.
    pub fn load(path: &Path) -> Result<Family, EgtError> {
        let name = path.display().to_string();
        let bad = |reason: String| EgtError::BadFile { path: name.clone(), reason };
        let file = File::open(path).map_err(io(path))?;
        let file_len = file.metadata().map_err(io(path))?.len();
        let mut r = BufReader::with_capacity(BUFFER, file);
        // The first line as bytes: a file that is not text at all is not a table file either.
        let mut first = Vec::new();
        r.by_ref().take(64).read_until(b'\n', &mut first).map_err(io(path))?;
        let mut header_len = first.len() as u64;
        let mut line = String::from_utf8_lossy(&first).into_owned();
        let version = match line.trim_end().strip_prefix(MAGIC).and_then(|v| v.strip_prefix(' ')) {
            Some("1") => 1,
            Some("2") => 2,
            Some(v) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
                return Err(bad(format!("format version {v} (this build reads 1 and {FORMAT})")));
            }
            _ => return Err(bad(format!("the first line is not \"{MAGIC} {FORMAT}\" (or version 1)"))),
        };
        line.clear();
        r.by_ref().take(1 << 20).read_line(&mut line).map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => bad("the header (its second line) is not text".into()),
            _ => io(path)(e),
        })?;
        header_len += line.len() as u64;
        let json = line.trim_end().to_string();
        // Format 2 on: the header's checksum, tested before anything in the header is believed.
        if version >= 2 {
            line.clear();
            r.by_ref().take(64).read_line(&mut line).map_err(io(path))?;
            header_len += line.len() as u64;
            let stored = line
                .trim_end()
                .strip_prefix(HEADER_CRC)
                .and_then(|x| x.strip_prefix(' '))
                .filter(|x| x.len() == 8)
                .and_then(|x| u32::from_str_radix(x, 16).ok())
                .ok_or_else(|| bad(format!("the third line is not \"{HEADER_CRC} \" and 8 hex digits")))?;
            if stored != crc32fast::hash(json.as_bytes()) {
                return Err(bad("header checksum mismatch: the header was edited or is damaged".into()));
            }
        }
        let header: Header = serde_json::from_str(&json).map_err(|e| bad(format!("bad header: {e}")))?;
        if header.format != version {
            return Err(bad(format!("the header says format {}, the first line {version}", header.format)));
        }
        let board = BoardShape::parse(&header.board).map_err(|e| bad(e.to_string()))?;
        let mut pieces = PieceSet::orthodox();
        for p in &header.pieces {
            let movement = parse_piecedef_moves(&p.steps).map_err(|e| bad(format!("piece {}: {e}", p.letter)))?;
            pieces.define(p.letter, movement, p.steps.clone()).map_err(|e| bad(e.to_string()))?;
        }
        let main = Material::parse(&header.material, &pieces).map_err(|e| bad(e.to_string()))?;
        let group = Arc::new(SymmetryGroup::for_material(board, &main));
        // The payload must be exactly what the header's tables need, before anything is allocated.
        let mut expected = 0u64;
        for ht in &header.tables {
            let material = Material::parse(&ht.material, &pieces).map_err(|e| bad(e.to_string()))?;
            expected = expected.saturating_add(crate::index::Indexer::size_of(&material, &group).saturating_mul(2));
        }
        if file_len.saturating_sub(header_len) != expected {
            return Err(bad(format!(
                "{} payload bytes, the header's tables need {expected} (truncated or not this format)",
                file_len.saturating_sub(header_len)
            )));
        }
        let mut family = Family { board, rules: header.rules, pieces, group: group.clone(), tables: Vec::new() };
        let mut crc = crc32fast::Hasher::new();
        let mut buf = vec![0u8; BUFFER];
        for ht in &header.tables {
            let material = Material::parse(&ht.material, &family.pieces).map_err(|e| bad(e.to_string()))?;
            let captures = material
                .men()
                .iter()
                .enumerate()
                .map(|(j, m)| {
                    if m.royal {
                        return Ok(None);
                    }
                    let sub = material.without(j).to_string();
                    family
                        .tables
                        .iter()
                        .position(|t| t.material.to_string() == sub)
                        .map(Some)
                        .ok_or_else(|| bad(format!("{} needs {sub}, which comes later or is missing", ht.material)))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let table = Table::new(material, group.clone(), captures);
            if table.size() != ht.indices {
                return Err(bad(format!(
                    "{}: {} indices in the header, {} by this build's indexing",
                    ht.material,
                    ht.indices,
                    table.size()
                )));
            }
            for stm in 0..2 {
                let mut at = 0u64;
                while at < table.size() {
                    let n = (table.size() - at).min(BUFFER as u64) as usize;
                    r.read_exact(&mut buf[..n]).map_err(|e| bad(format!("truncated payload: {e}")))?;
                    crc.update(&buf[..n]);
                    for (k, &v) in buf[..n].iter().enumerate() {
                        table.set(stm, at + k as u64, v);
                    }
                    at += n as u64;
                }
            }
            family.tables.push(table);
        }
        if r.read(&mut buf[..1]).map_err(io(path))? != 0 {
            return Err(bad("data after the last table".into()));
        }
        if crc.finalize() != header.crc32 {
            return Err(bad("payload checksum mismatch: the tables are damaged".into()));
        }
        Ok(family)
    }

    /// Refuses a family generated under other rules than `rules` with `pieces` (if given) on
    /// `board`, naming the first field that differs.
    ///
    /// # Errors
    ///
    /// [`EgtError::RulesMismatch`].
    pub fn require(
        &self,
        path: &str,
        board: BoardShape,
        rules: &TableRules,
        pieces: Option<&PieceSet>,
    ) -> Result<(), EgtError> {
        let mismatch = |field: &str, found: String, expected: String| {
            Err(EgtError::RulesMismatch { path: path.to_string(), field: field.to_string(), found, expected })
        };
        if self.board != board {
            return mismatch("board", self.board.to_string(), board.to_string());
        }
        let fields = [
            ("metric", self.rules.metric.to_string(), rules.metric.to_string()),
            ("-0 (null move)", self.rules.null_move.to_string(), rules.null_move.to_string()),
            ("-s (stalemate wins)", self.rules.stalemate_wins.to_string(), rules.stalemate_wins.to_string()),
            ("-b (bare king loses)", self.rules.bare_king_loses.to_string(), rules.bare_king_loses.to_string()),
            ("one-sided", self.rules.one_sided.to_string(), rules.one_sided.to_string()),
        ];
        for (field, found, expected) in fields {
            if found != expected {
                return mismatch(field, found, expected);
            }
        }
        for k in self.main().material.kinds() {
            if let Some(p) = pieces.and_then(|set| set.get(k.letter)) {
                if !same_moves(&p.movement, &k.movement) {
                    return mismatch(&format!("piece {}", k.letter), steps_text(&k.movement), steps_text(&p.movement));
                }
            }
        }
        Ok(())
    }
}
