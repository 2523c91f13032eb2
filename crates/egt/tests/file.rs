//! The table file: the header is covered by a checksum (format 2), so an edited header is refused
//! before it is believed; version 1 files (payload checksum only) are still read.

use egt::probe::value;
use egt::{generate, BoardShape, Family, Material, PieceSet, Request, TableRules};

fn family(material: &str) -> Family {
    let pieces = PieceSet::orthodox();
    let req = Request {
        material: Material::parse(material, &pieces).expect("material"),
        board: BoardShape::new(8, 8).expect("board"),
        rules: TableRules::default(),
        pieces,
        max_memory: 4 << 30,
    };
    generate(&req, &mut |_| {}).expect("generate")
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("fairylab-egt-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// Replaces the first `from` in `bytes` by `to` (same length or not).
fn replace(bytes: &[u8], from: &str, to: &str) -> Vec<u8> {
    let at = bytes.windows(from.len()).position(|w| w == from.as_bytes()).expect("found");
    [&bytes[..at], to.as_bytes(), &bytes[at + from.len()..]].concat()
}

fn load_error(name: &str, bytes: &[u8]) -> String {
    let path = temp(name);
    std::fs::write(&path, bytes).expect("write");
    Family::load(&path).expect_err(name).to_string()
}

/// Editing the header (the metric, a rule flag, a piece's steps) or its checksum line is refused
/// as a header checksum mismatch; the magic line names the version.
#[test]
fn an_edited_header_is_refused() {
    let f = family("KR.K");
    let path = temp("krk.egt");
    f.save(&path).expect("save");
    let bytes = std::fs::read(&path).expect("read");
    assert!(bytes.starts_with(b"FAIRYLAB-EGT 2\n{\"format\":2,"), "{:?}", &bytes[..40]);
    assert!(Family::load(&path).is_ok());
    for (what, from, to) in [
        ("metric", "\"metric\":\"dtc\"", "\"metric\":\"dtm\""),
        ("a rule flag", "\"stalemate_wins\":false", "\"stalemate_wins\":true "),
        ("a piece's steps", "\"1,0,s -1,0,s", "\"1,0,3 -1,0,s"),
        ("the checksum line", "header-crc32 ", "header-crc32 0"),
    ] {
        let err = load_error("edited.egt", &replace(&bytes, from, to));
        assert!(err.contains("header checksum mismatch") || what == "the checksum line", "{what}: {err}");
        assert!(err.contains("not a valid table file"), "{what}: {err}");
    }
    // One flipped bit anywhere in the header line.
    let mut flipped = bytes.clone();
    flipped[40] ^= 0x01;
    assert!(load_error("flipped.egt", &flipped).contains("header checksum mismatch"));
    let err = load_error("future.egt", &replace(&bytes, "FAIRYLAB-EGT 2", "FAIRYLAB-EGT 3"));
    assert!(err.contains("format version 3 (this build reads 1 and 2)"), "{err}");
    // A file that is not text: said to be no table file (it was "stream did not contain valid
    // UTF-8"); a header line that is not text, the same.
    let random: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 | 0x80).collect();
    let err = load_error("random.egt", &random);
    assert!(err.contains("the first line is not \"FAIRYLAB-EGT 2\""), "{err}");
    let first = bytes.iter().position(|&b| b == b'\n').expect("a first line") + 1;
    let garbled = [&bytes[..first], &[0xff, 0xfe, b'\n'][..], &bytes[first..]].concat();
    let err = load_error("garbled.egt", &garbled);
    assert!(err.contains("the header (its second line) is not text"), "{err}");
}

/// A version 1 file (the same header with `"format":1`, no checksum line) loads with the same
/// values; `write_to` writes what `save` writes.
#[test]
fn version_1_files_are_still_read() {
    let f = family("KR.K");
    let path = temp("krk-v2.egt");
    f.save(&path).expect("save");
    let bytes = std::fs::read(&path).expect("read");
    let mut written = Vec::new();
    f.write_to(&mut written, "memory").expect("write_to");
    assert!(written == bytes, "write_to and save agree");

    let v1 = replace(&bytes, "FAIRYLAB-EGT 2", "FAIRYLAB-EGT 1");
    let v1 = replace(&v1, "{\"format\":2,", "{\"format\":1,");
    let start = v1.windows(13).position(|w| w == b"header-crc32 ").expect("checksum line");
    let end = start + v1[start..].iter().position(|&b| b == b'\n').expect("line end") + 1;
    let v1 = [&v1[..start], &v1[end..]].concat();
    let old = temp("krk-v1.egt");
    std::fs::write(&old, &v1).expect("write");
    let back = Family::load(&old).expect("version 1 loads");
    for (a, b) in back.tables.iter().zip(&f.tables) {
        for stm in 0..2 {
            assert!((0..a.size()).all(|i| a.value(stm, i) == b.value(stm, i)), "{}", a.material);
        }
    }
    let pos = egt::fen::parse_legal_fen(&back, "8/8/8/8/8/2k5/8/K6R w").expect("legal");
    assert_eq!(value(&back, &pos), value(&f, &pos));
    // A version 1 header that claims format 2 is refused.
    let err = load_error("mixed.egt", &replace(&v1, "{\"format\":1,", "{\"format\":2,"));
    assert!(err.contains("the header says format 2, the first line 1"), "{err}");
}
