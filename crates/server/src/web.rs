//! The web page: plain ES modules, CSS and the vendored chessgroundx, embedded in the
//! binary from `crates/server/web` and served under `/static/`, with the page itself at `/`.
//!
//! Nothing is built at run time; `scripts/vendor_web.sh` refreshes the vendored files.

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

#[derive(rust_embed::Embed)]
#[folder = "web/"]
struct Files;

/// A file of the page, with its content type; the page (`index.html`) for `/` and the game URLs.
fn file(path: &str) -> Response {
    match Files::get(path) {
        Some(f) => {
            let mime = f.metadata.mimetype().to_string();
            // The files change only with the binary: cache them briefly, revalidate by ETag.
            let etag = format!("\"{}\"", hex::encode(&f.metadata.sha256_hash()[..8]));
            (
                [(header::CONTENT_TYPE, mime), (header::CACHE_CONTROL, "no-cache".into()), (header::ETAG, etag)],
                f.data.into_owned(),
            )
                .into_response()
        }
        None => (StatusCode::NOT_FOUND, axum::Json(serde_json::json!({ "error": "no such file" }))).into_response(),
    }
}

/// `GET /` and `GET /game/{id}`: the page (it routes by its URL).
pub async fn page() -> Response {
    file("index.html")
}

/// `GET /static/{*path}`.
pub async fn asset(Path(path): Path<String>) -> Response {
    if path.split('/').any(|p| p == ".." || p.is_empty()) {
        return (StatusCode::NOT_FOUND, axum::Json(serde_json::json!({ "error": "no such file" }))).into_response();
    }
    file(&path)
}
