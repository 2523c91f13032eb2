//! The play server end to end over real HTTP and WebSocket: `fairylab serve` started on a fresh
//! SQLite file, complete games of every served variant (against the AI, between two clients,
//! AI against AI), records checked by `fairylab verify-game`, refusals of every kind of bad or
//! hostile request, and a SIGKILL in the middle of games with nothing acknowledged lost.

mod common;

use common::{fairylab, stdout, temp_path};
use serde_json::{json, Value};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `fairylab serve` process; killed when dropped.
struct Server {
    child: Child,
    base: String,
}

/// The databases each test runs on: a fresh SQLite file, and a fresh PostgreSQL database when
/// `FAIRYLAB_TEST_POSTGRES_URL` names a server whose user may create databases (CI sets it).
fn databases(tag: &str) -> Vec<String> {
    let db = temp_path(tag, "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let mut urls = vec![format!("sqlite://{}", db.display())];
    if let Some(url) = postgres_url(tag) {
        urls.push(url);
    }
    urls
}

/// A fresh PostgreSQL database for `tag`, if the tests have a server.
fn postgres_url(tag: &str) -> Option<String> {
    let base = std::env::var("FAIRYLAB_TEST_POSTGRES_URL").ok().filter(|u| !u.is_empty())?;
    let name = format!("fairylab_{}_{}", tag.replace('-', "_"), std::process::id());
    for sql in [format!("DROP DATABASE IF EXISTS {name}"), format!("CREATE DATABASE {name}")] {
        let o = Command::new("psql")
            .args([base.as_str(), "-v", "ON_ERROR_STOP=1", "-q", "-c", &sql])
            .output()
            .expect("psql runs");
        assert!(o.status.success(), "{sql}: {}", String::from_utf8_lossy(&o.stderr));
    }
    let (server, _) = base.rsplit_once('/').expect("a URL with a database name");
    Some(format!("{server}/{name}"))
}

impl Server {
    fn start(url: &str) -> Server {
        Server::start_with(url, &[])
    }

    /// A server with more `serve` arguments.
    fn start_with(url: &str, more: &[&str]) -> Server {
        // Two AI workers unless `more` says otherwise.
        let workers: &[&str] = if more.contains(&"--ai-workers") { &[] } else { &["--ai-workers", "2"] };
        let (child, base) = common::spawn_server(&[&["--database-url", url], workers, more].concat());
        Server { child, base }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    fn kill(mut self) {
        // SIGKILL: no shutdown code runs.
        self.child.kill().expect("kill");
        self.child.wait().expect("reaped");
    }

    /// (status, JSON body) of a request; a 503 (the game's owner process has just died and
    /// another is taking the game over) is retried for a while, as its Retry-After asks.
    fn call(&self, method: &str, path: &str, token: Option<&str>, body: Option<Value>) -> (u16, Value) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let (status, v) = self.call_once(method, path, token, body.clone()).0;
            if status != 503 || Instant::now() > deadline {
                return (status, v);
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// ((status, JSON body), the process that played it) of one request.
    fn call_once(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> ((u16, Value), Option<String>) {
        let mut req = ureq::request(method, &self.url(path)).timeout(Duration::from_secs(30));
        if let Some(t) = token {
            req = req.set("Authorization", &format!("Bearer {t}"));
        }
        let res = match body {
            Some(b) => req.send_json(b),
            None => req.call(),
        };
        let resp = match res {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{method} {path}: {e}"),
        };
        let status = resp.status();
        let served_by = resp.header("x-fairylab-server").map(str::to_string);
        let text = resp.into_string().expect("body");
        ((status, serde_json::from_str(&text).unwrap_or(Value::String(text))), served_by)
    }

    /// (status, JSON body) of a request with the Authorization header as given.
    fn call_raw_auth(&self, method: &str, path: &str, authorization: &str, body: Value) -> (u16, Value) {
        let r = ureq::request(method, &self.url(path)).set("Authorization", authorization).send_json(body);
        let resp = match r {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{method} {path}: {e}"),
        };
        let status = resp.status();
        (status, serde_json::from_str(&resp.into_string().expect("body")).unwrap_or(Value::Null))
    }

    fn ok(&self, method: &str, path: &str, token: Option<&str>, body: Option<Value>) -> Value {
        let (status, v) = self.call(method, path, token, body);
        assert!((200..300).contains(&status), "{method} {path}: {status} {v}");
        v
    }

    fn raw(&self, path: &str, body: &str, token: Option<&str>) -> (u16, Value) {
        let mut req = ureq::post(&self.url(path)).set("content-type", "application/json");
        if let Some(t) = token {
            req = req.set("Authorization", &format!("Bearer {t}"));
        }
        match req.send_string(body) {
            Ok(r) => (r.status(), r.into_json().unwrap_or(Value::Null)),
            Err(ureq::Error::Status(s, r)) => (s, r.into_json().unwrap_or(Value::Null)),
            // The server may answer 413 and close before the client has written the whole body.
            Err(ureq::Error::Transport(t)) => (0, Value::String(t.to_string())),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn state(s: &Server, id: &str) -> Value {
    s.ok("GET", &format!("/api/games/{id}"), None, None)
}

/// A small deterministic generator for the clients' random moves.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

/// Plays random legal moves for the seats whose tokens are given until the game ends (waiting
/// for the AI when it is to move); returns the final state.
fn play_out(s: &Server, id: &str, tokens: [Option<&str>; 2], rng: &mut Lcg, max_plies: usize) -> Value {
    let deadline = Instant::now() + Duration::from_secs(240);
    loop {
        assert!(Instant::now() < deadline, "game {id} did not finish in time");
        let st = state(s, id);
        if st["status"] == "finished" {
            return st;
        }
        let ply = st["ply"].as_u64().expect("ply") as usize;
        if ply >= max_plies {
            let turn = if st["turn"] == "white" { 0 } else { 1 };
            let t = tokens[turn].or(tokens[1 - turn]).expect("a seat to resign");
            s.ok("POST", &format!("/api/games/{id}/resign"), Some(t), None);
            continue;
        }
        let turn = if st["turn"] == "white" { 0 } else { 1 };
        match tokens[turn] {
            Some(t) => {
                let legal = st["legal_moves"].as_array().expect("moves");
                let mv = legal[rng.below(legal.len())].as_str().expect("uci").to_string();
                s.ok("POST", &format!("/api/games/{id}/moves"), Some(t), Some(json!({ "move": mv, "ply": ply })));
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    }
}

fn create(s: &Server, body: Value) -> Value {
    let (status, v) = s.call("POST", "/api/games", None, Some(body.clone()));
    assert_eq!(status, 201, "{body} -> {v}");
    v
}

fn token(v: &Value, color: &str) -> Option<String> {
    v[color]["token"].as_str().map(str::to_string)
}

/// `fairylab verify-game` on a record's text, written to `name` in the test's directory `dir`.
fn verify_text(dir: &str, name: &str, text: &str) -> std::process::Output {
    let path = temp_path(dir, name);
    std::fs::write(&path, text).expect("write");
    fairylab(&["verify-game", path.to_str().expect("utf-8")])
}

/// Downloads the record, reads it back with `fairylab verify-game`, and returns it.
fn check_record(s: &Server, id: &str, dir: &str) -> String {
    let text =
        ureq::get(&s.url(&format!("/api/games/{id}/record"))).call().expect("record").into_string().expect("text");
    let path = temp_path(dir, &format!("{id}.pgn"));
    std::fs::write(&path, &text).expect("write");
    let o = fairylab(&["verify-game", path.to_str().expect("utf-8")]);
    assert!(o.status.success(), "verify-game {id}: {} {}", common::stderr(&o), text);
    assert!(stdout(&o).starts_with("ok: "));
    // Dated with the day the game was created (today, for the tests' games).
    let today = engine::tournament::pgn_date(std::time::SystemTime::now());
    assert!(text.contains(&format!("[Date \"{today}\"]")), "{text}");
    text
}

#[test]
fn complete_games_of_every_served_variant() {
    for url in databases("serve-games") {
        complete_games(&url);
    }
}

fn complete_games(url: &str) {
    let s = Server::start(url);
    let mut rng = Lcg(7);
    let variants = [
        "chess",
        "chess960",
        "crazyhouse",
        "crazyhouse960",
        "gardner",
        "baby",
        "snowfall",
        "probabilistic",
        "coinflip",
    ];
    let mut saw = (false, false);
    for v in variants {
        // A person against the AI.
        // SnowFall at 100 %: a gift event after every move, so the record has gifts.
        let mut body = json!({ "variant": v, "white": "me", "black": "ai", "movetime_ms": 10 });
        if v == "snowfall" {
            body["snowfall"] = json!(100);
        }
        let g = create(&s, body);
        let id = g["id"].as_str().expect("id");
        let t = token(&g, "white");
        let end = play_out(&s, id, [t.as_deref(), None], &mut rng, 300);
        assert_eq!(end["seed"].as_str().map(str::len), Some(64), "the seed is revealed at the end");
        let record = check_record(&s, id, "serve-games");
        saw.0 |= v == "snowfall" && record.contains("gift W:");
        saw.1 |= v == "probabilistic" && record.contains("failed}");
        // Two people, the second one invited.
        let g = create(&s, json!({ "variant": v, "white": "me", "black": "invite" }));
        let id = g["id"].as_str().expect("id");
        let code = g["black"]["invite"].as_str().expect("an invitation");
        let joined = s.ok("POST", &format!("/api/games/{id}/join"), None, Some(json!({ "code": code })));
        assert_eq!(joined["color"], "black");
        let (status, _) = s.call("POST", &format!("/api/games/{id}/join"), None, Some(json!({ "code": code })));
        assert_eq!(status, 403, "an invitation works once");
        let (w, b) = (token(&g, "white"), joined["token"].as_str().map(str::to_string));
        play_out(&s, id, [w.as_deref(), b.as_deref()], &mut rng, 400);
        let record = check_record(&s, id, "serve-games");
        saw.1 |= v == "probabilistic" && record.contains("failed}");
        // Nothing chosen: the seed drew what the variant leaves open, and verify-game checked it.
        let drawn = match v {
            "snowfall" => Some("snowfall"),
            "probabilistic" => Some("map"),
            "chess960" | "crazyhouse960" => Some("start"),
            _ => None,
        };
        let tag = drawn.map(|d| format!("[SetupFromSeed \"{d}\"]"));
        assert_eq!(record.lines().find(|l| l.starts_with("[SetupFromSeed")), tag.as_deref(), "{v}");
    }
    assert!(saw.0 && saw.1, "a SnowFall game with gifts and a Probabilistic game with failed rolls: {saw:?}");
    // The AI against itself.
    let g = create(&s, json!({ "variant": "gardner", "white": "ai", "black": "ai:blind", "movetime_ms": 10 }));
    let id = g["id"].as_str().expect("id");
    let end = play_out(&s, id, [None, None], &mut rng, usize::MAX);
    assert_eq!(end["status"], "finished");
    // A weaker level against the full engine: stored by its name, and it plays.
    let g = create(&s, json!({ "variant": "chess", "white": "ai:level1", "black": "ai:level8", "movetime_ms": 10 }));
    assert_eq!((g["white"]["player"].as_str(), g["black"]["player"].as_str()), (Some("ai:level1"), Some("ai:engine")));
    let id = g["id"].as_str().expect("id");
    let end = play_out(&s, id, [None, None], &mut rng, usize::MAX);
    assert_eq!((end["status"].as_str(), end["white"].as_str()), (Some("finished"), Some("ai:level1")));
    let (status, body) =
        s.call("POST", "/api/games", None, Some(json!({ "variant": "chess", "white": "ai:level9", "black": "me" })));
    assert_eq!(status, 400, "{body}");
    assert!(body.to_string().contains("ai:level1 to ai:level8"), "{body}");
    // The lobby lists the games.
    let lobby = ureq::get(&s.url("/lobby")).call().expect("lobby").into_string().expect("html");
    assert!(lobby.contains(id) && lobby.contains("/api"));
}

#[test]
fn an_altered_roll_fails_verification() {
    let db = temp_path("serve-verify", "games.sqlite3");
    let s = Server::start(&format!("sqlite://{}", db.display()));
    let mut rng = Lcg(11);
    let g = create(&s, json!({ "variant": "probabilistic", "white": "me", "black": "ai", "movetime_ms": 10 }));
    let id = g["id"].as_str().expect("id");
    play_out(&s, id, [token(&g, "white").as_deref(), None], &mut rng, 200);
    // Every move shows the chance its roll had, as the record's `{37%: ok}` does.
    let st = state(&s, id);
    let pos = rules::Position::from_fen(
        rules::variants::by_name("probabilistic").expect("built in"),
        st["start_fen"].as_str().expect("fen"),
    )
    .expect("the start");
    let first = st["moves"][0].clone();
    let m = rules::uci::parse_uci(&pos, first["uci"].as_str().expect("uci")).expect("legal");
    assert_eq!(first["percent"].as_u64(), Some(u64::from(pos.success_percent(m))), "{first}");
    assert!(st["moves"].as_array().expect("moves").iter().all(|m| m["percent"].as_u64().is_some_and(|p| p <= 100)));
    let text = check_record(&s, id, "serve-verify");
    // Flip the first roll: a success becomes a failure, or a failure a success; either way
    // the record still reads as a game (a pawn that stayed may change later moves, so try
    // each roll until the altered record still parses).
    let mut rejected = false;
    for (i, _) in text.match_indices("%: ") {
        let rest = &text[i + 3..];
        let altered = match (rest.strip_prefix("ok}"), rest.strip_prefix("failed}")) {
            (Some(after), _) => format!("{}%: failed}}{after}", &text[..i]),
            (None, Some(after)) => format!("{}%: ok}}{after}", &text[..i]),
            (None, None) => continue,
        };
        let path = temp_path("serve-verify", "altered.pgn");
        std::fs::write(&path, &altered).expect("write");
        let o = fairylab(&["verify-game", path.to_str().expect("utf-8")]);
        let err = common::stderr(&o);
        if err.contains("the seed draws") {
            assert_eq!(o.status.code(), Some(2));
            // Said in the records' words, not Rust's.
            assert!(
                err.contains("the record says failed but the seed draws success")
                    || err.contains("the record says success (no gift, no failed roll) but the seed draws failed"),
                "{err}"
            );
            rejected = true;
            break;
        }
        assert!(!o.status.success(), "an altered record was accepted");
    }
    assert!(rejected, "no altered roll was caught by the seed check");
}

/// A record whose setup is not the one its seed draws (another SnowFall percentage, another
/// Chess960 start) fails verification, and says what the seed draws; one whose start was
/// chosen carries no setup tag, and a setup tag that names an unknown draw is refused.
#[test]
fn an_altered_setup_fails_verification() {
    let db = temp_path("serve-setup", "games.sqlite3");
    let s = Server::start(&format!("sqlite://{}", db.display()));
    let verify = |name: &str, text: &str| verify_text("serve-setup", name, text);
    // A game aborted before any move: its record is its setup.
    let resigned = |body: Value| {
        let g = create(&s, body);
        let id = g["id"].as_str().expect("id").to_string();
        s.ok("POST", &format!("/api/games/{id}/abort"), token(&g, "white").as_deref(), None);
        ureq::get(&s.url(&format!("/api/games/{id}/record"))).call().expect("record").into_string().expect("text")
    };
    let snowfall = resigned(json!({ "variant": "snowfall", "white": "me", "black": "me" }));
    let o = verify("snowfall.pgn", &snowfall);
    assert!(stdout(&o).contains("it drew the SnowFall percentage ("), "{}{}", stdout(&o), common::stderr(&o));
    let tag = snowfall.lines().find(|l| l.starts_with("[SnowFall ")).expect("a SnowFall tag");
    let n: u8 = tag.trim_start_matches("[SnowFall \"").trim_end_matches("\"]").parse().expect("a percentage");
    let other = snowfall.replace(tag, &format!("[SnowFall \"{}\"]", if n == 10 { 24 } else { n - 1 }));
    let o = verify("snowfall-altered.pgn", &other);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains(&format!("the seed draws a SnowFall percentage of {n}")),
        "{}",
        common::stderr(&o)
    );
    let unknown = snowfall.replace("[SetupFromSeed \"snowfall\"]", "[SetupFromSeed \"snowfall dice\"]");
    let o = verify("snowfall-unknown.pgn", &unknown);
    assert!(common::stderr(&o).contains("unknown setup draw 'dice'"), "{}", common::stderr(&o));
    // Chess960: the start replaced by another of the 960 (the FEN tag and the setup).
    let c960 = resigned(json!({ "variant": "chess960", "white": "me", "black": "me" }));
    let o = verify("chess960.pgn", &c960);
    assert!(
        stdout(&o).contains("it drew the start position (Chess960 number "),
        "{}{}",
        stdout(&o),
        common::stderr(&o)
    );
    let fen_tag = c960.lines().find(|l| l.starts_with("[FEN ")).expect("a FEN tag");
    let fen = fen_tag.trim_start_matches("[FEN \"").trim_end_matches("\"]");
    let another = (0..960).filter_map(rules::variants::chess960::start_fen).find(|f| f != fen).expect("another start");
    let o = verify("chess960-altered.pgn", &c960.replace(fen, &another));
    assert_eq!(o.status.code(), Some(2));
    assert!(common::stderr(&o).contains("the seed draws Chess960 number"), "{}", common::stderr(&o));
    // Chosen, not drawn: no tag, nothing drawn to check.
    let chosen = resigned(json!({ "variant": "snowfall", "snowfall": 20, "white": "me", "black": "me" }));
    assert!(!chosen.contains("[SetupFromSeed"), "{chosen}");
    let o = verify("chosen.pgn", &chosen);
    assert!(o.status.success() && !stdout(&o).contains("it drew"), "{}{}", stdout(&o), common::stderr(&o));
    assert!(
        stdout(&o).contains("the SnowFall percentage was not drawn by the seed but chosen when the game was created"),
        "{}",
        stdout(&o)
    );
    // A set-up Probabilistic position without its map gets one drawn, the kings' squares in
    // 20..=99 where they stand; it verifies, and a king moved in the record does not.
    let fen = "4k3/8/8/8/8/8/3QK3/8 w - - 0 1";
    let custom = resigned(json!({ "variant": "probabilistic", "white": "me", "black": "me", "fen": fen }));
    let o = verify("map-custom.pgn", &custom);
    assert!(
        o.status.success() && stdout(&o).contains("it drew the square map"),
        "{}{}",
        stdout(&o),
        common::stderr(&o)
    );
    let start = custom.lines().find_map(|l| l.strip_prefix("[FEN \"")).expect("a FEN tag").trim_end_matches("\"]");
    assert!(start.starts_with(fen), "{start}");
    let pos =
        rules::Position::from_fen(rules::variants::by_name("probabilistic").expect("built in"), start).expect("FEN");
    for king in ["e8", "e2"] {
        let percent = pos.square_map().percent(rules::Square::parse(king).expect("square"));
        assert!((20..=99).contains(&percent), "{king}: {percent} in {start}");
    }
    let o = verify("map-custom-moved.pgn", &custom.replace("3QK3", "3KQ3"));
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    // Four fields are not a FEN whose map can be drawn.
    let (status, v) = s.call(
        "POST",
        "/api/games",
        None,
        Some(json!({ "variant": "probabilistic", "white": "me", "black": "me", "fen": "4k3/8/8/8/8/8/3QK3/8 w - -" })),
    );
    assert!(status == 400 && v["error"].as_str().is_some_and(|e| e.contains("map")), "{status} {v}");
    // A drawn map altered with its setup tag deleted reads as a chosen map, and is reported so.
    let drawn = resigned(json!({ "variant": "probabilistic", "white": "me", "black": "me" }));
    let tag = drawn.lines().find(|l| l.starts_with("[Probabilities ")).expect("a map");
    let digit = tag.find(|c: char| c.is_ascii_digit() && c != '9').expect("a digit below 9");
    let altered_tag = format!("{}{}{}", &tag[..digit], (tag.as_bytes()[digit] + 1) as char, &tag[digit + 1..]);
    let o = verify("map-altered.pgn", &drawn.replace(tag, &altered_tag));
    assert!(common::stderr(&o).contains("the start position is not the one the seed draws"), "{}", common::stderr(&o));
    let o = verify("map-untagged.pgn", &drawn.replace(tag, &altered_tag).replace("[SetupFromSeed \"map\"]\n", ""));
    assert!(
        o.status.success() && stdout(&o).contains("(the square map was not drawn by the seed but chosen"),
        "{}{}",
        stdout(&o),
        common::stderr(&o)
    );
}

/// A seat open to anyone: listed as such, taken without a code by the first visitor (who then
/// plays it), and not twice; an invitation-only seat still needs its code.
#[test]
fn a_seat_open_to_anyone_is_taken_without_a_code() {
    let db = temp_path("serve-open", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let s = Server::start(&format!("sqlite://{}", db.display()));
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "open" }));
    let id = g["id"].as_str().expect("id").to_string();
    assert_eq!((g["black"]["open"].clone(), g["black"]["invite"].clone()), (json!(true), Value::Null));
    let listed = s.ok("GET", "/api/games", None, None);
    let row =
        listed["games"].as_array().expect("games").iter().find(|r| r["id"] == id.as_str()).expect("listed").clone();
    assert_eq!((row["open_seat"].clone(), row["open_to_anyone"].clone()), (json!("black"), json!(true)));
    let joined = s.ok("POST", &format!("/api/games/{id}/join"), None, Some(json!({})));
    assert_eq!(joined["color"], "black");
    let st = state(&s, &id);
    assert_eq!((st["open_seat"].clone(), st["open_to_anyone"].clone()), (Value::Null, json!(false)));
    let (status, v) = s.call("POST", &format!("/api/games/{id}/join"), None, Some(json!({})));
    assert_eq!(status, 403, "{v}");
    assert!(v["error"].as_str().is_some_and(|e| e.contains("no seat")), "{v}");
    // The seat is the joiner's: White moves, then Black with the token from the join.
    s.ok("POST", &format!("/api/games/{id}/moves"), token(&g, "white").as_deref(), Some(json!({ "move": "e4" })));
    let b = joined["token"].as_str().expect("a token");
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(b), Some(json!({ "move": "e5" })));
    // An invitation-only seat: no code, no seat; its code still works.
    let inv = create(&s, json!({ "variant": "chess", "white": "me", "black": "invite" }));
    let inv_id = inv["id"].as_str().expect("id");
    let (status, v) = s.call("POST", &format!("/api/games/{inv_id}/join"), None, Some(json!({})));
    assert_eq!(status, 403, "{v}");
    assert!(v["error"].as_str().is_some_and(|e| e.contains("invitation code")), "{v}");
    assert_eq!(state(&s, inv_id)["open_to_anyone"], false);
    let code = inv["black"]["invite"].as_str().expect("a code");
    s.ok("POST", &format!("/api/games/{inv_id}/join"), None, Some(json!({ "code": code })));
    // White invited, Black open to anyone: the seat named is the one a join without a code
    // takes (it named White's, which needs the code), and both are listed.
    let both = create(&s, json!({ "variant": "chess", "white": "invite", "black": "open" }));
    let both_id = both["id"].as_str().expect("id");
    let seats = |v: &Value| (v["open_seat"].clone(), v["open_seats"].clone(), v["open_to_anyone"].clone());
    assert_eq!(seats(&state(&s, both_id)), (json!("black"), json!(["white", "black"]), json!(true)));
    let listed = s.ok("GET", "/api/games", None, None);
    let row = listed["games"].as_array().and_then(|g| g.iter().find(|r| r["id"] == both_id).cloned()).expect("listed");
    assert_eq!(seats(&row), (json!("black"), json!(["white", "black"]), json!(true)));
    let joined = s.ok("POST", &format!("/api/games/{both_id}/join"), None, Some(json!({})));
    assert_eq!(joined["color"], "black");
    assert_eq!(seats(&state(&s, both_id)), (json!("white"), json!(["white"]), json!(false)));
}

/// A game is aborted (no result) until both sides have moved, as on lichess: an open seat is
/// withdrawn so, a player leaves before the opponent's first move; afterwards only resigning
/// ends it. Imported moves do not count; a Predictor game may be aborted before its first ply.
#[test]
fn a_game_is_aborted_until_both_sides_have_moved() {
    for url in databases("serve-abort") {
        aborts(&url);
    }
}

fn aborts(url: &str) {
    let s = Server::start(url);
    let abort = |id: &str, t: Option<&str>| s.call("POST", &format!("/api/games/{id}/abort"), t, None);
    let mv = |id: &str, t: Option<&str>, m: &str| {
        s.ok("POST", &format!("/api/games/{id}/moves"), t, Some(json!({ "move": m })));
    };
    // A seat open to anyone, withdrawn by its creator: the lobby no longer offers it.
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "open" }));
    let (id, w) = (g["id"].as_str().expect("id").to_string(), token(&g, "white"));
    assert_eq!(g["state"]["abortable"], true);
    let (status, v) = abort(&id, None);
    assert_eq!(status, 401, "{v}");
    let (status, v) = abort(&id, Some("0123456789abcdef"));
    assert_eq!(status, 403, "{v}");
    assert_eq!(abort(&id, w.as_deref()), (200, json!({ "result": "*", "reason": "aborted" })));
    let st = state(&s, &id);
    assert_eq!(
        (st["status"].clone(), st["result"].clone(), st["reason"].clone(), st["abortable"].clone()),
        (json!("finished"), json!("*"), json!("aborted"), json!(false))
    );
    assert_eq!((st["open_seat"].clone(), st["open_to_anyone"].clone()), (Value::Null, json!(false)));
    let (status, v) = s.call("POST", &format!("/api/games/{id}/join"), None, Some(json!({})));
    assert!(status == 403 || status == 409, "{status} {v}");
    let (status, v) = abort(&id, w.as_deref());
    assert_eq!(status, 409, "{v}");
    let record = check_record(&s, &id, "serve-abort");
    assert!(record.contains("[Result \"*\"]") && record.contains("[Termination \"aborted\"]"), "{record}");
    // After White's first move Black may still abort; once both have moved, neither may.
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let (id, w, b) = (g["id"].as_str().expect("id").to_string(), token(&g, "white"), token(&g, "black"));
    mv(&id, w.as_deref(), "e4");
    assert_eq!(state(&s, &id)["abortable"], true);
    mv(&id, b.as_deref(), "c5");
    assert_eq!(state(&s, &id)["abortable"], false);
    for t in [&w, &b] {
        let (status, v) = abort(&id, t.as_deref());
        assert_eq!(status, 409, "{v}");
        assert!(v["error"].as_str().is_some_and(|e| e.contains("resign")), "{v}");
    }
    let g2 = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let id2 = g2["id"].as_str().expect("id");
    mv(id2, token(&g2, "white").as_deref(), "d4");
    assert_eq!(abort(id2, token(&g2, "black").as_deref()).0, 200);
    // Imported moves do not count: the game may be aborted until both sides move after them.
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "1. e4 e5 2. Nf3" }));
    let (id, w, b) = (g["id"].as_str().expect("id").to_string(), token(&g, "white"), token(&g, "black"));
    assert_eq!(g["state"]["abortable"], true);
    mv(&id, b.as_deref(), "Nc6");
    assert_eq!(state(&s, &id)["abortable"], true);
    mv(&id, w.as_deref(), "Bb5");
    assert_eq!(state(&s, &id)["abortable"], false);
    // Against the AI: once it has answered, the game is on.
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "ai", "movetime_ms": 20 }));
    let (id, w) = (g["id"].as_str().expect("id").to_string(), token(&g, "white"));
    mv(&id, w.as_deref(), "e4");
    wait_for_ply(&s, &id, 2, "the AI's answer");
    assert_eq!(abort(&id, w.as_deref()).0, 409);
    // Chance variants: once a move's roll or gift is drawn, an abort would void it (its loser
    // would play the game again), so the game is resigned instead.
    for variant in ["probabilistic", "snowfall"] {
        let g = create(&s, json!({ "variant": variant, "white": "me", "black": "me" }));
        let (id, w, b) = (g["id"].as_str().expect("id").to_string(), token(&g, "white"), token(&g, "black"));
        assert_eq!(g["state"]["abortable"], true, "{variant}: nothing drawn yet");
        mv(&id, w.as_deref(), "e4");
        assert_eq!(state(&s, &id)["abortable"], false, "{variant}");
        for t in [&w, &b] {
            let (status, v) = abort(&id, t.as_deref());
            assert_eq!(status, 409, "{variant}: {v}");
            assert!(v["error"].as_str().is_some_and(|e| e.contains("chance") && e.contains("resign")), "{v}");
        }
        let r = s.ok("POST", &format!("/api/games/{id}/resign"), b.as_deref(), None);
        assert_eq!(r, json!({ "result": "1-0", "reason": "resignation" }), "{variant}");
    }
    // Predictor chess: before the first ply resolves.
    let g = create(&s, json!({ "variant": "predictor", "white": "me", "black": "invite" }));
    let id = g["id"].as_str().expect("id");
    assert_eq!(state(&s, id)["abortable"], true);
    assert_eq!(abort(id, token(&g, "white").as_deref()).0, 200);
    assert_eq!(state(&s, id)["reason"], "aborted");
}

/// A finished game is reviewed as lichess reviews it: the blunder into the scholar's mate is a
/// blunder; the review is kept, and the same after a restart; an unfinished or Predictor game
/// is refused with the reason.
#[test]
fn a_finished_game_is_reviewed() {
    let db = temp_path("serve-review", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let url = format!("sqlite://{}", db.display());
    let s = Server::start(&url);
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id").to_string();
    let (w, b) = (token(&g, "white"), token(&g, "black"));
    let review = format!("/api/games/{id}/review");
    for (i, m) in ["e4", "e5", "Qh5", "Nc6", "Bc4"].iter().enumerate() {
        let t = if i % 2 == 0 { &w } else { &b };
        s.ok("POST", &format!("/api/games/{id}/moves"), t.as_deref(), Some(json!({ "move": m })));
    }
    let (status, v) = s.call("GET", &review, None, None);
    assert_eq!(status, 409, "not before the end: {v}");
    assert!(v["error"].as_str().is_some_and(|e| e.contains("still on")), "{v}");
    s.ok("POST", &format!("/api/games/{id}/moves"), b.as_deref(), Some(json!({ "move": "Nf6" })));
    s.ok("POST", &format!("/api/games/{id}/moves"), w.as_deref(), Some(json!({ "move": "Qxf7#" })));
    let r = s.ok("GET", &review, None, None);
    let nf6 = &r["moves"][5];
    assert_eq!(
        (nf6["san"].as_str(), nf6["judgement"].as_str(), nf6["glyph"].as_str()),
        (Some("Nf6"), Some("blunder"), Some("??"))
    );
    assert_eq!(nf6["mate"], "Checkmate is now unavoidable");
    assert_eq!(r["sides"]["black"]["blunders"], 1);
    assert_eq!(r["win_percent"].as_array().map(Vec::len), Some(8));
    assert_eq!(s.ok("GET", &review, None, None), r, "kept");
    // The annotated record: the review's NAGs and comments; the plain one has none.
    let get = |path: &str| ureq::get(&s.url(path)).call().expect("record").into_string().expect("text");
    let annotated = get(&format!("/api/games/{id}/record?annotated=true"));
    let flat = annotated.replace('\n', " ");
    assert!(flat.contains("3... Nf6 $4 {[%eval #1]") && flat.contains("Checkmate is now unavoidable"), "{annotated}");
    assert!(!get(&format!("/api/games/{id}/record")).contains("[%eval"));
    let (status, v) = s.call("GET", &format!("/api/games/{id}/record?annotated=maybe"), None, None);
    assert_eq!(status, 400, "{v}");
    s.kill();
    let s = Server::start(&url);
    assert!(r["reviewed_at"].as_i64().is_some_and(|t| t > 0), "{r}");
    assert_eq!(s.ok("GET", &review, None, None), r, "kept in the store: the same, made at the same time");
    let p = create(&s, json!({ "variant": "predictor", "white": "me", "black": "invite" }));
    let pid = p["id"].as_str().expect("id");
    s.ok("POST", &format!("/api/games/{pid}/abort"), token(&p, "white").as_deref(), None);
    let (status, v) = s.call("GET", &format!("/api/games/{pid}/review"), None, None);
    assert_eq!(status, 400, "{v}");
}

/// A game between two seats of one client: `moves` played, then `end` (`white resigns`, `black
/// resigns`, `draw` agreed or `abort`); returns its id.
fn game_ended(s: &Server, body: Value, moves: &[&str], end: &str) -> String {
    let g = create(s, body);
    let id = g["id"].as_str().expect("id").to_string();
    let (w, b) = (token(&g, "white"), token(&g, "black"));
    let ply = state(s, &id)["ply"].as_u64().expect("ply") as usize;
    for (i, m) in moves.iter().enumerate() {
        let t = if (ply + i).is_multiple_of(2) { &w } else { &b };
        s.ok("POST", &format!("/api/games/{id}/moves"), t.as_deref(), Some(json!({ "move": m })));
    }
    let (path, t, body) = match end {
        "white resigns" => ("resign", &w, None),
        "black resigns" => ("resign", &b, None),
        "abort" => ("abort", &w, None),
        _ => {
            s.ok("POST", &format!("/api/games/{id}/draw"), w.as_deref(), Some(json!({ "action": "offer" })));
            ("draw", &b, Some(json!({ "action": "accept" })))
        }
    };
    s.ok("POST", &format!("/api/games/{id}/{path}"), t.as_deref(), body);
    id
}

/// The explorer's answer for the start of `variant` once it counts `games` games (it counts
/// them in the background); fails if it counts more.
fn counted(s: &Server, variant: &str, games: i64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let v = s.ok("GET", &format!("/api/explorer?variant={variant}"), None, None);
        let total = ["white", "draws", "black"].iter().map(|k| v[k].as_i64().expect("count")).sum::<i64>();
        if total >= games {
            assert_eq!(total, games, "{v}");
            return v;
        }
        assert!(Instant::now() < deadline, "{variant}: {total} games counted, {games} expected: {v}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The opening explorer counts each finished game once, moments after it ends: the moves played
/// from a position with how their games ended, in SAN, the most played first, with the latest
/// game; positions are matched without the move counters, SnowFall's with its hands; aborted
/// games and imported moves are not counted; a restart counts nothing twice; bad queries are
/// refused with the reason.
#[test]
fn the_explorer_counts_finished_games_once() {
    for url in databases("serve-explorer") {
        explorer(&url);
    }
}

fn explorer(url: &str) {
    let s = Server::start(url);
    let chess = json!({ "variant": "chess", "white": "me", "black": "me" });
    let explore = |s: &Server, query: &str| s.ok("GET", &format!("/api/explorer?{query}"), None, None);
    let g1 = game_ended(&s, chess.clone(), &["e4", "e5", "Nf3", "Nc6"], "white resigns");
    game_ended(&s, chess.clone(), &["d4"], "abort");
    game_ended(
        &s,
        json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "1. c4 c5" }),
        &["Nc3", "Nc6"],
        "black resigns",
    );
    let g3 = game_ended(&s, chess.clone(), &["e4", "c5", "Nf3"], "draw");
    let start = counted(&s, "chess", 2);
    assert_eq!(start["fen"], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_eq!(
        start["moves"],
        json!([{ "uci": "e2e4", "san": "e4", "white": 0, "draws": 1, "black": 1, "games": 2, "last_game": g3 }])
    );
    let after_e4 = explore(&s, "variant=chess&play=e2e4");
    let replies: Vec<(String, i64, String)> = after_e4["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| {
            (
                m["san"].as_str().expect("san").into(),
                m["games"].as_i64().expect("games"),
                m["last_game"].as_str().expect("id").into(),
            )
        })
        .collect();
    assert_eq!(replies, [("c5".into(), 1, g3.clone()), ("e5".into(), 1, g1.clone())]);
    // Matched without the move counters.
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 17 40";
    let v = explore(&s, &format!("variant=Chess&fen={}", urlencode(fen)));
    assert_eq!(
        (v["moves"].as_array().map(Vec::len), v["black"].as_i64()),
        (Some(0), Some(0)),
        "no move after ply 4: {v}"
    );
    let v = explore(
        &s,
        &format!("variant=chess&fen={}", urlencode("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 9 9")),
    );
    assert_eq!(v["moves"][0]["san"], "Nc6", "{v}");
    // SnowFall: every move brings gifts, and the position after 1. e4 carries them.
    let sf = game_ended(
        &s,
        json!({ "variant": "snowfall", "white": "me", "black": "me", "snowfall": 100 }),
        &["e4", "e5"],
        "black resigns",
    );
    counted(&s, "snowfall", 1);
    let after = state(&s, &sf)["moves"][0]["fen"].as_str().expect("fen").to_string();
    assert!(after.contains('['), "hands in {after}");
    let v = explore(&s, &format!("variant=snowfall&fen={}", urlencode(&after)));
    assert_eq!((v["moves"][0]["uci"].as_str(), v["white"].as_i64()), (Some("e7e5"), Some(1)), "{v}");
    // Refusals.
    for (query, mention) in [
        ("variant=nosuch", "no variant"),
        ("variant=predictor", "both sides move at once"),
        ("variant=chess&fen=xyz", "invalid FEN"),
        ("variant=chess&play=e2e4,e2e4", "move 2 of play"),
        ("variant=chess&colour=white", "invalid query"),
        ("variant=chess&players=humans", "players must be all, people or ai"),
        ("fen=8/8/8/8/8/8/8/8", "invalid query"),
    ] {
        let (status, v) = s.call("GET", &format!("/api/explorer?{query}"), None, None);
        assert_eq!(status, 400, "{query}: {v}");
        assert!(v["error"].as_str().is_some_and(|e| e.contains(mention)), "{query}: {v} should mention {mention:?}");
    }
    // A restart counts nothing again; a game after it is counted.
    s.kill();
    let s = Server::start(url);
    game_ended(&s, chess, &["d4", "d5"], "draw");
    let v = counted(&s, "chess", 3);
    assert_eq!(v["moves"][1]["uci"], "d2d4", "{v}");
    // A person against the AI: counted apart from games between people, and with them in all
    // (resigned once the AI has answered: before, the game is aborted instead).
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "ai", "movetime_ms": 10 }));
    let id = g["id"].as_str().expect("id");
    s.ok("POST", &format!("/api/games/{id}/moves"), token(&g, "white").as_deref(), Some(json!({ "move": "e4" })));
    wait_for_ply(&s, id, 2, "the AI's answer");
    s.ok("POST", &format!("/api/games/{id}/resign"), token(&g, "white").as_deref(), None);
    let all = counted(&s, "chess", 4);
    let moves = |v: &Value| -> Vec<(String, i64, i64)> {
        v["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| {
                (
                    m["uci"].as_str().expect("uci").into(),
                    m["black"].as_i64().expect("n"),
                    m["games"].as_i64().expect("n"),
                )
            })
            .collect()
    };
    assert_eq!(all["players"], "all");
    assert_eq!(moves(&all), [("e2e4".into(), 2, 3), ("d2d4".into(), 0, 1)], "{all}");
    let people = explore(&s, "variant=chess&players=people");
    assert_eq!(moves(&people), [("e2e4".into(), 1, 2), ("d2d4".into(), 0, 1)], "{people}");
    let ai = explore(&s, "variant=chess&players=ai");
    assert_eq!((ai["players"].as_str(), ai["black"].as_i64()), (Some("ai"), Some(1)), "{ai}");
    assert_eq!(moves(&ai), [("e2e4".into(), 1, 1)], "{ai}");
    assert_eq!(explore(&s, "variant=chess&players=all"), all);
}

/// The analysis board's lines: moves in SAN with the positions after them, legal moves and the
/// outcome at the end (mate, threefold repetition), drops, no chance; the engine on a line's end
/// (a mate in one found); bad lines and limits refused with the reason.
/// A record's lines as `POST /api/position` answers them, as `POST /api/position/pgn` takes
/// them back: the main line's UCI moves (`play`) and each variation from where it leaves it.
fn lines_sent(v: &Value) -> (String, Vec<Value>) {
    let main: Vec<&str> = v["moves"].as_array().expect("moves").iter().filter_map(|m| m["uci"].as_str()).collect();
    let sides = v["variations"]
        .as_array()
        .expect("variations")
        .iter()
        .map(|l| {
            let parts = l["parts"].as_u64().expect("parts") as usize;
            let uci: Vec<&str> = l["uci"].as_array().expect("uci").iter().filter_map(Value::as_str).collect();
            json!({ "parts": parts, "play": uci[parts..].join(",") })
        })
        .collect();
    (main.join(","), sides)
}

#[test]
fn the_analysis_board_reads_lines_and_analyses_them() {
    let db = temp_path("serve-board", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let s = Server::start(&format!("sqlite://{}", db.display()));
    let position = |query: &str| s.ok("GET", &format!("/api/position?{query}"), None, None);
    let sans = |v: &Value| -> Vec<String> {
        v["moves"].as_array().expect("moves").iter().map(|m| m["san"].as_str().expect("san").to_string()).collect()
    };
    let v = position("variant=chess&play=e2e4,e7e5");
    assert_eq!(sans(&v), ["e4", "e5"]);
    assert_eq!(v["moves"][0]["fen"], "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    assert_eq!((v["turn"].as_str(), v["legal_moves"].as_array().map(Vec::len)), (Some("white"), Some(29)));
    assert_eq!((v["result"].clone(), v["start_fen"].clone()), (Value::Null, json!(rules_start())));
    let mate = position("variant=chess&play=f2f3,e7e5,g2g4,d8h4");
    assert_eq!(sans(&mate).last().map(String::as_str), Some("Qh4#"));
    assert_eq!((mate["result"].as_str(), mate["reason"].as_str()), (Some("0-1"), Some("checkmate")));
    assert_eq!(mate["legal_moves"], json!([]));
    let shuffle = "g1f3,g8f6,f3g1,f6g8,g1f3,g8f6,f3g1,f6g8";
    let v = position(&format!("variant=chess&play={shuffle}"));
    assert_eq!((v["result"].as_str(), v["reason"].as_str()), (Some("1/2-1/2"), Some("repetition")));
    let zh = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[N] w KQkq - 0 1";
    let v = position(&format!("variant=crazyhouse&fen={}&play=N@e4,e7e5", urlencode(zh)));
    assert_eq!(sans(&v), ["N@e4", "e5"]);
    // The line's record imports into a game: the same moves from the same start.
    let g = create(&s, json!({ "variant": "crazyhouse", "white": "me", "black": "me", "pgn": v["pgn"] }));
    assert_eq!((g["state"]["start_fen"].as_str(), sans(&g["state"])), (Some(zh), vec!["N@e4".into(), "e5".into()]));
    let v = position("variant=snowfall&play=e2e4");
    assert_eq!(v["fen"], "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR[] b KQkq - 0 1", "no gift");
    // A pasted record: the same line; one whose moves had chance outcomes is refused.
    let pgn = "[Variant \"crazyhouse\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[N] w KQkq - 0 1\"]\n\n1. N@e4 e5 *";
    let v = s.ok("POST", "/api/position", None, Some(json!({ "pgn": pgn })));
    assert_eq!(
        (v["variant"].as_str(), v["start_fen"].as_str(), sans(&v)),
        (Some("crazyhouse"), Some(zh), vec!["N@e4".into(), "e5".into()])
    );
    let gift = "[Variant \"SnowFall\"]\n\n1. e4 {H:Qq gift W:Q B:Q} e5 *";
    let (status, v) = s.call("POST", "/api/position", None, Some(json!({ "pgn": gift })));
    assert_eq!(status, 400, "{v}");
    assert!(v["error"].as_str().is_some_and(|e| e.contains("1. e4 (ply 1) of the record brought gifts")), "{v}");
    // A Chess960 record without its FEN is refused here as a game's import refuses it; a tag
    // name in lower case is still the tag; an empty move in `play` is refused.
    let (status, v) =
        s.call("POST", "/api/position", None, Some(json!({ "pgn": "[Variant \"Chess960\"]\n\n1. e4 *" })));
    assert!(status == 400 && v["error"].as_str().is_some_and(|e| e.contains("needs its FEN tag")), "{status} {v}");
    let v =
        s.ok("POST", "/api/position", None, Some(json!({ "pgn": "[variant \"Crazyhouse\"]\n\n1. e4 d5 2. exd5 *" })));
    assert_eq!(v["variant"], "crazyhouse", "{v}");
    // A record's variations: each a whole line (a repeated one once), with where it leaves the
    // main line; a side line that does not read is named, not the record's error.
    let pgn = "1. e4 e5 (1... c5 2. Nf3 (2. c3 d5) 2... d6) (1... c5 2. Nf3 d6) (1... e6 2. Qh5 Kxe4)\n\
               2. Nf3 (2. Qh5 Ke7?? (2... Nc6 3. Bc4 Nf6?? 4. Qxf7#) 3. Qxe5+) *";
    let v = s.ok("POST", "/api/position", None, Some(json!({ "pgn": pgn })));
    assert_eq!(sans(&v), ["e4", "e5", "Nf3"]);
    let lines: Vec<(String, u64)> = v["variations"]
        .as_array()
        .expect("variations")
        .iter()
        .map(|l| {
            let san: Vec<&str> = l["san"].as_array().expect("san").iter().filter_map(Value::as_str).collect();
            assert_eq!(l["uci"].as_array().map(Vec::len), Some(san.len()), "{l}");
            (san.join(" "), l["parts"].as_u64().expect("parts"))
        })
        .collect();
    let expected = [
        ("e4 c5 Nf3 d6", 1),
        ("e4 c5 c3 d5", 1),
        ("e4 e6 Qh5", 1),
        ("e4 e5 Qh5 Ke7 Qxe5#", 2),
        ("e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7#", 2),
    ];
    assert_eq!(lines, expected.map(|(l, p)| (l.to_string(), p)), "{v}");
    assert_eq!(v["variations"][0]["uci"][1], "c7c5");
    let unread = v["unread_variations"].as_array().expect("unread");
    assert_eq!(unread.len(), 1, "{v}");
    assert!(unread[0].as_str().is_some_and(|e| e.contains("line 1: move 2... Kxe4: illegal")), "{v}");
    // The board's record of a line with its variations (each sent from where it leaves the
    // line) reads back with the same variations.
    let (main, sides) = lines_sent(&v);
    let body = json!({ "variant": "chess", "play": main, "variations": sides });
    let written = s.ok("POST", "/api/position/pgn", None, Some(body));
    let text = written["pgn"].as_str().expect("pgn");
    assert!(
        text.ends_with(
            "\n1. e4 e5 (1... c5 2. Nf3 (2. c3 d5) 2... d6) (1... e6 2. Qh5) 2. Nf3 (2. Qh5 Ke7\n\
             (2... Nc6 3. Bc4 Nf6 4. Qxf7#) 3. Qxe5#) *\n"
        ),
        "{text}"
    );
    let back = s.ok("POST", "/api/position", None, Some(json!({ "pgn": text })));
    assert_eq!((&back["variations"], back["unread_variations"].as_array().map(Vec::len)), (&v["variations"], Some(0)));
    // A variation may leave an earlier one (`of`): the tree is sent once, not line by line.
    let body = json!({ "variant": "chess", "play": "e2e4,e7e5", "variations": [
        { "parts": 1, "play": "c7c5,g1f3,d7d6" },
        { "of": 0, "parts": 3, "play": "b8c6" },
        { "of": 1, "parts": 2, "play": "c2c3" },
    ] });
    let written = s.ok("POST", "/api/position/pgn", None, Some(body));
    let text = written["pgn"].as_str().expect("pgn");
    assert!(text.ends_with("\n1. e4 e5 (1... c5 2. Nf3 (2. c3) 2... d6 (2... Nc6)) *\n"), "{text}");
    // An annotated record: its tags, its first comment and its moves' NAGs and comments (the
    // main line's and the variations'), sent back with the lines, write the same record.
    let annotated =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/records/annotated.pgn"))
            .expect("the annotated record");
    let first_game = &annotated[..annotated.find("\n\n[Event").expect("a second game")];
    let v = s.ok("POST", "/api/position", None, Some(json!({ "pgn": first_game })));
    assert_eq!(v["comment"], "The Ruy Lopez, annotated as a coach writes it.", "{v}");
    assert_eq!(v["tags"][4], json!(["White", "Coach"]), "{v}");
    let notes = v["notes"].as_array().expect("notes");
    assert_eq!(notes.len(), 14, "{v}");
    // Each note names the first line that plays its move (null: the main line) and the move's
    // index there.
    let note = |line: Value, ply: u64| {
        notes
            .iter()
            .find(|n| n["line"] == line && n["ply"] == ply)
            .unwrap_or_else(|| panic!("no note at {line} {ply}: {v}"))
    };
    let variation = |moves: &[&str]| -> Value {
        let found = v["variations"].as_array().expect("variations").iter().position(|l| {
            l["uci"].as_array().is_some_and(|u| u.len() >= moves.len() && moves.iter().zip(u).all(|(m, x)| x == m))
        });
        json!(found.expect("a variation plays them"))
    };
    assert_eq!(note(Value::Null, 0)["comment"], "[%clk 0:03:00] Best by test.");
    let italian = variation(&["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"]);
    assert_eq!(note(italian, 4)["before"], "Also good:");
    let berlin = variation(&["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "g8f6", "e1g1", "f6e4"]);
    assert_eq!(note(berlin, 7)["nags"], json!([146]));
    let (main, sides) = lines_sent(&v);
    let body = json!({ "variant": "chess", "play": main, "variations": sides, "tags": v["tags"],
                       "comment": v["comment"], "notes": v["notes"] });
    let written = s.ok("POST", "/api/position/pgn", None, Some(body));
    let text = written["pgn"].as_str().expect("pgn");
    assert!(text.starts_with("[Event \"Annotated: comments and NAGs"), "{text}");
    assert!(
        text.contains("\n\n{The Ruy Lopez, annotated as a coach writes it.} 1. e4\n{[%clk 0:03:00] Best by test.}"),
        "{text}"
    );
    let back = s.ok("POST", "/api/position", None, Some(json!({ "pgn": text })));
    for field in ["tags", "comment", "notes", "variations", "moves"] {
        assert_eq!(back[field], v[field], "{field}: {text}");
    }
    // A long game with a comment on every move is sent back within the body's limit: each note
    // names its move by its line and index, not by the moves up to it.
    let long = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/records/long_clk.pgn"))
        .expect("the long record");
    let v = s.ok("POST", "/api/position", None, Some(json!({ "pgn": long })));
    assert_eq!((v["moves"].as_array().map(Vec::len), v["notes"].as_array().map(Vec::len)), (Some(120), Some(120)));
    let body = json!({ "variant": "chess", "play": lines_sent(&v).0, "tags": v["tags"], "notes": v["notes"] });
    assert!(body.to_string().len() < 16 * 1024, "{} bytes", body.to_string().len());
    let written = s.ok("POST", "/api/position/pgn", None, Some(body));
    let back = s.ok("POST", "/api/position", None, Some(json!({ "pgn": written["pgn"] })));
    assert_eq!((&back["notes"], &back["tags"]), (&v["notes"], &v["tags"]));
    let refused_note = |notes: Value, said: &str| {
        let body = json!({ "variant": "chess", "play": "e2e4,e7e5", "variations": [{ "parts": 1, "play": "c7c5" }], "notes": notes });
        let (status, v) = s.call("POST", "/api/position/pgn", None, Some(body));
        assert!(status == 400 && v["error"].as_str().is_some_and(|e| e.contains(said)), "{said}: {status} {v}");
    };
    refused_note(json!([{ "line": 0, "ply": 2 }]), "note 1: ply 2 is past variation 1's 2 moves");
    refused_note(json!([{ "line": 5, "ply": 0 }]), "note 1: line 5: there are 1 variations");
    refused_note(
        json!([{ "ply": 0, "before": "x" }]),
        "note 1: a comment before a move is for a variation's first move",
    );
    refused_note(
        json!([{ "line": 0, "ply": 0, "before": "x" }]),
        "note 1: a comment before a move is for a variation's first move",
    );
    // Holdings are a note where players have hands; in chess `H:Q` is a comment.
    let body = json!({ "variant": "crazyhouse", "play": "e2e4", "notes": [{ "ply": 0, "comment": "H:Q" }] });
    let (status, e) = s.call("POST", "/api/position/pgn", None, Some(body));
    assert!(
        status == 400 && e["error"].as_str().is_some_and(|e| e.contains("note 1: a comment may not begin with 'H:Q'")),
        "{status} {e}"
    );
    let body = json!({ "variant": "chess", "play": "e2e4,e7e5", "variations": [{ "parts": 1, "play": "c7c5" }],
                       "notes": [{ "line": 0, "ply": 1, "before": "ok" }, { "ply": 0, "comment": "H:Q" }] });
    let written = s.ok("POST", "/api/position/pgn", None, Some(body));
    assert!(
        written["pgn"].as_str().is_some_and(|t| t.ends_with("\n1. e4 {H:Q} 1... e5 ({ok} 1... c5) *\n")),
        "{written}"
    );
    refused_note(
        json!([{ "ply": 0, "comment": "a" }, { "line": 0, "ply": 0, "comment": "b" }]),
        "note 2: the same move as note 1",
    );
    let body = json!({ "variant": "chess", "play": "e2e4", "tags": [["White", "a"], ["White", "b"]] });
    let (status, e) = s.call("POST", "/api/position/pgn", None, Some(body));
    assert!(
        status == 400 && e["error"].as_str().is_some_and(|e| e.contains("tags: White given twice")),
        "{status} {e}"
    );
    let body = json!({ "variant": "chess", "play": "e2e4", "notes": [{ "ply": 0, "nags": [256] }] });
    assert_eq!(s.call("POST", "/api/position/pgn", None, Some(body)).0, 422, "a NAG is 0 to 255");
    let body = json!({ "variant": "chess", "play": "e2e4", "tags": [["Bad Name", "x"]] });
    let (status, e) = s.call("POST", "/api/position/pgn", None, Some(body));
    assert!(
        status == 400 && e["error"].as_str().is_some_and(|e| e.contains("tags: 'Bad Name' is not a tag name")),
        "{status} {e}"
    );
    let refused_pgn = |body: Value, said: &str| {
        let (status, v) = s.call("POST", "/api/position/pgn", None, Some(body));
        assert!(status == 400 && v["error"].as_str().is_some_and(|e| e.contains(said)), "{said}: {status} {v}");
    };
    refused_pgn(
        json!({ "variant": "chess", "play": "e2e4", "variations": [{ "parts": 2, "play": "" }] }),
        "variation 1: parts 2 is past the line's 1 moves",
    );
    refused_pgn(
        json!({ "variant": "chess", "play": "e2e4,e7e5", "variations": [{ "parts": 0, "play": "d2d4" }, { "parts": 1, "play": "c7c5,e1e3" }] }),
        "variation 2: move 2 of play, 'e1e3': illegal",
    );
    refused_pgn(
        json!({ "variant": "snowfall", "play": "e2e4", "variations": [{ "parts": 0, "play": "d2d4" }] }),
        "snowfall records have no variations",
    );
    refused_pgn(json!({ "variant": "nosuch", "play": "e2e4" }), "no variant 'nosuch'");
    refused_pgn(
        json!({ "variant": "chess", "play": "e2e4", "variations": [{ "parts": 1, "play": "e7e5" }] }),
        "variation 1: it goes on from the line's last move",
    );
    refused_pgn(
        json!({ "variant": "chess", "variations": [{ "of": 0, "parts": 0, "play": "d2d4" }] }),
        "variation 1: of 0: a variation leaves the main line or an earlier one",
    );
    refused_pgn(
        json!({ "variant": "chess", "play": "e2e4", "variations": [{ "parts": 0, "play": "d2d4" }, { "of": 0, "parts": 2, "play": "" }] }),
        "variation 2: parts 2 is past variation 1's 1 moves",
    );
    let many: Vec<Value> = (0..501).map(|_| json!({ "parts": 0, "play": "d2d4" })).collect();
    refused_pgn(json!({ "variant": "chess", "variations": many }), "variation 501: more than 500");
    let (status, v) = s.call("GET", "/api/position?variant=chess&play=e2e4,,e7e5", None, None);
    assert!(
        status == 400 && v["error"].as_str().is_some_and(|e| e.contains("move 2 of play, '': an empty move")),
        "{status} {v}"
    );
    let (status, v) = s.call("POST", "/api/position", None, Some(json!({ "pgn": "1. e4 e4" })));
    assert!(status == 400 && v["error"].as_str().is_some_and(|e| e.contains("does not read")), "{status} {v}");
    assert_eq!(s.call("POST", "/api/position", None, Some(json!({ "fen": "x" }))).0, 422);
    // The engine on the line's end: the back-rank mate.
    let a = s.ok(
        "POST",
        "/api/analyse",
        None,
        Some(json!({ "variant": "chess", "fen": "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "movetime_ms": 200 })),
    );
    assert_eq!((a["bestmove"].as_str(), a["score"]["white_mate"].as_i64()), (Some("a1a8"), Some(1)), "{a}");
    assert_eq!((a["ply"].as_u64(), a["pv"][0]["san"].as_str()), (Some(0), Some("Ra8#")));
    let a = s.ok("POST", "/api/analyse", None, Some(json!({ "variant": "chess", "play": "e2e4", "movetime_ms": 50 })));
    assert_eq!((a["ply"].as_u64(), a["fen"].as_str().map(|f| f.contains(" b "))), (Some(1), Some(true)));
    let refused = |method: &str, path: &str, body: Option<Value>, status: u16, mention: &str| {
        let (got, v) = s.call(method, path, None, body.clone());
        assert_eq!(got, status, "{path} {body:?}: {v}");
        assert!(v["error"].as_str().is_some_and(|e| e.contains(mention)), "{path}: {v} should mention {mention:?}");
    };
    refused("GET", "/api/position?variant=chess&play=f2f3,e7e5,g2g4,d8h4,e1f2", None, 400, "move 5 of play");
    refused("GET", "/api/position?variant=chess&play=e2e4,e2e4", None, 400, "move 2 of play");
    refused("GET", "/api/position?variant=predictor", None, 400, "both sides move at once");
    refused("GET", "/api/position?variant=chess&fen=8/8/8", None, 400, "invalid FEN");
    let long = vec!["g1f3,g8f6,f3g1,f6g8"; 151].join(",");
    refused("GET", &format!("/api/position?variant=chess&play={long}"), None, 400, "more than 600");
    let shuffle = "Nf3 Nf6 Ng1 Ng8 ".repeat(151);
    refused(
        "POST",
        "/api/position",
        Some(json!({ "pgn": format!("{shuffle}*") })),
        400,
        "the record has 604 plies, more than",
    );
    let analyse =
        |body: Value, status: u16, mention: &str| refused("POST", "/api/analyse", Some(body), status, mention);
    analyse(json!({ "variant": "chess", "play": "f2f3,e7e5,g2g4,d8h4" }), 409, "over");
    analyse(json!({ "variant": "chess", "movetime_ms": 0 }), 400, "movetime_ms");
    analyse(json!({ "variant": "chess", "lines": 6 }), 400, "lines");
    analyse(json!({ "variant": "chess", "depth": 3 }), 422, "depth");
    analyse(json!({ "fen": "8/8/8/8/8/8/8/8 w - - 0 1" }), 422, "variant");
    // The page.
    let page = ureq::get(&s.url("/analysis?variant=chess")).call().expect("the page");
    assert_eq!(page.status(), 200);
}

/// Analyses and reviews run on workers of their own: with one AI worker, an AI's move is made
/// while a long analysis is still searching, not after it.
#[test]
fn an_analysis_never_delays_the_ai() {
    let db = temp_path("serve-workers", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let url = format!("sqlite://{}", db.display());
    let s = Server::start_with(&url, &["--ai-workers", "1", "--analysis-workers", "1"]);
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let analysis = {
        let (base, done) = (s.base.clone(), done.clone());
        std::thread::spawn(move || {
            let body = json!({ "variant": "chess", "movetime_ms": 2000 });
            let r = ureq::post(&format!("{base}/api/analyse")).timeout(Duration::from_secs(60)).send_json(body);
            done.store(true, std::sync::atomic::Ordering::SeqCst);
            r.map(|r| r.status()).unwrap_or(0)
        })
    };
    // The analysis holds its worker (it searches 2 s) ...
    std::thread::sleep(Duration::from_millis(300));
    // ... and the AI, White, moves at once on its own.
    let g = create(&s, json!({ "variant": "chess", "white": "ai", "black": "me", "movetime_ms": 50 }));
    let id = g["id"].as_str().expect("id");
    let moved = wait_for_ply(&s, id, 1, "the AI's first move");
    assert_eq!(moved["ply"], 1);
    assert!(!done.load(std::sync::atomic::Ordering::SeqCst), "the AI waited for the analysis");
    assert_eq!(analysis.join().expect("the analysis thread"), 200);
}

fn rules_start() -> &'static str {
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
}

/// A game may start from imported moves (movetext or a whole record): they are stored as moves,
/// the AI answers the last one, a record that ends the game ends it, and moves that do not read,
/// records of another variant and games with chance are refused with the reason.
#[test]
fn a_game_starts_from_imported_moves() {
    let db = temp_path("serve-import", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let s = Server::start(&format!("sqlite://{}", db.display()));
    let g = create(
        &s,
        json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "1. e4 e5 2. Nf3 {a comment} Nc6 3. Bb5 a6 *" }),
    );
    let id = g["id"].as_str().expect("id");
    let st = state(&s, id);
    let sans: Vec<&str> =
        st["moves"].as_array().expect("moves").iter().map(|m| m["san"].as_str().expect("san")).collect();
    assert_eq!(sans, ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
    assert_eq!(st["turn"], "white");
    // The imported moves are the game's record, and the game goes on from them.
    s.ok("POST", &format!("/api/games/{id}/moves"), token(&g, "white").as_deref(), Some(json!({ "move": "Ba4" })));
    let record =
        ureq::get(&s.url(&format!("/api/games/{id}/record"))).call().expect("record").into_string().expect("text");
    assert!(record.contains("3. Bb5 a6 4. Ba4"), "{record}");
    // Against the AI, from a FEN, in crazyhouse with a drop: the AI replies to the last move.
    let zh = create(
        &s,
        json!({ "variant": "crazyhouse", "white": "ai", "black": "me", "movetime_ms": 20,
                "fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1",
                "pgn": "1. e4 d5 2. exd5 Qxd5 3. Nc3 Qa5 4. d4 P@e4" }),
    );
    let zid = zh["id"].as_str().expect("id");
    let deadline = Instant::now() + Duration::from_secs(20);
    while state(&s, zid)["ply"].as_u64() < Some(9) {
        assert!(Instant::now() < deadline, "the AI did not reply");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(state(&s, zid)["moves"][7]["uci"], "P@e4");
    // A record that ends in mate: the game is over at once.
    let mate = create(&s, json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "1. f3 e5 2. g4 Qh4#" }));
    let st = &mate["state"];
    assert_eq!(
        (st["status"].clone(), st["result"].clone(), st["reason"].clone()),
        (json!("finished"), json!("0-1"), json!("checkmate"))
    );
    check_record(&s, mate["id"].as_str().expect("id"), "serve-import");
    // A record with a result is a finished game (as lichess imports games), ready for review.
    for pgn in ["1. e4 e5 2. Nf3 Nc6 1-0", "[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6"] {
        let done = create(&s, json!({ "variant": "chess", "white": "me", "black": "ai", "pgn": pgn }));
        let st = &done["state"];
        assert_eq!(
            (st["status"].as_str(), st["result"].as_str(), st["reason"].as_str(), st["ply"].as_u64()),
            (Some("finished"), Some("1-0"), Some("imported"), Some(4)),
            "{pgn}"
        );
        let id = done["id"].as_str().expect("id");
        let review = s.ok("GET", &format!("/api/games/{id}/review"), None, None);
        assert_eq!(review["moves"].as_array().map(Vec::len), Some(4));
    }
    // A finished import is an archived game: its record keeps the imported tags, the server's
    // own (game id, seed) excepted, and still verifies.
    let pgn = "[Event \"Club final\"]\n[Date \"1999.05.01\"]\n[White \"Anna\"]\n[Black \"Ben\"]\n\
               [WhiteElo \"1500\"]\n[GameId \"forged\"]\n[Result \"0-1\"]\n\n1. f3 e5 2. g4 Qh4# 0-1";
    let archived = create(&s, json!({ "variant": "chess", "white": "me", "black": "me", "pgn": pgn }));
    let aid = archived["id"].as_str().expect("id");
    let record =
        ureq::get(&s.url(&format!("/api/games/{aid}/record"))).call().expect("record").into_string().expect("text");
    for tag in [
        "[Event \"Club final\"]",
        "[Date \"1999.05.01\"]",
        "[White \"Anna\"]",
        "[Black \"Ben\"]",
        "[WhiteElo \"1500\"]",
    ] {
        assert!(record.contains(tag), "{tag} in {record}");
    }
    assert!(record.contains(&format!("[GameId \"{aid}\"]")) && !record.contains("forged"), "{record}");
    let o = verify_text("serve-import", "archived.pgn", &record);
    assert!(o.status.success() && stdout(&o).starts_with("ok: "), "{}", common::stderr(&o));
    // Refusals.
    let refused = |body: Value, mention: &str| {
        let (status, v) = s.call("POST", "/api/games", None, Some(body.clone()));
        assert_eq!(status, 400, "{body}: {v}");
        assert!(v["error"].as_str().is_some_and(|e| e.contains(mention)), "{body}: {v} should mention {mention:?}");
    };
    refused(
        json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "1. e4 e5 2. Ke3" }),
        "do not read: line 1: move 2. Ke3",
    );
    refused(
        json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "1. e4 e5\n2. Ke3", "fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1" }),
        "do not read: line 2: move 2. Ke3",
    );
    refused(
        json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "[Result \"1-0\"]\n\n1. e4 0-1" }),
        "differs from the movetext's result",
    );
    refused(
        json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "1. f3 e5 2. g4 Qh4# 1-0" }),
        "line 1: bad tag: the result 1-0 contradicts the final position, 0-1 (black wins by checkmate)",
    );
    // A repetition a record may play on ends a game here with its last move.
    refused(
        json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1-0" }),
        "the record says 1-0, but its moves end the game 1/2-1/2 (repetition)",
    );
    refused(
        json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "1. e4 e5",
                "fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n[Result \"1-0" }),
        "invalid FEN",
    );
    refused(json!({ "variant": "snowfall", "white": "me", "black": "me", "pgn": "1. e4" }), "own seed");
    refused(json!({ "variant": "predictor", "white": "me", "black": "me", "pgn": "1. e4" }), "in secret");
    refused(
        json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "[Variant \"Crazyhouse\"]\n\n1. e4 *" }),
        "not chess",
    );
    refused(
        json!({ "variant": "chess", "white": "me", "black": "me", "fen": "8/8/8/8/8/8/8/K1k5 w - - 0 1",
                "pgn": "[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/K1k5 w - - 0 1\"]\n\n*" }),
        "not both",
    );
}

/// A random JSON value of any type (objects with the API's field names, so that some bodies
/// pass the first checks and reach deeper ones).
fn random_json(rng: &mut Lcg, depth: usize) -> Value {
    const KEYS: [&str; 24] = [
        "move",
        "ply",
        "variant",
        "white",
        "black",
        "fen",
        "snowfall",
        "movetime_ms",
        "action",
        "code",
        "orders",
        "commitment",
        "reveal",
        "lines",
        "clock_seconds",
        "increment_seconds",
        "ply_seconds",
        "member",
        "name",
        "token",
        "variant_toml",
        "rank",
        "offer",
        "color",
    ];
    const TEXTS: [&str; 16] = [
        "",
        "e2e4",
        "e4",
        "Q@f7",
        "0000",
        "me",
        "ai",
        "invite",
        "ai:level9",
        "chess",
        "snowfall",
        "predictor",
        "propose",
        "accept",
        "x'); DROP TABLE games; --",
        "\u{0}\u{ffff}\u{1F600}",
    ];
    match rng.below(if depth > 2 { 7 } else { 9 }) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 0),
        2 => json!([-1i64, 0, 1, 7, 100, 1_000_000_000, i64::MAX, i64::MIN][rng.below(8)]),
        3 => json!([0.5, -1e308, 1e308, 3.25][rng.below(4)]),
        4 | 5 => json!(TEXTS[rng.below(TEXTS.len())]),
        6 => json!("ä".repeat(rng.below(300))),
        7 => Value::Array((0..rng.below(4)).map(|_| random_json(rng, depth + 1)).collect()),
        _ => {
            let mut o = serde_json::Map::new();
            for _ in 0..rng.below(5) {
                o.insert(KEYS[rng.below(KEYS.len())].to_string(), random_json(rng, depth + 1));
            }
            Value::Object(o)
        }
    }
}

/// A random body for a request schema of the OpenAPI file: mostly its own fields with values of
/// their type (enum values, integers at and beyond their bounds, strings of every kind), now
/// and then anything at all.
fn random_body(rng: &mut Lcg, schema: &Value) -> Value {
    let Some(props) = schema["properties"].as_object().filter(|_| rng.below(5) != 0) else {
        return random_json(rng, 0);
    };
    let mut o = serde_json::Map::new();
    for (name, p) in props {
        if rng.below(4) == 0 {
            continue;
        }
        // A field that may be null has a list of types: the first that is not "null".
        let kind = p["type"]
            .as_str()
            .or_else(|| p["type"].as_array().and_then(|t| t.iter().filter_map(Value::as_str).find(|t| *t != "null")));
        let v = match (p["enum"].as_array(), kind) {
            (Some(e), _) if rng.below(4) != 0 => e[rng.below(e.len())].clone(),
            (_, Some("integer")) if rng.below(4) != 0 => {
                json!([-1i64, 0, 1, 2, 10, 100, 10_001, i64::MAX][rng.below(8)])
            }
            (_, Some("string")) if rng.below(4) != 0 => match random_json(rng, 3) {
                Value::String(t) => json!(t),
                other => json!(other.to_string()),
            },
            _ => random_json(rng, 1),
        };
        o.insert(name.clone(), v);
    }
    Value::Object(o)
}

/// Random requests to every endpoint the OpenAPI file lists (ids of real games and made-up
/// ones, real tokens, forged ones and none, random JSON bodies and sometimes a legal move):
/// every answer is a refusal or a success, never a server error, and the server still serves
/// every game afterwards.
#[test]
fn random_requests_never_get_a_server_error() {
    let db = temp_path("serve-random", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let s = Server::start(&format!("sqlite://{}", db.display()));
    let spec: Value = serde_json::from_str(include_str!("../../../docs/openapi.json")).expect("the OpenAPI file");
    // Each operation with its body's schema and its query parameters' names.
    let endpoints: Vec<(String, String, Value, Vec<String>)> = spec["paths"]
        .as_object()
        .expect("paths")
        .iter()
        .flat_map(|(path, ops)| {
            ops.as_object().expect("operations").iter().map(move |(m, op)| {
                let schema = op["requestBody"]["content"]["application/json"]["schema"].clone();
                let query: Vec<String> = op["parameters"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|p| p["in"] == "query")
                    .filter_map(|p| p["name"].as_str().map(str::to_string))
                    .collect();
                (path.clone(), m.to_uppercase(), schema, query)
            })
        })
        .collect();
    // Query values: good ones, near misses and garbage.
    let values = [
        "chess",
        "crazyhouse",
        "snowfall",
        "baby",
        "probabilistic",
        "predictor",
        "nosuch",
        "",
        "true",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Qq] w KQkq - 0 1",
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "kqbnr/ppppp/5/PPPPP/RNBQK w - - 0 1",
        "e2e4,e7e5",
        "e2e4,,e7e5,",
        "b1a3",
        "Q@e4",
        "e2e9",
        "%00%ff",
        "\u{202e}é",
    ];
    let mut games = Vec::new();
    let mut tokens = vec![String::from("0000"), "f".repeat(64)];
    for body in [
        json!({ "variant": "chess", "white": "me", "black": "me" }),
        json!({ "variant": "snowfall", "white": "me", "black": "me", "snowfall": 100 }),
        json!({ "variant": "predictor", "white": "me", "black": "me" }),
        json!({ "variant": "probabilistic", "white": "me", "black": "ai", "movetime_ms": 10 }),
        json!({ "variant": "chess960", "white": "me", "black": "invite" }),
    ] {
        let g = create(&s, body);
        games.push(g["id"].as_str().expect("id").to_string());
        tokens.extend(["white", "black"].into_iter().filter_map(|c| token(&g, c)));
    }
    let mut rng = Lcg(2026);
    let mut statuses = std::collections::BTreeMap::new();
    for _ in 0..1500 {
        let (path, method, schema, params) = &endpoints[rng.below(endpoints.len())];
        let id = match rng.below(6) {
            0 => "nope".to_string(),
            1 => "%00%27%22".to_string(),
            _ => games[rng.below(games.len())].clone(),
        };
        let mut path = path.replace("{id}", &id);
        let mut query = Vec::new();
        for p in params {
            if rng.below(4) > 0 {
                query.push(format!("{p}={}", urlencode(values[rng.below(values.len())])));
            }
        }
        if !query.is_empty() {
            path = format!("{path}?{}", query.join("&"));
        }
        let tok = match rng.below(4) {
            0 => None,
            _ => Some(tokens[rng.below(tokens.len())].clone()),
        };
        let mut body = (method == "POST").then(|| random_body(&mut rng, schema));
        // Now and then a legal move, so that games go on and end.
        if path.ends_with("/moves") && rng.below(2) == 0 {
            let st = s.call("GET", &format!("/api/games/{id}"), None, None).1;
            if let Some(legal) = st["legal_moves"].as_array().filter(|l| !l.is_empty()) {
                body = Some(json!({ "move": legal[rng.below(legal.len())] }));
            }
        }
        let (status, v) = s.call(method, &path, tok.as_deref(), body.clone());
        assert!((200..500).contains(&status), "{method} {path} {body:?}: {status} {v}");
        if status >= 400 {
            assert!(v["error"].is_string(), "{method} {path}: a refusal without an error message: {v}");
        }
        *statuses.entry(status).or_insert(0) += 1;
    }
    eprintln!("statuses: {statuses:?}");
    // The sweep reached past the first checks: successes and several kinds of refusal.
    assert!(statuses.get(&200).is_some_and(|&n| n > 50), "{statuses:?}");
    assert!(statuses.keys().filter(|&&c| c >= 400).count() >= 4, "{statuses:?}");
    for id in &games {
        let st = state(&s, id);
        assert!(st["fen"].is_string(), "{st}");
    }
}

#[test]
fn bad_and_hostile_requests_are_refused() {
    for url in databases("serve-security") {
        hostile_requests(&url);
    }
}

fn hostile_requests(url: &str) {
    let s = Server::start(url);
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id").to_string();
    let (w, b) = (token(&g, "white").expect("w"), token(&g, "black").expect("b"));
    let moves = format!("/api/games/{id}/moves");
    let refuse = |status: u16, method: &str, path: &str, tok: Option<&str>, body: Option<Value>, mention: &str| {
        let (got, v) = s.call(method, path, tok, body);
        assert_eq!(got, status, "{method} {path}: {v}");
        let msg = v["error"].as_str().unwrap_or_else(|| panic!("a JSON error: {v}"));
        assert!(msg.contains(mention), "{msg:?} should mention {mention:?}");
    };
    // Moving for the other side, out of turn, without or with a forged token.
    refuse(409, "POST", &moves, Some(&b), Some(json!({ "move": "e7e5" })), "white's turn");
    refuse(401, "POST", &moves, None, Some(json!({ "move": "e2e4" })), "token");
    refuse(403, "POST", &moves, Some("0000"), Some(json!({ "move": "e2e4" })), "not valid");
    // The scheme is case-insensitive: a lower-case one reaches the token check.
    let (status, _) = s.call_raw_auth("POST", &moves, "bearer 0000", json!({ "move": "e2e4" }));
    assert_eq!(status, 403, "a lower-case scheme is read");
    refuse(
        400,
        "POST",
        &moves,
        Some(&w),
        Some(json!({ "move": "e2e5" })),
        "illegal move 'e2e5': the pawn on e2 cannot move so",
    );
    refuse(
        400,
        "POST",
        &moves,
        Some(&w),
        Some(json!({ "move": "Ke2" })),
        "illegal move 'Ke2': no white king can move to e2",
    );
    s.ok("POST", &moves, Some(&w), Some(json!({ "move": "e4", "ply": 0 })));
    // Replaying the same request: the move stands, answered as it was; another move for that
    // ply is stale.
    let again = s.ok("POST", &moves, Some(&w), Some(json!({ "move": "e2e4", "ply": 0 })));
    assert_eq!(again["repeated"], true, "{again}");
    refuse(409, "POST", &moves, Some(&w), Some(json!({ "move": "d2d4", "ply": 0 })), "stale");
    refuse(409, "POST", &moves, Some(&w), Some(json!({ "move": "d2d4" })), "black's turn");
    // Malformed and oversized bodies, unknown fields.
    let (status, v) = s.raw(&moves, "{\"move\": ", Some(&b));
    assert_eq!(status, 400, "{v}");
    let (status, v) = s.raw(&moves, &format!("{{\"move\": \"{}\"}}", "x".repeat(100_000)), Some(&b));
    assert!(
        status == 413 || (status == 0 && (v.to_string().contains("pipe") || v.to_string().contains("reset"))),
        "{status} {v}"
    );
    refuse(422, "POST", &moves, Some(&b), Some(json!({ "move": "e7e5", "extra": 1 })), "unknown field");
    // A struct is not read from an array by position.
    refuse(422, "POST", &moves, Some(&b), Some(json!(["e7e5", 1])), "it must be a JSON object");
    refuse(422, "POST", &moves, Some(&b), Some(json!({ "move": 5 })), "invalid type");
    // Whole numbers written as floats (`3.0`, as Python writes them) are whole numbers; others
    // are refused in the API's words, not Rust's.
    refuse(409, "POST", &moves, Some(&b), Some(json!({ "move": "d7d5", "ply": 0.0 })), "stale");
    refuse(
        422,
        "POST",
        &moves,
        Some(&b),
        Some(json!({ "move": "d7d5", "ply": 1.5 })),
        "expected a whole number from 0 up",
    );
    refuse(
        422,
        "POST",
        &moves,
        Some(&b),
        Some(json!({ "move": "d7d5", "ply": 1e300 })),
        "expected a whole number from 0 up",
    );
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "ai", "movetime_ms": 50.0 }));
    assert_eq!(g["state"]["movetime_ms"], 50, "{g}");
    // A text's length is counted in characters, as the API documents it (a move of 20 'é' is
    // 40 bytes, within 32 characters: read, and refused as no move, not as too long).
    refuse(400, "POST", &moves, Some(&b), Some(json!({ "move": "é".repeat(20) })), "neither UCI");
    // A method an endpoint does not serve: a JSON refusal too.
    refuse(405, "DELETE", "/api/games", None, None, "DELETE is not served here");
    refuse(400, "GET", "/api/games?foo=1", None, None, "invalid query");
    // Endpoints that take no query refuse one too (`?ply=5` does not show ply 5).
    let game_at = moves.trim_end_matches("/moves");
    for path in [format!("{game_at}?ply=5"), format!("{game_at}/review?x"), "/api/variants?all=1".into()] {
        refuse(400, "GET", &path, None, None, "this endpoint takes no parameters");
    }
    refuse(
        400,
        "GET",
        "/api/health?verbose=1",
        None,
        None,
        "invalid query 'verbose=1': this endpoint takes no parameters",
    );
    s.ok("GET", game_at, None, None);
    refuse(400, "POST", &moves, Some(&b), Some(json!({ "move": "x".repeat(40) })), "too long");
    // Unknown variants and games; SQL metacharacters in every text field.
    refuse(
        400,
        "POST",
        "/api/games",
        None,
        Some(json!({ "variant": "nope", "white": "me", "black": "ai" })),
        "unknown variant",
    );
    // A SnowFall percentage outside 0..=100, or given to a variant without gifts.
    let snowfall = |variant: &str, n: u64| json!({ "variant": variant, "white": "me", "black": "ai", "snowfall": n });
    refuse(400, "POST", "/api/games", None, Some(snowfall("snowfall", 101)), "not a percentage");
    refuse(400, "POST", "/api/games", None, Some(snowfall("chess", 17)), "no snowfall option");
    let sql = "x'); DROP TABLE games; --";
    refuse(
        400,
        "POST",
        "/api/games",
        None,
        Some(json!({ "variant": sql, "white": "me", "black": "ai" })),
        "unknown variant",
    );
    refuse(400, "POST", "/api/games", None, Some(json!({ "variant": "chess", "white": sql, "black": "ai" })), "use me");
    refuse(
        400,
        "POST",
        "/api/games",
        None,
        Some(json!({ "variant": "chess", "white": "me", "black": "ai", "fen": sql })),
        "FEN",
    );
    refuse(404, "GET", &format!("/api/games/{}", urlencode(sql)), None, None, "no game");
    refuse(400, "POST", &moves, Some(&b), Some(json!({ "move": sql })), "illegal");
    refuse(403, "POST", &format!("/api/games/{id}/join"), None, Some(json!({ "code": sql })), "invitation");
    refuse(403, "POST", &moves, Some(sql), Some(json!({ "move": "e7e5" })), "not valid");
    // Nothing corrupted: the game goes on from where it was.
    let st = state(&s, &id);
    assert_eq!(st["ply"], 1);
    assert_eq!(st["moves"][0]["uci"], "e2e4");
    s.ok("POST", &moves, Some(&b), Some(json!({ "move": "e7e5", "ply": 1 })));
    // (This game and the one made with `movetime_ms` 50.0.)
    assert_eq!(s.ok("GET", "/api/games", None, None)["games"].as_array().map(Vec::len), Some(2));
    // Resigning for the other side is impossible; after the end nothing moves.
    s.ok("POST", &format!("/api/games/{id}/resign"), Some(&b), None);
    assert_eq!(state(&s, &id)["result"], "1-0");
    refuse(409, "POST", &moves, Some(&w), Some(json!({ "move": "d2d4" })), "over");
}

fn urlencode(s: &str) -> String {
    s.bytes().map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") }).collect()
}

#[test]
fn games_survive_a_sigkill() {
    for url in databases("serve-durable") {
        survive_sigkill(&url);
    }
}

fn survive_sigkill(url: &str) {
    let s = Server::start(url);
    let mut rng = Lcg(3);
    let mut games = Vec::new();
    for v in ["chess", "crazyhouse", "gardner", "baby", "snowfall", "probabilistic"] {
        let g = create(&s, json!({ "variant": v, "white": "me", "black": "me" }));
        let id = g["id"].as_str().expect("id").to_string();
        let tokens = [token(&g, "white").expect("w"), token(&g, "black").expect("b")];
        // Twelve acknowledged plies each.
        for _ in 0..12 {
            let st = state(&s, &id);
            if st["status"] == "finished" {
                break;
            }
            let turn = usize::from(st["turn"] != "white");
            let legal = st["legal_moves"].as_array().expect("moves");
            let mv = legal[rng.below(legal.len())].clone();
            s.ok(
                "POST",
                &format!("/api/games/{id}/moves"),
                Some(&tokens[turn]),
                Some(json!({ "move": mv, "ply": st["ply"] })),
            );
        }
        games.push((id.clone(), tokens, state(&s, &id)));
    }
    // An AI game in the middle of thinking.
    let ai = create(&s, json!({ "variant": "chess", "white": "ai", "black": "ai", "movetime_ms": 200 }));
    let ai_id = ai["id"].as_str().expect("id").to_string();
    std::thread::sleep(Duration::from_millis(700));
    let ai_before = state(&s, &ai_id);
    s.kill();
    let s = Server::start(url);
    for (id, tokens, before) in &games {
        let after = state(&s, id);
        for key in ["fen", "moves", "ply", "seed_hash", "status"] {
            assert_eq!(after[key], before[key], "{id}: {key}");
        }
        if after["status"] == "active" {
            let turn = usize::from(after["turn"] != "white");
            let mv = after["legal_moves"][0].clone();
            s.ok(
                "POST",
                &format!("/api/games/{id}/moves"),
                Some(&tokens[turn]),
                Some(json!({ "move": mv, "ply": after["ply"] })),
            );
        }
    }
    // The AI game continues by itself after the restart.
    let plies = ai_before["ply"].as_u64().expect("ply");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let st = state(&s, &ai_id);
        assert_eq!(st["seed_hash"], ai_before["seed_hash"]);
        if st["ply"].as_u64().expect("ply") >= plies + 2 || st["status"] == "finished" {
            break;
        }
        assert!(Instant::now() < deadline, "the AI game did not resume");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn the_games_list_comes_in_pages() {
    for url in databases("serve-pages") {
        games_list_pages(&url);
    }
}

fn games_list_pages(url: &str) {
    let s = Server::start(url);
    let mut made = Vec::new();
    let mut first = None;
    for _ in 0..5 {
        let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
        made.push(g["id"].as_str().expect("id").to_string());
        first.get_or_insert(g);
        std::thread::sleep(Duration::from_millis(5));
    }
    // The first created is finished (aborted).
    let first = first.expect("a game");
    s.ok("POST", &format!("/api/games/{}/abort", made[0]), token(&first, "white").as_deref(), None);
    let ids = |page: &Value| -> Vec<String> {
        page["games"].as_array().expect("games").iter().map(|g| g["id"].as_str().expect("id").to_string()).collect()
    };
    // Pages of two, newest first, each from the last one's `next`, to the end.
    let mut seen = Vec::new();
    let mut next = Some("/api/games?limit=2".to_string());
    while let Some(path) = next {
        let page = s.ok("GET", &path, None, None);
        seen.extend(ids(&page));
        next = page["next"].as_str().map(str::to_string);
        assert!(seen.len() <= 6, "{page}");
    }
    let mut newest_first = made.clone();
    newest_first.reverse();
    assert_eq!(seen, newest_first);
    // One status only.
    let finished = s.ok("GET", "/api/games?status=finished", None, None);
    assert_eq!((ids(&finished), finished["next"].clone()), (vec![made[0].clone()], Value::Null));
    assert_eq!(ids(&s.ok("GET", "/api/games?status=active&limit=3", None, None)), newest_first[..3].to_vec());
    for (query, says) in [
        ("limit=0", "1 to 100"),
        ("limit=101", "1 to 100"),
        ("status=over", "active or finished"),
        ("after=nosuch", "no game 'nosuch'"),
        ("page=2", "unknown field"),
    ] {
        assert_refused(s.call("GET", &format!("/api/games?{query}"), None, None), 400, says);
    }
}

#[test]
fn a_body_that_does_not_arrive_is_refused_in_seconds() {
    use std::io::{Read, Write};
    let s = Server::start(&sqlite_url("serve-slow-body"));
    let addr = s.base.trim_start_matches("http://").to_string();
    let mut tcp = std::net::TcpStream::connect(&addr).expect("connect");
    tcp.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
    let head = format!(
        "POST /api/games HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
    );
    tcp.write_all(head.as_bytes()).expect("write");
    let started = Instant::now();
    // The answer, up to its JSON body's end (the connection may stay open).
    let (mut answer, mut chunk) = (String::new(), [0u8; 4096]);
    while !answer.split_once("\r\n\r\n").is_some_and(|(_, body)| body.trim_end().ends_with('}')) {
        match tcp.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.push_str(&String::from_utf8_lossy(&chunk[..n])),
        }
    }
    assert!(started.elapsed() < Duration::from_secs(20), "held {:?}", started.elapsed());
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains("application/json") && answer.contains("\"error\""), "{answer}");
    // The server goes on serving.
    create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
}

/// Slow or crowding clients cannot take the server down: headers that never end are cut off
/// after --header-timeout-seconds, a body trickled byte by byte is refused when its time is up,
/// a declared body over the limit at once, and connections from one address beyond
/// --max-connections-per-ip are closed at once. Every response carries the security headers.
#[test]
fn slow_and_crowding_clients_are_cut_off() {
    use std::io::{Read, Write};
    let s = Server::start_with(
        &sqlite_url("serve-crowd"),
        &["--header-timeout-seconds", "1", "--max-connections-per-ip", "4"],
    );
    let addr = s.base.trim_start_matches("http://").to_string();
    let connect = || {
        let tcp = std::net::TcpStream::connect(&addr).expect("connect");
        tcp.set_read_timeout(Some(Duration::from_secs(15))).expect("timeout");
        tcp
    };
    let answer = |tcp: &mut std::net::TcpStream| {
        let mut all = Vec::new();
        let _ = tcp.read_to_end(&mut all);
        String::from_utf8_lossy(&all).to_string()
    };
    // Headers that never end.
    let mut slow = connect();
    slow.write_all(b"GET /api/variants HTTP/1.1\r\nHost: x\r\n").expect("write");
    let started = Instant::now();
    answer(&mut slow);
    assert!(started.elapsed() < Duration::from_secs(5), "held {:?}", started.elapsed());
    // A body declared over the limit: refused before it is sent.
    let mut big = connect();
    big.write_all(
        b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n",
    )
    .expect("write");
    let mut head = [0u8; 12];
    big.read_exact(&mut head).expect("an answer");
    assert_eq!(&head, b"HTTP/1.1 413");
    drop(big);
    // A body trickled a byte every half second: refused after 10 s, not read for 20.
    let mut trickle = connect();
    trickle
        .write_all(
            b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n",
        )
        .expect("write");
    let started = Instant::now();
    let mut refused = String::new();
    for _ in 0..40 {
        if trickle.write_all(b" ").is_err() {
            break;
        }
        trickle.set_nonblocking(true).expect("nonblocking");
        let mut chunk = [0u8; 512];
        if let Ok(n) = trickle.read(&mut chunk) {
            refused.push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
        trickle.set_nonblocking(false).expect("blocking");
        if !refused.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    assert!(refused.starts_with("HTTP/1.1 400"), "{refused}");
    assert!(started.elapsed() < Duration::from_secs(14), "{:?}", started.elapsed());
    drop(trickle);
    // One address's fifth connection is answered 503 and closed at once (its request read, so
    // that the answer is not lost in a reset); the four stay open.
    let crowd: Vec<_> = (0..5).map(|_| connect()).collect();
    std::thread::sleep(Duration::from_millis(300));
    let mut fifth = crowd.into_iter().last().expect("five");
    fifth.set_read_timeout(Some(Duration::from_millis(2000))).expect("timeout");
    fifth.write_all(b"GET /api/games HTTP/1.1\r\nHost: x\r\n\r\n").expect("a request");
    let mut answer = String::new();
    fifth.read_to_string(&mut answer).expect("the answer, then the end");
    assert!(answer.starts_with("HTTP/1.1 503 Service Unavailable\r\n"), "{answer}");
    assert!(
        answer.contains("\r\nRetry-After: 5\r\n")
            && answer.ends_with("too many connections from your address: close some and try again\n"),
        "{answer}"
    );
    std::thread::sleep(Duration::from_millis(1500));
    drop(fifth);
    // WebSocket streams count too: with four streams open, the fifth connection is closed.
    std::thread::sleep(Duration::from_millis(1500));
    let ws_url = s.url("/api/lobby/ws").replace("http://", "ws://");
    let streams: Vec<_> = (0..4).map(|_| tungstenite::connect(&ws_url).expect("a stream").0).collect();
    let mut extra = connect();
    extra.set_read_timeout(Some(Duration::from_millis(2000))).expect("timeout");
    let mut answer = Vec::new();
    extra.read_to_end(&mut answer).expect("closed");
    assert!(answer.starts_with(b"HTTP/1.1 503 "), "a fifth connection beside four streams was not refused");
    drop(streams);
    std::thread::sleep(Duration::from_millis(500));
    // The idle ones are closed after the header timeout, and the server answers again.
    let page = ureq::get(&s.url("/")).call().expect("the page");
    for (name, value) in [("x-content-type-options", "nosniff"), ("x-frame-options", "DENY")] {
        assert_eq!(page.header(name), Some(value), "{name}");
    }
    assert!(page.header("content-security-policy").is_some_and(|c| c.contains("frame-ancestors 'none'")));
}

/// One client cannot hog the server: its games an hour are counted (per X-Forwarded-For
/// address behind a trusted proxy), the AI's time per move has the operator's ceiling, and
/// games of the AI against itself never queue a person's game behind more than one of their
/// searches.
#[test]
fn one_client_cannot_hog_the_server() {
    let s = Server::start_with(
        &sqlite_url("serve-hog"),
        &["--ai-workers", "1", "--max-new-games-per-hour", "7", "--max-movetime-ms", "2000", "--trust-forwarded-for"],
    );
    let (status, v) = s.call(
        "POST",
        "/api/games",
        None,
        Some(json!({ "variant": "chess", "white": "ai", "black": "me", "movetime_ms": 2001 })),
    );
    assert_refused((status, v), 400, "outside 10 to 2000");
    // Four games of the AI against itself, thinking 2 s a move, and then a person's against it.
    for _ in 0..4 {
        create(&s, json!({ "variant": "chess", "white": "ai", "black": "ai", "movetime_ms": 2000 }));
    }
    std::thread::sleep(Duration::from_millis(300));
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "ai", "movetime_ms": 50 }));
    let id = g["id"].as_str().expect("id");
    let started = Instant::now();
    s.ok("POST", &format!("/api/games/{id}/moves"), token(&g, "white").as_deref(), Some(json!({ "move": "e2e4" })));
    while state(&s, id)["ply"].as_u64() < Some(2) {
        assert!(started.elapsed() < Duration::from_secs(20), "the AI never replied");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Behind one search of 2 s at most (behind all four it would wait 8 s).
    assert!(started.elapsed() < Duration::from_millis(4500), "the AI replied after {:?}", started.elapsed());
    // The seventh game of the hour is the last for this address; another address has its own.
    let (status, v) =
        s.call("POST", "/api/games", None, Some(json!({ "variant": "chess", "white": "me", "black": "me" })));
    assert_eq!(status, 201, "{v}");
    let (status, v) =
        s.call("POST", "/api/games", None, Some(json!({ "variant": "chess", "white": "me", "black": "me" })));
    assert_refused((status, v), 429, "7 games in the last hour");
    // With when to try again: when the first of the seven leaves the hour.
    let again = ureq::post(&s.url("/api/games")).send_json(json!({ "variant": "chess", "white": "me", "black": "me" }));
    let Err(ureq::Error::Status(429, resp)) = again else { panic!("an eighth game was made") };
    let wait: u64 = resp.header("retry-after").and_then(|t| t.parse().ok()).expect("Retry-After in seconds");
    assert!((3500..=3600).contains(&wait), "{wait}");
    let other = ureq::post(&s.url("/api/games"))
        .set("X-Forwarded-For", "198.51.100.7")
        .send_json(json!({ "variant": "chess", "white": "me", "black": "me" }))
        .expect("another address");
    assert_eq!(other.status(), 201);
    // A rematch is a new game, counted too.
    let s2 = Server::start_with(&sqlite_url("serve-hog-rematch"), &["--max-new-games-per-hour", "2"]);
    let g = create(&s2, json!({ "variant": "chess", "white": "me", "black": "ai", "movetime_ms": 10 }));
    let (id, w) = (g["id"].as_str().expect("id").to_string(), token(&g, "white").expect("token"));
    s2.ok("POST", &format!("/api/games/{id}/abort"), Some(&w), None);
    let made = s2.ok("POST", &format!("/api/games/{id}/rematch"), Some(&w), Some(json!({ "action": "accept" })));
    let (id2, w2) =
        (made["game"].as_str().expect("game").to_string(), made["token"].as_str().expect("token").to_string());
    s2.ok("POST", &format!("/api/games/{id2}/abort"), Some(&w2), None);
    assert_refused(
        s2.call("POST", &format!("/api/games/{id2}/rematch"), Some(&w2), Some(json!({ "action": "accept" }))),
        429,
        "2 games in the last hour",
    );
    // New custom variants: 16 an hour from one address, whatever their requests' fate; another
    // address has its own.
    let s3 = Server::start_with(
        &sqlite_url("serve-hog-variants"),
        &["--max-new-games-per-hour", "0", "--trust-forwarded-for"],
    );
    let custom = |n: usize, from: &str| {
        let body = json!({ "variant": format!("v{n}"), "variant_toml": format!("name = \"v{n}\"\nparent = \"chess\"\n"),
                           "white": "me", "black": "me", "fen": "not a fen" });
        match ureq::post(&s3.url("/api/games")).set("X-Forwarded-For", from).send_json(body) {
            Ok(r) => r.status(),
            Err(ureq::Error::Status(code, _)) => code,
            Err(e) => panic!("{e}"),
        }
    };
    for n in 0..16 {
        assert_eq!(custom(n, "198.51.100.1"), 400, "variant {n}: the FEN is refused, the variant counted");
    }
    assert_eq!(custom(16, "198.51.100.1"), 429);
    assert_eq!(custom(17, "198.51.100.2"), 400);
    // A service monitor's check.
    let health = s.ok("GET", "/api/health", None, None);
    assert_eq!((health["status"].clone(), health["database"].clone()), (json!("ok"), json!("sqlite")), "{health}");
    assert!(health["games_in_memory"].as_u64().is_some_and(|n| n >= 6), "{health}");
}

/// `fairylab export`: the server's finished games (or all) as one PGN file, every record as the
/// server gives it, each verifying against its seed.
#[test]
fn a_servers_games_export_to_one_pgn_file() {
    let s = Server::start(&sqlite_url("serve-export"));
    let mut finished = Vec::new();
    for i in 0..3 {
        let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
        let (id, w) = (g["id"].as_str().expect("id").to_string(), token(&g, "white").expect("token"));
        s.ok("POST", &format!("/api/games/{id}/moves"), Some(&w), Some(json!({ "move": "e2e4" })));
        s.ok("POST", &format!("/api/games/{id}/moves"), token(&g, "black").as_deref(), Some(json!({ "move": "e7e5" })));
        if i < 2 {
            s.ok("POST", &format!("/api/games/{id}/resign"), Some(&w), None);
            finished.push(id);
        }
    }
    let out = temp_path("serve-export", "club.pgn");
    let o = fairylab(&["export", "--server", &s.base, "--out", out.to_str().expect("utf-8")]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let text = std::fs::read_to_string(&out).expect("the file");
    let records: Vec<String> = text.split("[Event ").skip(1).map(|r| format!("[Event {r}")).collect();
    assert_eq!(records.len(), 2, "{text}");
    let mut exported = Vec::new();
    for (i, record) in records.iter().enumerate() {
        let id = record.lines().find_map(|l| l.strip_prefix("[GameId \"")).expect("a game id");
        exported.push(id.trim_end_matches("\"]").to_string());
        let o = verify_text("serve-export", &format!("{i}.pgn"), record);
        assert!(o.status.success(), "{}", common::stderr(&o));
    }
    exported.sort();
    finished.sort();
    assert_eq!(exported, finished);
    // The file as a whole: every game checked, each named by its id.
    let o = fairylab(&["verify-game", out.to_str().expect("utf-8")]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(stdout(&o).ends_with("ok: 2 of 2 games verified\n"), "{}", stdout(&o));
    for id in &finished {
        assert!(stdout(&o).contains(&format!("({id}): ok: the seed matches")), "{}", stdout(&o));
    }
    // A club file whose second game was altered fails as a whole, naming that game (it passed:
    // only the first game was read).
    let second = text.rfind("[Seed \"").expect("a second Seed tag") + 7;
    let digit = if &text[second..=second] == "0" { "1" } else { "0" };
    let altered = format!("{}{digit}{}", &text[..second], &text[second + 1..]);
    let o = verify_text("serve-export", "altered.pgn", &altered);
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("game 2 (") && stdout(&o).contains("FAILED: the revealed seed does not match"),
        "{}",
        stdout(&o)
    );
    assert!(common::stderr(&o).contains("1 of 2 games in"), "{}", common::stderr(&o));
    let o = fairylab(&["export", "--server", &s.base, "--status", "all", "--out", "-"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert_eq!(stdout(&o).matches("[Event ").count(), 3);
    // With the game still in play: not checked, and said so.
    let all = verify_text("serve-export", "all.pgn", &stdout(&o));
    assert!(all.status.success(), "{}", common::stderr(&all));
    assert!(stdout(&all).contains("not finished: its seed is revealed when it ends"), "{}", stdout(&all));
    assert!(stdout(&all).ends_with("ok: 2 of 3 games verified (1 not finished, so not checked)\n"), "{}", stdout(&all));
    let o = fairylab(&["export", "--server", "ftp://x", "--out", "-"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(common::stderr(&o).contains("is not an http:// or https:// URL"), "{}", common::stderr(&o));
}

/// A clean stop and restart (an upgrade) counts on no clock: the side to move finds its time as
/// it was at the stop. A crash's downtime, from the server's last heartbeat, counts on none either.
#[test]
fn a_clean_restart_counts_on_no_clock() {
    let db = temp_path("serve-pause", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let url = format!("sqlite://{}", db.display());
    let mut s = Server::start(&url);
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me", "clock_seconds": 60 }));
    let id = g["id"].as_str().expect("id").to_string();
    s.ok("POST", &format!("/api/games/{id}/moves"), token(&g, "white").as_deref(), Some(json!({ "move": "e2e4" })));
    s.ok("POST", &format!("/api/games/{id}/moves"), token(&g, "black").as_deref(), Some(json!({ "move": "e7e5" })));
    // White's clock runs now.
    let white_ms = |server: &Server| state(server, &id)["clock"]["white_ms"].as_i64().expect("white's time");
    let before = white_ms(&s);
    let pid = s.child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().expect("kill runs").success());
    let deadline = Instant::now() + Duration::from_secs(20);
    while s.child.try_wait().expect("wait").is_none() {
        assert!(Instant::now() < deadline, "the server did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(3));
    let again = Server::start(&url);
    let after = white_ms(&again);
    assert!(before - after < 1_500, "a clean restart cost white {} ms", before - after);
    // A crash records no stop, but the server's heartbeat says when it last ran: its downtime
    // counts on no clock either (a server's fault decides no game).
    // (White thinks 2 s, of which at most a heartbeat's second is given back; the 4 s down are.)
    std::thread::sleep(Duration::from_secs(2));
    again.kill();
    std::thread::sleep(Duration::from_secs(4));
    let third = Server::start(&url);
    let crashed = white_ms(&third);
    assert!(after - crashed < 3_000, "a crash cost white {} ms", after - crashed);
    assert!(after - crashed >= 500, "white's own time before the crash counts: {} ms", after - crashed);
}

#[test]
fn sigterm_stops_the_server_and_closes_its_streams() {
    let db = temp_path("serve-sigterm", "games.sqlite3");
    let mut s = Server::start(&format!("sqlite://{}", db.display()));
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id");
    let ws_url = s.url(&format!("/api/games/{id}/ws")).replace("http://", "ws://");
    let (mut socket, _) = tungstenite::connect(ws_url).expect("websocket");
    socket.read().expect("state");
    // The AI thinking 8 s on its first move does not hold the stop up, and its move is not
    // stored half-searched: it thinks again after the restart.
    let ai = create(&s, json!({ "variant": "chess", "white": "ai", "black": "me", "movetime_ms": 8000 }));
    let ai_id = ai["id"].as_str().expect("id").to_string();
    std::thread::sleep(Duration::from_millis(300));
    let pid = s.child.id().to_string();
    let stopping = Instant::now();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().expect("kill runs").success());
    // The stream says goodbye (1001, going away) rather than breaking off.
    match socket.read().expect("a close frame") {
        tungstenite::Message::Close(Some(frame)) => assert_eq!(u16::from(frame.code), 1001, "{frame:?}"),
        other => panic!("not a close frame: {other:?}"),
    }
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = s.child.try_wait().expect("wait") {
            break status;
        }
        assert!(Instant::now() < deadline, "the server did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    assert!(stopping.elapsed() < Duration::from_secs(5), "stopped after {:?}", stopping.elapsed());
    // The write-ahead log is folded into the database file: the file alone is a backup.
    let mut wal = db.clone().into_os_string();
    wal.push("-wal");
    assert!(std::fs::metadata(&wal).map_or(true, |m| m.len() == 0), "the log is left over");
    // The lock is free: the next process takes the database.
    let again = Server::start(&format!("sqlite://{}", db.display()));
    assert_eq!(state(&again, id)["ply"], 0);
    assert_eq!(state(&again, &ai_id)["ply"], 0);
}

#[test]
fn the_live_stream_sends_state_and_moves() {
    let db = temp_path("serve-ws", "games.sqlite3");
    let s = Server::start(&format!("sqlite://{}", db.display()));
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id");
    let ws_url = s.url(&format!("/api/games/{id}/ws")).replace("http://", "ws://");
    let (mut socket, _) = tungstenite::connect(ws_url).expect("websocket");
    let first: Value = serde_json::from_str(socket.read().expect("state").to_text().expect("text")).expect("json");
    assert_eq!(first["type"], "state");
    assert_eq!(first["data"]["ply"], 0);
    s.ok("POST", &format!("/api/games/{id}/moves"), token(&g, "white").as_deref(), Some(json!({ "move": "d2d4" })));
    let next: Value = serde_json::from_str(socket.read().expect("move").to_text().expect("text")).expect("json");
    assert_eq!(next["type"], "move");
    assert_eq!(next["data"]["uci"], "d2d4");
    assert_eq!(next["data"]["status"], "active", "the event is the move's reply");
    // A ping is answered with a pong and nothing else; a close with a close.
    socket.send(tungstenite::Message::Ping(b"hi".to_vec().into())).expect("ping");
    match socket.read().expect("pong") {
        tungstenite::Message::Pong(p) => assert_eq!(p.as_ref(), b"hi"),
        other => panic!("a pong, not {other:?}"),
    }
    // The same move sent again for its ply (a retry whose reply was lost) is answered as it was,
    // and changes nothing; another move for that ply, or the other side's, is refused.
    let again = s.ok(
        "POST",
        &format!("/api/games/{id}/moves"),
        token(&g, "white").as_deref(),
        Some(json!({ "move": "d4", "ply": 0 })),
    );
    assert_eq!(
        (again["ply"].clone(), again["uci"].clone(), again["repeated"].clone()),
        (json!(0), json!("d2d4"), json!(true))
    );
    assert_eq!(state(&s, id)["ply"], 1);
    for (seat, mv) in [("white", "e2e4"), ("black", "d2d4")] {
        let (status, _) = s.call(
            "POST",
            &format!("/api/games/{id}/moves"),
            token(&g, seat).as_deref(),
            Some(json!({ "move": mv, "ply": 0 })),
        );
        assert_eq!(status, 409, "{seat} {mv}");
    }
    // The page's own ping, the text `ping`, is answered `pong`, as often as it comes (never
    // counted against a read-only stream).
    for _ in 0..30 {
        socket.send(tungstenite::Message::Text("ping".into())).expect("ping");
        let pong: Value = serde_json::from_str(socket.read().expect("pong").to_text().expect("text")).expect("json");
        assert_eq!(pong, json!({ "type": "pong" }));
    }
    s.ok("POST", &format!("/api/games/{id}/moves"), token(&g, "black").as_deref(), Some(json!({ "move": "d7d5" })));
    let next: Value = serde_json::from_str(socket.read().expect("move").to_text().expect("text")).expect("json");
    assert_eq!(next["data"]["uci"], "d7d5", "no error note came before the move: {next}");
    socket.close(None).expect("close");
    loop {
        match socket.read() {
            Ok(tungstenite::Message::Close(_)) => break,
            Ok(_) => {}
            Err(e) => panic!("the server did not answer the close: {e}"),
        }
    }
    // A message over 16 KiB is closed with 1009 (too big); a client that keeps writing to the
    // read-only stream is closed with 1008 after a few notes.
    let close_code = |messages: Vec<String>| {
        let ws_url = s.url(&format!("/api/games/{id}/ws")).replace("http://", "ws://");
        let (mut socket, _) = tungstenite::connect(ws_url).expect("websocket");
        socket.read().expect("state");
        for m in messages {
            if socket.send(tungstenite::Message::Text(m.into())).is_err() {
                break;
            }
        }
        loop {
            match socket.read() {
                Ok(tungstenite::Message::Close(frame)) => break frame.map(|f| u16::from(f.code)),
                Ok(_) => {}
                Err(e) => panic!("no close frame: {e}"),
            }
        }
    };
    assert_eq!(close_code(vec!["x".repeat(100_000)]), Some(1009));
    assert_eq!(close_code(vec!["hello".to_string(); 50]), Some(1008));
}

/// A WebSocket opened by hand on `path` (the upgrade request written, nothing read yet; reads
/// time out after 10 s): a client that does what tungstenite would not.
fn raw_websocket(address: &str, path: &str) -> std::net::TcpStream {
    use std::io::Write;
    let mut tcp = std::net::TcpStream::connect(address).expect("a connection");
    write!(
        tcp,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .expect("the handshake");
    tcp.set_read_timeout(Some(Duration::from_secs(10))).expect("a timeout");
    tcp
}

/// Frames the WebSocket protocol refuses are answered with a close that says why (RFC 6455
/// § 7.4.1): a ping over 125 bytes 1002 (it was 1009, "a message over 16 KiB"), text that is
/// not UTF-8 1007, an unmasked frame 1002 (those two dropped the connection without a close).
#[test]
fn a_stream_closes_a_bad_frame_with_the_protocol_s_code() {
    use std::io::{Read, Write};
    let s = Server::start(&sqlite_url("serve-frames"));
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let path = format!("/api/games/{}/ws", g["id"].as_str().expect("id"));
    let address = s.base.trim_start_matches("http://").to_string();
    // A frame from the client: FIN, the opcode, the payload masked (unless `masked` is false).
    let frame = |opcode: u8, payload: &[u8], masked: bool| -> Vec<u8> {
        let mut f = vec![0x80 | opcode];
        let mask = [0x12u8, 0x34, 0x56, 0x78];
        let bit = if masked { 0x80 } else { 0 };
        if payload.len() < 126 {
            f.push(bit | payload.len() as u8);
        } else {
            f.push(bit | 126);
            f.extend_from_slice(&(payload.len() as u16).to_be_bytes());
        }
        if masked {
            f.extend_from_slice(&mask);
            f.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        } else {
            f.extend_from_slice(payload);
        }
        f
    };
    let close_code_after = |bad: Vec<u8>| -> Option<u16> {
        let mut tcp = raw_websocket(&address, &path);
        std::thread::sleep(Duration::from_millis(300));
        tcp.write_all(&bad).expect("the frame");
        // Everything the server sends until it closes the connection: the close frame's code.
        let mut got = Vec::new();
        let mut buffer = [0; 4096];
        while let Ok(n) = tcp.read(&mut buffer) {
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buffer[..n]);
        }
        let start = got.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
        let mut at = start;
        while at + 2 <= got.len() {
            let (opcode, len) = (got[at] & 0x0f, usize::from(got[at + 1] & 0x7f));
            let (len, head) =
                if len == 126 { (usize::from(u16::from_be_bytes([got[at + 2], got[at + 3]])), 4) } else { (len, 2) };
            if opcode == 8 {
                return Some(u16::from_be_bytes([got[at + head], got[at + head + 1]]));
            }
            at += head + len;
        }
        None
    };
    assert_eq!(close_code_after(frame(0x9, &[b'x'; 126], true)), Some(1002), "a ping over 125 bytes");
    assert_eq!(close_code_after(frame(0x1, &[0xff, 0xfe, 0xfd], true)), Some(1007), "text that is not UTF-8");
    assert_eq!(close_code_after(frame(0x1, b"ping", false)), Some(1002), "an unmasked frame");
    // A ping of 125 bytes is fine: answered, the stream goes on.
    let (mut ok, _) = tungstenite::connect(s.url(&path).replace("http://", "ws://")).expect("websocket");
    ok.send(tungstenite::Message::Ping(vec![b'x'; 125].into())).expect("a ping");
    ok.send(tungstenite::Message::Text("ping".into())).expect("the page's ping");
    loop {
        match ok.read().expect("the stream goes on") {
            tungstenite::Message::Text(t) if t.contains("pong") => break,
            _ => {}
        }
    }
}

/// A live stream pings its client (`--ping-seconds`); a client that answers is kept, one that
/// answers no ping (gone without a close, as a phone that lost its network) is dropped after two.
#[test]
fn a_stream_pings_and_drops_a_client_that_never_answers() {
    use std::io::Read;
    let s = Server::start_with(&sqlite_url("serve-ping"), &["--ping-seconds", "1"]);
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id");
    let path = format!("/api/games/{id}/ws");
    // A client that never answers: the handshake by hand, then only reading.
    let address = s.base.trim_start_matches("http://").to_string();
    let mut silent = raw_websocket(&address, &path);
    // A client that answers (tungstenite answers pings as it reads).
    let (mut alive, _) = tungstenite::connect(s.url(&path).replace("http://", "ws://")).expect("websocket");
    let t0 = Instant::now();
    let mut pings = 0;
    while t0.elapsed() < Duration::from_millis(4500) {
        if let tungstenite::stream::MaybeTlsStream::Plain(tcp) = alive.get_ref() {
            tcp.set_read_timeout(Some(Duration::from_millis(500))).expect("a timeout");
        }
        match alive.read() {
            Ok(tungstenite::Message::Ping(_)) => pings += 1,
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if e.kind() == std::io::ErrorKind::WouldBlock || e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(e) => panic!("the answering client's stream ended: {e}"),
        }
    }
    assert!(pings >= 3, "{pings} pings in 4.5 s at one a second");
    // Read until the server closes the connection (the pings keep coming until then).
    let mut buffer = [0; 4096];
    let gone = loop {
        match silent.read(&mut buffer) {
            Ok(0) => break t0.elapsed(),
            Ok(_) if t0.elapsed() < Duration::from_secs(10) => {}
            other => panic!("the silent client's stream was not closed after {:?}: {other:?}", t0.elapsed()),
        }
    };
    assert!(gone < Duration::from_secs(6), "closed after {gone:?}");
    // The answering client is still served.
    s.ok("POST", &format!("/api/games/{id}/moves"), token(&g, "white").as_deref(), Some(json!({ "move": "e4" })));
    loop {
        match alive.read() {
            Ok(tungstenite::Message::Text(t)) => {
                assert!(t.contains("e2e4"), "{t}");
                break;
            }
            Ok(_) => {}
            Err(tungstenite::Error::Io(e))
                if e.kind() == std::io::ErrorKind::WouldBlock || e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(e) => panic!("the answering client's stream ended: {e}"),
        }
    }
}

/// The lobby's stream (`/api/lobby/ws`) tells of a game created, a seat taken and a game over;
/// with two processes on one PostgreSQL, of those on the other process too.
#[test]
fn the_lobby_stream_tells_of_new_games_seats_and_ends() {
    let db = temp_path("serve-lobby", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let a = Server::start(&format!("sqlite://{}", db.display()));
    lobby_events(&a, &a);
    if let Some(url) = postgres_url("serve-lobby") {
        let (a, b) = (Server::start(&url), Server::start(&url));
        lobby_events(&a, &b);
    }
}

/// Games made on `on`, their lobby events read from `watch`'s stream.
fn lobby_events(on: &Server, watch: &Server) {
    let (mut socket, _) =
        tungstenite::connect(watch.url("/api/lobby/ws").replace("http://", "ws://")).expect("websocket");
    if let tungstenite::stream::MaybeTlsStream::Plain(tcp) = socket.get_ref() {
        tcp.set_read_timeout(Some(Duration::from_secs(10))).expect("a timeout");
    }
    let mut next = || -> Value {
        serde_json::from_str(socket.read().expect("an event in time").to_text().expect("text")).expect("json")
    };
    assert_eq!(next()["type"], "hello");
    let g = create(on, json!({ "variant": "chess", "white": "me", "black": "open" }));
    let id = g["id"].as_str().expect("id");
    let change = |e: Value| (e["type"].clone(), e["data"]["game"].clone(), e["data"]["change"].clone());
    assert_eq!(change(next()), (json!("lobby"), json!(id), json!("created")));
    let joined = on.ok("POST", &format!("/api/games/{id}/join"), None, Some(json!({})));
    assert_eq!(change(next()), (json!("lobby"), json!(id), json!("joined")));
    on.ok("POST", &format!("/api/games/{id}/abort"), joined["token"].as_str(), None);
    assert_eq!(change(next()), (json!("lobby"), json!(id), json!("end")));
}

#[test]
fn two_processes_share_one_postgresql() {
    let Some(url) = postgres_url("serve-two") else {
        eprintln!("FAIRYLAB_TEST_POSTGRES_URL is not set: the two-process test needs PostgreSQL");
        return;
    };
    let a = Server::start(&url);
    let b = Server::start(&url);
    // White plays on process A, Black on process B; a spectator watches on A.
    let g = create(&a, json!({ "variant": "snowfall", "white": "me", "black": "invite", "snowfall": 24 }));
    let id = g["id"].as_str().expect("id");
    let joined = b.ok("POST", &format!("/api/games/{id}/join"), None, Some(json!({ "code": g["black"]["invite"] })));
    let (w, bt) = (token(&g, "white").expect("w"), joined["token"].as_str().expect("b").to_string());
    let ws_url = a.url(&format!("/api/games/{id}/ws")).replace("http://", "ws://");
    let (mut socket, _) = tungstenite::connect(ws_url).expect("websocket");
    let _state = socket.read().expect("state");
    let mut rng = Lcg(5);
    for ply in 0..20u64 {
        let (server, tok) = if ply % 2 == 0 { (&a, &w) } else { (&b, &bt) };
        let st = state(server, id);
        assert_eq!(st["ply"], ply, "each process sees the other's moves");
        if st["status"] == "finished" {
            break;
        }
        let legal = st["legal_moves"].as_array().expect("moves");
        let mv = legal[rng.below(legal.len())].clone();
        let reply =
            server.ok("POST", &format!("/api/games/{id}/moves"), Some(tok), Some(json!({ "move": mv, "ply": ply })));
        // The spectator on A sees every move, wherever it was made.
        // (A `joined` event relayed from B may come first.)
        let event = loop {
            let e: Value = serde_json::from_str(socket.read().expect("event").to_text().expect("text")).expect("json");
            if e["type"] != "joined" {
                break e;
            }
        };
        assert_eq!(event["type"], "move");
        assert_eq!(event["data"]["uci"], reply["uci"]);
    }
    // Two moves for the same ply from the two processes: the second is refused; the first sent
    // again (a retry) through the other process is answered as it was.
    let st = state(&a, id);
    if st["status"] == "active" && st["legal_moves"].as_array().is_some_and(|m| m.len() > 1) {
        let tok = if st["turn"] == "white" { &w } else { &bt };
        let body = |i: usize| json!({ "move": st["legal_moves"][i].clone(), "ply": st["ply"] });
        let first = a.call("POST", &format!("/api/games/{id}/moves"), Some(tok), Some(body(0))).0;
        let second = b.call("POST", &format!("/api/games/{id}/moves"), Some(tok), Some(body(1))).0;
        let (retry, v) = b.call("POST", &format!("/api/games/{id}/moves"), Some(tok), Some(body(0)));
        assert_eq!((first, second, retry, v["repeated"].clone()), (200, 409, 200, json!(true)), "{v}");
    }
    // A rematch offered on A is accepted on B; A hands White's player the same new game.
    if state(&a, id)["status"] == "active" {
        a.ok("POST", &format!("/api/games/{id}/resign"), Some(&w), None);
    }
    let rematch = format!("/api/games/{id}/rematch");
    a.ok("POST", &rematch, Some(&w), Some(json!({ "action": "offer" })));
    let made = b.ok("POST", &rematch, Some(&bt), Some(json!({ "action": "accept" })));
    let mine = a.ok("POST", &rematch, Some(&w), Some(json!({ "action": "accept" })));
    assert_eq!((mine["game"].clone(), mine["color"].clone()), (made["game"].clone(), json!("black")), "{made} {mine}");
    assert_eq!(state(&a, id)["rematch"], made["game"]);
    // Both processes count every game that ends, on either: each is counted once.
    let chess = json!({ "variant": "chess", "white": "me", "black": "me" });
    for (i, server) in [&a, &b, &a, &b].into_iter().enumerate() {
        game_ended(server, chess.clone(), &["e4", "e5", "Nf3"][..2 + i % 2], "white resigns");
    }
    counted(&b, "chess", 4);
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(counted(&a, "chess", 4), counted(&b, "chess", 4));
}

/// The operator's requests reach a game's owner from either process: ending and deleting a game
/// through the process that does not own it, which holds a copy for a watcher (that copy knew
/// nothing of the game's end, and the requests were refused with 409).
#[test]
fn the_operator_acts_through_either_process() {
    let Some(url) = postgres_url("serve-operator-two") else {
        eprintln!("FAIRYLAB_TEST_POSTGRES_URL is not set: the two-process operator test needs PostgreSQL");
        return;
    };
    let file = temp_path("serve-operator-two", "admin-token");
    let secret = "0123456789abcdef0123456789abcdef";
    std::fs::write(&file, format!("{secret}\n")).expect("the token file");
    let more = ["--admin-token-file", file.to_str().expect("a path")];
    let (a, b) = (Server::start_with(&url, &more), Server::start_with(&url, &more));
    let watch = |id: &str| {
        let ws_url = b.url(&format!("/api/games/{id}/ws")).replace("http://", "ws://");
        let (mut socket, _) = tungstenite::connect(ws_url).expect("websocket");
        socket.read().expect("state");
        socket
    };
    // Abandoned on A, watched on B, ended and deleted through B.
    let g = create(&a, json!({ "variant": "chess", "white": "me", "black": "invite" }));
    let id = g["id"].as_str().expect("id").to_string();
    let _watcher = watch(&id);
    let st = b.ok("POST", &format!("/api/admin/games/{id}/end"), Some(secret), Some(json!({ "result": "1-0" })));
    assert_eq!((st["status"].as_str(), st["reason"].as_str()), (Some("finished"), Some("adjudication")), "{st}");
    let v = b.ok("DELETE", &format!("/api/admin/games/{id}"), Some(secret), None);
    assert_eq!(v["deleted"], json!(id), "{v}");
    // Finished on A (aborted by its player), watched on B, deleted through B.
    let g = create(&a, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id").to_string();
    let _watcher = watch(&id);
    a.ok("POST", &format!("/api/games/{id}/abort"), token(&g, "white").as_deref(), None);
    let v = b.ok("DELETE", &format!("/api/admin/games/{id}"), Some(secret), None);
    assert_eq!(v["deleted"], json!(id), "{v}");
    assert_refused(a.call("GET", &format!("/api/games/{id}"), None, None), 404, "no game");
}

/// Waits until a game has at least `plies` plies (or is over), asking `s`.
fn wait_for_ply(s: &Server, id: &str, plies: u64, what: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        let st = state(s, id);
        if st["ply"].as_u64().expect("ply") >= plies || st["status"] == "finished" {
            return st;
        }
        assert!(Instant::now() < deadline, "{what}: still at ply {}", st["ply"]);
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_game_is_played_by_its_owner_and_taken_over_when_the_owner_dies() {
    let Some(url) = postgres_url("serve-owner") else {
        eprintln!("FAIRYLAB_TEST_POSTGRES_URL is not set: the ownership test needs PostgreSQL");
        return;
    };
    let a = Server::start(&url);
    let b = Server::start(&url);
    // A person against the AI, created on A: A owns it, and B forwards to A.
    let g = create(&a, json!({ "variant": "chess", "white": "me", "black": "ai", "movetime_ms": 50 }));
    let id = g["id"].as_str().expect("id").to_string();
    let w = token(&g, "white").expect("w");
    let moves = format!("/api/games/{id}/moves");
    let ((status, _), owner_a) = a.call_once("GET", &format!("/api/games/{id}"), None, None);
    assert_eq!(status, 200);
    let ((status, reply), via_b) = b.call_once("POST", &moves, Some(&w), Some(json!({ "move": "e2e4", "ply": 0 })));
    assert_eq!(status, 200, "{reply}");
    assert!(owner_a.is_some() && via_b == owner_a, "B forwarded the move to A, the owner: {via_b:?} {owner_a:?}");
    wait_for_ply(&b, &id, 2, "the AI's answer");
    // AI against AI, created on A.
    let ai = create(&a, json!({ "variant": "gardner", "white": "ai", "black": "ai", "movetime_ms": 50 }));
    let ai_id = ai["id"].as_str().expect("id").to_string();
    let ai_before = wait_for_ply(&b, &ai_id, 2, "the AI game");
    a.kill();
    // B takes the person's game on the next request (A's address refuses connections), and
    // the AI answers there.
    let st = state(&b, &id);
    let mv = st["legal_moves"][0].clone();
    let ((status, reply), via_b) = b.call_once("POST", &moves, Some(&w), Some(json!({ "move": mv, "ply": st["ply"] })));
    let (status, reply, via_b) = if status == 503 {
        // The first request found the owner dead; the retry is played on B.
        let ((s2, r2), v2) = b.call_once("POST", &moves, Some(&w), Some(json!({ "move": mv, "ply": st["ply"] })));
        (s2, r2, v2)
    } else {
        (status, reply, via_b)
    };
    assert_eq!(status, 200, "{reply}");
    assert!(via_b.is_some() && via_b != owner_a, "B plays the game now");
    wait_for_ply(&b, &id, 4, "the AI's answer after the takeover");
    // B's sweep adopts the AI game once A's heartbeat has expired; the game goes on with the
    // same seed commitment.
    let after = wait_for_ply(&b, &ai_id, ai_before["ply"].as_u64().expect("ply") + 4, "the adopted AI game");
    assert_eq!(after["seed_hash"], ai_before["seed_hash"]);
}

/// A sealed order for a ply: (commitment, reveal line).
fn seal(game: &str, ply: u32, side: rules::Color, orders: &str) -> (String, String) {
    let (r, c) = rules::predictor::commit::Reveal::seal(game, ply, side, orders).expect("sealed");
    (c.to_string(), r.to_line())
}

/// A random legal primary for `side` in the state's position.
fn primary(st: &Value, side: rules::Color, rng: &mut Lcg) -> String {
    let v = rules::variants::predictor::variant();
    let pos = rules::Position::from_fen(v, st["fen"].as_str().expect("fen")).expect("fen");
    let view = rules::predictor::side_view(&pos, side);
    // Legal moves, and captures of an attacked enemy king (valid primaries even for a side
    // that has no legal move in chess terms).
    let mut primaries: Vec<_> =
        view.legal_moves().iter().copied().filter(|m| m.kind() != rules::MoveKind::EnPassant).collect();
    primaries.extend(rules::predictor::king_captures(&view));
    assert!(!primaries.is_empty(), "an active game where {side} has no primary: {}", pos.fen());
    // The state lists the same primaries for the page while the ply is open.
    if st["closed"] == false {
        let mut ours: Vec<String> = primaries.iter().map(|&m| rules::uci::to_uci(&view, m)).collect();
        let mut listed: Vec<String> = st["primaries"][side.to_string()]
            .as_array()
            .expect("primaries")
            .iter()
            .map(|v| v.as_str().expect("uci").to_string())
            .collect();
        ours.sort();
        ours.dedup();
        listed.sort();
        assert_eq!(ours, listed, "the state's primaries for {side} in {}", pos.fen());
    }
    rules::uci::to_uci(&view, primaries[rng.below(primaries.len())])
}

/// One ply of a Predictor game between its captains (`tokens`: White's, Black's): random
/// primaries, committed and revealed.
fn predictor_ply(s: &Server, id: &str, tokens: [&str; 2], rng: &mut Lcg) {
    let st = state(s, id);
    let ply = st["ply"].as_u64().expect("ply") as u32;
    let sealed = rules::Color::ALL.map(|side| seal(id, ply, side, &primary(&st, side, rng)));
    for (t, (c, _)) in tokens.iter().zip(&sealed) {
        s.ok("POST", &format!("/api/games/{id}/commit"), Some(t), Some(json!({ "ply": ply, "commitment": c })));
    }
    for (t, (_, r)) in tokens.iter().zip(&sealed) {
        s.ok("POST", &format!("/api/games/{id}/reveal"), Some(t), Some(json!({ "reveal": r })));
    }
}

#[test]
fn a_predictor_game_by_commitments_and_reveals() {
    for url in databases("serve-predictor") {
        predictor_game(&url);
    }
}

fn predictor_game(url: &str) {
    use rules::Color::{Black, White};
    let s = Server::start(url);
    let g = create(&s, json!({ "variant": "predictor", "white": "me", "black": "invite" }));
    let id = g["id"].as_str().expect("id").to_string();
    let wt = token(&g, "white").expect("white");
    // The invited seat is open until the invitation is used, in the state and the games list.
    assert_eq!(state(&s, &id)["open_seat"], "black");
    let listed = s.ok("GET", "/api/games", None, None);
    let row =
        listed["games"].as_array().expect("games").iter().find(|r| r["id"] == id.as_str()).cloned().expect("listed");
    assert_eq!(row["open_seat"], "black");
    let joined = s.ok("POST", &format!("/api/games/{id}/join"), None, Some(json!({ "code": g["black"]["invite"] })));
    assert_eq!(state(&s, &id)["open_seat"], Value::Null);
    let bt = joined["token"].as_str().expect("black").to_string();
    // White's team: the captain (rank 1) and a shareholder ranked below.
    let m = s.ok("POST", &format!("/api/games/{id}/members"), Some(&wt), Some(json!({ "name": "bo", "rank": 2 })));
    let bo = m["token"].as_str().expect("member token").to_string();
    let (status, _) =
        s.call("POST", &format!("/api/games/{id}/members"), Some(&bo), Some(json!({ "name": "cy", "rank": 3 })));
    assert_eq!(status, 403, "only the captain adds members");
    // The chat is the captains' (the seats'): a member's token is refused as such.
    let (status, v) = s.call("GET", &format!("/api/games/{id}/chat"), Some(&bo), None);
    assert_eq!(status, 403, "{v}");
    assert!(
        v["error"].as_str().is_some_and(|e| e.contains("only the captain (the seat's token) may open the chat")),
        "{v}"
    );
    let commit = format!("/api/games/{id}/commit");
    let reveal = format!("/api/games/{id}/reveal");
    // The orders check: the canonical text of valid orders, the reason for others, nothing kept.
    let check = format!("/api/games/{id}/orders/check");
    let c = s.ok("POST", &check, Some(&bo), Some(json!({ "orders": "E2E4  if e7e5 then H2H3" })));
    assert_eq!((c["valid"].clone(), c["orders"].clone()), (json!(true), json!("e2e4 if e7e5 then h2h3")));
    let c = s.ok("POST", &check, Some(&bt), Some(json!({ "orders": "e7e5 if e2e4 then e5e4" })));
    assert_eq!(
        (c["valid"].clone(), c["error"].clone(), c["side"].clone()),
        (json!(false), json!("IllegalResponse"), json!("black"))
    );
    let c = s.ok("POST", &check, Some(&wt), Some(json!({ "orders": "e2e4 if" })));
    assert_eq!(c["error"], "Syntax");
    assert_eq!(s.call("POST", &check, None, Some(json!({ "orders": "e2e4" }))).0, 401);
    assert_eq!(s.call("POST", &check, Some(&wt), Some(json!({ "moves": "e2e4" }))).0, 422);
    let mut rng = Lcg(9);
    let mut plies = 0u32;
    for ply in 1..=6u32 {
        let st = state(&s, &id);
        if st["status"] != "active" {
            break;
        }
        let (wo, bo_orders, ko) =
            (primary(&st, White, &mut rng), primary(&st, Black, &mut rng), primary(&st, White, &mut rng));
        let (bo_c, bo_r) = seal(&id, ply, White, &ko);
        let (w_c, w_r) = seal(&id, ply, White, &wo);
        let (b_c, b_r) = seal(&id, ply, Black, &bo_orders);
        // The shareholder commits first; the captain outranks him.
        s.ok("POST", &commit, Some(&bo), Some(json!({ "ply": ply, "commitment": bo_c })));
        let r = s.ok("POST", &commit, Some(&wt), Some(json!({ "ply": ply, "commitment": w_c })));
        assert_eq!(r["closed"], false, "Black has not committed");
        // The same commitment again (a retry whose reply was lost): answered as the first.
        let again = s.ok("POST", &commit, Some(&wt), Some(json!({ "ply": ply, "commitment": w_c })));
        assert_eq!((again["closed"].clone(), again["repeated"].clone()), (json!(false), json!(true)));
        // A second commitment for the same ply, and a reveal before the ply closed: refused.
        assert_eq!(s.call("POST", &commit, Some(&wt), Some(json!({ "ply": ply, "commitment": b_c }))).0, 409);
        assert_eq!(s.call("POST", &reveal, Some(&wt), Some(json!({ "reveal": w_r }))).0, 409);
        let r = s.ok("POST", &commit, Some(&bt), Some(json!({ "ply": ply, "commitment": b_c })));
        assert_eq!(r["closed"], true);
        // Spectators see the commitments, never an order.
        let spectator = state(&s, &id).to_string();
        assert!(spectator.contains(&w_c) && !spectator.contains(&w_r) && !spectator.contains("predictor-reveal"));
        // Revealing someone else's orders, or as an outranked member: refused.
        assert_eq!(s.call("POST", &reveal, Some(&bt), Some(json!({ "reveal": w_r }))).0, 400);
        assert_eq!(s.call("POST", &reveal, Some(&bo), Some(json!({ "reveal": bo_r }))).0, 403);
        let at = w_r.find("nonce=").expect("a nonce") + "nonce=".len();
        let flipped = if &w_r[at..=at] == "a" { "b" } else { "a" };
        let forged = format!("{}{flipped}{}", &w_r[..at], &w_r[at + 1..]);
        assert!(s.call("POST", &reveal, Some(&wt), Some(json!({ "reveal": forged }))).0 >= 400);
        let r = s.ok("POST", &reveal, Some(&wt), Some(json!({ "reveal": w_r })));
        assert_eq!(r["resolved"], false);
        assert!(
            !state(&s, &id).to_string().contains("predictor-reveal"),
            "a reveal stays private until the ply resolves"
        );
        let r = s.ok("POST", &reveal, Some(&bt), Some(json!({ "reveal": b_r })));
        assert_eq!(r["resolved"], true);
        assert!(r["ply_line"].as_str().expect("line").starts_with(&format!("{ply}. {wo} | {bo_orders}")));
        // The same reveal again: its ply is resolved, and the refusal says so.
        let (status, v) = s.call("POST", &reveal, Some(&bt), Some(json!({ "reveal": b_r })));
        assert_eq!(status, 409, "{v}");
        assert!(v["error"].as_str().is_some_and(|e| e.contains(&format!("ply {ply} is resolved already"))), "{v}");
        plies += 1;
    }
    // Then the captains alone, to the end of the game (a resignation after 300 plies).
    loop {
        let st = state(&s, &id);
        if st["status"] != "active" {
            break;
        }
        let ply = st["ply"].as_u64().expect("ply") as u32;
        if ply > 300 {
            s.ok("POST", &format!("/api/games/{id}/resign"), Some(&wt), None);
            continue;
        }
        let (w_c, w_r) = seal(&id, ply, White, &primary(&st, White, &mut rng));
        let (b_c, b_r) = seal(&id, ply, Black, &primary(&st, Black, &mut rng));
        s.ok("POST", &commit, Some(&wt), Some(json!({ "ply": ply, "commitment": w_c })));
        s.ok("POST", &commit, Some(&bt), Some(json!({ "ply": ply, "commitment": b_c })));
        s.ok("POST", &reveal, Some(&wt), Some(json!({ "reveal": w_r })));
        s.ok("POST", &reveal, Some(&bt), Some(json!({ "reveal": b_r })));
        plies += 1;
    }
    let end = state(&s, &id);
    assert_eq!(end["status"], "finished");
    assert!(end["seed"].is_string());
    // The record reads back with every seal checked.
    let text =
        ureq::get(&s.url(&format!("/api/games/{id}/record"))).call().expect("record").into_string().expect("text");
    let rec = rules::predictor::record::read(&text).expect("the record reads back");
    assert_eq!(rec.game.plies().len() as u32, plies);
    assert!(rec.game.plies().iter().all(|p| p.seals.is_some()));
    let path = temp_path("serve-predictor", &format!("{id}.txt"));
    std::fs::write(&path, &text).expect("write");
    let o = fairylab(&["verify-game", path.to_str().expect("utf-8")]);
    assert!(o.status.success() && stdout(&o).starts_with("ok: "), "{}", common::stderr(&o));
    // One changed nonce digit: the seal no longer opens.
    let at = text.find("nonce: W ").expect("a nonce") + "nonce: W ".len();
    let flipped = if &text[at..=at] == "a" { "b" } else { "a" };
    std::fs::write(&path, format!("{}{flipped}{}", &text[..at], &text[at + 1..])).expect("write");
    let o = fairylab(&["verify-game", path.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(2), "an altered nonce was accepted");
    assert!(common::stderr(&o).contains("do not open its commitment"), "{}", common::stderr(&o));
    // Mid-ply restart of another game: the commitments are kept and the ply goes on.
    let g = create(&s, json!({ "variant": "predictor", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id").to_string();
    let (wt, bt) = (token(&g, "white").expect("w"), token(&g, "black").expect("b"));
    let (commit, reveal) = (format!("/api/games/{id}/commit"), format!("/api/games/{id}/reveal"));
    let st = state(&s, &id);
    let (w_c, w_r) = seal(&id, 1, White, &primary(&st, White, &mut rng));
    let (b_c, b_r) = seal(&id, 1, Black, &primary(&st, Black, &mut rng));
    s.ok("POST", &commit, Some(&wt), Some(json!({ "ply": 1, "commitment": w_c })));
    s.ok("POST", &commit, Some(&bt), Some(json!({ "ply": 1, "commitment": b_c })));
    s.ok("POST", &reveal, Some(&wt), Some(json!({ "reveal": w_r })));
    s.kill();
    let s = Server::start(url);
    let after = state(&s, &id);
    assert_eq!(after["closed"], true);
    assert_eq!(after["white_team"]["revealed"], true);
    let r = s.ok("POST", &reveal, Some(&bt), Some(json!({ "reveal": b_r })));
    assert_eq!(r["resolved"], true);
    assert_eq!(state(&s, &id)["plies"].as_array().map(Vec::len), Some(1));
}

/// A Predictor side loses on time without a commitment, forfeits without a reveal or with
/// illegal committed orders (answered 200 with the result; the record's Termination says so);
/// Predictor's requests on a game of another variant are refused as such.
#[test]
fn a_predictor_side_without_a_commitment_loses_on_time() {
    let db = temp_path("serve-deadline", "games.sqlite3");
    let s = Server::start(&format!("sqlite://{}", db.display()));
    let g = create(&s, json!({ "variant": "predictor", "white": "me", "black": "me", "ply_seconds": 1 }));
    let id = g["id"].as_str().expect("id");
    let (c, _) = seal(id, 1, rules::Color::White, "e2e4");
    s.ok(
        "POST",
        &format!("/api/games/{id}/commit"),
        token(&g, "white").as_deref(),
        Some(json!({ "ply": 1, "commitment": c })),
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let st = state(&s, id);
        if st["status"] == "finished" {
            assert_eq!(st["result"], "1-0");
            assert_eq!(st["reason"], "time");
            break;
        }
        assert!(Instant::now() < deadline, "the deadline did not end the game");
        std::thread::sleep(Duration::from_millis(100));
    }
    // A seat waiting for its player: no deadline runs (it ended the game on time against nobody),
    // also across a restart; the first ply starts when the seat is taken.
    let g = create(&s, json!({ "variant": "predictor", "white": "me", "black": "invite", "ply_seconds": 1 }));
    let id = g["id"].as_str().expect("id").to_string();
    let (c, _) = seal(&id, 1, rules::Color::White, "e2e4");
    s.ok(
        "POST",
        &format!("/api/games/{id}/commit"),
        token(&g, "white").as_deref(),
        Some(json!({ "ply": 1, "commitment": c })),
    );
    std::thread::sleep(Duration::from_millis(2500));
    let st = state(&s, &id);
    assert_eq!((st["status"].as_str(), st["open_seat"].as_str()), (Some("active"), Some("black")), "{st}");
    assert_eq!((&st["deadline"], &st["reveal_deadline"]), (&Value::Null, &Value::Null), "{st}");
    s.kill();
    let s = Server::start(&format!("sqlite://{}", db.display()));
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(state(&s, &id)["status"], "active");
    let joined_at = Instant::now();
    let code = g["black"]["invite"].as_str().expect("a code");
    s.ok("POST", &format!("/api/games/{id}/join"), None, Some(json!({ "code": code })));
    assert!(state(&s, &id)["deadline"].is_i64(), "{}", state(&s, &id));
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let st = state(&s, &id);
        if st["status"] == "finished" {
            assert_eq!((st["result"].as_str(), st["reason"].as_str()), (Some("1-0"), Some("time")), "{st}");
            assert!(joined_at.elapsed() >= Duration::from_millis(900), "the ply's time counted from the join");
            break;
        }
        assert!(Instant::now() < deadline, "the deadline did not run once the seat was taken");
        std::thread::sleep(Duration::from_millis(100));
    }
    // Both commit, only White reveals: at the reveal deadline Black forfeits.
    let g = create(&s, json!({ "variant": "predictor", "white": "me", "black": "me", "ply_seconds": 1 }));
    let id = g["id"].as_str().expect("id");
    let (wc, wr) = seal(id, 1, rules::Color::White, "e2e4");
    let (bc, _) = seal(id, 1, rules::Color::Black, "e7e5");
    let (wt, bt) = (token(&g, "white"), token(&g, "black"));
    s.ok("POST", &format!("/api/games/{id}/commit"), wt.as_deref(), Some(json!({ "ply": 1, "commitment": wc })));
    s.ok("POST", &format!("/api/games/{id}/commit"), bt.as_deref(), Some(json!({ "ply": 1, "commitment": bc })));
    s.ok("POST", &format!("/api/games/{id}/reveal"), wt.as_deref(), Some(json!({ "reveal": wr })));
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let st = state(&s, id);
        if st["status"] == "finished" {
            assert_eq!((st["result"].as_str(), st["reason"].as_str()), (Some("1-0"), Some("forfeit")));
            // Why, for the page, and in the record with White's revealed orders (RULINGS 7).
            assert_eq!(
                st["forfeit"],
                json!(
                    "ply 1: black's chosen member (black) did not reveal the committed orders by the reveal deadline"
                ),
                "{st}"
            );
            break;
        }
        assert!(Instant::now() < deadline, "the reveal deadline did not end the game");
        std::thread::sleep(Duration::from_millis(100));
    }
    let silent = id.to_string();
    let silent_record = |s: &Server| {
        ureq::get(&s.url(&format!("/api/games/{silent}/record"))).call().expect("record").into_string().expect("text")
    };
    let silent_text = silent_record(&s);
    let state_forfeit = state(&s, &silent)["forfeit"].clone();
    assert!(silent_text.contains("[Forfeit \"ply 1: black's chosen member (black) did not reveal"), "{silent_text}");
    assert!(silent_text.contains(&format!("[OpponentReveal \"{wr}\"]")), "{silent_text}");
    // Illegal committed orders: revealing them forfeits the game, answered as done (200) with
    // the result and why; the record says so.
    let g = create(&s, json!({ "variant": "predictor", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id");
    let (wc, wr) = seal(id, 1, rules::Color::White, "e4e6");
    let (bc, _) = seal(id, 1, rules::Color::Black, "e7e5");
    let (wt, bt) = (token(&g, "white"), token(&g, "black"));
    s.ok("POST", &format!("/api/games/{id}/commit"), wt.as_deref(), Some(json!({ "ply": 1, "commitment": wc })));
    s.ok("POST", &format!("/api/games/{id}/commit"), bt.as_deref(), Some(json!({ "ply": 1, "commitment": bc })));
    let r = s.ok("POST", &format!("/api/games/{id}/reveal"), wt.as_deref(), Some(json!({ "reveal": wr })));
    assert_eq!((&r["result"], &r["reason"], &r["accepted"]), (&json!("0-1"), &json!("forfeit"), &json!(false)), "{r}");
    assert!(r["forfeit"].as_str().is_some_and(|e| e.contains("white forfeits the game")), "{r}");
    let st = state(&s, id);
    assert_eq!((st["result"].as_str(), st["reason"].as_str()), (Some("0-1"), Some("forfeit")));
    let record = |s: &Server| {
        ureq::get(&s.url(&format!("/api/games/{id}/record"))).call().expect("record").into_string().expect("text")
    };
    let text = record(&s);
    assert!(text.contains("[Termination \"rules infraction\"]") && text.contains("[Result \"0-1\"]"), "{text}");
    // The forfeited orders are published (RULINGS 7), with the commitment they open, and kept
    // across a restart.
    assert!(text.contains("[Forfeit \"ply 1: white's revealed orders cannot be played: "), "{text}");
    assert!(
        text.contains(&format!("[ForfeitCommitment \"{wc}\"]")) && text.contains(&format!("[ForfeitReveal \"{wr}\"]")),
        "{text}"
    );
    let o = fairylab(&["predictor", "verify", "--commitment", &wc, "--reveal", &wr]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    s.kill();
    let s = Server::start(&format!("sqlite://{}", db.display()));
    assert_eq!(record(&s), text, "the same record after a restart");
    assert_eq!(silent_record(&s), silent_text, "the same record after a restart");
    assert_eq!(state(&s, &silent)["forfeit"], state_forfeit, "the same forfeit after a restart");
    // verify-game checks the forfeit: the reveal opens the commitment and cannot be played;
    // orders changed in the reveal no longer open it.
    let verify = |name: &str, text: &str| verify_text("serve-deadline", name, text);
    let o = verify("forfeit.pgn", &text);
    assert!(
        stdout(&o).contains("white's forfeited orders 'e4e6' open their commitment and cannot be played"),
        "{}{}",
        stdout(&o),
        common::stderr(&o)
    );
    let o = verify("forfeit-altered.pgn", &text.replace("orders=e4e6", "orders=e2e4"));
    assert!(
        !o.status.success() && common::stderr(&o).contains("do not open their commitment"),
        "{}",
        common::stderr(&o)
    );
    // Predictor's requests on another variant's game: refused as such (400), not as a bad token.
    let chess = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let cid = chess["id"].as_str().expect("id");
    for (path, body) in [
        ("members", json!({ "name": "a", "rank": 2 })),
        ("commit", json!({ "ply": 1, "commitment": wc })),
        ("reveal", json!({ "reveal": wr })),
        ("orders/check", json!({ "orders": "e2e4" })),
    ] {
        let (status, v) =
            s.call("POST", &format!("/api/games/{cid}/{path}"), token(&chess, "white").as_deref(), Some(body));
        assert_eq!(status, 400, "{path}: {v}");
        assert!(v["error"].as_str().is_some_and(|e| e.contains("not Predictor chess")), "{path}: {v}");
    }
}

#[test]
fn draws_by_agreement() {
    let db = temp_path("serve-draw", "games.sqlite3");
    let s = Server::start(&format!("sqlite://{}", db.display()));
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id");
    let (w, b) = (token(&g, "white").expect("w"), token(&g, "black").expect("b"));
    let draw = format!("/api/games/{id}/draw");
    let moves = format!("/api/games/{id}/moves");
    assert_eq!(s.call("POST", &draw, Some(&b), Some(json!({ "action": "accept" }))).0, 409, "no offer yet");
    // Offers once both sides have moved (before, the game is aborted instead).
    s.ok("POST", &moves, Some(&w), Some(json!({ "move": "e2e4" })));
    s.ok("POST", &moves, Some(&b), Some(json!({ "move": "e7e5" })));
    s.ok("POST", &draw, Some(&w), Some(json!({ "action": "offer" })));
    assert_eq!(state(&s, id)["draw_offer"], "white");
    assert_eq!(s.call("POST", &draw, Some(&w), Some(json!({ "action": "accept" }))).0, 409, "not one's own");
    s.ok("POST", &draw, Some(&b), Some(json!({ "action": "decline" })));
    // An offer lapses when the side it was made to moves.
    s.ok("POST", &moves, Some(&w), Some(json!({ "move": "g1f3" })));
    s.ok("POST", &draw, Some(&w), Some(json!({ "action": "offer" })));
    s.ok("POST", &moves, Some(&b), Some(json!({ "move": "b8c6" })));
    assert_eq!(state(&s, id)["draw_offer"], Value::Null);
    s.ok("POST", &draw, Some(&b), Some(json!({ "action": "offer" })));
    // A standing offer survives a restart.
    s.kill();
    let s = Server::start(&format!("sqlite://{}", db.display()));
    assert_eq!(state(&s, id)["draw_offer"], "black");
    let r = s.ok("POST", &draw, Some(&w), Some(json!({ "action": "accept" })));
    assert_eq!(r["result"], "1/2-1/2");
    assert_eq!(state(&s, id)["reason"], "agreement");
    assert_eq!(s.call("POST", &draw, Some(&w), Some(json!({ "action": "offer" }))).0, 409, "over");
    // An offer standing when the game ends by a mate lapses with it (also after a restart).
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id");
    let (w, b) = (token(&g, "white").expect("w"), token(&g, "black").expect("b"));
    let moves = format!("/api/games/{id}/moves");
    for (t, m) in [(&w, "f2f3"), (&b, "e7e5"), (&w, "g2g4")] {
        s.ok("POST", &moves, Some(t), Some(json!({ "move": m })));
    }
    s.ok("POST", &format!("/api/games/{id}/draw"), Some(&b), Some(json!({ "action": "offer" })));
    s.ok("POST", &moves, Some(&b), Some(json!({ "move": "d8h4" })));
    let st = state(&s, id);
    assert_eq!((&st["reason"], &st["draw_offer"]), (&json!("checkmate"), &Value::Null), "{st}");
    s.kill();
    let s = Server::start(&format!("sqlite://{}", db.display()));
    assert_eq!(state(&s, id)["draw_offer"], Value::Null);
    // Baby Chess has no draw but stalemate.
    let g = create(&s, json!({ "variant": "baby", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id");
    let (status, v) = s.call(
        "POST",
        &format!("/api/games/{id}/draw"),
        token(&g, "white").as_deref(),
        Some(json!({ "action": "offer" })),
    );
    assert_eq!(status, 400, "{v}");
}

#[test]
fn clocks_run_and_a_flag_ends_the_game() {
    let db = temp_path("serve-clock", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let s = Server::start(&format!("sqlite://{}", db.display()));
    let (status, v) = s.call(
        "POST",
        "/api/games",
        None,
        Some(json!({ "variant": "chess", "white": "me", "black": "me", "increment_seconds": 2 })),
    );
    assert_eq!(status, 400, "an increment without a clock: {v}");
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me", "clock_seconds": 1 }));
    let id = g["id"].as_str().expect("id");
    let (w, b) = (token(&g, "white").expect("w"), token(&g, "black").expect("b"));
    let moves = format!("/api/games/{id}/moves");
    assert_eq!(g["state"]["clock"]["white_ms"], 1000);
    assert_eq!(g["state"]["clock"]["running"], Value::Null, "the first moves are untimed");
    s.ok("POST", &moves, Some(&w), Some(json!({ "move": "e2e4" })));
    let reply = s.ok("POST", &moves, Some(&b), Some(json!({ "move": "e7e5" })));
    assert_eq!(reply["clock"]["black_ms"], 1000);
    let st = state(&s, id);
    assert_eq!(st["clock"]["running"], "white");
    assert!(st["clock"]["white_ms"].as_i64().expect("ms") <= 1000);
    // White does not move: the server ends the game on time, and a late move is refused.
    std::thread::sleep(Duration::from_millis(1500));
    let st = state(&s, id);
    assert_eq!(
        (st["status"].as_str(), st["result"].as_str(), st["reason"].as_str()),
        (Some("finished"), Some("0-1"), Some("time"))
    );
    assert_eq!(st["clock"]["white_ms"], 0);
    assert_eq!(s.call("POST", &moves, Some(&w), Some(json!({ "move": "g1f3" }))).0, 409);
    let record = check_record(&s, id, "serve-clock");
    assert!(record.contains("[Termination \"time\"]"), "{record}");
    // A clock survives a restart: the time already used stays used.
    let g = create(
        &s,
        json!({ "variant": "chess", "white": "me", "black": "me", "clock_seconds": 60, "increment_seconds": 1 }),
    );
    let id = g["id"].as_str().expect("id");
    let (w, b) = (token(&g, "white").expect("w"), token(&g, "black").expect("b"));
    let moves = format!("/api/games/{id}/moves");
    s.ok("POST", &moves, Some(&w), Some(json!({ "move": "d2d4" })));
    s.ok("POST", &moves, Some(&b), Some(json!({ "move": "d7d5" })));
    std::thread::sleep(Duration::from_millis(300));
    s.ok("POST", &moves, Some(&w), Some(json!({ "move": "c2c4" })));
    let before = state(&s, id);
    s.kill();
    let s = Server::start(&format!("sqlite://{}", db.display()));
    let after = state(&s, id);
    assert_eq!(after["clock"]["white_ms"], before["clock"]["white_ms"], "White's clock is stopped");
    let white = after["clock"]["white_ms"].as_i64().expect("ms");
    assert!((60_000 - 300 + 1000 - 200..=60_000 - 300 + 1000).contains(&white), "{white}");
    assert_eq!(after["clock"]["running"], "black");
}

/// In a game with clocks a person who does not make their first move in time (here 1 s,
/// `serve --first-move-seconds 1`) has the game aborted, as on lichess: counted from the
/// creation, the previous move, or the seat taken last; not while a seat is open, not without
/// clocks, and across a restart.
#[test]
fn a_first_move_not_made_in_time_aborts_a_game_with_clocks() {
    let db = temp_path("serve-first-move", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let url = format!("sqlite://{}", db.display());
    let s = Server::start_with(&url, &["--first-move-seconds", "1"]);
    let clocked = |white: &str, black: &str| {
        let g = create(&s, json!({ "variant": "chess", "white": white, "black": black, "clock_seconds": 60 }));
        (g["id"].as_str().expect("id").to_string(), g)
    };
    let mv = |id: &str, g: &Value, color: &str, m: &str| {
        let t = token(g, color);
        s.call("POST", &format!("/api/games/{id}/moves"), t.as_deref(), Some(json!({ "move": m })))
    };
    let ended = |s: &Server, id: &str| {
        let st = state(s, id);
        (st["status"].as_str() == Some("finished")).then(|| (st["result"].clone(), st["reason"].clone()))
    };
    let aborted = Some((json!("*"), json!("aborted")));
    // White never moves; Black never answers; both move at once.
    let (idle, gi) = clocked("me", "me");
    let first = &gi["state"]["first_move"];
    assert_eq!(first["side"], "white", "{first}");
    assert!((1..=1000).contains(&first["ms_left"].as_i64().expect("ms")), "{first}");
    let (answer, ga) = clocked("me", "me");
    assert_eq!(mv(&answer, &ga, "white", "e4").0, 200);
    let (prompt, gp) = clocked("me", "me");
    assert_eq!(mv(&prompt, &gp, "white", "e4").0, 200);
    assert_eq!(mv(&prompt, &gp, "black", "e5").0, 200);
    assert_eq!(state(&s, &prompt)["first_move"], Value::Null, "the clocks run now");
    // An open seat waits for its player; the first move's time starts once it is taken.
    let (open, go) = clocked("me", "invite");
    assert_eq!(mv(&open, &go, "white", "d4").0, 200);
    // Without clocks nobody is hurried.
    let plain = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let plain = plain["id"].as_str().expect("id").to_string();
    std::thread::sleep(Duration::from_millis(1600));
    assert_eq!(ended(&s, &idle), aborted);
    assert_eq!(ended(&s, &answer), aborted);
    let (status, v) = mv(&answer, &ga, "black", "e5");
    assert_eq!(status, 409, "a move after the abort: {v}");
    assert_eq!(ended(&s, &prompt), None);
    assert_eq!(ended(&s, &open), None, "the seat is still open");
    assert_eq!(state(&s, &open)["first_move"], Value::Null);
    assert_eq!(ended(&s, &plain), None);
    let code = go["black"]["invite"].as_str().expect("a code");
    s.ok("POST", &format!("/api/games/{open}/join"), None, Some(json!({ "code": code })));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(ended(&s, &open), None, "the joiner has a second from the join");
    std::thread::sleep(Duration::from_millis(1600));
    assert_eq!(ended(&s, &open), aborted, "the joiner did not move");
    // Across a restart: stopped before its deadline, started again after it.
    let (late, _) = clocked("me", "me");
    s.kill();
    std::thread::sleep(Duration::from_millis(1200));
    let s = Server::start_with(&url, &["--first-move-seconds", "1"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while ended(&s, &late).is_none() {
        assert!(Instant::now() < deadline, "the game was not aborted after the restart");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(ended(&s, &late), aborted);
    assert_eq!(ended(&s, &prompt), None);
    // Once a move has met chance the game is not aborted: who does not answer loses on time.
    let g = create(&s, json!({ "variant": "probabilistic", "white": "me", "black": "me", "clock_seconds": 60 }));
    let id = g["id"].as_str().expect("id").to_string();
    s.ok("POST", &format!("/api/games/{id}/moves"), token(&g, "white").as_deref(), Some(json!({ "move": "e4" })));
    assert_eq!(state(&s, &id)["first_move"]["side"], "black");
    std::thread::sleep(Duration::from_millis(1600));
    assert_eq!(ended(&s, &id), Some((json!("1-0"), json!("time"))), "black did not answer White's roll");
}

#[test]
fn a_game_of_a_variant_from_a_toml_file() {
    let db = temp_path("serve-toml", "games.sqlite3");
    let url = format!("sqlite://{}", db.display());
    let toml =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/variants/losalamos.toml"))
            .expect("the Los Alamos file");
    let name = toml.lines().find_map(|l| l.strip_prefix("name = ")).expect("a name").trim_matches('"').to_string();
    let s = Server::start(&url);
    let g =
        create(&s, json!({ "variant": name, "variant_toml": toml, "white": "me", "black": "ai", "movetime_ms": 10 }));
    let id = g["id"].as_str().expect("id").to_string();
    assert_eq!(g["state"]["fen"].as_str().map(|f| f.split('/').count()), Some(6), "a 6x6 board");
    let end = play_out(&s, &id, [token(&g, "white").as_deref(), None], &mut Lcg(2), 300);
    assert_eq!(end["status"], "finished");
    // The record verifies with the variant file, and not without it or with another file.
    let text =
        ureq::get(&s.url(&format!("/api/games/{id}/record"))).call().expect("record").into_string().expect("text");
    let record = temp_path("serve-toml", "game.pgn");
    std::fs::write(&record, &text).expect("write");
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/variants/losalamos.toml");
    let record = record.to_str().expect("utf-8");
    let o = fairylab(&["verify-game", record, "--variant-file", file]);
    assert!(o.status.success() && stdout(&o).starts_with("ok: "), "{}", common::stderr(&o));
    let o = fairylab(&["verify-game", record]);
    assert!(!o.status.success() && common::stderr(&o).contains("--variant-file"), "{}", common::stderr(&o));
    let other = temp_path("serve-toml", "other.toml");
    std::fs::write(&other, format!("{toml}\n# changed\n")).expect("write");
    let o = fairylab(&["verify-game", record, "--variant-file", other.to_str().expect("utf-8")]);
    assert!(
        !o.status.success() && common::stderr(&o).contains("not the game's variant file"),
        "{}",
        common::stderr(&o)
    );
    // A file of such games: each finds its file among those given; a file no game names is
    // refused (a mistaken file would otherwise pass unnoticed).
    let two = temp_path("serve-toml", "two.pgn");
    std::fs::write(&two, format!("{text}\n{text}")).expect("write");
    let two = two.to_str().expect("utf-8");
    let o = fairylab(&["verify-game", two, "--variant-file", file]);
    assert!(o.status.success() && stdout(&o).ends_with("ok: 2 of 2 games verified\n"), "{}", stdout(&o));
    let o = fairylab(&["verify-game", two, "--variant-file", file, "--variant-file", other.to_str().expect("utf-8")]);
    assert!(
        !o.status.success() && common::stderr(&o).contains("the variant file of none of the games"),
        "{}",
        common::stderr(&o)
    );
    // After a restart the game is rebuilt from its stored definition.
    s.kill();
    let s = Server::start(&url);
    assert_eq!(state(&s, &id)["moves"], end["moves"]);
    // Bad definitions and names: refused with the reason.
    let (status, v) = s.call(
        "POST",
        "/api/games",
        None,
        Some(json!({ "variant": "x", "variant_toml": "name = ", "white": "me", "black": "ai" })),
    );
    assert_eq!(status, 400, "{v}");
    assert!(v["error"].as_str().expect("error").contains("variant_toml"));
    let (status, _) = s.call(
        "POST",
        "/api/games",
        None,
        Some(json!({ "variant": "other", "variant_toml": toml, "white": "me", "black": "ai" })),
    );
    assert_eq!(status, 400);
}

/// A variant built on SnowFall (a variant file whose parent is `snowfall`) plays at the game's
/// percentage, given or drawn by the seed, as SnowFall does: its odds, its record's tags and
/// `verify-game` with the file agree with it.
#[test]
fn a_custom_snowfall_variant_plays_at_the_game_s_percentage() {
    let db = temp_path("serve-toml-snowfall", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let s = Server::start(&format!("sqlite://{}", db.display()));
    let toml = "name = \"snowdrift\"\nparent = \"snowfall\"\nsummary = \"SnowFall by another name\"\n";
    let file = temp_path("serve-toml-snowfall", "snowdrift.toml");
    std::fs::write(&file, toml).expect("write");
    for percent in [Some(100), Some(0), None] {
        let mut body = json!({ "variant": "snowdrift", "variant_toml": toml, "white": "me", "black": "me" });
        if let Some(p) = percent {
            body["snowfall"] = json!(p);
        }
        let g = create(&s, body);
        let id = g["id"].as_str().expect("id").to_string();
        let drawn = g["state"]["options"]["snowfall"].as_u64().expect("the game's percentage");
        assert!(percent.is_none_or(|p| p == drawn), "{g}");
        let end = play_out(&s, &id, [token(&g, "white").as_deref(), token(&g, "black").as_deref()], &mut Lcg(5), 16);
        let events = end["moves"].as_array().expect("moves").iter().filter(|m| m["event"] != "").count();
        match percent {
            // A gift event after every move (some give nothing); at 17 % about 3 of 16 would.
            Some(100) => assert!(events >= 8, "{events} gifts in 16 plies at 100 %: {end}"),
            Some(0) => assert_eq!(events, 0, "no gift at 0 %: {end}"),
            _ => {}
        }
        let text =
            ureq::get(&s.url(&format!("/api/games/{id}/record"))).call().expect("record").into_string().expect("text");
        assert!(text.contains(&format!("[Variant \"snowdrift\"]\n[SnowFall \"{drawn}\"]\n")), "{text}");
        let record = temp_path("serve-toml-snowfall", &format!("{id}.pgn"));
        std::fs::write(&record, &text).expect("write");
        let o = fairylab(&[
            "verify-game",
            record.to_str().expect("utf-8"),
            "--variant-file",
            file.to_str().expect("utf-8"),
        ]);
        assert!(o.status.success() && stdout(&o).starts_with("ok: "), "{} {text}", common::stderr(&o));
    }
}

#[test]
fn predictor_games_against_the_ai() {
    use rules::Color::{Black, White};
    let db = temp_path("serve-predictor-ai", "games.sqlite3");
    let url = format!("sqlite://{}", db.display());
    let s = Server::start(&url);
    // A person (random primaries) against the AI, to the end.
    let g = create(&s, json!({ "variant": "predictor", "white": "me", "black": "ai", "movetime_ms": 10 }));
    let id = g["id"].as_str().expect("id").to_string();
    let wt = token(&g, "white").expect("token");
    let mut rng = Lcg(21);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "the game did not end");
        let st = state(&s, &id);
        if st["status"] != "active" {
            break;
        }
        let ply = st["ply"].as_u64().expect("ply") as u32;
        if ply > 200 {
            s.ok("POST", &format!("/api/games/{id}/resign"), Some(&wt), None);
            continue;
        }
        let (c, r) = seal(&id, ply, White, &primary(&st, White, &mut rng));
        s.ok("POST", &format!("/api/games/{id}/commit"), Some(&wt), Some(json!({ "ply": ply, "commitment": c })));
        // Wait for the AI's commitment (the ply closes), then reveal.
        while state(&s, &id)["closed"] != true {
            assert!(Instant::now() < deadline, "the AI did not commit");
            std::thread::sleep(Duration::from_millis(5));
        }
        s.ok("POST", &format!("/api/games/{id}/reveal"), Some(&wt), Some(json!({ "reveal": r })));
        while state(&s, &id)["ply"].as_u64() == Some(u64::from(ply)) && state(&s, &id)["status"] == "active" {
            assert!(Instant::now() < deadline, "the AI did not reveal");
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    let text =
        ureq::get(&s.url(&format!("/api/games/{id}/record"))).call().expect("record").into_string().expect("text");
    let rec = rules::predictor::record::read(&text).expect("the record reads back, every seal checked");
    assert!(!rec.game.plies().is_empty());
    // A game ended off the board: its record carries the result and why (also after a restart).
    let end = state(&s, &id);
    if end["reason"] == "resignation" {
        assert!(text.contains("[Result \"0-1\"]") && text.contains("[Termination \"resignation\"]"), "{text}");
        assert_eq!(rec.game.outcome().map(|o| o.result()), Some("0-1"), "{text}");
    }
    let resigned = create(&s, json!({ "variant": "predictor", "white": "me", "black": "me" }));
    let rid = resigned["id"].as_str().expect("id").to_string();
    let (rw, rb) = (token(&resigned, "white").expect("white"), token(&resigned, "black").expect("black"));
    // Resigned once the first ply resolved (before, the game is aborted instead).
    predictor_ply(&s, &rid, [&rw, &rb], &mut Lcg(3));
    s.ok("POST", &format!("/api/games/{rid}/resign"), Some(&rb), None);
    let resigned_record = |s: &Server| {
        let text =
            ureq::get(&s.url(&format!("/api/games/{rid}/record"))).call().expect("record").into_string().expect("text");
        assert!(text.contains("[Result \"1-0\"]") && text.contains("[Termination \"resignation\"]"), "{text}");
        assert!(text.trim_end().ends_with("1-0"), "{text}");
        let read = rules::predictor::record::read(&text).expect("the record reads back");
        assert_eq!(read.game.outcome().map(|o| o.result()), Some("1-0"));
    };
    resigned_record(&s);
    // The AI against itself plays to the end alone.
    let g = create(&s, json!({ "variant": "predictor", "white": "ai", "black": "ai", "movetime_ms": 10 }));
    let id = g["id"].as_str().expect("id").to_string();
    loop {
        let st = state(&s, &id);
        if st["status"] == "finished" {
            break;
        }
        assert!(Instant::now() < deadline + Duration::from_secs(120), "the AI game did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = Black;
    s.kill();
    resigned_record(&Server::start(&url));
}

#[test]
fn analysis_and_the_endgame_tables_verdict() {
    // A KR.K table (DTC, which for KR.K is the distance to mate: at most 16 moves, a published
    // fact the table's statistics test checks) loaded with --tables.
    let table = temp_path("serve-analysis", "KR.K.egt");
    let o = fairylab(&["egt", "KR.K", "--out", table.to_str().expect("utf-8")]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let db = temp_path("serve-analysis", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let s = Server::start_with(&format!("sqlite://{}", db.display()), &["--tables", table.to_str().expect("utf-8")]);
    let fen = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";
    // Between two people, neither the engine nor the tables help until the game is over.
    let people = create(&s, json!({ "variant": "chess", "white": "me", "black": "invite", "fen": fen }));
    let pid = people["id"].as_str().expect("id");
    let st = state(&s, pid);
    assert_eq!((st["engine_help"].clone(), st["tablebase"].clone()), (json!(false), Value::Null), "{st}");
    let (status, v) = s.call("POST", &format!("/api/games/{pid}/analyse"), None, Some(json!({ "movetime_ms": 50 })));
    assert_eq!(status, 409, "{v}");
    assert!(v["error"].as_str().is_some_and(|e| e.contains("between two people")), "{v}");
    s.ok("POST", &format!("/api/games/{pid}/abort"), token(&people, "white").as_deref(), None);
    let st = state(&s, pid);
    assert_eq!((st["engine_help"].clone(), st["tablebase"]["result"].clone()), (json!(true), json!("win")), "{st}");
    s.ok("POST", &format!("/api/games/{pid}/analyse"), None, Some(json!({ "movetime_ms": 50 })));
    // One person moving both sides (an analysis board): the engine and the tables help.
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me", "fen": fen }));
    let id = g["id"].as_str().expect("id").to_string();
    assert_eq!(state(&s, &id)["engine_help"], true);
    // The state's verdict is the table's, as `fairylab egt probe` reads it.
    let probe = fairylab(&["egt", "probe", table.to_str().expect("utf-8"), "--fen", fen, "--json"]);
    let probed: Value = serde_json::from_str(&stdout(&probe)).expect("probe JSON");
    assert_eq!(probed["value"], "win in 14");
    let tb = &state(&s, &id)["tablebase"];
    assert_eq!(
        (tb["result"].clone(), tb["moves"].clone(), tb["side"].clone()),
        (json!("win"), json!(14), json!("white"))
    );
    assert_eq!(tb["metric"], "DTC");
    assert_eq!(tb["fifty_move"], Value::Null);
    // From a clock of 80 the 27 half-moves to the conversion come after the fifty-move rule's
    // hundredth: still the table's win, named a cursed win.
    let late = create(
        &s,
        json!({ "variant": "chess", "white": "me", "black": "me", "fen": "8/8/8/4k3/8/8/8/R3K3 w - - 80 41" }),
    );
    let tb_late = &state(&s, late["id"].as_str().expect("id"))["tablebase"];
    assert_eq!((tb_late["result"].clone(), tb_late["fifty_move"].clone()), (json!("win"), json!("draws")), "{tb_late}");
    assert!(tb_late["text"].as_str().is_some_and(|t| t.ends_with("(a cursed win)")), "{tb_late}");
    // Every legal move with the table's verdict, best first, as `egt probe` values it, and an
    // optimal line that mates in the 14 moves (27 plies).
    let by_move = tb["by_move"].as_array().expect("by_move");
    let probed_moves = probed["moves"].as_array().expect("moves");
    assert_eq!(by_move.len(), 15, "the legal moves of Ke1 and Ra1: {tb}");
    for m in by_move {
        let p = probed_moves.iter().find(|p| p["uci"] == m["uci"]).expect("a move of the table");
        assert_eq!(m["text"], p["value"], "{m}");
    }
    assert_eq!((by_move[0]["result"].clone(), by_move[0]["moves"].clone()), (json!("win"), json!(14)));
    assert!(by_move.windows(2).all(|w| w[0]["moves"].as_u64() <= w[1]["moves"].as_u64() || w[1]["result"] != "win"));
    let line: Vec<&str> =
        tb["line"].as_array().expect("line").iter().map(|m| m["san"].as_str().expect("san")).collect();
    assert_eq!(line.len(), 27, "{line:?}");
    assert!(line[26].ends_with('#'), "{line:?}");
    // The analysis: a winning score for White, a legal best move the table agrees with (a move
    // to a position Black loses), a line in SAN, the verdict.
    let a = s.ok("POST", &format!("/api/games/{id}/analyse"), None, Some(json!({ "movetime_ms": 300 })));
    assert_eq!(a["tablebase"]["result"], "win");
    assert!(
        a["score"]["white_cp"].as_i64().unwrap_or(0) > 300 || a["score"]["white_mate"].as_i64().unwrap_or(0) > 0,
        "{a}"
    );
    if a["score"]["white_cp"].as_i64().unwrap_or(0) > 10_000 {
        assert_eq!(a["score"]["white_table"], "win", "a table's win is named, not only scored in pawns: {a}");
    }
    let best = a["bestmove"].as_str().expect("a best move");
    let wins: Vec<&str> =
        probed["moves"].as_array().expect("moves").iter().map(|m| m["uci"].as_str().expect("uci")).collect();
    assert!(wins.contains(&best), "{best} is not a move of the table");
    assert!(!a["pv"].as_array().expect("pv").is_empty() && a["pv"][0]["uci"] == best);
    // Earlier positions of a game: the analysis of ply 0 after a move is the start again.
    s.ok(
        "POST",
        &format!("/api/games/{id}/moves"),
        Some(&token(&g, "white").expect("token")),
        Some(json!({ "move": "a1a5" })),
    );
    let st = state(&s, &id);
    assert_eq!(st["moves"][0]["fen"], "8/8/8/R3k3/8/8/8/4K3 b - - 1 1");
    assert_eq!(st["tablebase"]["result"], "loss", "Black to move loses");
    let a0 = s.ok("POST", &format!("/api/games/{id}/analyse"), None, Some(json!({ "ply": 0, "movetime_ms": 50 })));
    assert_eq!((a0["ply"].clone(), a0["fen"].clone()), (json!(0), json!(fen)));
    // Several lines: best first, each a different move; the first is the reply's score and pv.
    let a3 = s.ok(
        "POST",
        &format!("/api/games/{id}/analyse"),
        None,
        Some(json!({ "ply": 0, "movetime_ms": 200, "lines": 3 })),
    );
    let lines = a3["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), 3, "{a3}");
    assert_eq!((lines[0]["score"].clone(), lines[0]["pv"].clone()), (a3["score"].clone(), a3["pv"].clone()));
    let firsts: Vec<&Value> = lines.iter().map(|l| &l["pv"][0]["uci"]).collect();
    assert!(firsts[0] != firsts[1] && firsts[0] != firsts[2] && firsts[1] != firsts[2], "{a3}");
    // Bad requests: a clear refusal each.
    let analyse = format!("/api/games/{id}/analyse");
    assert_eq!(s.call("POST", &analyse, None, Some(json!({ "ply": 5 }))).0, 400);
    assert_eq!(s.call("POST", &analyse, None, Some(json!({ "movetime_ms": 0 }))).0, 400);
    assert_eq!(s.call("POST", &analyse, None, Some(json!({ "lines": 0 }))).0, 400);
    assert_eq!(s.call("POST", &analyse, None, Some(json!({ "lines": 6 }))).0, 400);
    assert_eq!(s.call("POST", &analyse, None, Some(json!({ "depth": 3 }))).0, 422);
    assert_eq!(s.call("POST", "/api/games/ffff/analyse", None, Some(json!({}))).0, 404);
    let p = create(&s, json!({ "variant": "predictor", "white": "me", "black": "me" }));
    let pid = p["id"].as_str().expect("id");
    assert_eq!(s.call("POST", &format!("/api/games/{pid}/analyse"), None, Some(json!({}))).0, 400);
    // Without tables the state says nothing about them; a missing table file is an error.
    let o = fairylab(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--database-url",
        "sqlite::memory:",
        "--tables",
        "/nonexistent.egt",
    ]);
    assert!(!o.status.success() && common::stderr(&o).contains("nonexistent"), "{}", common::stderr(&o));
}

#[test]
fn snowfall_live_odds_match_the_explainer() {
    let db = temp_path("serve-odds", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let s = Server::start(&format!("sqlite://{}", db.display()));
    let g = create(&s, json!({ "variant": "snowfall", "snowfall": 100, "white": "me", "black": "invite" }));
    let id = g["id"].as_str().expect("id").to_string();
    let wt = token(&g, "white").expect("token");
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(&wt), Some(json!({ "move": "e2e4" })));
    let st = state(&s, &id);
    let odds = s.ok("GET", &format!("/api/games/{id}/odds"), None, None);
    assert_eq!((odds["ply"].clone(), odds["to_move"].clone()), (json!(1), json!("black")));
    // The next gift follows Black's move: `snowfall odds` reads that event from the same board
    // with Black as the player who has just moved (White to move).
    let fen = st["fen"].as_str().expect("fen");
    let mut fields: Vec<&str> = fen.split(' ').collect();
    fields[1] = "w";
    let o = fairylab(&["snowfall", "odds", "--fen", &fields.join(" "), "--snowfall", "100", "--json"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let cli: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    for c in ["white", "black"] {
        for k in ["Q", "R", "B", "N", "P"] {
            assert_eq!(odds["next_gift"]["kinds"][c][k]["fraction"], cli["kinds"][c][k], "{c} {k}");
        }
    }
    // The danger of a gift mate for Black: the explainer's `mated_next` of the position itself.
    let o = fairylab(&["snowfall", "odds", "--fen", fen, "--snowfall", "100", "--json"]);
    let own: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    assert_eq!(
        odds["mated_next"]["best_defence"]["probability"]["fraction"],
        own["mated_next"]["best_defence"]["probability"]
    );
    assert_eq!(odds["mated_next"]["moves"], own["mated_next"]["moves"].as_array().map(Vec::len).expect("moves"));
    // The analysis board's odds of the same position are the game's.
    let mut board = s.ok("GET", &format!("/api/odds?fen={}&snowfall=100", urlencode(fen)), None, None);
    board["ply"] = odds["ply"].clone();
    assert_eq!(board, odds);
    for (query, mention) in [
        (format!("fen={}&snowfall=101", urlencode(fen)), "not a percentage"),
        ("fen=8/8".to_string(), "invalid FEN"),
        (format!("fen={}&snowfall=many", urlencode(fen)), "invalid query"),
        ("snowfall=20".to_string(), "invalid query"),
    ] {
        let (status, v) = s.call("GET", &format!("/api/odds?{query}"), None, None);
        assert_eq!(status, 400, "{query}: {v}");
        assert!(v["error"].as_str().is_some_and(|e| e.contains(mention)), "{query}: {v} should mention {mention:?}");
    }
    // Asked again, the same (computed once a ply); after the next move, the new position's.
    assert_eq!(s.ok("GET", &format!("/api/games/{id}/odds"), None, None), odds);
    let bt = s.ok("POST", &format!("/api/games/{id}/join"), None, Some(json!({ "code": g["black"]["invite"] })));
    let bt = bt["token"].as_str().expect("token").to_string();
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(&bt), Some(json!({ "move": "e7e5" })));
    let next = s.ok("GET", &format!("/api/games/{id}/odds"), None, None);
    assert_eq!((next["ply"].clone(), next["to_move"].clone()), (json!(2), json!("white")));
    assert_eq!(next["fen"], state(&s, &id)["fen"]);
    // Other variants have no odds.
    let c = create(&s, json!({ "variant": "chess", "white": "me", "black": "invite" }));
    assert_eq!(s.call("GET", &format!("/api/games/{}/odds", c["id"].as_str().expect("id")), None, None).0, 400);
}

#[test]
fn takebacks_against_the_ai_and_between_people() {
    for url in databases("serve-takeback") {
        takebacks(&url);
    }
}

fn takebacks(url: &str) {
    let s = Server::start(url);
    // Against the AI, with both AI workers (`--ai-workers 2`) busy on 10-second searches in
    // two other games: the AI's pawn would take the rook (e6xd5), a reply that is illegal after
    // the move played instead of d1d5. The search queued for the old position must be dropped
    // when it runs, and the AI must search again.
    let fen = "4k3/8/4p3/8/8/8/8/3RK3 w - - 0 1";
    let mut busy = Vec::new();
    for _ in 0..2 {
        let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "ai", "movetime_ms": 10000 }));
        let (id, w) = (g["id"].as_str().expect("id").to_string(), token(&g, "white").expect("w"));
        s.ok("POST", &format!("/api/games/{id}/moves"), Some(&w), Some(json!({ "move": "e2e4" })));
        busy.push((id, w));
    }
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "ai", "movetime_ms": 200, "fen": fen }));
    let id = g["id"].as_str().expect("id").to_string();
    let w = token(&g, "white").expect("w");
    let (back, moves) = (format!("/api/games/{id}/takeback"), format!("/api/games/{id}/moves"));
    assert_eq!(state(&s, &id)["takebacks"], true);
    let (status, v) = s.call("POST", &back, Some(&w), Some(json!({ "action": "propose" })));
    assert_eq!(status, 409, "nothing to take back yet: {v}");
    s.ok("POST", &moves, Some(&w), Some(json!({ "move": "d1d5", "ply": 0 })));
    assert_eq!(state(&s, &id)["thinking"], true);
    let r = s.ok("POST", &back, Some(&w), Some(json!({ "action": "propose" })));
    assert_eq!((r["ply"].as_u64(), r["taken_back"].as_u64(), r["takebacks"].as_u64()), (Some(0), Some(1), Some(1)));
    assert_eq!(r["fen"], fen);
    s.ok("POST", &moves, Some(&w), Some(json!({ "move": "e1f2", "ply": 0 })));
    // A takeback stops the AI's search at once (not at the end of its 10 seconds), which frees
    // the workers for the queued search.
    for (busy_id, busy_w) in &busy {
        s.ok("POST", &format!("/api/games/{busy_id}/takeback"), Some(busy_w), Some(json!({ "action": "propose" })));
        let deadline = Instant::now() + Duration::from_secs(3);
        while state(&s, busy_id)["thinking"] == true {
            assert!(Instant::now() < deadline, "the AI's search went on after the takeback");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    let st = wait_for_ply(&s, &id, 2, "the AI's answer to the move played after the takeback");
    assert_eq!(st["moves"][0]["uci"], "e1f2");
    // Once the AI has answered, a takeback takes its reply back too.
    let r = s.ok("POST", &back, Some(&w), Some(json!({ "action": "propose" })));
    assert_eq!((r["ply"].as_u64(), r["taken_back"].as_u64()), (Some(0), Some(2)));
    let st = state(&s, &id);
    assert_eq!((st["ply"].as_u64(), st["fen"].as_str()), (Some(0), Some(fen)));
    assert_eq!(st["moves"], json!([]));
    // Taken back for good: after a restart the game is where the takeback left it, and its
    // record, played on, reads back.
    s.kill();
    let s = Server::start(url);
    assert_eq!(state(&s, &id)["ply"], 0);
    s.ok("POST", &moves, Some(&w), Some(json!({ "move": "d1d2", "ply": 0 })));
    wait_for_ply(&s, &id, 2, "the AI's answer after the restart");
    s.ok("POST", &format!("/api/games/{id}/resign"), Some(&w), None);
    assert!(check_record(&s, &id, "serve-takeback").contains("1. Rd2 "));

    // Between people: proposed, then accepted, declined, or lapsed by a move.
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id").to_string();
    let (w, b) = (token(&g, "white").expect("w"), token(&g, "black").expect("b"));
    let (back, moves) = (format!("/api/games/{id}/takeback"), format!("/api/games/{id}/moves"));
    let call = |tok: &str, action: &str| s.call("POST", &back, Some(tok), Some(json!({ "action": action }))).0;
    s.ok("POST", &moves, Some(&w), Some(json!({ "move": "e2e4" })));
    assert_eq!(call(&b, "propose"), 409, "Black has no move to take back");
    assert_eq!(call(&b, "accept"), 409, "no proposal to answer");
    s.ok("POST", &back, Some(&w), Some(json!({ "action": "propose" })));
    assert_eq!(state(&s, &id)["takeback_offer"], "white");
    assert_eq!(call(&w, "propose"), 409, "a proposal stands already");
    assert_eq!(call(&w, "accept"), 409, "not one's own");
    assert_eq!(call(&b, "propose"), 409, "answer the standing proposal first");
    assert_eq!(call(&b, "maybe"), 400, "an unknown action");
    // A move makes the proposal lapse.
    s.ok("POST", &moves, Some(&b), Some(json!({ "move": "e7e5" })));
    assert_eq!(state(&s, &id)["takeback_offer"], Value::Null);
    assert_eq!(call(&b, "accept"), 409, "the proposal lapsed");
    s.ok("POST", &back, Some(&w), Some(json!({ "action": "propose" })));
    s.ok("POST", &back, Some(&b), Some(json!({ "action": "decline" })));
    assert_eq!(state(&s, &id)["takeback_offer"], Value::Null);
    // A standing proposal survives a restart; accepted on White's turn, it takes back White's
    // last move and Black's reply, and a standing draw offer lapses with them.
    s.ok("POST", &format!("/api/games/{id}/draw"), Some(&b), Some(json!({ "action": "offer" })));
    s.ok("POST", &back, Some(&w), Some(json!({ "action": "propose" })));
    s.kill();
    let s = Server::start(url);
    assert_eq!(state(&s, &id)["takeback_offer"], "white");
    let r = s.ok("POST", &back, Some(&b), Some(json!({ "action": "accept" })));
    assert_eq!((r["ply"].as_u64(), r["taken_back"].as_u64(), r["takebacks"].as_u64()), (Some(0), Some(2), Some(1)));
    let st = state(&s, &id);
    assert_eq!((st["ply"].as_u64(), &st["takeback_offer"], &st["draw_offer"]), (Some(0), &Value::Null, &Value::Null));
    s.ok("POST", &moves, Some(&w), Some(json!({ "move": "d2d4", "ply": 0 })));
    assert_eq!(state(&s, &id)["moves"][0]["san"], "d4");
    // After the game: none.
    s.ok("POST", &format!("/api/games/{id}/abort"), Some(&b), None);
    assert_eq!(s.call("POST", &back, Some(&w), Some(json!({ "action": "propose" }))).0, 409, "over");
    // Chance, clocks and sealed orders: none (400), and the state says so.
    for body in [
        json!({ "variant": "snowfall", "white": "me", "black": "me" }),
        json!({ "variant": "probabilistic", "white": "me", "black": "me" }),
        json!({ "variant": "chess", "white": "me", "black": "me", "clock_seconds": 60 }),
        json!({ "variant": "predictor", "white": "me", "black": "me" }),
    ] {
        let g = create(&s, body.clone());
        let id = g["id"].as_str().expect("id");
        let w = token(&g, "white").expect("w");
        if body["variant"] != "predictor" {
            assert_eq!(state(&s, id)["takebacks"], false, "{body}");
            let mv = state(&s, id)["legal_moves"][0].clone();
            s.ok("POST", &format!("/api/games/{id}/moves"), Some(&w), Some(json!({ "move": mv })));
        }
        let (status, v) =
            s.call("POST", &format!("/api/games/{id}/takeback"), Some(&w), Some(json!({ "action": "propose" })));
        assert_eq!(status, 400, "{body}: {v}");
        assert!(v["error"].as_str().is_some_and(|e| e.contains("no takebacks")), "{v}");
    }
    // Without a seat's token: refused.
    assert_eq!(s.call("POST", &back, None, Some(json!({ "action": "propose" }))).0, 401);
    // Imported moves are not the players': none is taken back, by a proposal or against the AI;
    // a move played after them is.
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "1. e4 e5 2. Nf3" }));
    let id = g["id"].as_str().expect("id");
    let (w, b) = (token(&g, "white").expect("w"), token(&g, "black").expect("b"));
    let back = format!("/api/games/{id}/takeback");
    for t in [&w, &b] {
        let (status, v) = s.call("POST", &back, Some(t), Some(json!({ "action": "propose" })));
        assert_eq!(status, 409, "{v}");
        assert!(v["error"].as_str().is_some_and(|e| e.contains("imported moves stay")), "{v}");
    }
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(&b), Some(json!({ "move": "Nc6" })));
    s.ok("POST", &back, Some(&b), Some(json!({ "action": "propose" })));
    let r = s.ok("POST", &back, Some(&w), Some(json!({ "action": "accept" })));
    assert_eq!((r["ply"].as_u64(), r["taken_back"].as_u64()), (Some(3), Some(1)), "{r}");
    let g = create(
        &s,
        json!({ "variant": "chess", "white": "ai", "black": "me", "pgn": "1. e4 e5 2. Nf3", "movetime_ms": 10 }),
    );
    let (status, v) = s.call(
        "POST",
        &format!("/api/games/{}/takeback", g["id"].as_str().expect("id")),
        token(&g, "black").as_deref(),
        Some(json!({ "action": "propose" })),
    );
    assert_eq!(status, 409, "{v}");
}

#[test]
fn a_takeback_on_one_process_reaches_the_other() {
    let Some(url) = postgres_url("serve-takeback-two") else {
        eprintln!("FAIRYLAB_TEST_POSTGRES_URL is not set: the two-process takeback test needs PostgreSQL");
        return;
    };
    let a = Server::start(&url);
    let b = Server::start(&url);
    let g = create(&a, json!({ "variant": "chess", "white": "me", "black": "invite" }));
    let id = g["id"].as_str().expect("id");
    let joined = b.ok("POST", &format!("/api/games/{id}/join"), None, Some(json!({ "code": g["black"]["invite"] })));
    let (w, bt) = (token(&g, "white").expect("w"), joined["token"].as_str().expect("b").to_string());
    let (back, moves) = (format!("/api/games/{id}/takeback"), format!("/api/games/{id}/moves"));
    for (i, mv) in ["e2e4", "e7e5", "g1f3", "b8c6"].iter().enumerate() {
        let (server, tok) = if i % 2 == 0 { (&a, &w) } else { (&b, &bt) };
        server.ok("POST", &moves, Some(tok), Some(json!({ "move": mv, "ply": i })));
    }
    assert_eq!(state(&b, id)["ply"], 4);
    // A spectator on B: B keeps a copy of the game (at ply 4) for its stream.
    let ws_url = b.url(&format!("/api/games/{id}/ws")).replace("http://", "ws://");
    let (mut socket, _) = tungstenite::connect(ws_url).expect("websocket");
    let first: Value = serde_json::from_str(socket.read().expect("state").to_text().expect("text")).expect("json");
    assert_eq!(first["data"]["ply"], 4, "{first}");
    // Black proposes on B, White accepts on A: Black's b8c6 goes (and nothing else, since
    // White has not replied). Then two other moves restore the move count B last saw.
    b.ok("POST", &back, Some(&bt), Some(json!({ "action": "propose" })));
    assert_eq!(state(&a, id)["takeback_offer"], "black");
    let r = a.ok("POST", &back, Some(&w), Some(json!({ "action": "accept" })));
    assert_eq!((r["ply"].as_u64(), r["taken_back"].as_u64()), (Some(3), Some(1)));
    assert_eq!(state(&b, id)["ply"], 3);
    b.ok("POST", &back, Some(&bt), Some(json!({ "action": "propose" })));
    a.ok("POST", &back, Some(&w), Some(json!({ "action": "accept" })));
    b.ok("POST", &moves, Some(&bt), Some(json!({ "move": "d7d5", "ply": 1 })));
    a.ok("POST", &moves, Some(&w), Some(json!({ "move": "e4d5", "ply": 2 })));
    b.ok("POST", &moves, Some(&bt), Some(json!({ "move": "d8d5", "ply": 3 })));
    for s in [&a, &b] {
        let st = state(s, id);
        let sans: Vec<&str> =
            st["moves"].as_array().expect("moves").iter().map(|m| m["san"].as_str().expect("san")).collect();
        assert_eq!(sans, ["e4", "d5", "exd5", "Qxd5"], "both processes see the game after the takebacks");
    }
    let event = loop {
        let e: Value = serde_json::from_str(socket.read().expect("event").to_text().expect("text")).expect("json");
        if e["type"] == "takeback" {
            break e;
        }
    };
    assert_eq!((event["data"]["ply"].as_u64(), event["data"]["taken_back"].as_u64()), (Some(3), Some(1)));
    // A dies and B takes the game over: B's copy, at ply 4 with the moves taken back, is read
    // back whole (it has as many moves as the store, but not the same).
    a.kill();
    let st = state(&b, id);
    let sans: Vec<&str> =
        st["moves"].as_array().expect("moves").iter().map(|m| m["san"].as_str().expect("san")).collect();
    assert_eq!(sans, ["e4", "d5", "exd5", "Qxd5"], "the process that took the game over");
    b.ok("POST", &moves, Some(&w), Some(json!({ "move": "b1c3", "ply": 4 })));
}

#[test]
fn chess960_games_start_from_a_drawn_position_and_castle() {
    let db = temp_path("serve-960", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let s = Server::start(&format!("sqlite://{}", db.display()));
    let mut starts = std::collections::HashSet::new();
    for _ in 0..6 {
        let g = create(&s, json!({ "variant": "chess960", "white": "me", "black": "me" }));
        let st = &g["state"];
        let n = st["options"]["chess960"].as_u64().expect("the start position's number") as u16;
        assert_eq!(st["start_fen"].as_str(), rules::variants::chess960::start_fen(n).as_deref(), "{st}");
        starts.insert(n);
    }
    assert!(starts.len() > 1, "the start is drawn: {starts:?}");
    // Castling through the API, the king taking its rook (Kg1 stays, Rh1 goes to f1).
    let fen = "b1rb1nk1/1p3p2/p3pnpp/2ppB3/1P3P2/2PPN1P1/P3P2P/1QRBN1KR w KQq - 0 11";
    let g = create(&s, json!({ "variant": "chess960", "white": "me", "black": "me", "fen": fen }));
    let id = g["id"].as_str().expect("id");
    let w = token(&g, "white").expect("w");
    assert!(g["state"]["legal_moves"].as_array().expect("moves").contains(&json!("g1h1")));
    let r = s.ok("POST", &format!("/api/games/{id}/moves"), Some(&w), Some(json!({ "move": "O-O", "ply": 0 })));
    assert_eq!((r["uci"].as_str(), r["san"].as_str()), (Some("g1h1"), Some("O-O")));
    assert!(r["fen"]
        .as_str()
        .expect("fen")
        .starts_with("b1rb1nk1/1p3p2/p3pnpp/2ppB3/1P3P2/2PPN1P1/P3P2P/1QRBNRK1 b q "));
    s.ok("POST", &format!("/api/games/{id}/abort"), Some(&w), None);
    let record = check_record(&s, id, "serve-960");
    assert!(record.contains("[Variant \"Chess960\"]") && record.contains("O-O"), "{record}");
}

/// The chat between a game's players: a message kept on one line and numbered, announced on the
/// live stream by its number and side alone (spectators never see the text), read only with a
/// player's token, one a second a side, refused against the AI, kept after the game's end and
/// across a restart; with two processes on one PostgreSQL, written on one and read on the other.
#[test]
fn the_players_chat_is_theirs_and_kept() {
    for url in databases("serve-chat") {
        chat(&url);
    }
    if let Some(url) = postgres_url("serve-chat-two") {
        let (a, b) = (Server::start(&url), Server::start(&url));
        let g = create(&a, json!({ "variant": "chess", "white": "me", "black": "me" }));
        let id = g["id"].as_str().expect("id");
        let ws_url = b.url(&format!("/api/games/{id}/ws")).replace("http://", "ws://");
        let (mut socket, _) = tungstenite::connect(ws_url).expect("websocket");
        let _state = socket.read().expect("state");
        a.ok(
            "POST",
            &format!("/api/games/{id}/chat"),
            token(&g, "white").as_deref(),
            Some(json!({ "text": "from a" })),
        );
        let event: Value = serde_json::from_str(socket.read().expect("chat").to_text().expect("text")).expect("json");
        assert_eq!((&event["type"], &event["data"]), (&json!("chat"), &json!({ "seq": 1, "by": "white" })));
        let read = b.ok("GET", &format!("/api/games/{id}/chat"), token(&g, "black").as_deref(), None);
        assert_eq!(read["messages"][0]["text"], "from a", "{read}");
    }
}

fn chat(url: &str) {
    let s = Server::start(url);
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id").to_string();
    let (w, b) = (token(&g, "white"), token(&g, "black"));
    let path = format!("/api/games/{id}/chat");
    let ws_url = s.url(&format!("/api/games/{id}/ws")).replace("http://", "ws://");
    let (mut spectator, _) = tungstenite::connect(ws_url).expect("websocket");
    let _state = spectator.read().expect("state");
    let m = s.ok("POST", &path, w.as_deref(), Some(json!({ "text": "  good luck,\n have fun " })));
    assert_eq!((&m["seq"], &m["by"], &m["text"]), (&json!(1), &json!("white"), &json!("good luck, have fun")), "{m}");
    let event = spectator.read().expect("chat").to_text().expect("text").to_string();
    let v: Value = serde_json::from_str(&event).expect("json");
    assert_eq!((&v["type"], &v["data"]), (&json!("chat"), &json!({ "seq": 1, "by": "white" })), "{event}");
    assert!(!event.contains("luck"), "the stream carries no text: {event}");
    let too_soon = ureq::post(&s.url(&path))
        .set("Authorization", &format!("Bearer {}", w.as_deref().expect("token")))
        .send_json(json!({ "text": "again" }));
    let Err(ureq::Error::Status(status, resp)) = too_soon else { panic!("a second message at once was kept") };
    assert_eq!((status, resp.header("retry-after")), (429, Some("1")), "one a second, and when to try again");
    s.ok("POST", &path, b.as_deref(), Some(json!({ "text": "you too" })));
    let said = |v: &Value| -> Vec<(i64, String, String)> {
        v["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .map(|m| {
                (
                    m["seq"].as_i64().expect("seq"),
                    m["by"].as_str().expect("by").into(),
                    m["text"].as_str().expect("text").into(),
                )
            })
            .collect()
    };
    let all = s.ok("GET", &path, b.as_deref(), None);
    assert_eq!(
        said(&all),
        [(1, "white".into(), "good luck, have fun".into()), (2, "black".into(), "you too".into())],
        "{all}"
    );
    assert!(all["messages"][0]["at"].as_i64().is_some_and(|t| t > 0));
    assert_eq!(
        said(&s.ok("GET", &format!("{path}?after=1"), w.as_deref(), None)),
        [(2, "black".into(), "you too".into())]
    );
    // Refusals.
    let other = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let long = "x".repeat(141);
    for (method, query, t, body, status, mention) in [
        ("GET", "", None, None, 401, "game token"),
        ("GET", "", token(&other, "white"), None, 403, "not valid for this game"),
        ("GET", "?after=x", w.clone(), None, 400, "invalid query"),
        ("POST", "", None, Some(json!({ "text": "hi" })), 401, "game token"),
        ("POST", "", token(&other, "black"), Some(json!({ "text": "hi" })), 403, "not valid for this game"),
        ("POST", "", b.clone(), Some(json!({ "text": " \n " })), 400, "empty"),
        ("POST", "", b.clone(), Some(json!({ "text": long })), 400, "at most 140"),
        ("POST", "", b.clone(), Some(json!({ "text": "hi", "to": "white" })), 422, "unknown field"),
    ] {
        let (got, v) = s.call(method, &format!("{path}{query}"), t.as_deref(), body);
        assert_eq!(got, status, "{method} {query}: {v}");
        assert!(
            v["error"].as_str().is_some_and(|e| e.contains(mention)),
            "{method} {query}: {v} should say {mention:?}"
        );
    }
    let (status, v) = s.call("POST", "/api/games/nosuch/chat", w.as_deref(), Some(json!({ "text": "hi" })));
    assert_eq!(status, 404, "{v}");
    let ai = create(&s, json!({ "variant": "chess", "white": "me", "black": "ai", "movetime_ms": 10 }));
    let ai_path = format!("/api/games/{}/chat", ai["id"].as_str().expect("id"));
    let (status, v) = s.call("POST", &ai_path, token(&ai, "white").as_deref(), Some(json!({ "text": "hi" })));
    assert_eq!((status, v["error"].as_str().is_some_and(|e| e.contains("the AI does not chat"))), (400, true), "{v}");
    // After the game's end and a restart, the chat is kept and goes on.
    s.ok("POST", &format!("/api/games/{id}/abort"), w.as_deref(), None);
    s.kill();
    let s = Server::start(url);
    let m = s.ok("POST", &path, b.as_deref(), Some(json!({ "text": "gg" })));
    assert_eq!(m["seq"], 3, "{m}");
    assert_eq!(said(&s.ok("GET", &path, w.as_deref(), None)).len(), 3);
}

/// Resigning and aborting take no body (or `{}`): a garbled one is refused and the game goes on.
#[test]
fn a_garbled_request_ends_no_game() {
    let db = temp_path("serve-garbled", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let s = Server::start(&format!("sqlite://{}", db.display()));
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id");
    let w = token(&g, "white").expect("w");
    for path in ["resign", "abort"] {
        for body in ["{", "[]", "{\"reason\": \"tired\"}", "resign"] {
            let r = ureq::post(&s.url(&format!("/api/games/{id}/{path}")))
                .set("Authorization", &format!("Bearer {w}"))
                .set("Content-Type", "application/json")
                .send_string(body);
            let Err(ureq::Error::Status(status, resp)) = r else { panic!("{path} {body}: accepted") };
            let v: Value = serde_json::from_str(&resp.into_string().expect("text")).expect("json");
            assert_eq!(status, 400, "{path} {body}: {v}");
            assert!(v["error"].as_str().is_some_and(|e| e.contains("takes no body")), "{path} {body}: {v}");
        }
    }
    assert_eq!(state(&s, id)["status"], "active");
    for (i, m) in ["e4", "e5"].into_iter().enumerate() {
        let t = token(&g, if i == 0 { "white" } else { "black" });
        s.ok("POST", &format!("/api/games/{id}/moves"), t.as_deref(), Some(json!({ "move": m })));
    }
    let r = s.ok("POST", &format!("/api/games/{id}/resign"), Some(&w), Some(json!({})));
    assert_eq!(r["result"], "0-1");
}

/// A fresh SQLite database URL for a test of its own (`tag` names its directory).
/// The SHA-256 of `text`, in hex, as the server computes it.
fn sha256_hex(text: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(text.as_bytes()))
}

fn sqlite_url(tag: &str) -> String {
    let db = temp_path(tag, "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    format!("sqlite://{}", db.display())
}

/// Asserts a refusal: its status and a JSON error that mentions `mention`.
fn assert_refused((status, v): (u16, Value), want: u16, mention: &str) {
    assert_eq!(status, want, "{v}");
    assert!(v["error"].as_str().is_some_and(|e| e.contains(mention)), "{v} should mention {mention:?}");
}

/// A Predictor team member's token does what a member does (commitments and reveals), never
/// what only the seat's holder, the captain, does: resign, abort, chat. Refused as a member's.
#[test]
fn a_team_member_can_neither_resign_nor_abort_for_the_side() {
    let s = Server::start(&sqlite_url("serve-member-seat"));
    let g = create(&s, json!({ "variant": "predictor", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id").to_string();
    let (wt, bt) = (token(&g, "white").expect("white"), token(&g, "black").expect("black"));
    let m = s.ok("POST", &format!("/api/games/{id}/members"), Some(&wt), Some(json!({ "name": "bo", "rank": 2 })));
    let bo = m["token"].as_str().expect("member token").to_string();
    // Past the first ply, so that the game is resigned rather than aborted.
    predictor_ply(&s, &id, [&wt, &bt], &mut Lcg(4));
    for (path, body, what) in [
        ("resign", None, "only the captain (the seat's token) may resign"),
        ("abort", None, "only the captain (the seat's token) may abort"),
        ("chat", Some(json!({ "text": "hi" })), "only the captain (the seat's token) may open the chat"),
        ("draw", Some(json!({ "action": "offer" })), "only the captain (the seat's token) may offer or answer a draw"),
    ] {
        let (status, v) = s.call("POST", &format!("/api/games/{id}/{path}"), Some(&bo), body);
        assert_refused((status, v.clone()), 403, what);
        assert!(v["error"].as_str().is_some_and(|e| e.contains("a team member's token (bo, white)")), "{v}");
    }
    assert_eq!(state(&s, &id)["status"], "active", "the member ended nothing");
    // The seat-only endpoints of the sequential games do not take a member's token either
    // (Predictor chess has none of them).
    for (path, body) in [("moves", json!({ "move": "e2e4" })), ("takeback", json!({ "action": "propose" }))] {
        let (status, v) = s.call("POST", &format!("/api/games/{id}/{path}"), Some(&bo), Some(body));
        assert_eq!(status, 400, "{path}: {v}");
    }
    // The captain may.
    let r = s.ok("POST", &format!("/api/games/{id}/resign"), Some(&wt), None);
    assert_eq!((r["result"].as_str(), r["reason"].as_str()), (Some("0-1"), Some("resignation")));
}

/// Draws by agreement in Predictor chess (normal chess rules apply, seed rule 5): the captains
/// offer and answer once the first ply has resolved; an offer lapses when a ply resolves
/// unanswered; the record ends `agreement` and verifies.
#[test]
fn predictor_captains_agree_a_draw() {
    let s = Server::start(&sqlite_url("serve-predictor-draw"));
    let g = create(&s, json!({ "variant": "predictor", "white": "me", "black": "invite" }));
    let id = g["id"].as_str().expect("id").to_string();
    let joined = s.ok("POST", &format!("/api/games/{id}/join"), None, Some(json!({ "code": g["black"]["invite"] })));
    let (wt, bt) = (token(&g, "white").expect("white"), joined["token"].as_str().expect("black").to_string());
    let draw = |t: &str, action: &str| {
        s.call("POST", &format!("/api/games/{id}/draw"), Some(t), Some(json!({ "action": action })))
    };
    assert_refused(draw(&wt, "offer"), 400, "abort instead");
    let mut rng = Lcg(9);
    predictor_ply(&s, &id, [&wt, &bt], &mut rng);
    assert_eq!(draw(&wt, "offer"), (200, json!({ "draw_offer": "white" })));
    assert_eq!(state(&s, &id)["draw_offer"], "white");
    assert_refused(draw(&wt, "accept"), 409, "you cannot answer your own offer");
    predictor_ply(&s, &id, [&wt, &bt], &mut rng);
    assert_eq!(state(&s, &id)["draw_offer"], Value::Null, "the offer lapsed with the ply");
    assert_eq!(draw(&bt, "offer"), (200, json!({ "draw_offer": "black" })));
    assert_eq!(draw(&wt, "accept"), (200, json!({ "result": "1/2-1/2", "reason": "agreement" })));
    let st = state(&s, &id);
    assert_eq!((st["status"].as_str(), st["reason"].as_str()), (Some("finished"), Some("agreement")));
    let record = check_record(&s, &id, "serve-predictor-draw");
    assert!(record.contains("[Termination \"agreement\"]") && record.contains("1/2-1/2"), "{record}");
}

/// A record whose moves go on after a draw a player must claim under FIDE's rules (a threefold
/// repetition here) is read whole, as a game played elsewhere may have gone on: on the analysis
/// board and in a game's import; one that ends in the repetition is drawn. Moves after an end
/// that is final at once (a dead position here) are refused naming the move.
#[test]
fn a_record_goes_on_after_an_unclaimed_draw_but_not_after_the_end() {
    let s = Server::start(&sqlite_url("serve-after-end"));
    let shuffle = "g1f3,g8f6,f3g1,f6g8,g1f3,g8f6,f3g1,f6g8";
    let v = s.ok("GET", &format!("/api/position?variant=chess&play={shuffle}"), None, None);
    // The repetition: said, and the line may still go on.
    assert_eq!((v["reason"].as_str(), v["legal_moves"].as_array().map(Vec::len)), (Some("repetition"), Some(20)));
    let v = s.ok("GET", &format!("/api/position?variant=chess&play={shuffle},e2e4,e7e5"), None, None);
    assert_eq!((v["result"].clone(), v["moves"].as_array().map(Vec::len)), (Value::Null, Some(10)));
    let pgn = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 5. e4 e5";
    let record = format!("[Variant \"chess\"]\n\n{pgn} *");
    let v = s.ok("POST", "/api/position", None, Some(json!({ "pgn": record })));
    assert_eq!((v["result"].clone(), v["moves"].as_array().map(Vec::len)), (Value::Null, Some(10)));
    for text in [pgn.to_string(), record] {
        let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me", "pgn": text }));
        assert_eq!((g["state"]["ply"].as_u64(), g["state"]["status"].as_str()), (Some(10), Some("active")));
    }
    // A record that ends with the repetition is a finished game.
    let g = create(
        &s,
        json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8" }),
    );
    assert_eq!((g["state"]["ply"].as_u64(), g["state"]["reason"].as_str()), (Some(8), Some("repetition")));
    // After a dead position (king against king), nothing goes on.
    let fen = "7k/8/8/8/8/2r5/1K6/8 w - - 0 1";
    assert_refused(
        s.call("GET", &format!("/api/position?variant=chess&fen={}&play=b2c3,h8g8", urlencode(fen)), None, None),
        400,
        "move 2 of play, 'h8g8': the game is over (a draw by insufficient material)",
    );
    let record = format!("[Variant \"chess\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n1. Kxc3 Kg8 *");
    let said = "1... Kg8 (ply 2) of the record comes after the end of the game (a draw by insufficient material)";
    assert_refused(s.call("POST", "/api/position", None, Some(json!({ "pgn": record }))), 400, said);
    let body = json!({ "variant": "chess", "white": "me", "black": "me", "fen": fen, "pgn": "1. Kxc3 Kg8" });
    assert_refused(s.call("POST", "/api/games", None, Some(body)), 400, said);
}

/// A second server on the SQLite file a server uses is refused at once, naming the file: it
/// would serve its own copies of the games while the first served stale ones. Once the first
/// has stopped, the file is free. In-memory databases take no lock.
#[test]
fn a_second_server_on_one_sqlite_file_is_refused() {
    let url = sqlite_url("serve-lock");
    let first = Server::start(&url);
    let second_refused = |url: &str| {
        let mut second = Command::new(env!("CARGO_BIN_EXE_fairylab"))
            .args(["serve", "--listen", "127.0.0.1:0", "--database-url", url])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the second server starts");
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(status) = second.try_wait().expect("wait") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = second.kill();
                let _ = second.wait();
                panic!("a second server runs on the same SQLite file through {url}");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let mut err = String::new();
        std::io::Read::read_to_string(&mut second.stderr.take().expect("stderr"), &mut err).expect("stderr");
        assert!(!status.success(), "{err}");
        err
    };
    let err = second_refused(&url);
    let file = std::fs::canonicalize(url.trim_start_matches("sqlite://")).expect("the file");
    assert!(err.contains(&*file.to_string_lossy()) && err.contains("in use by another fairylab server"), "{err}");
    assert!(err.contains("PostgreSQL"), "{err}");
    // Through a symbolic link to the same file, too.
    let link = file.with_file_name("link.sqlite3");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&file, &link).expect("a link");
    let err = second_refused(&format!("sqlite://{}", link.display()));
    assert!(err.contains("in use by another fairylab server"), "{err}");
    // The first serves on; once it is gone, the file is free.
    create(&first, json!({ "variant": "chess", "white": "me", "black": "me" }));
    first.kill();
    let again = Server::start(&url);
    assert_eq!(again.ok("GET", "/api/games", None, None)["games"].as_array().map(Vec::len), Some(1));
    drop(again);
    // In memory: each process has its own database, nothing to lock.
    let a = Server::start("sqlite::memory:");
    let b = Server::start("sqlite::memory:");
    create(&a, json!({ "variant": "chess", "white": "me", "black": "me" }));
    assert_eq!(b.ok("GET", "/api/games", None, None)["games"].as_array().map(Vec::len), Some(0));
}

/// The analysis workers' queue is bounded: with one worker busy and four requests waiting, the
/// next is refused with 503 and `Retry-After` at once, not queued without end; the waiting ones
/// are answered, and the AI, on workers of its own, moves meanwhile.
#[test]
fn analyses_beyond_the_queue_are_refused_while_the_ai_moves() {
    let s = Server::start_with(&sqlite_url("serve-queue"), &["--ai-workers", "1", "--analysis-workers", "1"]);
    let analyse = |base: String| {
        std::thread::spawn(move || {
            let body = json!({ "variant": "chess", "movetime_ms": 1000 });
            match ureq::post(&format!("{base}/api/analyse")).timeout(Duration::from_secs(60)).send_json(body) {
                Ok(r) => (r.status(), None, Value::Null),
                Err(ureq::Error::Status(status, r)) => {
                    let retry = r.header("retry-after").map(str::to_string);
                    (status, retry, r.into_json().unwrap_or(Value::Null))
                }
                Err(e) => panic!("the analysis request: {e}"),
            }
        })
    };
    // One searches; then four wait and two more are refused.
    let mut requests = vec![analyse(s.base.clone())];
    std::thread::sleep(Duration::from_millis(300));
    requests.extend((0..6).map(|_| analyse(s.base.clone())));
    std::thread::sleep(Duration::from_millis(300));
    let g = create(&s, json!({ "variant": "chess", "white": "ai", "black": "me", "movetime_ms": 50 }));
    let started = Instant::now();
    wait_for_ply(&s, g["id"].as_str().expect("id"), 1, "the AI's first move");
    assert!(started.elapsed() < Duration::from_secs(3), "the AI waited for the analyses");
    let answers: Vec<_> = requests.into_iter().map(|r| r.join().expect("a request")).collect();
    let refused: Vec<_> = answers.iter().filter(|(status, ..)| *status == 503).collect();
    assert_eq!(answers.iter().filter(|(status, ..)| *status == 200).count(), 5, "{answers:?}");
    assert_eq!(refused.len(), 2, "{answers:?}");
    for (_, retry, v) in refused {
        assert!(retry.as_deref().and_then(|r| r.parse::<u64>().ok()).is_some_and(|r| r > 0), "{retry:?}");
        assert!(v["error"].as_str().is_some_and(|e| e.contains("the analysis workers are busy")), "{v}");
    }
}

/// Before both sides have moved a game is aborted, not resigned or drawn (as on lichess): a
/// resignation and a draw offer are refused then, saying to abort instead.
#[test]
fn no_resignation_or_draw_offer_before_both_sides_have_moved() {
    let s = Server::start(&sqlite_url("serve-early-end"));
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id").to_string();
    let (w, b) = (token(&g, "white").expect("w"), token(&g, "black").expect("b"));
    let refusals = |s: &Server| {
        assert_refused(s.call("POST", &format!("/api/games/{id}/resign"), Some(&w), None), 400, "abort instead");
        let offer = Some(json!({ "action": "offer" }));
        assert_refused(s.call("POST", &format!("/api/games/{id}/draw"), Some(&b), offer), 400, "abort instead");
    };
    refusals(&s);
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(&w), Some(json!({ "move": "e4" })));
    refusals(&s);
    assert_eq!(state(&s, &id)["status"], "active");
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(&b), Some(json!({ "move": "e5" })));
    s.ok("POST", &format!("/api/games/{id}/draw"), Some(&w), Some(json!({ "action": "offer" })));
    let r = s.ok("POST", &format!("/api/games/{id}/resign"), Some(&b), None);
    assert_eq!(r["result"], "1-0");
}

/// The names `white` and `black` denote the captains: no member of either team takes them.
#[test]
fn a_member_may_not_take_a_captain_s_name() {
    let s = Server::start(&sqlite_url("serve-member-name"));
    let g = create(&s, json!({ "variant": "predictor", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id").to_string();
    let members = format!("/api/games/{id}/members");
    for (seat, name) in [("white", "black"), ("white", "White"), ("black", "WHITE"), ("black", "Black")] {
        let t = token(&g, seat);
        let body = Some(json!({ "name": name, "rank": 2 }));
        assert_refused(s.call("POST", &members, t.as_deref(), body), 400, "a captain's name");
    }
    s.ok("POST", &members, token(&g, "black").as_deref(), Some(json!({ "name": "whitey", "rank": 2 })));
    let st = state(&s, &id);
    assert_eq!(st["white_team"]["members"].as_array().map(Vec::len), Some(1), "{st}");
}

/// Every format character (Unicode's category Cf) goes from a chat message: the soft hyphen and
/// the zero-width joiner among them.
#[test]
fn chat_messages_lose_every_format_character() {
    let s = Server::start(&sqlite_url("serve-chat-cf"));
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let path = format!("/api/games/{}/chat", g["id"].as_str().expect("id"));
    let text = "soft\u{AD}ly \u{200D}joined\u{200C} \u{E0067}tags\u{E007F} \u{2069}";
    let m = s.ok("POST", &path, token(&g, "white").as_deref(), Some(json!({ "text": text })));
    assert_eq!(m["text"], "softly joined tags");
    let only = Some(json!({ "text": "\u{AD}\u{200D}\u{180E}" }));
    assert_refused(s.call("POST", &path, token(&g, "black").as_deref(), only), 400, "empty");
}

/// Smaller refusals: quoted input is cut in error messages; a blank FEN is the variant's start;
/// a Chess960 record without its FEN is refused; the live stream's refusal of a request that is
/// not a WebSocket handshake is JSON; a promotion without its piece is said to be one.
#[test]
fn refusals_say_what_is_wrong_in_few_words() {
    let s = Server::start(&sqlite_url("serve-refusals"));
    // A long bad record: the error quotes a little of it, not all.
    let junk = format!("1. {}", "Zz9".repeat(5000));
    let (status, v) = s.call(
        "POST",
        "/api/games",
        None,
        Some(json!({ "variant": "chess", "white": "me", "black": "me", "pgn": junk })),
    );
    assert_eq!(status, 400, "{v}");
    let e = v["error"].as_str().expect("error");
    assert!(e.chars().count() < 400 && e.contains('…'), "{e}");
    let (status, v) = s.call("POST", "/api/position", None, Some(json!({ "pgn": junk })));
    assert_eq!(status, 400, "{v}");
    let e = v["error"].as_str().expect("error");
    assert!(e.chars().count() < 400 && e.contains('…'), "{e}");
    // A blank FEN is none, as on the analysis board.
    for fen in ["", "  "] {
        let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me", "fen": fen }));
        assert_eq!(g["state"]["start_fen"], rules_start());
    }
    let g = create(&s, json!({ "variant": "chess960", "white": "me", "black": "me", "fen": " " }));
    assert!(g["state"]["options"]["chess960"].is_u64(), "a blank FEN draws the start: {g}");
    // A Chess960 record needs its start position.
    for (variant, pgn) in [
        ("chess960", "1. e4 e5 *"),
        ("chess960", "[Variant \"Chess960\"]\n\n1. e4 e5 *"),
        ("crazyhouse960", "1. e4 e5 *"),
    ] {
        let body = json!({ "variant": variant, "white": "me", "black": "me", "pgn": pgn });
        assert_refused(s.call("POST", "/api/games", None, Some(body)), 400, "a Chess960 record needs its FEN tag");
    }
    let fen = "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1";
    let g = create(&s, json!({ "variant": "chess960", "white": "me", "black": "me", "fen": fen, "pgn": "1. e4 e5 *" }));
    assert_eq!((g["state"]["start_fen"].as_str(), g["state"]["ply"].as_u64()), (Some(fen), Some(2)));
    // The live stream without a WebSocket handshake: a JSON refusal.
    let id = g["id"].as_str().expect("id");
    for path in [format!("/api/games/{id}/ws"), "/api/lobby/ws".to_string()] {
        let (status, v) = s.call("GET", &path, None, None);
        assert!((400..500).contains(&status), "{path}: {status} {v}");
        assert!(v["error"].as_str().is_some_and(|e| e.contains("WebSocket")), "{path}: {v}");
    }
    // A promotion without its piece.
    let g = create(
        &s,
        json!({ "variant": "chess", "white": "me", "black": "me", "fen": "8/4P3/8/8/8/8/k7/4K3 w - - 0 1" }),
    );
    let moves = format!("/api/games/{}/moves", g["id"].as_str().expect("id"));
    let body = Some(json!({ "move": "e7e8" }));
    assert_refused(
        s.call("POST", &moves, token(&g, "white").as_deref(), body),
        400,
        "a promotion needs its piece, e.g. e7e8q",
    );
    let line = format!("/api/position?variant=chess&fen={}&play=e7e8", urlencode("8/4P3/8/8/8/8/k7/4K3 w - - 0 1"));
    assert_refused(s.call("GET", &line, None, None), 400, "a promotion needs its piece, e.g. e7e8q");
    // Refusals the extractors write (a path that is not UTF-8, a raw body over the limit) are
    // JSON objects too.
    let (status, v) = s.call("GET", "/api/games/%ff", None, None);
    assert!(status == 400 && v["error"].as_str().is_some_and(|e| e.contains("UTF-8")), "{status} {v}");
    let resign = format!("/api/games/{}/resign", g["id"].as_str().expect("id"));
    let (status, v) = s.raw(&resign, &format!("{{\"x\": \"{}\"}}", "y".repeat(20_000)), token(&g, "white").as_deref());
    assert!(status == 0 || (status == 413 && v["error"].is_string()), "{status} {v}");
}

/// A rematch, as on lichess: once the game is over a player offers it, the opponent accepts or
/// declines; accepted, it is the same game with the colours swapped (clocks and start kept),
/// each player seated by a token the server hands them (the one who offered asks again), and
/// only one is made. Against the AI it is made at once; a seat nobody took has nobody to ask.
#[test]
fn rematches_between_people_and_against_the_ai() {
    for url in databases("serve-rematch") {
        rematches(&url);
    }
}

fn rematches(url: &str) {
    let s = Server::start(url);
    let fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let g = create(
        &s,
        json!({ "variant": "chess", "white": "me", "black": "invite", "fen": fen, "clock_seconds": 300, "increment_seconds": 2 }),
    );
    let id = g["id"].as_str().expect("id").to_string();
    let code = g["black"]["invite"].as_str().expect("a code");
    let joined = s.ok("POST", &format!("/api/games/{id}/join"), None, Some(json!({ "code": code })));
    let (w, b) = (token(&g, "white").expect("w"), joined["token"].as_str().expect("b").to_string());
    let rematch = format!("/api/games/{id}/rematch");
    let act = |t: &str, action: &str| s.call("POST", &rematch, Some(t), Some(json!({ "action": action })));
    assert_refused(act(&w, "offer"), 409, "not over");
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(&w), Some(json!({ "move": "O-O" })));
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(&b), Some(json!({ "move": "O-O-O" })));
    s.ok("POST", &format!("/api/games/{id}/resign"), Some(&b), None);
    assert_refused(act(&w, "accept"), 409, "no rematch offer");
    assert_refused(act(&w, "rematch"), 400, "unknown action");
    assert_refused(s.call("POST", &rematch, Some("0123"), Some(json!({ "action": "offer" }))), 403, "not valid");
    assert_eq!(s.ok("POST", &rematch, Some(&w), Some(json!({ "action": "offer" })))["rematch_offer"], "white");
    assert_eq!(state(&s, &id)["rematch_offer"], "white");
    assert_refused(act(&w, "offer"), 409, "stands already");
    assert_refused(act(&w, "decline"), 409, "your own offer");
    assert_eq!(s.ok("POST", &rematch, Some(&b), Some(json!({ "action": "decline" })))["rematch_offer"], Value::Null);
    assert_eq!(state(&s, &id)["rematch_offer"], Value::Null);
    s.ok("POST", &rematch, Some(&b), Some(json!({ "action": "offer" })));
    let made = s.ok("POST", &rematch, Some(&w), Some(json!({ "action": "accept" })));
    let new = made["game"].as_str().expect("the rematch's id").to_string();
    assert_eq!(made["color"], "black", "{made}");
    let st = state(&s, &id);
    assert_eq!((st["rematch"].as_str(), st["rematch_offer"].clone()), (Some(new.as_str()), Value::Null), "{st}");
    // The player who offered gets their seat by asking again; a decline comes too late.
    let theirs = s.ok("POST", &rematch, Some(&b), Some(json!({ "action": "offer" })));
    assert_eq!((theirs["game"].as_str(), theirs["color"].as_str()), (Some(new.as_str()), Some("white")));
    assert_eq!(s.ok("POST", &rematch, Some(&w), Some(json!({ "action": "accept" })))["token"], made["token"]);
    assert_refused(act(&b, "decline"), 409, "made already");
    // The seat tokens are not computable from the database, which holds the tokens' hashes: the
    // derivation of 0.3.0 (from the stored hash and the rematch's id) gives neither.
    for (t, seat) in [(&w, &made), (&b, &theirs)] {
        let legacy = sha256_hex(&format!("fairylab rematch {} {new}", sha256_hex(t)));
        assert_ne!(seat["token"].as_str(), Some(legacy.as_str()), "{seat}");
    }
    let ns = state(&s, &new);
    assert_eq!(
        (ns["start_fen"].as_str(), ns["white"].as_str(), ns["black"].as_str()),
        (Some(fen), Some("human"), Some("human"))
    );
    assert_eq!(ns["options"]["clock"], json!({ "initial_ms": 300_000, "increment_ms": 2000 }), "{ns}");
    // Still two people: no engine while they play (both seats were preset, which once made the
    // rematch a board of one person's with the engine's help).
    assert_eq!((ns["options"]["one_person"].clone(), ns["engine_help"].clone()), (Value::Null, json!(false)), "{ns}");
    assert_refused(
        s.call("POST", &format!("/api/games/{new}/analyse"), Some(made["token"].as_str().expect("t")), Some(json!({}))),
        409,
        "no engine during a game between two people",
    );
    // The colours are swapped: the former Black moves White's pieces, and not Black's.
    let (nw, nb) = (theirs["token"].as_str().expect("t"), made["token"].as_str().expect("t"));
    assert_refused(
        s.call("POST", &format!("/api/games/{new}/moves"), Some(nb), Some(json!({ "move": "Kd1" }))),
        409,
        "white's turn",
    );
    s.ok("POST", &format!("/api/games/{new}/moves"), Some(nw), Some(json!({ "move": "O-O" })));
    s.ok("POST", &format!("/api/games/{new}/moves"), Some(nb), Some(json!({ "move": "O-O-O" })));
    assert_refused(
        s.call("POST", &format!("/api/games/{new}/moves"), Some(&w), Some(json!({ "move": "Ra2" }))),
        403,
        "",
    );

    // One person at both seats: the rematch is theirs alone again, the engine's help kept.
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id").to_string();
    let (w, b) = (token(&g, "white").expect("w"), token(&g, "black").expect("b"));
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(&w), Some(json!({ "move": "e4" })));
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(&b), Some(json!({ "move": "e5" })));
    s.ok("POST", &format!("/api/games/{id}/resign"), Some(&w), None);
    s.ok("POST", &format!("/api/games/{id}/rematch"), Some(&w), Some(json!({ "action": "offer" })));
    let made = s.ok("POST", &format!("/api/games/{id}/rematch"), Some(&b), Some(json!({ "action": "accept" })));
    let ns = state(&s, made["game"].as_str().expect("the rematch's id"));
    assert_eq!((ns["options"]["one_person"].clone(), ns["engine_help"].clone()), (json!(true), json!(true)), "{ns}");

    // A Probabilistic game from a placement without its map: the rematch keeps the placement and
    // draws its map anew (it started from the standard position).
    let placement = "4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1";
    let g = create(
        &s,
        json!({ "variant": "probabilistic", "white": "me", "black": "ai", "fen": placement, "movetime_ms": 10 }),
    );
    let id = g["id"].as_str().expect("id").to_string();
    let w = token(&g, "white").expect("w");
    s.ok("POST", &format!("/api/games/{id}/abort"), Some(&w), None);
    let made = s.ok("POST", &format!("/api/games/{id}/rematch"), Some(&w), Some(json!({ "action": "offer" })));
    let ns = state(&s, made["game"].as_str().expect("made at once"));
    let start = ns["start_fen"].as_str().expect("a start");
    assert!(start.starts_with("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1 "), "{ns}");
    assert_ne!(start, g["state"]["start_fen"].as_str().expect("the first start"), "a map drawn anew");

    // Against the AI: made at once, the AI playing the other colour, the SnowFall percentage kept.
    let g = create(
        &s,
        json!({ "variant": "snowfall", "snowfall": 12, "white": "me", "black": "ai:level1", "movetime_ms": 10 }),
    );
    let id = g["id"].as_str().expect("id").to_string();
    let w = token(&g, "white").expect("w");
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(&w), Some(json!({ "move": "e4" })));
    wait_for_ply(&s, &id, 2, "the AI's reply");
    s.ok("POST", &format!("/api/games/{id}/resign"), Some(&w), None);
    let made = s.ok("POST", &format!("/api/games/{id}/rematch"), Some(&w), Some(json!({ "action": "offer" })));
    let new = made["game"].as_str().expect("made at once");
    let ns = wait_for_ply(&s, new, 1, "the AI's first move as White");
    assert_eq!(
        (made["color"].as_str(), ns["white"].as_str(), ns["black"].as_str()),
        (Some("black"), Some("ai:level1"), Some("human"))
    );
    assert_eq!((ns["options"]["snowfall"].as_u64(), ns["movetime_ms"].as_u64()), (Some(12), Some(10)), "{ns}");
    assert_eq!(ns["ply"], 1, "{ns}");

    // A seat never taken: nobody to offer the rematch to.
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "invite" }));
    let id = g["id"].as_str().expect("id").to_string();
    let w = token(&g, "white").expect("w");
    s.ok("POST", &format!("/api/games/{id}/abort"), Some(&w), None);
    let r = s.call("POST", &format!("/api/games/{id}/rematch"), Some(&w), Some(json!({ "action": "offer" })));
    assert_refused(r, 409, "nobody took black's seat");
}

/// The operator ends an abandoned game with their token (`--admin-token-file`): adjudicated or
/// aborted; without the token, or on a server that has none, the request is refused.
#[test]
fn the_operator_ends_an_abandoned_game() {
    let file = temp_path("serve-admin", "admin-token");
    let secret = "0123456789abcdef0123456789abcdef";
    std::fs::write(&file, format!("{secret}\n")).expect("the token file");
    let s = Server::start_with(&sqlite_url("serve-admin-db"), &["--admin-token-file", file.to_str().expect("a path")]);
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "invite" }));
    let id = g["id"].as_str().expect("id").to_string();
    let end = format!("/api/admin/games/{id}/end");
    let w = token(&g, "white").expect("w");
    assert_refused(s.call("POST", &end, Some(&w), Some(json!({ "result": "1-0" }))), 403, "not the operator's token");
    assert_refused(
        s.call("POST", &end, Some(secret), Some(json!({ "result": "2-0" }))),
        400,
        "use 1-0, 0-1, 1/2-1/2 or *",
    );
    let st = s.ok("POST", &end, Some(secret), Some(json!({ "result": "0-1" })));
    assert_eq!(
        (st["status"].as_str(), st["result"].as_str(), st["reason"].as_str()),
        (Some("finished"), Some("0-1"), Some("adjudication")),
        "{st}"
    );
    assert_refused(s.call("POST", &end, Some(secret), Some(json!({ "result": "*" }))), 409, "the game is over");
    let record = s.call("GET", &format!("/api/games/{id}/record"), None, None).1;
    assert!(record.as_str().is_some_and(|r| r.contains("[Termination \"adjudication\"]")), "{record}");
    // A Predictor game's record keeps the result (its own record format), and a game whose AI is
    // searching stops the search.
    let g = create(&s, json!({ "variant": "predictor", "white": "me", "black": "me" }));
    let pid = g["id"].as_str().expect("id").to_string();
    s.ok("POST", &format!("/api/admin/games/{pid}/end"), Some(secret), Some(json!({ "result": "1-0" })));
    let record = s.call("GET", &format!("/api/games/{pid}/record"), None, None).1;
    let text = record.as_str().unwrap_or_default();
    assert!(text.contains("[Result \"1-0\"]") && text.contains("[Termination \"adjudication\"]"), "{record}");
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "ai", "movetime_ms": 8000 }));
    let aid = g["id"].as_str().expect("id").to_string();
    s.ok("POST", &format!("/api/games/{aid}/moves"), token(&g, "white").as_deref(), Some(json!({ "move": "e4" })));
    let t0 = Instant::now();
    s.ok("POST", &format!("/api/admin/games/{aid}/end"), Some(secret), Some(json!({ "result": "*" })));
    while state(&s, &aid)["thinking"] == true {
        assert!(t0.elapsed() < Duration::from_secs(3), "the AI still searches an ended game");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(state(&s, &aid)["ply"], 1, "a move was written after the end");
    // A token too short to be a secret is refused at the start.
    let short = temp_path("serve-admin", "short-token");
    std::fs::write(&short, "admin\n").expect("the token file");
    let db = sqlite_url("serve-admin-short");
    common::assert_bad_input(
        &[
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--database-url",
            &db,
            "--admin-token-file",
            short.to_str().expect("a path"),
        ],
        "16 to 128 printable ASCII characters",
    );
    // A server without a token refuses every admin request.
    let plain = Server::start(&sqlite_url("serve-admin-none"));
    let g = create(&plain, json!({ "variant": "chess", "white": "me", "black": "invite" }));
    let id = g["id"].as_str().expect("id");
    let r = plain.call("POST", &format!("/api/admin/games/{id}/end"), Some(secret), Some(json!({ "result": "*" })));
    assert_refused(r, 403, "this server has no operator token");
}

/// The operator deletes a game that is not being played (`DELETE /api/admin/games/{id}`):
/// everything of it goes, its watchers are told, the explorer of its variant is counted again
/// without it; a game being played, no game, no token are refused.
#[test]
fn the_operator_deletes_a_finished_game() {
    for url in databases("serve-delete") {
        operator_deletes(&url);
    }
}

fn operator_deletes(url: &str) {
    let file = temp_path("serve-delete", "admin-token");
    let secret = "0123456789abcdef0123456789abcdef";
    std::fs::write(&file, format!("{secret}\n")).expect("the token file");
    let s = Server::start_with(url, &["--admin-token-file", file.to_str().expect("a path")]);
    let chess = json!({ "variant": "chess", "white": "me", "black": "me" });
    let gone = game_ended(&s, chess.clone(), &["e4", "e5"], "white resigns");
    let kept = game_ended(&s, chess.clone(), &["d4", "d5"], "black resigns");
    let start = counted(&s, "chess", 2);
    assert_eq!(start["moves"].as_array().map(Vec::len), Some(2), "{start}");
    let playing = create(&s, chess.clone());
    let playing = playing["id"].as_str().expect("id").to_string();
    // A watcher of the game to delete.
    let ws_url = s.url(&format!("/api/games/{gone}/ws")).replace("http://", "ws://");
    let (mut socket, _) = tungstenite::connect(ws_url).expect("websocket");
    socket.read().expect("state");
    let delete = |id: &str, token: Option<&str>| s.call("DELETE", &format!("/api/admin/games/{id}"), token, None);
    assert_refused(delete(&gone, None), 401, "this needs your game token");
    assert_refused(delete(&gone, Some("not-the-operator-token")), 403, "not the operator's token");
    assert_refused(delete(&playing, Some(secret)), 409, "the game is being played: end it first");
    assert_refused(delete("0123abcd", Some(secret)), 404, "no game");
    let v = s.ok("DELETE", &format!("/api/admin/games/{gone}"), Some(secret), None);
    assert_eq!((&v["deleted"], &v["explorer_recounted"]), (&json!(gone), &json!(true)), "{v}");
    let event = loop {
        let text = socket.read().expect("an event").into_text().expect("text").to_string();
        if text.contains("deleted") {
            break text;
        }
    };
    assert!(event.contains(r#""type":"deleted""#), "{event}");
    for path in ["", "/record", "/review"] {
        assert_refused(s.call("GET", &format!("/api/games/{gone}{path}"), None, None), 404, "no game");
    }
    assert_refused(delete(&gone, Some(secret)), 404, "no game");
    let listed = s.ok("GET", "/api/games", None, None);
    let ids: Vec<&str> = listed["games"].as_array().expect("games").iter().filter_map(|g| g["id"].as_str()).collect();
    assert!(!ids.contains(&gone.as_str()) && ids.contains(&kept.as_str()), "{listed}");
    // The explorer counts the chess games again, without the deleted one.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let start = s.ok("GET", "/api/explorer?variant=chess", None, None);
        let moves: Vec<&str> =
            start["moves"].as_array().expect("moves").iter().filter_map(|m| m["uci"].as_str()).collect();
        if moves == ["d2d4"] {
            break;
        }
        assert!(Instant::now() < deadline, "the explorer still shows {start}");
        std::thread::sleep(Duration::from_millis(50));
    }
    // A deleted rematch: the game it was the rematch of no longer links to it, at once, and its
    // watchers hear so (it linked to the deleted game until it was read back from the store).
    let g = create(&s, chess.clone());
    let (parent, w, b) =
        (g["id"].as_str().expect("id").to_string(), token(&g, "white").expect("w"), token(&g, "black").expect("b"));
    s.ok("POST", &format!("/api/games/{parent}/moves"), Some(&w), Some(json!({ "move": "e4" })));
    s.ok("POST", &format!("/api/games/{parent}/moves"), Some(&b), Some(json!({ "move": "e5" })));
    s.ok("POST", &format!("/api/games/{parent}/resign"), Some(&w), None);
    s.ok("POST", &format!("/api/games/{parent}/rematch"), Some(&w), Some(json!({ "action": "offer" })));
    let made = s.ok("POST", &format!("/api/games/{parent}/rematch"), Some(&b), Some(json!({ "action": "accept" })));
    let child = made["game"].as_str().expect("the rematch").to_string();
    assert_eq!(state(&s, &parent)["rematch"], json!(child));
    let ws_url = s.url(&format!("/api/games/{parent}/ws")).replace("http://", "ws://");
    let (mut socket, _) = tungstenite::connect(ws_url).expect("websocket");
    socket.read().expect("state");
    s.ok("POST", &format!("/api/admin/games/{child}/end"), Some(secret), Some(json!({ "result": "*" })));
    s.ok("DELETE", &format!("/api/admin/games/{child}"), Some(secret), None);
    assert_eq!(state(&s, &parent)["rematch"], Value::Null);
    let event = loop {
        let text = socket.read().expect("an event").into_text().expect("text").to_string();
        if text.contains("rematch_deleted") {
            break text;
        }
    };
    assert!(event.contains(&format!(r#""data":{{"game":"{child}"}}"#)), "{event}");
    // A game being played may be deleted once it is ended.
    s.ok("POST", &format!("/api/admin/games/{playing}/end"), Some(secret), Some(json!({ "result": "*" })));
    let v = s.ok("DELETE", &format!("/api/admin/games/{playing}"), Some(secret), None);
    assert_eq!(v["explorer_recounted"], false, "an aborted game was never counted: {v}");
    assert_eq!(state(&s, &kept)["status"], "finished");
}

/// A rematch offered before fairylab 0.3.1 (no seat recorded beside the offer) is still made
/// on acceptance after an upgrade, the player who offered seated by the legacy token.
#[test]
fn a_rematch_offered_before_the_upgrade_is_still_made() {
    let url = sqlite_url("serve-rematch-legacy");
    let s = Server::start(&url);
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "invite" }));
    let id = g["id"].as_str().expect("id").to_string();
    let code = g["black"]["invite"].as_str().expect("a code");
    let joined = s.ok("POST", &format!("/api/games/{id}/join"), None, Some(json!({ "code": code })));
    let (w, b) = (token(&g, "white").expect("w"), joined["token"].as_str().expect("b").to_string());
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(&w), Some(json!({ "move": "e4" })));
    s.ok("POST", &format!("/api/games/{id}/moves"), Some(&b), Some(json!({ "move": "e5" })));
    s.ok("POST", &format!("/api/games/{id}/resign"), Some(&b), None);
    s.kill();
    // Black's offer as 0.3.0 recorded it: the side alone.
    tokio::runtime::Runtime::new().expect("a runtime").block_on(async {
        let store = server::store::open(&url).await.expect("the store");
        assert!(store.offer_rematch(&id, Some("black"), None).await.expect("the offer"));
        store.close().await;
    });
    let s = Server::start(&url);
    let rematch = format!("/api/games/{id}/rematch");
    let made = s.ok("POST", &rematch, Some(&w), Some(json!({ "action": "accept" })));
    let theirs = s.ok("POST", &rematch, Some(&b), Some(json!({ "action": "offer" })));
    let new = made["game"].as_str().expect("the rematch").to_string();
    assert_eq!((theirs["game"].as_str(), theirs["color"].as_str()), (Some(new.as_str()), Some("white")), "{theirs}");
    let legacy = sha256_hex(&format!("fairylab rematch {} {new}", sha256_hex(&b)));
    assert_eq!(theirs["token"].as_str(), Some(legacy.as_str()), "{theirs}");
    let moves = format!("/api/games/{new}/moves");
    s.ok("POST", &moves, theirs["token"].as_str(), Some(json!({ "move": "d4" })));
    s.ok("POST", &moves, made["token"].as_str(), Some(json!({ "move": "d5" })));
}

/// A move that reads but is not legal is refused with its reason, in a player's words.
#[test]
fn an_illegal_move_is_refused_with_its_reason() {
    let s = Server::start(&sqlite_url("serve-why-illegal"));
    let g = create(&s, json!({ "variant": "crazyhouse", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id").to_string();
    let w = token(&g, "white").expect("w");
    let moves = format!("/api/games/{id}/moves");
    for (text, why) in [
        ("Q@e4", "illegal move 'Q@e4': white holds no queen"),
        ("e3e4", "illegal move 'e3e4': there is no piece on e3"),
        ("g1g3", "illegal move 'g1g3': the knight on g1 cannot move so"),
        ("e7e5", "illegal move 'e7e5': the pawn on e7 is black's, and white is to move"),
    ] {
        assert_refused(s.call("POST", &moves, Some(&w), Some(json!({ "move": text }))), 400, why);
    }
}

#[test]
fn the_site_is_served_under_a_base_path() {
    let db = temp_path("serve-base-path", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let s = Server::start_with(&format!("sqlite://{}", db.display()), &["--base-path", "club/chess/"]);
    // The address line names the base, and everything lives below it.
    assert!(s.base.ends_with("/club/chess"), "{}", s.base);
    let root = s.base.trim_end_matches("/club/chess").to_string();
    assert_eq!(s.ok("GET", "/api/health", None, None)["status"], "ok");
    // The API's description names the base as its server, for clients generated from it.
    assert_eq!(
        s.ok("GET", "/api/openapi.json", None, None)["servers"],
        json!([{ "url": "/club/chess", "description": "this server's base path" }])
    );
    // The page, at the base with or without its slash and at a game's address, points below it.
    for path in ["", "/", "/game/abc", "/analysis"] {
        let page = ureq::get(&s.url(path)).call().expect("the page").into_string().expect("html");
        assert!(page.contains("<meta name=\"fairylab-base\" content=\"/club/chess\">"), "{path}: {page}");
        assert!(page.contains("src=\"/club/chess/static/js/app.js\""), "{path}: {page}");
    }
    let script = ureq::get(&s.url("/static/js/api.js")).call().expect("a script").into_string().expect("js");
    assert!(script.contains("fairylab-base"));
    // Outside the base: refused, saying where the site is.
    for path in ["/api/health", "/", "/club", "/club/chessx/api/health", "/static/js/app.js"] {
        match ureq::get(&format!("{root}{path}")).call() {
            Err(ureq::Error::Status(404, r)) => {
                let v: Value = r.into_json().expect("json");
                assert!(v["error"].as_str().is_some_and(|e| e.contains("served under /club/chess/")), "{path}: {v}");
            }
            other => panic!("{path}: {other:?}"),
        }
    }
    // A game played under the base: moves, its live stream, the paged list's `next` and the
    // plain game list's links carry the base.
    let g = create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let id = g["id"].as_str().expect("id").to_string();
    let ws_url = s.url(&format!("/api/games/{id}/ws")).replace("http://", "ws://");
    let (mut socket, _) = tungstenite::connect(ws_url).expect("a stream under the base");
    socket.read().expect("the state");
    s.ok("POST", &format!("/api/games/{id}/moves"), token(&g, "white").as_deref(), Some(json!({ "move": "e2e4" })));
    create(&s, json!({ "variant": "chess", "white": "me", "black": "me" }));
    let page = s.ok("GET", "/api/games?limit=1", None, None);
    let next = page["next"].as_str().expect("a next page");
    assert!(next.starts_with("/club/chess/api/games?after="), "{next}");
    let second = ureq::get(&format!("{root}{next}")).call().expect("next").into_json::<Value>().expect("json");
    assert_eq!(second["games"][0]["id"], id.as_str());
    let lobby = ureq::get(&s.url("/lobby")).call().expect("lobby").into_string().expect("html");
    assert!(lobby.contains(&format!("href=\"/club/chess/api/games/{id}/record\"")), "{lobby}");
    // `fairylab export` follows the pages under the base.
    let out = temp_path("serve-base-path", "all.pgn");
    let o = fairylab(&["export", "--server", &s.base, "--status", "all", "--out", out.to_str().expect("path")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let pgn = std::fs::read_to_string(&out).expect("the export");
    assert_eq!(pgn.matches("[Event ").count(), 2, "{pgn}");
    assert!(pgn.contains("1. e4"), "{pgn}");
}

#[test]
fn a_bad_base_path_is_refused_at_start() {
    for (path, says) in
        [("/a b", "' ' is not allowed"), ("/a/../b", "'..'"), ("a//b", "empty"), ("/caf\u{e9}", "not allowed")]
    {
        let o = fairylab(&["serve", "--listen", "127.0.0.1:0", "--base-path", path]);
        assert!(!o.status.success(), "{path}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "{path}: {err}");
    }
}
