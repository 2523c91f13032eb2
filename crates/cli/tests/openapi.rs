//! docs/openapi.json against the real server: `fairylab serve` on a fresh SQLite file, every
//! documented endpoint called with valid requests and with the refusals that are cheap to
//! bring about (no token, a forged token, no such game, a body that is not JSON, sent as
//! another type, too large, of the wrong shape, ...). Each reply's status must be one the
//! document lists for the operation, its content type one it describes, and its body must
//! validate against the documented schema (a small JSON Schema validator below); each JSON
//! body of a request the server accepted must validate against the request's schema.

mod common;

use common::{fairylab, temp_path};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::process::Child;
use std::time::{Duration, Instant};

const SPEC: &str = include_str!("../../../docs/openapi.json");

/// The operator's token the server is started with.
const OPERATOR: &str = "operator-token-0123456789abcdef";

/// A position of the KR.K table: White mates in 14 (its verdict shows in states and lines).
const KRK: &str = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";

// ---------------------------------------------------------------------------------------------
// A small validator for the parts of JSON Schema (2020-12, as OpenAPI 3.1 uses it) that
// docs/openapi.json uses. A keyword it does not know is an error, so that the document cannot
// use one the test would silently ignore.

/// Keywords that only annotate (`pattern` is not checked: no regex engine among the
/// dependencies).
const ANNOTATIONS: &[&str] = &["description", "default", "title", "examples", "format", "pattern"];

/// The schema a `$ref` (`#/...`, a JSON pointer into the document) names.
fn resolve<'a>(spec: &'a Value, reference: &str) -> Option<&'a Value> {
    spec.pointer(reference.strip_prefix('#')?)
}

fn type_matches(name: &str, v: &Value) -> bool {
    match name {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64(),
        _ => false,
    }
}

/// The reasons `v` does not validate against `schema` (none: it does), each at its JSON path.
fn validate(spec: &Value, schema: &Value, v: &Value, at: &str) -> Vec<String> {
    let mut errs = Vec::new();
    check(spec, schema, v, at, &mut errs);
    errs
}

fn check(spec: &Value, schema: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
    let Some(s) = schema.as_object() else {
        if schema != &Value::Bool(true) {
            errs.push(format!("{at}: the schema {schema} is not an object"));
        }
        return;
    };
    for (key, arg) in s {
        match key.as_str() {
            k if ANNOTATIONS.contains(&k) => {}
            "$ref" => match arg.as_str().and_then(|r| resolve(spec, r)) {
                Some(target) => check(spec, target, v, at, errs),
                None => errs.push(format!("{at}: the $ref {arg} does not resolve")),
            },
            "type" => {
                let names: Vec<&str> = match arg {
                    Value::String(t) => vec![t.as_str()],
                    Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                    _ => vec![],
                };
                if !names.iter().any(|t| type_matches(t, v)) {
                    errs.push(format!("{at}: {} is not of type {arg}", short(v)));
                }
            }
            "enum" => {
                if !arg.as_array().is_some_and(|e| e.contains(v)) {
                    errs.push(format!("{at}: {} is not one of {arg}", short(v)));
                }
            }
            "const" => {
                if arg != v {
                    errs.push(format!("{at}: {} is not {arg}", short(v)));
                }
            }
            "minimum" | "maximum" => {
                if let (Some(x), Some(bound)) = (v.as_f64(), arg.as_f64()) {
                    if (key == "minimum" && x < bound) || (key == "maximum" && x > bound) {
                        errs.push(format!("{at}: {x} is beyond the {key} {bound}"));
                    }
                }
            }
            "minLength" | "maxLength" => {
                if let (Some(text), Some(bound)) = (v.as_str(), arg.as_u64()) {
                    let n = text.chars().count() as u64;
                    if (key == "minLength" && n < bound) || (key == "maxLength" && n > bound) {
                        errs.push(format!("{at}: a string of {n} characters is beyond the {key} {bound}"));
                    }
                }
            }
            "minItems" | "maxItems" => {
                if let (Some(items), Some(bound)) = (v.as_array(), arg.as_u64()) {
                    let n = items.len() as u64;
                    if (key == "minItems" && n < bound) || (key == "maxItems" && n > bound) {
                        errs.push(format!("{at}: an array of {n} items is beyond the {key} {bound}"));
                    }
                }
            }
            "required" => {
                if let Some(o) = v.as_object() {
                    for name in arg.as_array().into_iter().flatten().filter_map(Value::as_str) {
                        if !o.contains_key(name) {
                            errs.push(format!("{at}: the required field {name:?} is missing"));
                        }
                    }
                }
            }
            "properties" => {
                if let (Some(o), Some(props)) = (v.as_object(), arg.as_object()) {
                    for (name, value) in o {
                        if let Some(p) = props.get(name) {
                            check(spec, p, value, &format!("{at}.{name}"), errs);
                        }
                    }
                }
            }
            "additionalProperties" => {
                if let Some(o) = v.as_object() {
                    let props = s.get("properties").and_then(Value::as_object);
                    for (name, value) in o {
                        if props.is_some_and(|p| p.contains_key(name)) {
                            continue;
                        }
                        match arg {
                            Value::Bool(false) => errs.push(format!("{at}: the field {name:?} is not documented")),
                            Value::Bool(true) => {}
                            extra => check(spec, extra, value, &format!("{at}.{name}"), errs),
                        }
                    }
                }
            }
            "items" => {
                if let Some(items) = v.as_array() {
                    for (k, item) in items.iter().enumerate() {
                        check(spec, arg, item, &format!("{at}[{k}]"), errs);
                    }
                }
            }
            "allOf" => {
                for sub in arg.as_array().into_iter().flatten() {
                    check(spec, sub, v, at, errs);
                }
            }
            "anyOf" | "oneOf" => {
                let branches: Vec<Vec<String>> =
                    arg.as_array().into_iter().flatten().map(|sub| validate(spec, sub, v, at)).collect();
                let passed = branches.iter().filter(|e| e.is_empty()).count();
                if passed == 0 {
                    // The reasons of the branch that came closest.
                    let why = branches.iter().min_by_key(|e| e.len()).map(|e| e.join("; ")).unwrap_or_default();
                    errs.push(format!("{at}: {} matches no branch of {key} (the closest: {why})", short(v)));
                } else if key == "oneOf" && passed > 1 {
                    errs.push(format!("{at}: {} matches {passed} branches of oneOf", short(v)));
                }
            }
            "not" => {
                if validate(spec, arg, v, at).is_empty() {
                    errs.push(format!("{at}: {} matches a schema it must not", short(v)));
                }
            }
            other => errs.push(format!("{at}: the validator does not know the keyword {other:?}")),
        }
    }
}

/// A value cut for an error message.
fn short(v: &Value) -> String {
    let t = v.to_string();
    if t.chars().count() > 120 {
        format!("{}...", t.chars().take(120).collect::<String>())
    } else {
        t
    }
}

/// Every `$ref` of the document resolves.
fn refs_resolve(spec: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                if k == "$ref" && x.as_str().and_then(|r| resolve(spec, r)).is_none() {
                    errs.push(format!("{at}: the $ref {x} does not resolve"));
                }
                refs_resolve(spec, x, &format!("{at}/{k}"), errs);
            }
        }
        Value::Array(a) => {
            for (k, x) in a.iter().enumerate() {
                refs_resolve(spec, x, &format!("{at}/{k}"), errs);
            }
        }
        _ => {}
    }
}

/// Every `examples` entry of the document, each beside the schema it illustrates.
fn examples<'a>(v: &'a Value, at: &str, found: &mut Vec<(String, &'a Value, &'a Value)>) {
    match v {
        Value::Object(o) => {
            if let Some(Value::Array(xs)) = o.get("examples") {
                for x in xs {
                    found.push((at.to_string(), v, x));
                }
            }
            for (k, x) in o {
                examples(x, &format!("{at}/{k}"), found);
            }
        }
        Value::Array(a) => {
            for (k, x) in a.iter().enumerate() {
                examples(x, &format!("{at}/{k}"), found);
            }
        }
        _ => {}
    }
}

#[test]
fn every_example_fits_its_schema() {
    let spec: Value = serde_json::from_str(SPEC).expect("docs/openapi.json is JSON");
    let mut found = Vec::new();
    examples(&spec, "#", &mut found);
    assert!(found.len() >= 20, "the request bodies have examples: {} found", found.len());
    let errs: Vec<String> = found
        .iter()
        .flat_map(|(at, schema, x)| validate(&spec, schema, x, &format!("{at} example {}", short(x))))
        .collect();
    assert!(errs.is_empty(), "{errs:#?}");
    // The validator sees a wrong example: one of another shape fails.
    let (at, schema, _) = &found[0];
    assert!(!validate(&spec, schema, &json!({ "no such field": 1 }), at).is_empty());
}

#[test]
fn the_validator_checks_what_it_claims() {
    let spec = json!({ "components": { "schemas": {
        "Side": { "enum": ["white", "black"] },
        "Thing": {
            "type": "object",
            "properties": {
                "n": { "type": "integer", "minimum": 1 },
                "side": { "$ref": "#/components/schemas/Side" },
                "maybe": { "type": ["string", "null"], "maxLength": 3 },
                "list": { "type": "array", "items": { "type": "boolean" }, "maxItems": 2 },
                "one": { "oneOf": [{ "type": "integer" }, { "type": "number" }] }
            },
            "required": ["n"],
            "additionalProperties": false
        }
    } } });
    let thing = json!({ "$ref": "#/components/schemas/Thing" });
    let ok = |v: Value| validate(&spec, &thing, &v, "$");
    assert_eq!(ok(json!({ "n": 1, "side": "white", "maybe": null, "list": [true], "one": 1.5 })), Vec::<String>::new());
    for bad in [
        json!({}),
        json!({ "n": 0 }),
        json!({ "n": 1.5 }),
        json!({ "n": 1, "side": "red" }),
        json!({ "n": 1, "maybe": "long" }),
        json!({ "n": 1, "maybe": 3 }),
        json!({ "n": 1, "list": [1] }),
        json!({ "n": 1, "list": [true, true, true] }),
        json!({ "n": 1, "extra": true }),
        json!({ "n": 1, "one": 2 }),
        json!([]),
    ] {
        assert!(!ok(bad.clone()).is_empty(), "{bad} passed");
    }
    assert!(!validate(&spec, &json!({ "$ref": "#/nowhere" }), &json!(1), "$").is_empty());
    assert!(!validate(&spec, &json!({ "typo": 1 }), &json!(1), "$").is_empty());
}

// ---------------------------------------------------------------------------------------------
// The server and the requests.

/// A `fairylab serve` process; killed when dropped.
struct Server {
    child: Child,
    base: String,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let (child, base) = common::spawn_server(&[&["--ai-workers", "1", "--analysis-workers", "1"], args].concat());
        Server { child, base }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A request's body.
enum Body {
    None,
    /// Sent as `application/json`.
    Json(Value),
    /// Sent as it is, with this content type.
    Raw(&'static str, String),
}

/// A body just over the 16 KiB the server accepts.
fn too_large() -> Body {
    Body::Raw("application/json", format!("{{\"x\": \"{}\"}}", "y".repeat(17 * 1024)))
}

fn malformed() -> Body {
    Body::Raw("application/json", "{\"move\": ".into())
}

fn not_json(text: &str) -> Body {
    Body::Raw("text/plain", text.into())
}

/// A reply: status, media type (without parameters), `Retry-After`, body.
struct Reply {
    status: u16,
    media: String,
    retry_after: Option<String>,
    text: String,
}

/// Sends a request to the server at `base` (no checks: [`Api::check`] does them).
fn send(base: &str, method: &str, path_and_query: &str, token: Option<&str>, body: Body) -> Result<Reply, String> {
    let mut req = ureq::request(method, &format!("{base}{path_and_query}")).timeout(Duration::from_secs(30));
    if let Some(t) = token {
        req = req.set("Authorization", &format!("Bearer {t}"));
    }
    let res = match body {
        Body::None => req.call(),
        Body::Json(v) => req.send_json(v),
        Body::Raw(ct, text) => req.set("Content-Type", ct).send_string(&text),
    };
    let resp = match res {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => return Err(e.to_string()),
    };
    let status = resp.status();
    let media = resp.header("content-type").unwrap_or("").split(';').next().unwrap_or("").trim().to_string();
    let retry_after = resp.header("retry-after").map(str::to_string);
    let text = resp.into_string().map_err(|e| e.to_string())?;
    Ok(Reply { status, media, retry_after, text })
}

/// The server with the document: every call is checked against it; what does not match is
/// collected, and reported all at once at the end.
struct Api {
    server: Server,
    spec: Value,
    /// (method, path as documented) → the statuses seen.
    seen: RefCell<BTreeMap<(String, String), BTreeSet<u16>>>,
    failures: RefCell<Vec<String>>,
}

impl Api {
    fn fail(&self, what: String) {
        self.failures.borrow_mut().push(what);
    }

    /// Calls `method` on `path` (the documented path, `{id}` replaced by `id`, then `query`)
    /// with `token` and `body`; checks the reply against the document and that its status is
    /// one of `expect`; returns the reply's body (JSON, or the text as a string).
    #[allow(clippy::too_many_arguments)]
    fn call_any(
        &self,
        method: &str,
        path: &str,
        id: &str,
        query: &str,
        token: Option<&str>,
        body: Body,
        expect: &[u16],
    ) -> Value {
        let what = format!("{method} {}{query}", path.replace("{id}", id));
        let sent = match &body {
            Body::Json(v) => Some(v.clone()),
            _ => None,
        };
        match send(&self.server.base, method, &format!("{}{query}", path.replace("{id}", id)), token, body) {
            Ok(reply) => self.check(method, path, &what, &reply, sent.as_ref(), expect),
            Err(e) => {
                self.fail(format!("{what}: {e}"));
                Value::Null
            }
        }
    }

    /// Checks a reply to `method` on the documented `path` (`what`: the request, for the
    /// messages; `sent`: its JSON body) and returns its body.
    fn check(
        &self,
        method: &str,
        path: &str,
        what: &str,
        reply: &Reply,
        sent: Option<&Value>,
        expect: &[u16],
    ) -> Value {
        let Reply { status, media, retry_after, text } = reply;
        let status = *status;
        let parsed: Option<Value> = if media == "application/json" { serde_json::from_str(text).ok() } else { None };
        let value = parsed.clone().unwrap_or_else(|| Value::String(text.clone()));
        if !expect.contains(&status) {
            self.fail(format!("{what}: status {status}, expected {expect:?}: {}", short(&value)));
        }
        self.seen.borrow_mut().entry((method.to_lowercase(), path.to_string())).or_default().insert(status);
        let Some(op) = self.spec["paths"][path].get(method.to_lowercase()) else {
            self.fail(format!("{what}: the operation is not documented"));
            return value;
        };
        let Some(response) = op["responses"].get(status.to_string()) else {
            self.fail(format!("{what}: status {status} is not documented ({})", short(&value)));
            return value;
        };
        let Some(content) = response["content"].get(media) else {
            self.fail(format!(
                "{what}: status {status} with content type {media:?}, not documented ({})",
                short(&value)
            ));
            return value;
        };
        if media == "application/json" && parsed.is_none() {
            self.fail(format!("{what}: status {status}: the body is not JSON: {text:?}"));
        }
        for e in validate(&self.spec, &content["schema"], &value, "$") {
            self.fail(format!("{what}: status {status}: {e}"));
        }
        if let Some(headers) = response["headers"].as_object() {
            if headers.contains_key("Retry-After") && retry_after.is_none() {
                self.fail(format!("{what}: status {status} without the documented Retry-After"));
            }
        }
        // What the server accepted, the document must accept too.
        if let (true, Some(sent)) = ((200..300).contains(&status), sent) {
            let schema = &op["requestBody"]["content"]["application/json"]["schema"];
            if schema.is_null() {
                self.fail(format!("{what}: a JSON body was accepted, but the operation documents none"));
            }
            for e in validate(&self.spec, schema, sent, "request") {
                self.fail(format!("{what}: the request the server accepted does not validate: {e}"));
            }
        }
        value
    }

    fn call(&self, method: &str, path: &str, id: &str, token: Option<&str>, body: Body, expect: u16) -> Value {
        self.call_any(method, path, id, "", token, body, &[expect])
    }

    fn get(&self, path: &str, id: &str, query: &str, token: Option<&str>, expect: u16) -> Value {
        self.call_any("GET", path, id, query, token, Body::None, &[expect])
    }

    fn post(&self, path: &str, id: &str, token: Option<&str>, body: Value, expect: u16) -> Value {
        self.call("POST", path, id, token, Body::Json(body), expect)
    }

    /// Creates a game (201); returns (id, white's token, black's token, the reply).
    fn create(&self, body: Value) -> (String, String, String, Value) {
        let g = self.post("/api/games", "", None, body, 201);
        let field = |v: &Value| v.as_str().unwrap_or_default().to_string();
        (field(&g["id"]), field(&g["white"]["token"]), field(&g["black"]["token"]), g)
    }

    /// The examples of an operation's JSON request body (POST `path`).
    fn examples(&self, path: &str) -> Vec<Value> {
        let pointer = format!(
            "/paths/{}/post/requestBody/content/application~1json/schema/examples",
            path.replace('~', "~0").replace('/', "~1")
        );
        self.spec
            .pointer(&pointer)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_else(|| panic!("no examples for POST {path}"))
    }

    fn state(&self, id: &str) -> Value {
        self.get("/api/games/{id}", id, "", None, 200)
    }

    /// The refusals every operation with a JSON body makes: malformed (400), too large (413),
    /// not sent as JSON (415) and of the wrong shape (422: an unknown field, not an object).
    fn bad_bodies(&self, path: &str, id: &str, token: Option<&str>) {
        self.call("POST", path, id, token, malformed(), 400);
        self.call("POST", path, id, token, too_large(), 413);
        self.call("POST", path, id, token, not_json("{}"), 415);
        self.post(path, id, token, json!({ "no_such_field": 1 }), 422);
        self.post(path, id, token, json!([1, 2]), 422);
    }

    /// The refusals every operation with a token makes: none (401), a forged one (403), a game
    /// that does not exist (404, with a valid token of another game).
    fn bad_tokens(&self, method: &str, path: &str, id: &str, token: &str, body: Value) {
        let b = || if method == "POST" { Body::Json(body.clone()) } else { Body::None };
        self.call(method, path, id, None, b(), 401);
        self.call(method, path, id, Some(&"0".repeat(64)), b(), 403);
        self.call(method, path, "ffffffffffffffff", Some(token), b(), 404);
    }
}

/// Waits until the game's AI has answered (its ply reaches `plies` and it is not thinking).
fn wait_for_ai(api: &Api, id: &str, plies: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let st = api.state(id);
        if st["ply"].as_u64() >= Some(plies) && st["thinking"] == false {
            return st;
        }
        assert!(Instant::now() < deadline, "the AI did not move: {st}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A sealed order for a Predictor ply: (commitment, reveal line).
fn seal(game: &str, ply: u32, side: rules::Color, orders: &str) -> (String, String) {
    let (r, c) = rules::predictor::commit::Reveal::seal(game, ply, side, orders).expect("sealed");
    (c.to_string(), r.to_line())
}

#[test]
fn the_openapi_file_describes_what_the_server_answers() {
    let started = Instant::now();
    let spec: Value = serde_json::from_str(SPEC).expect("docs/openapi.json is JSON");
    let mut errs = Vec::new();
    refs_resolve(&spec, &spec, "#", &mut errs);
    assert!(errs.is_empty(), "{errs:#?}");
    // Endgame tables (KR.K), so that states, lines and analyses carry a verdict to check.
    let table = temp_path("openapi", "KR.K.egt");
    if !table.exists() {
        let o = fairylab(&["egt", "KR.K", "--out", table.to_str().expect("utf-8")]);
        assert!(o.status.success(), "{}", common::stderr(&o));
    }
    let db = temp_path("openapi", "games.sqlite3");
    let _ = std::fs::remove_file(&db);
    let operator_file = temp_path("openapi", "operator-token");
    std::fs::write(&operator_file, OPERATOR).expect("the operator's token file");
    let server = Server::start(&[
        "--database-url",
        &format!("sqlite://{}", db.display()),
        "--tables",
        table.to_str().expect("utf-8"),
        "--admin-token-file",
        operator_file.to_str().expect("utf-8"),
    ]);
    let api = Api { server, spec, seen: Default::default(), failures: Default::default() };

    // The documentation, the variants, the games list.
    api.get("/api", "", "", None, 200);
    let served = api.get("/api/openapi.json", "", "", None, 200);
    assert_eq!(served, api.spec, "GET /api/openapi.json serves docs/openapi.json");
    api.get("/api/variants", "", "", None, 200);
    api.get("/api/health", "", "", None, 200);
    api.get("/api/games", "", "?foo=1", None, 400);

    // Creating games: every kind of seat and option, and the refusals.
    let games = "/api/games";
    api.create(json!({ "variant": "chess960", "white": "me", "black": "me" }));
    api.create(json!({ "variant": "probabilistic", "white": "me", "black": "me", "movetime_ms": null }));
    api.create(
        json!({ "variant": "crazyhouse", "white": "me", "black": "me", "fen": null, "pgn": "1. e4 d5 2. exd5" }),
    );
    let (mated, _, _, _) =
        api.create(json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "1. f3 e5 2. g4 Qh4# 0-1" }));
    api.create(json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "1. e4 e5 0-1" }));
    // A finished record's own tags, kept in the state's options.
    let (.., archived) = api.create(
        json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "[Event \"Club\"]\n[WhiteElo \"1500\"]\n\n1. e4 e5 1-0" }),
    );
    assert_eq!(
        archived["state"]["options"]["import_tags"],
        json!([["Event", "Club"], ["WhiteElo", "1500"]]),
        "{archived}"
    );
    let toml =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/data/variants/losalamos.toml"))
            .expect("the Los Alamos file");
    let name = toml.lines().find_map(|l| l.strip_prefix("name = ")).expect("a name").trim_matches('"').to_string();
    api.create(json!({ "variant": name, "variant_toml": toml, "white": "me", "black": "me" }));
    // The document's examples of a new game are games the server creates, and those of the
    // analysis board's requests are answered (the variation of the PGN example was illegal).
    for example in api.examples(games) {
        api.create(example);
    }
    for path in ["/api/position", "/api/position/pgn", "/api/analyse"] {
        for example in api.examples(path) {
            api.post(path, "", None, example, 200);
        }
    }
    api.post(games, "", None, json!({ "variant": "nope", "white": "me", "black": "me" }), 400);
    api.post(games, "", None, json!({ "variant": "chess", "white": "you", "black": "me" }), 400);
    // A record that goes on after the game's end.
    api.post(
        games,
        "",
        None,
        json!({ "variant": "chess", "white": "me", "black": "me", "pgn": "1. f3 e5 2. g4 Qh4# 3. a3" }),
        400,
    );
    api.post(games, "", None, json!({ "variant": 5, "white": "me", "black": "me" }), 422);
    api.post(games, "", None, json!({ "white": "me", "black": "me" }), 422);
    api.bad_bodies(games, "", None);

    // One person on both seats, from a KR.K position: the engine and the tables help.
    let (krk, kw, _, _) = api.create(json!({ "variant": "chess", "white": "me", "black": "me", "fen": KRK }));
    let st = api.state(&krk);
    assert!(st["tablebase"].is_object(), "the state carries the tables' verdict: {st}");
    let analyse = "/api/games/{id}/analyse";
    let a = api.post(analyse, &krk, None, json!({ "movetime_ms": 10, "lines": 2 }), 200);
    assert!(a["tablebase"].is_object(), "{a}");
    api.post("/api/games/{id}/moves", &krk, Some(&kw), json!({ "move": "a1a5", "ply": 0 }), 200);
    api.post(analyse, &krk, None, json!({ "ply": 0, "movetime_ms": 10, "lines": null }), 200);
    api.post(analyse, &krk, None, json!({ "ply": 9 }), 400);
    api.post(analyse, &krk, None, json!({ "movetime_ms": 1 }), 400);
    api.post(analyse, &krk, None, json!({ "depth": 3 }), 422);
    api.bad_bodies(analyse, &krk, None);
    api.post(analyse, "ffffffffffffffff", None, json!({}), 404);

    // A game between one person's two seats: moves, takebacks, draws, then the finished game's
    // review and record.
    let (g1, w1, b1, _) = api.create(json!({ "variant": "chess", "white": "me", "black": "me" }));
    let moves = "/api/games/{id}/moves";
    api.post(moves, &g1, Some(&w1), json!({ "move": "e2e4", "ply": 0 }), 200);
    let again = api.post(moves, &g1, Some(&w1), json!({ "move": "e2e4", "ply": 0 }), 200);
    assert_eq!(again["repeated"], true, "{again}");
    api.post(moves, &g1, Some(&w1), json!({ "move": "d2d4" }), 409);
    api.post(moves, &g1, Some(&b1), json!({ "move": "e7e4" }), 400);
    api.post(moves, &g1, Some(&b1), json!({ "move": "e7e5", "ply": 0 }), 409);
    api.post(moves, &g1, Some(&b1), json!({ "move": 5 }), 422);
    api.bad_tokens("POST", moves, &g1, &b1, json!({ "move": "e7e5" }));
    api.bad_bodies(moves, &g1, Some(&b1));
    let takeback = "/api/games/{id}/takeback";
    api.post(takeback, &g1, Some(&w1), json!({ "action": "propose" }), 200);
    assert_eq!(api.state(&g1)["takeback_offer"], "white");
    api.post(takeback, &g1, Some(&w1), json!({ "action": "propose" }), 409);
    api.post(takeback, &g1, Some(&b1), json!({ "action": "decline" }), 200);
    api.post(takeback, &g1, Some(&w1), json!({ "action": "propose" }), 200);
    let t = api.post(takeback, &g1, Some(&b1), json!({ "action": "accept" }), 200);
    assert_eq!(t["ply"], 0, "{t}");
    api.post(takeback, &g1, Some(&w1), json!({ "action": "nope" }), 400);
    api.bad_tokens("POST", takeback, &g1, &w1, json!({ "action": "propose" }));
    api.bad_bodies(takeback, &g1, Some(&w1));
    api.post(moves, &g1, Some(&w1), json!({ "move": "e4" }), 200);
    api.post(moves, &g1, Some(&b1), json!({ "move": "e7e5", "ply": 1 }), 200);
    let draw = "/api/games/{id}/draw";
    api.post(draw, &g1, Some(&w1), json!({ "action": "accept" }), 409);
    api.post(draw, &g1, Some(&w1), json!({ "action": "offer" }), 200);
    assert_eq!(api.state(&g1)["draw_offer"], "white");
    api.post(draw, &g1, Some(&w1), json!({ "action": "offer" }), 409);
    api.post(draw, &g1, Some(&b1), json!({ "action": "decline" }), 200);
    api.post(draw, &g1, Some(&w1), json!({ "action": "nope" }), 400);
    api.bad_tokens("POST", draw, &g1, &w1, json!({ "action": "offer" }));
    api.bad_bodies(draw, &g1, Some(&w1));
    api.post(draw, &g1, Some(&b1), json!({ "action": "offer" }), 200);
    let end = api.post(draw, &g1, Some(&w1), json!({ "action": "accept" }), 200);
    assert_eq!(end["result"], "1/2-1/2", "{end}");
    api.state(&g1);
    api.post(draw, &g1, Some(&w1), json!({ "action": "offer" }), 409);
    api.post(moves, &g1, Some(&w1), json!({ "move": "d2d4" }), 409);
    api.post(takeback, &g1, Some(&w1), json!({ "action": "propose" }), 409);
    api.call("POST", "/api/games/{id}/resign", &g1, Some(&w1), Body::None, 409);
    api.call("POST", "/api/games/{id}/abort", &g1, Some(&w1), Body::None, 409);
    api.post("/api/games/{id}/join", &g1, None, json!({}), 409);
    api.get("/api/games/{id}/odds", &g1, "", None, 400);
    api.get("/api/games/{id}/review", &g1, "", None, 200);
    // Kept: the second answer is the stored review.
    api.get("/api/games/{id}/review", &g1, "", None, 200);
    api.get("/api/games/{id}/review", "ffffffffffffffff", "", None, 404);
    let record = "/api/games/{id}/record";
    let pgn = api.get(record, &g1, "", None, 200);
    assert!(pgn.as_str().is_some_and(|t| t.contains("1/2-1/2")), "{pgn}");
    api.get(record, &g1, "?annotated=true", None, 200);
    api.get(record, &g1, "?foo=1", None, 400);
    api.get(record, &"f".repeat(65), "", None, 404);

    // Two people (an invitation): joining, the chat, no engine during the game, resigning.
    let (g2, w2, _, created) = api.create(json!({ "variant": "chess", "white": "me", "black": "invite" }));
    let code = created["black"]["invite"].as_str().unwrap_or_default().to_string();
    assert_eq!(api.state(&g2)["open_seat"], "black");
    let join = "/api/games/{id}/join";
    api.post(join, &g2, None, json!({ "code": "nope" }), 403);
    api.post(join, &g2, None, json!({}), 403);
    api.post(join, &g2, None, json!({ "code": 5 }), 422);
    api.post(join, "ffffffffffffffff", None, json!({ "code": code }), 404);
    api.bad_bodies(join, &g2, None);
    let joined = api.post(join, &g2, None, json!({ "code": code }), 200);
    let b2 = joined["token"].as_str().unwrap_or_default().to_string();
    api.post(join, &g2, None, json!({ "code": code }), 403);
    api.post(analyse, &g2, None, json!({}), 409);
    let chat = "/api/games/{id}/chat";
    api.post(chat, &g2, Some(&w2), json!({ "text": "good luck" }), 200);
    api.post(chat, &g2, Some(&w2), json!({ "text": "and again" }), 429);
    api.post(chat, &g2, Some(&b2), json!({ "text": "  \u{200b} " }), 400);
    // The limit counts the cleaned text: 140 characters between spaces that go pass.
    api.post(chat, &g2, Some(&b2), json!({ "text": format!("   {}   ", "x".repeat(140)) }), 200);
    api.bad_tokens("POST", chat, &g2, &w2, json!({ "text": "hello" }));
    api.bad_bodies(chat, &g2, Some(&b2));
    let read = api.get(chat, &g2, "", Some(&b2), 200);
    assert_eq!(read["messages"].as_array().map(Vec::len), Some(2), "{read}");
    api.get(chat, &g2, "?after=1", Some(&w2), 200);
    api.get(chat, &g2, "?after=x", Some(&w2), 400);
    api.bad_tokens("GET", chat, &g2, &w2, Value::Null);
    api.post(moves, &g2, Some(&w2), json!({ "move": "e2e4" }), 200);
    api.post(moves, &g2, Some(&b2), json!({ "move": "c7c5" }), 200);
    let resign = "/api/games/{id}/resign";
    api.call("POST", resign, &g2, Some(&w2), Body::Json(json!({ "please": true })), 400);
    api.call("POST", resign, &g2, Some(&w2), malformed(), 400);
    api.call("POST", resign, &g2, Some(&w2), too_large(), 413);
    api.bad_tokens("POST", resign, &g2, &w2, json!({}));
    let r = api.call("POST", resign, &g2, Some(&b2), Body::Raw("application/json", "{}".into()), 200);
    assert_eq!(r["result"], "1-0", "{r}");
    api.state(&g2);
    // The operator ends an abandoned game.
    let (g4, w4, _, _) = api.create(json!({ "variant": "chess", "white": "me", "black": "invite" }));
    let end = "/api/admin/games/{id}/end";
    api.bad_tokens("POST", end, &g4, OPERATOR, json!({ "result": "*" }));
    api.post(end, &g4, Some(&w4), json!({ "result": "1-0" }), 403);
    api.bad_bodies(end, &g4, Some(OPERATOR));
    api.post(end, &g4, Some(OPERATOR), json!({ "result": "2-0" }), 400);
    let st = api.post(end, &g4, Some(OPERATOR), json!({ "result": "1/2-1/2" }), 200);
    assert_eq!((st["result"].as_str(), st["reason"].as_str()), (Some("1/2-1/2"), Some("adjudication")), "{st}");
    api.post(end, &g4, Some(OPERATOR), json!({ "result": "*" }), 409);
    // The operator deletes a game once it is over.
    let (g5, w5, _, _) = api.create(json!({ "variant": "chess", "white": "me", "black": "invite" }));
    let delete = "/api/admin/games/{id}";
    api.call("DELETE", delete, &g5, Some(OPERATOR), Body::None, 409);
    api.call("DELETE", delete, &g5, None, Body::None, 401);
    api.call("DELETE", delete, &g5, Some(&w5), Body::None, 403);
    api.post(end, &g5, Some(OPERATOR), json!({ "result": "*" }), 200);
    api.call("DELETE", delete, &g5, Some(OPERATOR), Body::Raw("application/json", "{\"x\": 1}".into()), 400);
    let gone = api.call("DELETE", delete, &g5, Some(OPERATOR), Body::None, 200);
    assert_eq!(gone["deleted"], json!(g5), "{gone}");
    api.call("DELETE", delete, &g5, Some(OPERATOR), Body::None, 404);
    // Its rematch: offered, declined, offered again, accepted; each player's seat in it.
    let rematch = "/api/games/{id}/rematch";
    api.post(rematch, &g2, Some(&w2), json!({ "action": "accept" }), 409);
    api.post(rematch, &g2, Some(&w2), json!({ "action": "offer" }), 200);
    api.state(&g2);
    api.post(rematch, &g2, Some(&w2), json!({ "action": "offer" }), 409);
    api.post(rematch, &g2, Some(&b2), json!({ "action": "decline" }), 200);
    api.post(rematch, &g2, Some(&b2), json!({ "action": "nope" }), 400);
    api.bad_tokens("POST", rematch, &g2, &w2, json!({ "action": "offer" }));
    api.bad_bodies(rematch, &g2, Some(&w2));
    api.post(rematch, &g2, Some(&b2), json!({ "action": "offer" }), 200);
    let made = api.post(rematch, &g2, Some(&w2), json!({ "action": "accept" }), 200);
    assert_eq!(made["color"], "black", "{made}");
    api.post(rematch, &g2, Some(&b2), json!({ "action": "accept" }), 200);
    api.state(&g2);
    api.post(rematch, "ffffffffffffffff", Some(&w2), json!({ "action": "offer" }), 404);

    // A seat open to anyone.
    let (g3, w3, _, _) = api.create(json!({ "variant": "chess", "white": "me", "black": "open" }));
    api.get("/api/games", "", "", None, 200);
    api.state(&g3);
    api.post(join, &g3, None, json!({ "code": null }), 200);
    // Aborting it before anyone moved, and the refusals.
    let abort = "/api/games/{id}/abort";
    api.call("POST", abort, &g3, Some(&w3), Body::Json(json!({ "please": true })), 400);
    api.call("POST", abort, &g3, Some(&w3), too_large(), 413);
    api.bad_tokens("POST", abort, &g3, &w3, json!({}));
    api.call("POST", abort, &g3, Some(&w3), Body::None, 200);
    api.state(&g3);
    api.get("/api/games/{id}/review", &g3, "", None, 409);
    // A review with judgements and a mate: the imported fool's mate.
    let r = api.get("/api/games/{id}/review", &mated, "", None, 200);
    assert_eq!(r["moves"][2]["judgement"], "blunder", "{r}");

    // Against the AI: a takeback at once, no draw offers, no chat, no review while it is on.
    let (g4, w4, _, _) = api.create(json!({ "variant": "chess", "white": "me", "black": "ai", "movetime_ms": 10 }));
    api.post(moves, &g4, Some(&w4), json!({ "move": "d2d4", "ply": 0 }), 200);
    wait_for_ai(&api, &g4, 2);
    let t = api.post(takeback, &g4, Some(&w4), json!({ "action": "propose" }), 200);
    assert_eq!(t["taken_back"], 2, "{t}");
    api.post(draw, &g4, Some(&w4), json!({ "action": "offer" }), 400);
    api.post(chat, &g4, Some(&w4), json!({ "text": "hello" }), 400);
    api.get("/api/games/{id}/review", &g4, "", None, 409);
    api.get(record, &g4, "?annotated=true", None, 409);
    api.post(analyse, &g4, None, json!({ "movetime_ms": 10 }), 200);

    // Clocks: the clock and the first move's deadline in the state and the move's reply.
    let (g5, w5, _, _) = api.create(
        json!({ "variant": "chess", "white": "me", "black": "me", "clock_seconds": 60, "increment_seconds": 1 }),
    );
    let st = api.state(&g5);
    assert!(st["clock"].is_object() && st["first_move"].is_object(), "{st}");
    let m = api.post(moves, &g5, Some(&w5), json!({ "move": "e2e4" }), 200);
    assert!(m["clock"].is_object(), "{m}");
    api.post(takeback, &g5, Some(&w5), json!({ "action": "propose" }), 400);
    api.post(games, "", None, json!({ "variant": "chess", "white": "me", "black": "me", "increment_seconds": 1 }), 400);

    // SnowFall: the live odds.
    let (g6, w6, b6, _) = api.create(json!({ "variant": "snowfall", "white": "me", "black": "me", "snowfall": 17 }));
    let odds = "/api/games/{id}/odds";
    api.get(odds, &g6, "", None, 200);
    api.get(odds, "ffffffffffffffff", "", None, 404);
    api.post(moves, &g6, Some(&w6), json!({ "move": "e2e4" }), 200);
    api.post(moves, &g6, Some(&b6), json!({ "move": "e7e5" }), 200);
    api.get(odds, &g6, "", None, 200);
    api.call("POST", resign, &g6, Some(&w6), Body::None, 200);
    api.get(odds, &g6, "", None, 409);
    // A review with chance: each move's luck.
    let r = api.get("/api/games/{id}/review", &g6, "", None, 200);
    assert!(r["sides"]["white"]["luck"].is_number(), "{r}");

    // Predictor chess: members, checks, commitments, reveals.
    use rules::Color::{Black, White};
    let (p1, pw, pb, _) = api.create(json!({ "variant": "predictor", "white": "me", "black": "me" }));
    api.state(&p1);
    let members = "/api/games/{id}/members";
    let m = api.post(members, &p1, Some(&pw), json!({ "name": "bo", "rank": 2 }), 200);
    let bo = m["token"].as_str().unwrap_or_default().to_string();
    api.post(members, &p1, Some(&bo), json!({ "name": "cy", "rank": 3 }), 403);
    api.post(members, &p1, Some(&pw), json!({ "name": "bo", "rank": 3 }), 409);
    api.post(members, &p1, Some(&pw), json!({ "name": "no spaces", "rank": 3 }), 400);
    api.post(members, &p1, Some(&pw), json!({ "name": "cy", "rank": "3" }), 422);
    api.bad_tokens("POST", members, &p1, &pw, json!({ "name": "cy", "rank": 3 }));
    api.bad_bodies(members, &p1, Some(&pw));
    let check = "/api/games/{id}/orders/check";
    let c = api.post(check, &p1, Some(&bo), json!({ "orders": "E2E4  if e7e5 then H2H3" }), 200);
    assert_eq!(c["valid"], true, "{c}");
    // The document's example orders are valid at the start (its first example was not: a
    // knight's response crossed g2).
    for example in api.examples(check) {
        let c = api.post(check, &p1, Some(&bo), example, 200);
        assert_eq!(c["valid"], true, "{c}");
    }
    let c = api.post(check, &p1, Some(&pb), json!({ "orders": "e7e5 if" }), 200);
    assert_eq!(c["valid"], false, "{c}");
    api.post(check, &p1, Some(&pb), json!({ "orders": "e".repeat(300) }), 400);
    api.bad_tokens("POST", check, &p1, &pw, json!({ "orders": "e2e4" }));
    api.bad_bodies(check, &p1, Some(&pw));
    let commit = "/api/games/{id}/commit";
    let reveal = "/api/games/{id}/reveal";
    let (wc, wr) = seal(&p1, 1, White, "e2e4");
    let (bc, br) = seal(&p1, 1, Black, "e7e5");
    api.post(commit, &p1, Some(&pw), json!({ "ply": 2, "commitment": wc }), 409);
    api.post(commit, &p1, Some(&pw), json!({ "ply": 1, "commitment": "xyz" }), 400);
    api.post(commit, &p1, Some(&pw), json!({ "ply": -1, "commitment": wc }), 422);
    api.bad_tokens("POST", commit, &p1, &pw, json!({ "ply": 1, "commitment": wc }));
    api.bad_bodies(commit, &p1, Some(&pw));
    // The member commits first; the captain outranks him.
    let (oc, or) = seal(&p1, 1, White, "d2d4");
    let r = api.post(commit, &p1, Some(&bo), json!({ "ply": 1, "commitment": oc }), 200);
    assert_eq!(r["closed"], false, "{r}");
    api.post(commit, &p1, Some(&pw), json!({ "ply": 1, "commitment": wc }), 200);
    // The same again (a retry) is answered as the first; another is refused.
    api.post(commit, &p1, Some(&pw), json!({ "ply": 1, "commitment": wc }), 200);
    api.post(commit, &p1, Some(&pw), json!({ "ply": 1, "commitment": oc }), 409);
    api.post(reveal, &p1, Some(&pw), json!({ "reveal": wr }), 409);
    api.bad_tokens("POST", reveal, &p1, &pw, json!({ "reveal": wr }));
    api.bad_bodies(reveal, &p1, Some(&pw));
    api.post(commit, &p1, Some(&pb), json!({ "ply": 1, "commitment": bc }), 200);
    api.state(&p1);
    api.post(reveal, &p1, Some(&pb), json!({ "reveal": wr }), 400);
    api.post(reveal, &p1, Some(&bo), json!({ "reveal": or }), 403);
    api.post(reveal, &p1, Some(&pw), json!({ "reveal": "predictor-reveal v1" }), 400);
    let r = api.post(reveal, &p1, Some(&pw), json!({ "reveal": wr }), 200);
    assert_eq!(r["resolved"], false, "{r}");
    let r = api.post(reveal, &p1, Some(&pb), json!({ "reveal": br }), 200);
    assert_eq!(r["resolved"], true, "{r}");
    api.state(&p1);
    api.get(chat, &p1, "", Some(&bo), 403);
    api.get(chat, &p1, "", Some(&pw), 200);
    api.get("/api/games/{id}/review", &p1, "", None, 400);
    api.post(analyse, &p1, None, json!({}), 400);
    api.post(moves, &p1, Some(&pw), json!({ "move": "e4e5" }), 400);
    api.post(draw, &p1, Some(&bo), json!({ "action": "offer" }), 403);
    api.post(draw, &p1, Some(&pw), json!({ "action": "offer" }), 200);
    assert_eq!(api.state(&p1)["draw_offer"], "white");
    api.post(draw, &p1, Some(&pb), json!({ "action": "decline" }), 200);
    api.post(takeback, &p1, Some(&pw), json!({ "action": "propose" }), 400);
    api.get(record, &p1, "", None, 200);
    // A member resigning for the side: refused (403), or served by a server before that rule.
    api.call_any("POST", resign, &p1, "", Some(&bo), Body::None, &[200, 403]);
    // Illegal committed orders: the reveal forfeits the game (200, with the result).
    let (p2, qw, qb, _) =
        api.create(json!({ "variant": "predictor", "white": "me", "black": "me", "ply_seconds": 600 }));
    let (wc, wr) = seal(&p2, 1, White, "e4e6");
    let (bc, _) = seal(&p2, 1, Black, "e7e5");
    api.post(commit, &p2, Some(&qw), json!({ "ply": 1, "commitment": wc }), 200);
    let r = api.post(commit, &p2, Some(&qb), json!({ "ply": 1, "commitment": bc }), 200);
    assert_eq!(r["closed"], true, "{r}");
    let r = api.post(reveal, &p2, Some(&qw), json!({ "reveal": wr }), 200);
    assert_eq!(r["reason"], "forfeit", "{r}");
    api.state(&p2);
    api.post(commit, &p2, Some(&qw), json!({ "ply": 2, "commitment": wc }), 409);
    // Predictor's requests on a game of another variant.
    api.post(members, &g5, Some(&w5), json!({ "name": "cy", "rank": 2 }), 400);
    api.post(check, &g5, Some(&w5), json!({ "orders": "e2e4" }), 400);
    api.post(commit, &g5, Some(&w5), json!({ "ply": 1, "commitment": wc }), 400);
    api.post(reveal, &g5, Some(&w5), json!({ "reveal": wr }), 400);

    // The analysis board.
    let explorer = "/api/explorer";
    api.get(explorer, "", "?variant=chess", None, 200);
    api.get(explorer, "", "?variant=chess&play=e2e4&players=people", None, 200);
    api.get(explorer, "", "?variant=chess&players=robots", None, 400);
    api.get(explorer, "", "?variant=nope", None, 400);
    let position = "/api/position";
    api.get(position, "", "?variant=chess&play=e2e4,e7e5", None, 200);
    let line = api.get(position, "", &format!("?variant=chess&fen={}", KRK.replace(' ', "%20")), None, 200);
    assert!(line["tablebase"].is_object(), "{line}");
    api.get(position, "", "?variant=chess&play=f2f3,e7e5,g2g4,d8h4", None, 200);
    api.get(position, "", "?variant=chess&play=f2f3,e7e5,g2g4,d8h4,a2a3", None, 400);
    api.get(position, "", "?variant=predictor", None, 400);
    api.get(position, "", "?variant=chess&depth=3", None, 400);
    api.post(position, "", None, json!({ "pgn": "[Variant \"crazyhouse\"]\n\n1. e4 d5 2. exd5 Qxd5 *" }), 200);
    let lines = api.post(position, "", None, json!({ "pgn": "1. e4 e5 (1... c5 2. Nf3) (1... e6 2. Kxe8) *" }), 200);
    assert_eq!(
        (lines["variations"][0]["parts"].as_u64(), lines["unread_variations"].as_array().map(Vec::len)),
        (Some(1), Some(1))
    );
    let pgn = "/api/position/pgn";
    let sides = json!([{ "parts": 1, "play": "e7e5,g1f3" }, { "parts": 3, "play": "b8c6" }]);
    let written = api.post(
        pgn,
        "",
        None,
        json!({ "variant": "chess", "fen": null, "play": "e2e4,c7c5,g1f3,d7d6", "variations": sides }),
        200,
    );
    assert!(
        written["pgn"].as_str().is_some_and(|t| t.contains("1. e4 c5 (1... e5 2. Nf3) 2. Nf3 d6 (2... Nc6) *")),
        "{written}"
    );
    api.post(pgn, "", None, json!({ "variant": "chess" }), 200);
    // A record's tags, comments and NAGs, read and written.
    let annotated = api.post(
        position,
        "",
        None,
        json!({ "pgn": "[White \"A\"]\n\n{start} 1. e4! {best} e5 ({or} 1... c5 $5) *" }),
        200,
    );
    assert_eq!(annotated["notes"].as_array().map(Vec::len), Some(2), "{annotated}");
    let written = api.post(
        pgn,
        "",
        None,
        json!({ "variant": "chess", "play": "e2e4,e7e5", "variations": [{ "parts": 1, "play": "c7c5" }],
                "tags": annotated["tags"], "comment": annotated["comment"], "notes": annotated["notes"] }),
        200,
    );
    assert!(
        written["pgn"].as_str().is_some_and(|t| t.contains("{start} 1. e4 $1 {best} 1... e5 ({or} 1... c5 $5) *")),
        "{written}"
    );
    api.post(pgn, "", None, json!({ "variant": "chess", "play": "e2e4", "notes": [{ "ply": 1 }] }), 400);
    api.post(pgn, "", None, json!({ "variant": "chess", "play": "e2e4", "notes": [{ "ply": 0, "nags": [-1] }] }), 422);
    api.post(
        pgn,
        "",
        None,
        json!({ "variant": "chess", "play": "e2e4", "variations": [{ "parts": 3, "play": "" }] }),
        400,
    );
    api.post(pgn, "", None, json!({ "variant": "chess", "variations": [{ "parts": 0 }] }), 422);
    api.bad_bodies(pgn, "", None);
    api.post(position, "", None, json!({ "pgn": "1. e4 e9 *" }), 400);
    api.post(position, "", None, json!({ "pgn": "1. f3 e5 2. g4 Qh4# 3. a3" }), 400);
    api.post(position, "", None, json!({ "pgn": 5 }), 422);
    api.bad_bodies(position, "", None);
    let analyse_line = "/api/analyse";
    let a = api.post(
        analyse_line,
        "",
        None,
        json!({ "variant": "chess", "fen": null, "play": "e2e4", "movetime_ms": 10, "lines": 2 }),
        200,
    );
    assert_eq!(a["ply"], 1, "{a}");
    api.post(analyse_line, "", None, json!({ "variant": "chess", "fen": KRK, "movetime_ms": 10 }), 200);
    api.post(analyse_line, "", None, json!({ "variant": "chess", "play": "f2f3,e7e5,g2g4,d8h4" }), 409);
    api.post(analyse_line, "", None, json!({ "variant": "nope" }), 400);
    api.post(analyse_line, "", None, json!({ "variant": "chess", "lines": 6 }), 400);
    api.post(analyse_line, "", None, json!({ "fen": KRK }), 422);
    api.bad_bodies(analyse_line, "", None);
    let odds_of = "/api/odds";
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1".replace(' ', "%20");
    api.get(odds_of, "", &format!("?fen={start}&snowfall=20"), None, 200);
    api.get(odds_of, "", &format!("?fen={start}&snowfall=101"), None, 400);
    api.get(odds_of, "", "?fen=nonsense", None, 400);
    let mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR[] w KQkq - 1 3".replace(' ', "%20");
    api.get(odds_of, "", &format!("?fen={mated}"), None, 409);

    // More analyses at once than the analysis worker and its queue take: the rest are refused
    // (503, with Retry-After) rather than queued without end.
    let burst: Vec<std::thread::JoinHandle<Result<Reply, String>>> = (0..8)
        .map(|_| {
            let base = api.server.base.clone();
            std::thread::spawn(move || {
                let body = json!({ "variant": "chess", "play": "e2e4", "movetime_ms": 200 });
                send(&base, "POST", analyse_line, None, Body::Json(body))
            })
        })
        .collect();
    for t in burst {
        let sent = json!({ "variant": "chess", "play": "e2e4", "movetime_ms": 200 });
        match t.join().expect("the request's thread") {
            Ok(reply) => {
                api.check("POST", analyse_line, "POST /api/analyse (burst)", &reply, Some(&sent), &[200, 503]);
            }
            Err(e) => api.fail(format!("POST /api/analyse (burst): {e}")),
        }
    }

    // Games that do not exist.
    for path in ["/api/games/{id}", odds, record] {
        api.get(path, "ffffffffffffffff", "", None, 404);
    }

    // Every documented operation was called and answered with a success at least once; the
    // statuses documented but not brought about here are listed.
    let mut failures = api.failures.borrow().clone();
    let seen = api.seen.borrow();
    let mut unseen = Vec::new();
    for (path, ops) in api.spec["paths"].as_object().expect("paths") {
        for (method, op) in ops.as_object().expect("operations") {
            let got = seen.get(&(method.clone(), path.clone())).cloned().unwrap_or_default();
            if !got.iter().any(|s| (200..300).contains(s)) {
                failures.push(format!("{} {path}: never answered with a success here", method.to_uppercase()));
            }
            for status in op["responses"].as_object().expect("responses").keys() {
                if !got.iter().any(|s| &s.to_string() == status) {
                    unseen.push(format!("{} {path} {status}", method.to_uppercase()));
                }
            }
        }
    }
    eprintln!("documented statuses not brought about by this test: {unseen:#?}");
    eprintln!("took {:?}", started.elapsed());
    assert!(failures.is_empty(), "{} mismatches with docs/openapi.json:\n{}", failures.len(), failures.join("\n"));
}
